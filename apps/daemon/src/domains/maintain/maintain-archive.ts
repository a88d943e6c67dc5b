import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { promisify } from 'node:util';
import { gunzip, gunzipSync, gzipSync } from 'node:zlib';
import { pack as tarPack, extract as tarExtract } from 'tar-stream';
import { z } from 'zod';
import type { AnyEntity } from '@portico/schema';
import { redactRow, REDACTED } from '../../config/config-diff.js';
import type { ConfigRow, ConfigSnapshot, SnapshotRow } from '../../config/config-types.js';
import { archiveTag, PASSPHRASE_KDF, sameTag, type ArchiveKeys } from './maintain-keys.js';

/**
 * The configuration backup file: a gzip'd tar of five regular files.
 * - manifest.json: format, product, time, database schema version, entities, protection,
 *   how many hotspot accounts, voucher batches and vouchers the archive holds;
 * - config.json: every config_rows row, secrets left out;
 * - secrets.enc: the secrets, AES-256-GCM (iv, tag, ciphertext), the manifest as extra data;
 * - hotspot.enc: the hotspot's local accounts (password hashes), voucher batches, vouchers (code
 *   HMACs) and the key of those HMACs, gzip'd then sealed like secrets.enc; they live in their
 *   own tables, not in config_rows;
 * - signature: HMAC-SHA256 over the others, under a key of the same derivation.
 * Format 1 archives (before hotspot.enc) are still read: they restore the configuration only.
 * Reading refuses anything else before a byte of it is interpreted (see readArchive).
 */

export const BACKUP_FORMAT = 2;
export const BACKUP_PRODUCT = 'portico';
export const ARCHIVE_FILES = ['manifest.json', 'config.json', 'secrets.enc', 'hotspot.enc', 'signature'] as const;
type ArchiveFile = (typeof ARCHIVE_FILES)[number];
/** The entries every format has; hotspot.enc is there from format 2 on. */
const REQUIRED_FILES: readonly ArchiveFile[] = ['manifest.json', 'config.json', 'secrets.enc', 'signature'];
const HOTSPOT_FORMAT = 2;

/** Size limits of what a restore reads; a real configuration is far below them. */
export const ARCHIVE_LIMITS = {
  /** The uploaded (compressed) file: room for the hotspot part's sealed (incompressible) maximum rows. */
  upload: 12 * 1024 * 1024,
  /** All of the tar once decompressed. */
  decompressed: 32 * 1024 * 1024,
  /** Decompressed to compressed, checked once past `ratioFloor` (tar padding compresses well). */
  ratio: 100,
  ratioFloor: 1024 * 1024,
  entry: {
    'manifest.json': 64 * 1024,
    'config.json': 16 * 1024 * 1024,
    'secrets.enc': 4 * 1024 * 1024,
    'hotspot.enc': 12 * 1024 * 1024,
    signature: 64,
  } satisfies Record<ArchiveFile, number>,
  /** hotspot.enc once opened and inflated. */
  hotspotPlain: 32 * 1024 * 1024,
} as const;

/** Why a restore was refused: `msg` goes to the console, `reason` to the log. */
export class BackupRefused extends Error {
  constructor(
    readonly msg: string,
    readonly reason: string,
    readonly data?: Record<string, string>,
  ) {
    super(reason);
  }
}

export const BACKUP_MSG = {
  invalid: 'msg.backupInvalid',
  tooLarge: 'msg.backupTooLarge',
  newer: 'msg.backupNewer',
  authFailed: 'msg.backupAuthFailed',
  passphraseWrong: 'msg.backupPassphraseWrong',
  passphraseRequired: 'msg.backupPassphraseRequired',
  rejected: 'msg.backupRejected',
} as const;

const entityName = z.string().regex(/^[a-z][A-Za-z0-9]{0,63}$/);
const base64 = (bytes: number) => z.string().regex(/^[A-Za-z0-9+/]+={0,2}$/).refine((s) => Buffer.from(s, 'base64').length === bytes);

