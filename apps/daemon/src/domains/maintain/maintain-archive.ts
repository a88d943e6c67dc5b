import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { promisify } from 'node:util';
import { gunzip, gunzipSync, gzipSync } from 'node:zlib';
import { z } from 'zod';
import type { AnyEntity } from '@portico/schema';
import { redactRow, REDACTED } from '../../config/config-diff.js';
import type { ConfigRow, ConfigSnapshot, SnapshotRow } from '../../config/config-types.js';
import { BACKUP_PART_NAME, BackupPartRefused, type BackupCapture, type BackupPart } from '../../config/backup-part.js';
import { libraryExports } from '../../engine/library-import.js';
import { archiveTag, PASSPHRASE_KDF, sameTag, type ArchiveKeys } from './maintain-keys.js';

/**
 * The configuration backup file: a gzip'd tar of
 * - manifest.json: format, product, time, database schema version, entities, protection, and
 *   the domains' parts it carries with their counts (`parts: [{ name, counts }]`);
 * - config.json: every config_rows row, secrets left out;
 * - secrets.enc: the secrets, AES-256-GCM (iv, tag, ciphertext), the manifest as extra data;
 * - <part>.enc: one per part in the manifest, what a domain keeps outside config_rows
 *   (config/backup-part.ts: the hotspot's local accounts, the vouchers and their key …), JSON
 *   gzip'd then sealed like secrets.enc with the manifest, "\0" and the entry's own name as
 *   extra data, so no entry can pass for another; each within its part's limits;
 * - signature: HMAC-SHA256 over the others in that order, under a key of the same derivation.
 * A part this daemon does not register is refused; a registered part the archive lacks leaves
 * that domain's tables as they are. Older formats are still read: format 1 (no parts) restores
 * the configuration only; format 2 held the hotspot's tables in one entry, hotspot.enc, which
 * FORMAT2_HOTSPOT splits into today's parts. Reading refuses anything else before a byte of it
 * is interpreted (see readArchive).
 */

export const BACKUP_FORMAT = 3;
export const BACKUP_PRODUCT = 'portico';
/** The entries of every format, beside the parts'. */
const FIXED_FILES = ['manifest.json', 'config.json', 'secrets.enc', 'signature'] as const;
type FixedFile = (typeof FIXED_FILES)[number];
const isFixedFile = (name: string): name is FixedFile => (FIXED_FILES as readonly string[]).includes(name);

/** The entry of a part. */
export const partEntry = (name: string): string => `${name}.enc`;

/** What reading needs of the parts this daemon registers (AppContext.backupParts), by name. */
export type RegisteredParts = ReadonlyMap<string, Pick<BackupPart, 'counts' | 'limits'>>;

/**
 * Format 2 sealed the hotspot's tables in one entry, hotspot.enc: an object of `users`,
 * `voucherKey`, `voucherBatches` and `vouchers`, counted in the manifest under `hotspot`. Read
 * today as the parts that took them over: each takes its fields and the counts of the same name.
 */
const FORMAT2_HOTSPOT = {
  entry: 'hotspot.enc',
  limits: { sealed: 12 * 1024 * 1024, plain: 32 * 1024 * 1024 },
  parts: [
    { name: 'hotspot-config', fields: ['users'], counts: ['users'] },
    { name: 'voucher', fields: ['voucherKey', 'voucherBatches', 'vouchers'], counts: ['voucherBatches', 'vouchers'] },
  ],
} as const;

/** Size limits of what a restore reads; a real configuration is far below them. */
export const ARCHIVE_LIMITS = {
  /** The uploaded (compressed) file: room for the parts' sealed (incompressible) maximum rows. */
  upload: 12 * 1024 * 1024,
  /** All of the tar once decompressed. */
  decompressed: 32 * 1024 * 1024,
  /** Decompressed to compressed, checked once past `ratioFloor` (tar padding compresses well). */
  ratio: 100,
  ratioFloor: 1024 * 1024,
  /** The fixed entries; a part's entry has its part's `limits`. */
  entry: {
    'manifest.json': 64 * 1024,
    'config.json': 16 * 1024 * 1024,
    'secrets.enc': 4 * 1024 * 1024,
    signature: 64,
  } satisfies Record<FixedFile, number>,
} as const;

/** A part whose entry would be a fixed one cannot travel; refused when the daemon starts. */
export function assertPartNames(registered: RegisteredParts): void {
  for (const name of registered.keys()) {
    if (isFixedFile(partEntry(name))) throw new Error(`a backup part cannot be named ${name}: ${partEntry(name)} is an archive file`);
  }
}

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

