import { imageHeader, type ImageHeader } from '@portico/schema';

/** Image checks of portal uploads: the schema's header reader (the console runs the same one). */
export { IMAGE_MIME, type ImageType } from '@portico/schema';
export type ImageInfo = ImageHeader;

/** The image's type and size, or null when it is not a PNG, JPEG or GIF the reader can parse. */
export function imageInfo(data: Buffer): ImageInfo | null {
  return imageHeader(data);
}