const protection = z.discriminatedUnion('mode', [
  z.object({ mode: z.literal('device'), salt: base64(16) }).strict(),
  z
    .object({
      mode: z.literal('passphrase'),
      salt: base64(16),
      // Only the work factor this daemon writes: a forged manifest must not choose the cost.
      kdf: z.object({ name: z.literal('scrypt'), N: z.literal(PASSPHRASE_KDF.N), r: z.literal(PASSPHRASE_KDF.r), p: z.literal(PASSPHRASE_KDF.p) }).strict(),
    })
    .strict(),
]);

const count = z.number().int().min(0).max(1_000_000);

export const manifestSchema = z
  .object({
    format: z.union([z.literal(1), z.literal(BACKUP_FORMAT)]),
    product: z.literal(BACKUP_PRODUCT),
    created: z.iso.datetime(),
    schemaVersion: z.number().int().min(1),
    entities: z.array(z.object({ name: entityName, rows: z.number().int().min(0) }).strict()).max(1000),
    protection,
    hotspot: z.object({ users: count, voucherBatches: count, vouchers: count }).strict().optional(),
  })
  .strict()
  .refine((m) => (m.format >= HOTSPOT_FORMAT) === (m.hotspot !== undefined), { error: 'hotspot counts belong to format 2 on' });
export type BackupManifest = z.infer<typeof manifestSchema>;
export type BackupProtection = BackupManifest['protection'];

const MAX_ROWS = 100_000;
const configSchema = z
  .object({
    entities: z.record(
      entityName,
      z.array(z.object({ id: z.string().max(128), data: z.record(z.string().max(128), z.unknown()) }).strict()).max(MAX_ROWS),
    ),
  })
  .strict();

const secretsSchema = z.array(z.tuple([entityName, z.string().max(128), z.string().max(128), z.unknown()])).max(MAX_ROWS);

/** JSON without `__proto__` keys: a parsed object must never carry one into a record. */
function parseJson(bytes: Buffer, what: string): unknown {
  try {
    return JSON.parse(bytes.toString('utf8'), (key, value: unknown) => {
      if (key === '__proto__') throw new Error('__proto__ key');
      return value;
    });
  } catch (error) {
    throw new BackupRefused(BACKUP_MSG.invalid, `${what} is not valid JSON: ${(error as Error).message}`);
  }
}

/** The fields of a row the journal hides: they travel encrypted. */
function secretFieldsOf(entity: AnyEntity | undefined, row: ConfigRow): string[] {
  const redacted = redactRow(entity, row);
  return Object.keys(row).filter((field) => redacted[field] === REDACTED && row[field] !== undefined);
}

/** What hotspot.enc holds, counted in the manifest. */
export interface HotspotPart {
  counts: NonNullable<BackupManifest['hotspot']>;
  /** JSON-able; checked on restore by validateHotspotPart. */
  content: unknown;
}

export interface BuildInput {
  snapshot: ConfigSnapshot;
  hotspot: HotspotPart;
  lookup: (name: string) => AnyEntity | undefined;
  keys: ArchiveKeys;
  protection: BackupProtection;
  schemaVersion: number;
  created: Date;
}

async function tarOf(files: ReadonlyArray<readonly [string, Buffer]>, mtime: Date): Promise<Buffer> {
  const pack = tarPack();
  const chunks: Buffer[] = [];
  const done = new Promise<void>((resolve, reject) => {
    pack.on('data', (chunk: unknown) => chunks.push(chunk as Buffer));
    pack.on('end', () => resolve());
    pack.on('error', reject);
  });
  for (const [name, bytes] of files) pack.entry({ name, size: bytes.length, mode: 0o600, mtime, type: 'file' }, bytes);
  pack.finalize();
  await done;
  return Buffer.concat(chunks);
}

