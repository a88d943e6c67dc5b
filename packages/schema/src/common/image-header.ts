/**
 * Type and size of an uploaded image from its first bytes: the type from the magic bytes (never
 * the file's name or the browser's claim), the dimensions from the header, without decoding
 * pixels. The console checks a file with it before sending; the daemon checks it again.
 */

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

export const IMAGE_MIME: Readonly<Record<ImageType, string>> = { png: 'image/png', jpeg: 'image/jpeg', gif: 'image/gif' };