/** A domain's refusal of its part as the console gets it: a refused row names itself. */
export function asBackupRefused(error: BackupPartRefused): BackupRefused {
  return error.row ? new BackupRefused(BACKUP_MSG.rejected, error.message, { ...error.row }) : new BackupRefused(BACKUP_MSG.invalid, error.message);
}

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
const countName = z.string().regex(/^[a-z][A-Za-z0-9]{0,63}$/);
const MAX_PARTS = 64;
const MAX_COUNTS = 32;

const manifestPart = z
  .object({
    name: z.string().regex(BACKUP_PART_NAME),
    counts: z.record(countName, count).refine((counts) => Object.keys(counts).length <= MAX_COUNTS, { error: 'too many counts' }),
  })
  .strict();

export const manifestSchema = z
  .object({
    format: z.union([z.literal(1), z.literal(2), z.literal(BACKUP_FORMAT)]),
    product: z.literal(BACKUP_PRODUCT),
    created: z.iso.datetime(),
    schemaVersion: z.number().int().min(1),
    entities: z.array(z.object({ name: entityName, rows: z.number().int().min(0) }).strict()).max(1000),
    protection,
    /** Format 2 only: what hotspot.enc holds. */
    hotspot: z.object({ users: count, voucherBatches: count, vouchers: count }).strict().optional(),
    /** Format 3 on: the parts, in the order of their entries. */
    parts: z.array(manifestPart).max(MAX_PARTS).optional(),
  })
  .strict()
  .refine((m) => (m.format === 2) === (m.hotspot !== undefined), { error: 'hotspot counts belong to format 2' })
  .refine((m) => (m.format >= BACKUP_FORMAT) === (m.parts !== undefined), { error: 'parts belong to format 3 on' })
  .refine((m) => new Set(m.parts?.map((part) => part.name)).size === (m.parts?.length ?? 0), { error: 'a part is listed twice' });
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

/** A part as an archive carries it: its name and what its domain captured. */
export type ArchivePart = BackupCapture & { name: string };

export interface BuildInput {
  snapshot: ConfigSnapshot;
  /** In the order their entries are written and signed. */
  parts: readonly ArchivePart[];
  lookup: (name: string) => AnyEntity | undefined;
  keys: ArchiveKeys;
  protection: BackupProtection;
  schemaVersion: number;
  created: Date;
}

// tar-stream is loaded at the first backup or restore, not at every start.
const loadTar = async () => libraryExports(await import('tar-stream'));

async function tarOf(files: ReadonlyArray<readonly [string, Buffer]>, mtime: Date): Promise<Buffer> {
  const pack = (await loadTar()).pack();
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

/** A part's entry is sealed under the archive's key with its own name in the extra data, so it cannot pass for secrets.enc or another part. */
function partAad(manifestBytes: Buffer, entry: string): Buffer {
  return Buffer.concat([manifestBytes, Buffer.from(`\0${entry}`)]);
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
    parts: input.parts.map(({ name, counts }) => ({ name, counts })),
  };
  // A part this daemon could not read back must never be written.
  manifestSchema.parse(manifest);
  const manifestBytes = Buffer.from(JSON.stringify(manifest, null, 2));
  const configBytes = Buffer.from(JSON.stringify({ entities }));
  const secretsBytes = seal(input.keys.encryption, manifestBytes, Buffer.from(JSON.stringify(secrets)));
  const signed: Array<[string, Buffer]> = [
    ['manifest.json', manifestBytes],
    ['config.json', configBytes],
    ['secrets.enc', secretsBytes],
    ...input.parts.map(({ name, content }): [string, Buffer] => {
      const entry = partEntry(name);
      // Compressed before sealing: ciphertext does not compress, and thousands of rows repeat their fields.
      return [entry, seal(input.keys.encryption, partAad(manifestBytes, entry), gzipSync(JSON.stringify(content)))];
    }),
  ];
  const signature = archiveTag(input.keys.authentication, signed);
  return gzipSync(await tarOf([...signed, ['signature', signature]], input.created));
}

const inflate = promisify(gunzip);

/** Names tar-stream hands over for entries that are not plain files. */
const PLAIN_FILE_TYPES = new Set(['file']);

