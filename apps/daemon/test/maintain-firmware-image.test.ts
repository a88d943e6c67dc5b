import { generateKeyPairSync } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import {
  compareVersions,
  firmwarePublicKey,
  FirmwareRefused,
  payloadParts,
  signFirmware,
  verifyFirmwareFile,
} from '../src/domains/maintain/maintain-firmware-image.js';
import { tempDir } from './daemon-harness.js';

const keys = generateKeyPairSync('ed25519');
const other = generateKeyPairSync('ed25519');
const payload = Buffer.alloc(300_000, 7);
payload.write('root file system of 2.0.0');
const MAX = 10 * 1024 * 1024;

function fileOf(content: Buffer): string {
  const file = join(tempDir('portico-fw-'), 'image.img');
  writeFileSync(file, content);
  return file;
}

async function refusal(content: Buffer, key = keys.publicKey, max = MAX): Promise<string> {
  try {
    await verifyFirmwareFile(fileOf(content), key, max);
  } catch (error) {
    if (error instanceof FirmwareRefused) return error.reason;
    throw error;
  }
  return 'accepted';
}

describe('signed firmware file', () => {
  test('a file signed with the device key verifies, with its version and payload place', async () => {
    const signed = signFirmware(payload, '2.0.0', keys.privateKey);
    const seen: number[] = [];
    const image = await verifyFirmwareFile(fileOf(signed), keys.publicKey, MAX, (n) => seen.push(n));
    expect(image.header).toMatchObject({ format: 1, version: '2.0.0', board: 'x86-64', size: payload.length });
    expect(signed.subarray(image.payloadOffset).equals(payload)).toBe(true);
    expect(seen.at(-1)).toBe(payload.length);
  });

  test('unsigned: a bare root file system is refused', async () => {
    expect(await refusal(payload)).toBe('unsigned');
    expect(await refusal(Buffer.alloc(0))).toBe('unsigned');
  });

  test('wrong key: signed by another key', async () => {
    expect(await refusal(signFirmware(payload, '2.0.0', other.privateKey))).toBe('signature');
  });

  test('tampered payload: one byte changed fails the digest', async () => {
    const signed = signFirmware(payload, '2.0.0', keys.privateKey);
    signed[signed.length - 1000] = signed[signed.length - 1000]! ^ 0x01;
    expect(await refusal(signed)).toBe('digest');
  });

  test('tampered header: a changed version fails the signature', async () => {
    const signed = signFirmware(payload, '2.0.0', keys.privateKey);
    const at = signed.indexOf('2.0.0');
    signed.write('9', at, 'latin1');
    expect(await refusal(signed)).toBe('signature');
  });

  test('tampered signature', async () => {
    const signed = signFirmware(payload, '2.0.0', keys.privateKey);
    const headerLength = signed.readUInt32BE(8);
    signed[12 + headerLength + 5] = signed[12 + headerLength + 5]! ^ 0xff;
    expect(await refusal(signed)).toBe('signature');
  });

  test('truncated: inside the payload, inside the header', async () => {
    const signed = signFirmware(payload, '2.0.0', keys.privateKey);
    expect(await refusal(signed.subarray(0, signed.length - 1))).toBe('truncated');
    expect(await refusal(signed.subarray(0, 40))).toBe('truncated');
    expect(await refusal(signed.subarray(0, 6))).toBe('unsigned');
  });

  test('bytes appended after the payload are refused', async () => {
    expect(await refusal(Buffer.concat([signFirmware(payload, '2.0.0', keys.privateKey), Buffer.from('x')]))).toBe('trailing');
  });

  test('an image for another board or over the size limit is refused', async () => {
    expect(await refusal(signFirmware(payload, '2.0.0', keys.privateKey, { board: 'mips' }))).toBe('board');
    expect(await refusal(signFirmware(payload, '2.0.0', keys.privateKey), keys.publicKey, 1000)).toBe('tooLarge');
  });

  test('a header length beyond the bound is refused before anything else is read', async () => {
    const signed = signFirmware(payload, '2.0.0', keys.privateKey);
    signed.writeUInt32BE(1 << 30, 8);
    expect(await refusal(signed)).toBe('header');
  });

  test('parts must add up to the payload and give each piece its offset', async () => {
    const parts = [
      { name: 'kernel' as const, size: 1000 },
      { name: 'initrd' as const, size: 2000 },
      { name: 'root' as const, size: payload.length - 3000 },
    ];
    const image = await verifyFirmwareFile(fileOf(signFirmware(payload, '2.0.0', keys.privateKey, { parts })), keys.publicKey, MAX);
    expect(payloadParts(image).map((p) => [p.name, p.offset - image.payloadOffset, p.size])).toEqual([
      ['kernel', 0, 1000],
      ['initrd', 1000, 2000],
      ['root', 3000, payload.length - 3000],
    ]);
    expect(() => signFirmware(payload, '2.0.0', keys.privateKey, { parts: [{ name: 'root', size: 5 }] })).toThrow();
  });

  test('a compressed part carries its unpacked size, and only together with its encoding', async () => {
    const parts = [
      { name: 'kernel' as const, size: 1000 },
      { name: 'root' as const, size: payload.length - 1000, encoding: 'gzip' as const, unpackedSize: 5_000_000 },
    ];
    const image = await verifyFirmwareFile(fileOf(signFirmware(payload, '2.0.0', keys.privateKey, { parts })), keys.publicKey, MAX);
    expect(payloadParts(image).map((p) => [p.name, p.size, p.unpackedSize])).toEqual([
      ['kernel', 1000, undefined],
      ['root', payload.length - 1000, 5_000_000],
    ]);
    expect(() => signFirmware(payload, '2.0.0', keys.privateKey, { parts: [{ name: 'root', size: payload.length, encoding: 'gzip' }] })).toThrow();
    expect(() => signFirmware(payload, '2.0.0', keys.privateKey, { parts: [{ name: 'root', size: payload.length, unpackedSize: 9 }] })).toThrow();
  });

  test('only an Ed25519 public key is taken as the firmware key', () => {
    expect(firmwarePublicKey(keys.publicKey.export({ type: 'spki', format: 'pem' })).asymmetricKeyType).toBe('ed25519');
    const rsa = generateKeyPairSync('rsa', { modulusLength: 1024 });
    expect(() => firmwarePublicKey(rsa.publicKey.export({ type: 'spki', format: 'pem' }))).toThrow(/Ed25519/);
  });

  test('versions compare by number, part by part', () => {
    expect(compareVersions('1.10.0', '1.9.9')).toBe(1);
    expect(compareVersions('1.0', '1.0.0')).toBe(0);
    expect(compareVersions('0.9', '1')).toBe(-1);
  });
});
