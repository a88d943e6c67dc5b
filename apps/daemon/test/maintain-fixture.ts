import { gunzipSync, gzipSync } from 'node:zlib';
import { extract as tarExtract, pack as tarPack, type Header } from 'tar-stream';
import type { FastifyInstance } from 'fastify';
import type { ConfigApplier, ConfigSnapshot } from '../src/config/config-types.js';
import { seal, unseal } from '../src/domains/maintain/maintain-archive.js';
import { archiveTag, type ArchiveKeys } from '../src/domains/maintain/maintain-keys.js';
import type { Client } from './daemon-harness.js';

export const BACKUP_URL = '/api/sysconf/backup';
export const REBOOT_URL = '/api/sysconf/reboot';

/** Records every apply it is asked for; touches nothing. */
export class RecordingApplier implements ConfigApplier {
  calls: Array<{ domains: string[]; snapshot: ConfigSnapshot; full: boolean }> = [];
  async apply(domains: readonly string[], snapshot: ConfigSnapshot, options?: { full?: boolean }): Promise<void> {
    this.calls.push({ domains: [...domains], snapshot, full: options?.full === true });
  }
}

/** A multipart/form-data body as a browser sends it. */
export function multipart(parts: Array<{ name: string; value: Buffer | string; filename?: string }>): { body: Buffer; contentType: string } {
  const boundary = `----portico${Math.random().toString(16).slice(2)}`;
  const chunks: Buffer[] = [];
  for (const part of parts) {
    const disposition = part.filename
      ? `form-data; name="${part.name}"; filename="${part.filename}"\r\nContent-Type: application/gzip`
      : `form-data; name="${part.name}"`;
    chunks.push(Buffer.from(`--${boundary}\r\nContent-Disposition: ${disposition}\r\n\r\n`));
    chunks.push(Buffer.isBuffer(part.value) ? part.value : Buffer.from(part.value));
    chunks.push(Buffer.from('\r\n'));
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return { body: Buffer.concat(chunks), contentType: `multipart/form-data; boundary=${boundary}` };
}

/** Uploads a backup file (optionally with a passphrase) as the console does. */
export function upload(app: FastifyInstance, client: Client | null, file: Buffer, passphrase?: string, headers: Record<string, string> = {}) {
  const form = multipart([
    ...(passphrase !== undefined ? [{ name: 'passphrase', value: passphrase }] : []),
    { name: 'backup', value: file, filename: 'backup.tar.gz' },
  ]);
  return app.inject({
    method: 'POST',
    url: BACKUP_URL,
    payload: form.body,
    headers: {
      'content-type': form.contentType,
      ...(client ? { cookie: client.cookie, 'x-csrf-token': client.csrf } : {}),
      ...headers,
    },
    remoteAddress: client?.ip ?? '127.0.0.1',
  });
}

export interface TarEntry {
  header: Partial<Header> & Pick<Header, 'name'>;
  body?: Buffer;
}

/** The entries of a gzip'd tar, in order. */
export async function unpack(archive: Buffer): Promise<TarEntry[]> {
  const out: TarEntry[] = [];
  const extract = tarExtract();
  const reading = (async () => {
    for await (const entry of extract) {
      const chunks: Buffer[] = [];
      for await (const chunk of entry as AsyncIterable<Buffer>) chunks.push(chunk);
      out.push({ header: { ...entry.header }, body: Buffer.concat(chunks) });
    }
  })();
  extract.end(gunzipSync(archive));
  await reading;
  return out;
}

/** A gzip'd tar of the given entries, written as given (links, devices, odd names included). */
export async function repack(entries: TarEntry[]): Promise<Buffer> {
  const pack = tarPack();
  const chunks: Buffer[] = [];
  const done = new Promise<void>((resolve, reject) => {
    pack.on('data', (chunk: unknown) => chunks.push(chunk as Buffer));
    pack.on('end', () => resolve());
    pack.on('error', reject);
  });
  for (const entry of entries) {
    const body = entry.body ?? Buffer.alloc(0);
    const isFile = (entry.header.type ?? 'file') === 'file';
    if (isFile) pack.entry({ ...entry.header, size: body.length }, body);
    else pack.entry({ ...entry.header, size: 0 });
  }
  pack.finalize();
  await done;
  return gzipSync(Buffer.concat(chunks));
}

/** What format 2 sealed in hotspot.enc, and its counts under the manifest's `hotspot`. */
export interface FormatTwoHotspot {
  counts: { users: number; voucherBatches: number; vouchers: number };
  content: unknown;
}

/**
 * `current` (an archive of this release) rewritten as the releases before parts wrote it, with
 * its configuration and secrets: format 1 (manifest, config.json, secrets.enc, signature) or,
 * given the hotspot's tables, format 2 (hotspot.enc after secrets.enc: their JSON gzip'd,
 * sealed with the manifest and "\0hotspot.enc" as extra data, signed with the rest).
 * `keysOf` gives the keys of a manifest's salt, as the archive was sealed.
 */
export async function olderArchive(current: Buffer, keysOf: (salt: Buffer) => ArchiveKeys | Promise<ArchiveKeys>, hotspot?: FormatTwoHotspot): Promise<Buffer> {
  const entries = await unpack(current);
  const body = (name: string) => entries.find((e) => e.header.name === name)!.body!;
  const { parts: _parts, ...manifest } = JSON.parse(body('manifest.json').toString()) as Record<string, unknown> & { protection: { salt: string } };
  const keys = await keysOf(Buffer.from(manifest.protection.salt, 'base64'));
  const secrets = unseal(keys.encryption, body('manifest.json'), body('secrets.enc'));
  const oldManifest = Buffer.from(JSON.stringify(hotspot ? { ...manifest, format: 2, hotspot: hotspot.counts } : { ...manifest, format: 1 }, null, 2));
  const signed: Array<[string, Buffer]> = [
    ['manifest.json', oldManifest],
    ['config.json', body('config.json')],
    ['secrets.enc', seal(keys.encryption, oldManifest, secrets)],
  ];
  if (hotspot) {
    const aad = Buffer.concat([oldManifest, Buffer.from('\0hotspot.enc')]);
    signed.push(['hotspot.enc', seal(keys.encryption, aad, gzipSync(JSON.stringify(hotspot.content)))]);
  }
  const signature = archiveTag(keys.authentication, signed);
  return repack([...signed, ['signature', signature] as const].map(([name, bytes]) => ({ header: { ...entries[0]!.header, name }, body: bytes })));
}
