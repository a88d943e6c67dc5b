import type { KeyObject } from 'node:crypto';

export interface FirmwarePartDescription {
  name: 'kernel' | 'initrd' | 'root';
  size: number;
  encoding?: 'gzip';
  unpackedSize?: number;
}
export interface FirmwareHeaderDescription {
  format: 1;
  version: string;
  board: string;
  size: number;
  sha256: string;
  parts: FirmwarePartDescription[];
}
export interface FirmwareManifest {
  version: string;
  board: string;
  url: string;
  size: number;
}
export interface PackedFirmware {
  file: string;
  header: FirmwareHeaderDescription;
  manifest: FirmwareManifest;
}
export declare const FIRMWARE_MAGIC: Buffer;
export declare const FIRMWARE_BOARD: string;
export declare function testVendorKey(dir?: string): { privateFile: string; publicFile: string };
export declare function vendorKey(file: string): KeyObject;
export declare function partitions(image: string): Record<string, { offset: number; size: number }>;
export declare function rootVersion(root: string, offset?: number): string;
export declare function packFirmware(options: {
  parts: { name: 'kernel' | 'initrd' | 'root'; file: string; offset?: number; size?: number; gzip?: boolean }[];
  version: string;
  privateKey: KeyObject;
  out: string;
  board?: string;
  gzipLevel?: number;
}): Promise<PackedFirmware>;
export declare function releaseFirmware(options: { image?: string; root?: string; key: string; out?: string; gzipLevel?: number }): Promise<PackedFirmware>;