/** The entries a restore accepts, with their limits: the fixed ones, the registered parts', format 2's hotspot.enc. */
function entryLimits(registered: RegisteredParts): Map<string, number> {
  const limits = new Map<string, number>(Object.entries(ARCHIVE_LIMITS.entry));
  limits.set(FORMAT2_HOTSPOT.entry, FORMAT2_HOTSPOT.limits.sealed);
  for (const [name, part] of registered) limits.set(partEntry(name), part.limits.sealed);
  return limits;
}

/** An entry's limit; refuses names that are unsafe or not one of `limits`. */
function checkEntryName(name: string, limits: ReadonlyMap<string, number>): number {
  if (name.includes('\0')) throw new BackupRefused(BACKUP_MSG.invalid, 'entry name holds NUL');
  if (name.startsWith('/') || /^[A-Za-z]:/.test(name)) throw new BackupRefused(BACKUP_MSG.invalid, `absolute entry ${JSON.stringify(name)}`);
  if (name.split(/[\\/]/).includes('..')) throw new BackupRefused(BACKUP_MSG.invalid, `entry ${JSON.stringify(name)} climbs out`);
  const limit = limits.get(name);
  if (limit === undefined) throw new BackupRefused(BACKUP_MSG.invalid, `unexpected entry ${JSON.stringify(name.slice(0, 200))}`);
  return limit;
}

/**
 * Decompresses and unpacks an uploaded archive, refusing before anything is used: more than
 * the size or ratio limits (decompression bombs), entries that are not regular files (links,
 * hard links, devices, fifos, folders), unsafe names or names of no fixed entry and no
 * registered part, duplicates, entries over their own limit, missing fixed entries.
 */
