/**
 * Image checks of portal uploads: the type from the file's magic bytes (never its name or the
 * browser's claim) and the dimensions from its header, without decoding the pixels.
 */

export type ImageType = 'png' | 'jpeg' | 'gif';

export interface ImageInfo {
  type: ImageType;
  width: number;
  height: number;
}

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

function pngInfo(data: Buffer): ImageInfo | null {
  // The first chunk must be IHDR: length 13, then width and height as big-endian words.
  if (data.length < 24 || data.readUInt32BE(8) !== 13 || data.toString('latin1', 12, 16) !== 'IHDR') return null;
  return { type: 'png', width: data.readUInt32BE(16), height: data.readUInt32BE(20) };
}

function gifInfo(data: Buffer): ImageInfo | null {
  if (data.length < 10) return null;
  return { type: 'gif', width: data.readUInt16LE(6), height: data.readUInt16LE(8) };
}

/** Start-of-frame markers carry the size: SOF0-SOF15 except DHT (C4), JPG (C8) and DAC (CC). */
function isStartOfFrame(marker: number): boolean {
  return marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc;
}

function jpegInfo(data: Buffer): ImageInfo | null {
  let at = 2;
  while (at + 4 <= data.length) {
    if (data[at] !== 0xff) return null;
    const marker = data[at + 1]!;
    if (marker === 0xff) {
      at++;
      continue;
    }
    // Markers without a length.
    if (marker === 0xd8 || marker === 0x01 || (marker >= 0xd0 && marker <= 0xd7)) {
      at += 2;
      continue;
    }
    if (marker === 0xd9 || marker === 0xda) return null;
    const length = data.readUInt16BE(at + 2);
    if (length < 2) return null;
    if (isStartOfFrame(marker)) {
      if (at + 9 > data.length) return null;
      return { type: 'jpeg', height: data.readUInt16BE(at + 5), width: data.readUInt16BE(at + 7) };
    }
    at += 2 + length;
  }
  return null;
}

/** The image's type and size, or null when it is not a PNG, JPEG or GIF this reader can parse. */
export function imageInfo(data: Buffer): ImageInfo | null {
  if (data.length >= 8 && data.subarray(0, 8).equals(PNG_SIGNATURE)) return pngInfo(data);
  if (data.length >= 3 && data[0] === 0xff && data[1] === 0xd8 && data[2] === 0xff) return jpegInfo(data);
  const head = data.toString('latin1', 0, 6);
  if (head === 'GIF87a' || head === 'GIF89a') return gifInfo(data);
  return null;
}

export const IMAGE_MIME: Readonly<Record<ImageType, string>> = { png: 'image/png', jpeg: 'image/jpeg', gif: 'image/gif' };
