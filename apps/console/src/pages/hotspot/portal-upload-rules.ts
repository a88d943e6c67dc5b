import { imageHeader, UPLOAD_FILE_NAME, UPLOAD_LIMITS } from '@portico/schema';

export { imageHeader };

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