export async function readArchive(compressed: Buffer, registered: RegisteredParts): Promise<Map<string, Buffer>> {
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

  const files = new Map<string, Buffer>();
  const limits = entryLimits(registered);
  const extract = (await loadTar()).extract();
  const reading = (async () => {
    for await (const entry of extract) {
      const header = entry.header;
      if (!PLAIN_FILE_TYPES.has(header.type ?? 'file')) {
        throw new BackupRefused(BACKUP_MSG.invalid, `entry ${JSON.stringify(header.name.slice(0, 200))} is a ${header.type}, not a regular file`);
      }
      const name = header.name;
      const limit = checkEntryName(name, limits);
      if (files.has(name)) throw new BackupRefused(BACKUP_MSG.invalid, `duplicate entry ${name}`);
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
  for (const name of FIXED_FILES) if (!files.has(name)) throw new BackupRefused(BACKUP_MSG.invalid, `entry ${name} is missing`);
  return files;
}

/** The sealed entries of a manifest's format, in signing order, with the limit of each once inflated. */
function sealedEntries(manifest: BackupManifest, registered: RegisteredParts): Array<{ entry: string; plain: number }> {
  if (manifest.format === 1) return [];
  if (manifest.format === 2) return [{ entry: FORMAT2_HOTSPOT.entry, plain: FORMAT2_HOTSPOT.limits.plain }];
  return manifest.parts!.map(({ name }) => ({ entry: partEntry(name), plain: registered.get(name)!.limits.plain }));
}

function sameKeys(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((key) => b.includes(key));
}

/**
 * The manifest, checked against its schema and against this daemon: every part it lists is
 * registered here and counts what that part counts, and the archive's sealed entries are
 * exactly those of its format and parts. Read before the signature to know how to verify it.
 */
export function readManifest(files: Map<string, Buffer>, schemaVersion: number, registered: RegisteredParts): BackupManifest {
  const parsed = manifestSchema.safeParse(parseJson(files.get('manifest.json')!, 'manifest.json'));
  if (!parsed.success) throw new BackupRefused(BACKUP_MSG.invalid, `manifest: ${parsed.error.issues[0]?.message ?? 'invalid'}`);
  const manifest = parsed.data;
  const listed = manifest.parts ?? (manifest.format === 2 ? FORMAT2_HOTSPOT.parts.map((part) => ({ name: part.name, counts: undefined })) : []);
  for (const { name, counts } of listed) {
    const part = registered.get(name);
    if (!part) throw new BackupRefused(BACKUP_MSG.invalid, `part ${name} is not one this device keeps`);
    if (counts && !sameKeys(Object.keys(counts), part.counts)) throw new BackupRefused(BACKUP_MSG.invalid, `part ${name} counts ${Object.keys(counts).join(', ')}`);
  }
  const expected = sealedEntries(manifest, registered).map(({ entry }) => entry);
  const present = [...files.keys()].filter((name) => !isFixedFile(name));
  if (!sameKeys(present, expected)) {
    throw new BackupRefused(BACKUP_MSG.invalid, `entries ${present.join(', ') || 'none'} are not the parts of a format ${manifest.format} archive listing ${expected.join(', ') || 'none'}`);
  }
  if (manifest.schemaVersion > schemaVersion) {
    throw new BackupRefused(BACKUP_MSG.newer, `backup schema ${manifest.schemaVersion} is newer than ${schemaVersion}`);
  }
  return manifest;
}

/** A part's content as opened, unchecked, with the counts the signed manifest gives it. */
export interface OpenedPart {
  counts: Readonly<Record<string, number>>;
  content: unknown;
}

/** An opened archive: the configuration, and the parts it carries by name (none before format 2). */
export interface OpenedArchive {
  snapshot: ConfigSnapshot;
  parts: Map<string, OpenedPart>;
}

function pick(from: Readonly<Record<string, unknown>>, keys: readonly string[]): Record<string, unknown> {
  return Object.fromEntries(keys.filter((key) => Object.hasOwn(from, key)).map((key) => [key, from[key]]));
}

/** Format 2's hotspot.enc as today's parts; a field none of them takes is refused as an unknown one. */
function splitFormat2(content: unknown, counts: NonNullable<BackupManifest['hotspot']>): Map<string, OpenedPart> {
  const refuse = (field: string, reason: string) => asBackupRefused(BackupPartRefused.row('hotspot', '', field, reason));
  if (typeof content !== 'object' || content === null || Array.isArray(content)) throw refuse('_', 'not an object');
  const known: readonly string[] = FORMAT2_HOTSPOT.parts.flatMap((part) => part.fields);
  const unknown = Object.keys(content).find((field) => !known.includes(field));
  if (unknown !== undefined) throw refuse(unknown.slice(0, 128), 'unknown field');
  const fields = content as Record<string, unknown>;
  return new Map(
    FORMAT2_HOTSPOT.parts.map((part) => [part.name, { counts: pick(counts, part.counts) as Record<string, number>, content: pick(fields, part.fields) }]),
  );
}

/**
 * Checks the signature and the seals with the keys, then returns the rows with their secrets
 * put back and the parts' content. Nothing in config.json is parsed before the signature matched.
 */
export function openArchive(files: Map<string, Buffer>, manifest: BackupManifest, keys: ArchiveKeys, registered: RegisteredParts): OpenedArchive {
  const authFailed = manifest.protection.mode === 'passphrase' ? BACKUP_MSG.passphraseWrong : BACKUP_MSG.authFailed;
  const manifestBytes = files.get('manifest.json')!;
  const configBytes = files.get('config.json')!;
  const secretsBytes = files.get('secrets.enc')!;
  const sealed = sealedEntries(manifest, registered).map((part) => ({ ...part, bytes: files.get(part.entry)! }));
  const expected = archiveTag(keys.authentication, [
    ['manifest.json', manifestBytes],
    ['config.json', configBytes],
    ['secrets.enc', secretsBytes],
    ...sealed.map(({ entry, bytes }) => [entry, bytes] as const),
  ]);
  if (!sameTag(expected, files.get('signature')!)) throw new BackupRefused(authFailed, 'signature does not match');

  let secretsJson: Buffer;
  let partsGzip: Buffer[];
  try {
    secretsJson = unseal(keys.encryption, manifestBytes, secretsBytes);
    partsGzip = sealed.map(({ entry, bytes }) => unseal(keys.encryption, partAad(manifestBytes, entry), bytes));
  } catch (error) {
    throw new BackupRefused(authFailed, `secrets cannot be opened: ${(error as Error).message}`);
  }
  const contents = sealed.map(({ entry, plain: limit }, index) => {
    let plain: Buffer;
    try {
      plain = gunzipSync(partsGzip[index]!, { maxOutputLength: limit });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE') throw new BackupRefused(BACKUP_MSG.tooLarge, `${entry} over its limit`);
      throw new BackupRefused(BACKUP_MSG.invalid, `${entry} is not gzip: ${(error as Error).message}`);
    }
    return parseJson(plain, entry);
  });
  const parts =
    manifest.format === 2
      ? splitFormat2(contents[0], manifest.hotspot!)
      : new Map((manifest.parts ?? []).map(({ name, counts }, index): [string, OpenedPart] => [name, { counts, content: contents[index] }]));

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
  return { snapshot, parts };
}
