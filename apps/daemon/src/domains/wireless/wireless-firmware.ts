import { createHash, createHmac, createPublicKey, randomBytes, randomUUID, timingSafeEqual, verify, type KeyObject } from 'node:crypto';
import { createWriteStream, existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { Transform, type Readable } from 'node:stream';
import type { Db, ModuleMigration } from '../../plugins/db-open.js';

/**
 * AP firmware images (spec §2 /wirelessmanage/firmware, §7 ac/firmware). An image is kept
 * only when its signature verifies against one of the signing keys the administrator trusts:
 * Ed25519 (RFC 8032) over the image's SHA-256 digest, base64, the scheme the AP agent checks
 * again before it flashes. Devices fetch an image through a link that names the device and
 * expires, signed with a key of this daemon run.
 */
export const WIRELESS_FIRMWARE_MIGRATIONS: ModuleMigration[] = [
  {
    name: 'firmware images and signing keys',
    sql: `CREATE TABLE wireless_firmware_keys (
        id TEXT PRIMARY KEY,
        name TEXT NOT NULL,
        public_key TEXT NOT NULL,
        fingerprint TEXT NOT NULL UNIQUE,
        added_at INTEGER NOT NULL
      );
      CREATE TABLE wireless_firmware (
        id TEXT PRIMARY KEY,
        model TEXT NOT NULL,
        version TEXT NOT NULL,
        size INTEGER NOT NULL,
        sha256 TEXT NOT NULL,
        signature TEXT NOT NULL,
        key_id TEXT NOT NULL,
        uploaded_at INTEGER NOT NULL,
        UNIQUE (model, version)
      );`,
  },
];

/** Largest image accepted (OpenWrt AP images are 8-32 MB). */
export const FIRMWARE_MAX_BYTES = 128 * 1024 * 1024;
/** How long a device's download link works. */
export const FIRMWARE_LINK_MS = 30 * 60_000;

/** Why an upload or a key was refused; the console shows `msg.firmware.<code>`. */
export type FirmwareRefusal = 'keyInvalid' | 'keyExists' | 'signatureInvalid' | 'notSigned' | 'tooLarge' | 'exists' | 'inUse' | 'notFound';

export class FirmwareRefused extends Error {
  constructor(readonly code: FirmwareRefusal) {
    super(`firmware refused: ${code}`);
  }
}

export interface FirmwareKey {
  id: string;
  name: string;
  fingerprint: string;
  addedAt: number;
}

export interface FirmwareImage {
  id: string;
  model: string;
  version: string;
  size: number;
  sha256: string;
  signature: string;
  keyId: string;
  uploadedAt: number;
}

/** Counts bytes and hashes them as they stream by; stops past the limit. */
function digesting(limit: number): Transform & { digest(): Buffer; size(): number } {
  const hash = createHash('sha256');
  let size = 0;
  const stream = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      size += chunk.length;
      if (size > limit) return done(new FirmwareRefused('tooLarge'));
      hash.update(chunk);
      done(null, chunk);
    },
  }) as Transform & { digest(): Buffer; size(): number };
  let digest: Buffer | null = null;
  stream.digest = () => (digest ??= hash.digest());
  stream.size = () => size;
  return stream;
}

export class WirelessFirmwareStore {
  /** Signs device download links; a new one each run, links live 30 minutes. */
  private readonly linkKey = randomBytes(32);

  constructor(
    private readonly db: Db,
    readonly dir: string,
    private readonly now: () => number,
  ) {}

  keys(): FirmwareKey[] {
    return (this.db.prepare('SELECT id, name, fingerprint, added_at FROM wireless_firmware_keys ORDER BY added_at').all() as Array<{
      id: string;
      name: string;
      fingerprint: string;
      added_at: number;
    }>).map((k) => ({ id: k.id, name: k.name, fingerprint: k.fingerprint, addedAt: k.added_at }));
  }

  /** Trusts an Ed25519 public key (PEM, SPKI). */
  addKey(name: string, pem: string): FirmwareKey {
    let key: KeyObject;
    try {
      key = createPublicKey(pem);
    } catch {
      throw new FirmwareRefused('keyInvalid');
    }
    if (key.asymmetricKeyType !== 'ed25519') throw new FirmwareRefused('keyInvalid');
    const spki = key.export({ type: 'spki', format: 'der' });
    const fingerprint = createHash('sha256').update(spki).digest('hex');
    if (this.db.prepare('SELECT 1 FROM wireless_firmware_keys WHERE fingerprint = ?').get(fingerprint)) throw new FirmwareRefused('keyExists');
    const record = { id: randomUUID(), name, fingerprint, addedAt: this.now() };
    this.db
      .prepare('INSERT INTO wireless_firmware_keys (id, name, public_key, fingerprint, added_at) VALUES (?, ?, ?, ?, ?)')
      .run(record.id, name, key.export({ type: 'spki', format: 'pem' }).toString(), fingerprint, record.addedAt);
    return record;
  }