/** hotspot.enc is sealed under the archive's key with its own name in the extra data, so it cannot pass for secrets.enc. */
function hotspotAad(manifestBytes: Buffer): Buffer {
  return Buffer.concat([manifestBytes, Buffer.from('\0hotspot.enc')]);
}

/** AES-256-GCM of a part: IV, tag, ciphertext; `aad` binds it to the manifest it travels with. */
export function seal(key: Buffer, aad: Buffer, plain: Buffer): Buffer {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(aad);
  const sealed = Buffer.concat([cipher.update(plain), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), sealed]);
}

export function unseal(key: Buffer, aad: Buffer, bytes: Buffer): Buffer {
  if (bytes.length < 28) throw new Error('too short');
  const decipher = createDecipheriv('aes-256-gcm', key, bytes.subarray(0, 12));
  decipher.setAuthTag(bytes.subarray(12, 28));
  decipher.setAAD(aad);
  return Buffer.concat([decipher.update(bytes.subarray(28)), decipher.final()]);
}

/** Writes the archive of a snapshot; secrets are encrypted, the whole signed. */
export async function buildArchive(input: BuildInput): Promise<Buffer> {
  const entities: Record<string, SnapshotRow[]> = {};
  const secrets: Array<[string, string, string, unknown]> = [];
  for (const [name, rows] of Object.entries(input.snapshot)) {
    const entity = input.lookup(name);
    entities[name] = rows.map((row) => {
      const data: ConfigRow = { ...row.data };
      for (const field of secretFieldsOf(entity, row.data)) {
        secrets.push([name, row.id, field, data[field]]);
        delete data[field];
      }
      return { id: row.id, data };
    });
  }
  const manifest: BackupManifest = {
    format: BACKUP_FORMAT,
    product: BACKUP_PRODUCT,
    created: input.created.toISOString(),
    schemaVersion: input.schemaVersion,
    entities: Object.entries(entities).map(([name, rows]) => ({ name, rows: rows.length })),
    protection: input.protection,
    hotspot: input.hotspot.counts,
  };
  const manifestBytes = Buffer.from(JSON.stringify(manifest, null, 2));
  const configBytes = Buffer.from(JSON.stringify({ entities }));
  const secretsBytes = seal(input.keys.encryption, manifestBytes, Buffer.from(JSON.stringify(secrets)));
  // Compressed before sealing: ciphertext does not compress, and thousands of accounts repeat their fields.
  const hotspotBytes = seal(input.keys.encryption, hotspotAad(manifestBytes), gzipSync(JSON.stringify(input.hotspot.content)));
  const signed: Array<[ArchiveFile, Buffer]> = [
    ['manifest.json', manifestBytes],
    ['config.json', configBytes],
    ['secrets.enc', secretsBytes],
    ['hotspot.enc', hotspotBytes],
  ];
  const signature = archiveTag(input.keys.authentication, signed);
  return gzipSync(await tarOf([...signed, ['signature', signature]], input.created));
}

const inflate = promisify(gunzip);

/** Names tar-stream hands over for entries that are not plain files. */
const PLAIN_FILE_TYPES = new Set(['file']);

function checkEntryName(name: string): ArchiveFile {
  if (name.includes('\0')) throw new BackupRefused(BACKUP_MSG.invalid, 'entry name holds NUL');
  if (name.startsWith('/') || /^[A-Za-z]:/.test(name)) throw new BackupRefused(BACKUP_MSG.invalid, `absolute entry ${JSON.stringify(name)}`);
  if (name.split(/[\\/]/).includes('..')) throw new BackupRefused(BACKUP_MSG.invalid, `entry ${JSON.stringify(name)} climbs out`);
  if (!(ARCHIVE_FILES as readonly string[]).includes(name)) throw new BackupRefused(BACKUP_MSG.invalid, `unexpected entry ${JSON.stringify(name.slice(0, 200))}`);
  return name as ArchiveFile;
}

