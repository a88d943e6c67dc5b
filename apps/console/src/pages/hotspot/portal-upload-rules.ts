import { UPLOAD_FILE_NAME, UPLOAD_LIMITS } from '@portico/schema';

/**
 * The checks the browser makes before a portal file is sent (spec §5 upload rules), so the
 * administrator learns at once why a file is refused. The daemon checks the same again with the
 * same limits (@portico/schema UPLOAD_LIMITS, UPLOAD_FILE_NAME).
 */

export const PORTAL_FILE_KINDS = ['picture', 'logo', 'custom'] as const;
export type PortalFileKind = (typeof PORTAL_FILE_KINDS)[number];

export const PORTAL_FILE_LIMITS: Readonly<Record<PortalFileKind, number>> = {
  picture: UPLOAD_LIMITS.portalPictureBytes,
  logo: UPLOAD_LIMITS.logoBytes,
  custom: UPLOAD_LIMITS.customPortalBytes,
};

/** What the file chooser offers; the real type is read from the file's first bytes. */
export const PORTAL_FILE_ACCEPT: Readonly<Record<PortalFileKind, string>> = {
  picture: 'image/png,image/jpeg,image/gif',
  logo: 'image/png,image/jpeg,image/gif',
  custom: '.zip,application/zip',
};

export type ImageType = 'png' | 'jpeg' | 'gif';
export interface ImageHeader {
  type: ImageType;
  width: number;
  height: number;
}

function u16be(b: Uint8Array, at: number): number {
  return (b[at]! << 8) | b[at + 1]!;
}

function u32be(b: Uint8Array, at: number): number {
  return ((b[at]! << 24) >>> 0) + (b[at + 1]! << 16) + (b[at + 2]! << 8) + b[at + 3]!;
}

const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

function jpegHeader(b: Uint8Array): ImageHeader | null {
  let at = 2;
  while (at + 4 <= b.length) {
    if (b[at] !== 0xff) return null;
    const marker = b[at + 1]!;
    if (marker === 0xff) {
      at++;
      continue;
    }
    if (marker === 0xd8 || marker === 0x01 || (marker >= 0xd0 && marker <= 0xd7)) {
      at += 2;
      continue;
    }
    if (marker === 0xd9 || marker === 0xda) return null;
    const length = u16be(b, at + 2);
    if (length < 2) return null;
    // Start-of-frame markers carry the size, except DHT (C4), JPG (C8) and DAC (CC).
    if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
      if (at + 9 > b.length) return null;
      return { type: 'jpeg', height: u16be(b, at + 5), width: u16be(b, at + 7) };
    }
    at += 2 + length;
  }
  return null;
}

/** Type and size of a PNG, JPEG or GIF from its first bytes; null for anything else. */
export function imageHeader(b: Uint8Array): ImageHeader | null {
  if (b.length >= 24 && PNG_SIGNATURE.every((byte, i) => b[i] === byte)) {
    const isIhdr = u32be(b, 8) === 13 && String.fromCharCode(b[12]!, b[13]!, b[14]!, b[15]!) === 'IHDR';
    return isIhdr ? { type: 'png', width: u32be(b, 16), height: u32be(b, 20) } : null;
  }
  if (b.length >= 3 && b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff) return jpegHeader(b);
  if (b.length >= 10) {
    const head = String.fromCharCode(...b.subarray(0, 6));
    if (head === 'GIF87a' || head === 'GIF89a') return { type: 'gif', width: b[6]! | (b[7]! << 8), height: b[8]! | (b[9]! << 8) };
  }
  return null;
}

/** A refusal: an i18n key of the hotspotUpload namespace and its values. */
export interface FileRefusal {
  key: string;
  values?: Record<string, string | number>;
}

/** Sizes as the administrator reads them: K is 1024, as in the spec's limits. */
export function kilobytes(bytes: number): number {
  return Math.ceil(bytes / 1024);
}

/**
 * Why the browser refuses a file before sending it, or null when it may go. `head` is the
 * start of the file: all of an image within its limit (a JPEG's size can sit after a long
 * EXIF block), the first bytes of an archive.
 */
export function checkPortalFile(kind: PortalFileKind, file: { name: string; size: number }, head: Uint8Array): FileRefusal | null {
  if (file.size === 0) return { key: 'hotspotUpload.check.empty' };
  if (!UPLOAD_FILE_NAME.test(file.name)) return { key: 'hotspotUpload.check.name' };
  const limit = PORTAL_FILE_LIMITS[kind];
  if (file.size > limit) return { key: 'hotspotUpload.check.tooLarge', values: { limit: kilobytes(limit), size: kilobytes(file.size) } };
  if (kind === 'custom') {
    const lower = file.name.toLowerCase();
    if (!UPLOAD_LIMITS.customPortalExtensions.some((ext) => lower.endsWith(ext))) return { key: 'hotspotUpload.check.zipOnly' };
    // Every zip archive starts with a local file header, "PK\3\4".
    const isZip = head.length >= 4 && head[0] === 0x50 && head[1] === 0x4b && head[2] === 0x03 && head[3] === 0x04;
    return isZip ? null : { key: 'hotspotUpload.check.zipDamaged' };
  }
  const image = imageHeader(head);
  if (!image || image.width === 0 || image.height === 0) return { key: 'hotspotUpload.check.imageType' };
  if (kind === 'logo' && (image.width !== UPLOAD_LIMITS.logoWidth || image.height !== UPLOAD_LIMITS.logoHeight)) {
    return {
      key: 'hotspotUpload.check.logoSize',
      values: { width: image.width, height: image.height, wantWidth: UPLOAD_LIMITS.logoWidth, wantHeight: UPLOAD_LIMITS.logoHeight },
    };
  }
  return null;
}

/** Reads the head of a chosen file and checks it. */
export async function checkChosenFile(kind: PortalFileKind, file: File): Promise<FileRefusal | null> {
  const headBytes = kind === 'custom' ? 4 : PORTAL_FILE_LIMITS[kind];
  const head = new Uint8Array(await file.slice(0, headBytes).arrayBuffer());
  return checkPortalFile(kind, file, head);
}