  removeKey(id: string): boolean {
    if (this.db.prepare('SELECT 1 FROM wireless_firmware WHERE key_id = ?').get(id)) throw new FirmwareRefused('inUse');
    return this.db.prepare('DELETE FROM wireless_firmware_keys WHERE id = ?').run(id).changes > 0;
  }

  images(): FirmwareImage[] {
    return (this.db.prepare('SELECT * FROM wireless_firmware ORDER BY model, uploaded_at DESC').all() as Array<Record<string, unknown>>).map(imageOf);
  }

  image(id: string): FirmwareImage | undefined {
    const row = this.db.prepare('SELECT * FROM wireless_firmware WHERE id = ?').get(id) as Record<string, unknown> | undefined;
    return row ? imageOf(row) : undefined;
  }

  imageFor(model: string, version: string): FirmwareImage | undefined {
    const row = this.db.prepare('SELECT * FROM wireless_firmware WHERE model = ? AND version = ?').get(model, version) as Record<string, unknown> | undefined;
    return row ? imageOf(row) : undefined;
  }

  /**
   * Streams an uploaded image to disk while hashing it, then keeps it only if the signature
   * verifies with a trusted key. Nothing of a refused upload is left behind.
   */
  async addImage(meta: { model: string; version: string; signature: string }, file: Readable): Promise<FirmwareImage> {
    if (this.imageFor(meta.model, meta.version)) throw new FirmwareRefused('exists');
    const signature = Buffer.from(meta.signature, 'base64');
    if (signature.length !== 64) throw new FirmwareRefused('notSigned');
    mkdirSync(this.dir, { recursive: true, mode: 0o750 });
    const temp = join(this.dir, `upload-${randomUUID()}.part`);
    const counter = digesting(FIRMWARE_MAX_BYTES);
    try {
      await pipeline(file, counter, createWriteStream(temp, { mode: 0o640 }));
      const digest = counter.digest();
      const keys = this.db.prepare('SELECT id, public_key FROM wireless_firmware_keys').all() as Array<{ id: string; public_key: string }>;
      const signer = keys.find((k) => verify(null, digest, createPublicKey(k.public_key), signature));
      if (!signer) throw new FirmwareRefused('signatureInvalid');
      const sha256 = digest.toString('hex');
      renameSync(temp, this.pathOf(sha256));
      const image: FirmwareImage = { id: randomUUID(), ...meta, size: counter.size(), sha256, keyId: signer.id, uploadedAt: this.now() };
      this.db
        .prepare('INSERT INTO wireless_firmware (id, model, version, size, sha256, signature, key_id, uploaded_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)')
        .run(image.id, image.model, image.version, image.size, image.sha256, image.signature, image.keyId, image.uploadedAt);
      return image;
    } finally {
      rmSync(temp, { force: true });
    }
  }

  removeImage(id: string): boolean {
    const image = this.image(id);
    if (!image) return false;
    this.db.prepare('DELETE FROM wireless_firmware WHERE id = ?').run(id);
    const shared = this.db.prepare('SELECT 1 FROM wireless_firmware WHERE sha256 = ?').get(image.sha256);
    if (!shared) rmSync(this.pathOf(image.sha256), { force: true });
    return true;
  }

  pathOf(sha256: string): string {
    return join(this.dir, `${sha256}.bin`);
  }

  /** The query of a device's download link for an image: who, what, until when, signed. */
  linkToken(serial: string, sha256: string): string {
    const expires = this.now() + FIRMWARE_LINK_MS;
    const mac = createHmac('sha256', this.linkKey).update(`${serial}:${sha256}:${expires}`).digest('base64url');
    return `serial=${serial}&expires=${expires}&token=${mac}`;
  }

  /** Whether a download link is genuine and current; the image file when it is. */
  checkLink(sha256: string, serial: string, expires: number, token: string): string | null {
    if (!/^[0-9a-f]{64}$/.test(sha256) || !Number.isSafeInteger(expires) || expires < this.now()) return null;
    const want = createHmac('sha256', this.linkKey).update(`${serial}:${sha256}:${expires}`).digest();
    const got = Buffer.from(token, 'base64url');
    if (got.length !== want.length || !timingSafeEqual(got, want)) return null;
    const path = this.pathOf(sha256);
    return existsSync(path) ? path : null;
  }
}

function imageOf(row: Record<string, unknown>): FirmwareImage {
  return {
    id: String(row.id),
    model: String(row.model),
    version: String(row.version),
    size: Number(row.size),
    sha256: String(row.sha256),
    signature: String(row.signature),
    keyId: String(row.key_id),
    uploadedAt: Number(row.uploaded_at),
  };
}