/**
 * Decompresses and unpacks an uploaded archive, refusing before anything is used: more than
 * the size or ratio limits (decompression bombs), entries that are not regular files (links,
 * hard links, devices, fifos, folders), unexpected or unsafe names, duplicates, entries over
 * their own limit, missing entries.
 */
export async function readArchive(compressed: Buffer): Promise<Map<ArchiveFile, Buffer>> {
  if (compressed.length > ARCHIVE_LIMITS.upload) throw new BackupRefused(BACKUP_MSG.tooLarge, 'upload over the limit');
  let tar: Buffer;
  try {
    // maxOutputLength stops inflating at the limit instead of filling memory.
    tar = await inflate(compressed, { maxOutputLength: ARCHIVE_LIMITS.decompressed });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ERR_BUFFER_TOO_LARGE') throw new BackupRefused(BACKUP_MSG.tooLarge, 'decompressed size over the limit');
    throw new BackupRefused(BACKUP_MSG.invalid, `not a gzip file: ${(error as Error).message}`);
  }
  if (tar.length > ARCHIVE_LIMITS.ratioFloor && tar.length / Math.max(1, compressed.length) > ARCHIVE_LIMITS.ratio) {
    throw new BackupRefused(BACKUP_MSG.tooLarge, `compression ratio ${Math.round(tar.length / compressed.length)} over the limit`);
  }

  const files = new Map<ArchiveFile, Buffer>();
  const extract = tarExtract();
  const reading = (async () => {
    for await (const entry of extract) {
      const header = entry.header;
      if (!PLAIN_FILE_TYPES.has(header.type ?? 'file')) {
        throw new BackupRefused(BACKUP_MSG.invalid, `entry ${JSON.stringify(header.name.slice(0, 200))} is a ${header.type}, not a regular file`);
      }
      const name = checkEntryName(header.name);
      if (files.has(name)) throw new BackupRefused(BACKUP_MSG.invalid, `duplicate entry ${name}`);
      const limit = ARCHIVE_LIMITS.entry[name];
      if ((header.size ?? 0) > limit) throw new BackupRefused(BACKUP_MSG.tooLarge, `entry ${name} over its limit`);
      const chunks: Buffer[] = [];
      let size = 0;
      for await (const chunk of entry as AsyncIterable<Buffer>) {
        size += chunk.length;
        if (size > limit) throw new BackupRefused(BACKUP_MSG.tooLarge, `entry ${name} over its limit`);
        chunks.push(chunk);
      }
      files.set(name, Buffer.concat(chunks));
    }
  })();
  extract.end(tar);
  try {
    await reading;
  } catch (error) {
    extract.destroy();
    if (error instanceof BackupRefused) throw error;
    throw new BackupRefused(BACKUP_MSG.invalid, `not a tar archive: ${(error as Error).message}`);
  }
  for (const name of REQUIRED_FILES) if (!files.has(name)) throw new BackupRefused(BACKUP_MSG.invalid, `entry ${name} is missing`);
  return files;
}

/** The manifest, checked against its schema; read before the signature to know how to verify it. */
export function readManifest(files: Map<ArchiveFile, Buffer>, schemaVersion: number): BackupManifest {
  const parsed = manifestSchema.safeParse(parseJson(files.get('manifest.json')!, 'manifest.json'));
  if (!parsed.success) throw new BackupRefused(BACKUP_MSG.invalid, `manifest: ${parsed.error.issues[0]?.message ?? 'invalid'}`);
  if (files.has('hotspot.enc') !== (parsed.data.format >= HOTSPOT_FORMAT)) {
    throw new BackupRefused(BACKUP_MSG.invalid, `hotspot.enc does not belong to a format ${parsed.data.format} archive`);
  }
  if (parsed.data.schemaVersion > schemaVersion) {
    throw new BackupRefused(BACKUP_MSG.newer, `backup schema ${parsed.data.schemaVersion} is newer than ${schemaVersion}`);
  }
  return parsed.data;
}

/** An opened archive: the configuration, and from format 2 on what hotspot.enc held (unchecked JSON). */
export interface OpenedArchive {
  snapshot: ConfigSnapshot;
  hotspot?: unknown;
}

/**
 * Checks the signature and the seals with the keys, then returns the rows with their secrets
 * put back and the hotspot part. Nothing in config.json is parsed before the signature matched.
 */
export function openArchive(files: Map<ArchiveFile, Buffer>, manifest: BackupManifest, keys: ArchiveKeys): OpenedArchive {
  const authFailed = manifest.protection.mode === 'passphrase' ? BACKUP_MSG.passphraseWrong : BACKUP_MSG.authFailed;
  const manifestBytes = files.get('manifest.json')!;
  const configBytes = files.get('config.json')!;
  const secretsBytes = files.get('secrets.enc')!;
  const hotspotBytes = files.get('hotspot.enc');
  const expected = archiveTag(keys.authentication, [
    ['manifest.json', manifestBytes],
    ['config.json', configBytes],
    ['secrets.enc', secretsBytes],
    ...(hotspotBytes ? [['hotspot.enc', hotspotBytes] as const] : []),
  ]);
  if (!sameTag(expected, files.get('signature')!)) throw new BackupRefused(authFailed, 'signature does not match');

  let secretsJson: Buffer;
  let hotspotJson: Buffer | undefined;
  try {
    secretsJson = unseal(keys.encryption, manifestBytes, secretsBytes);
    if (hotspotBytes) hotspotJson = unseal(keys.encryption, hotspotAad(manifestBytes), hotspotBytes);
  } catch (error) {
    throw new BackupRefused(authFailed, `secrets cannot be opened: ${(error as Error).message}`);
  }
  let hotspot: unknown;
  if (hotspotJson) {
    let plain: Buffer;
    try {
      plain = gunzipSync(hotspotJson, { maxOutputLength: ARCHIVE_LIMITS.hotspotPlain });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE') throw new BackupRefused(BACKUP_MSG.tooLarge, 'hotspot.enc over its limit');
      throw new BackupRefused(BACKUP_MSG.invalid, `hotspot.enc is not gzip: ${(error as Error).message}`);
    }
    hotspot = parseJson(plain, 'hotspot.enc');
  }

  const config = configSchema.safeParse(parseJson(configBytes, 'config.json'));
  if (!config.success) throw new BackupRefused(BACKUP_MSG.invalid, `config.json: ${config.error.issues[0]?.message ?? 'invalid'}`);
  const secrets = secretsSchema.safeParse(parseJson(secretsJson, 'secrets'));
  if (!secrets.success) throw new BackupRefused(BACKUP_MSG.invalid, 'secrets: invalid');

  const listed = new Map(manifest.entities.map((e) => [e.name, e.rows]));
  const present = Object.keys(config.data.entities);
  if (listed.size !== manifest.entities.length || present.length !== listed.size || present.some((name) => listed.get(name) !== config.data.entities[name]!.length)) {
    throw new BackupRefused(BACKUP_MSG.invalid, 'the manifest does not list the rows of config.json');
  }

  const snapshot: Record<string, SnapshotRow[]> = {};
  const byKey = new Map<string, ConfigRow>();
  for (const [name, rows] of Object.entries(config.data.entities)) {
    snapshot[name] = rows.map((row) => {
      const key = `${name}\0${row.id}`;
      if (byKey.has(key)) throw new BackupRefused(BACKUP_MSG.invalid, `${name} row ${JSON.stringify(row.id)} appears twice`);
      const data: ConfigRow = { ...row.data };
      byKey.set(key, data);
      return { id: row.id, data };
    });
  }
  for (const [name, id, field, value] of secrets.data) {
    const data = byKey.get(`${name}\0${id}`);
    if (!data || Object.hasOwn(data, field)) throw new BackupRefused(BACKUP_MSG.invalid, `secret ${name}.${field} has no row or is doubled`);
    data[field] = value;
  }
  return hotspotJson ? { snapshot, hotspot } : { snapshot };
}
