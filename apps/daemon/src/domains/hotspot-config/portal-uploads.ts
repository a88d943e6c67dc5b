import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import fastifyMultipart from '@fastify/multipart';
import { MSG, UPLOAD_FILE_NAME, UPLOAD_LIMITS } from '@portico/schema';
import type { AppContext } from '../../app-context.js';
import { failure, success } from '../../plugins/api-envelope.js';
import { IMAGE_MIME, imageInfo, type ImageType } from './portal-image.js';
import { extractPortalZip, ZIP_LIMITS, ZipRefused } from './portal-zip.js';

/** Files an administrator uploads for the local portal (spec §5 upload rules). */
export const PORTAL_FILE_KINDS = ['picture', 'logo', 'custom'] as const;
export type PortalFileKind = (typeof PORTAL_FILE_KINDS)[number];

export const UPLOAD_MSG = {
  failed: 'msg.uploadFailed',
  tooLarge: 'hotspot.msg.uploadTooLarge',
  type: 'hotspot.msg.uploadType',
  name: 'hotspot.msg.uploadName',
  logoSize: 'hotspot.msg.logoSize',
  zip: 'hotspot.msg.zipInvalid',
  zipIndex: 'hotspot.msg.zipIndex',
} as const;

const LIMIT_BYTES: Readonly<Record<PortalFileKind, number>> = {
  picture: UPLOAD_LIMITS.portalPictureBytes,
  logo: UPLOAD_LIMITS.logoBytes,
  custom: ZIP_LIMITS.archiveBytes,
};

/** Where the portal files live: `<stateDir>/portal-files`. */
export function portalFilesDir(stateDir: string): string {
  return join(stateDir, 'portal-files');
}

interface StoredImage {
  name: string;
  type: ImageType;
  size: number;
  width: number;
  height: number;
}

/** What is uploaded now, for the console and the portal engine. */
export interface PortalFiles {
  picture?: StoredImage;
  logo?: StoredImage;
  custom?: { name: string; size: number; files: number };
}

function metaFile(dir: string): string {
  return join(dir, 'files.json');
}

export function readPortalFiles(stateDir: string): PortalFiles {
  const file = metaFile(portalFilesDir(stateDir));
  return existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as PortalFiles) : {};
}

function writeMeta(dir: string, files: PortalFiles): void {
  const temp = `${metaFile(dir)}.tmp`;
  writeFileSync(temp, JSON.stringify(files), { mode: 0o644 });
  renameSync(temp, metaFile(dir));
}

/**
 * A stored portal image for the portal engine to serve read-only: its bytes and content type
 * (the type checked at upload), or undefined when none is uploaded.
 */
export function readPortalImage(stateDir: string, kind: 'picture' | 'logo'): { data: Buffer; contentType: string } | undefined {
  const meta = readPortalFiles(stateDir)[kind];
  const file = join(portalFilesDir(stateDir), kind);
  if (!meta || !existsSync(file)) return undefined;
  return { data: readFileSync(file), contentType: IMAGE_MIME[meta.type] };
}

/**
 * Where a stored portal image is and its content type (checked at upload), for the portal
 * listener to stream it; undefined when none is uploaded.
 */
export function portalImageFile(stateDir: string, kind: 'picture' | 'logo'): { path: string; contentType: string } | undefined {
  const meta = readPortalFiles(stateDir)[kind];
  const path = join(portalFilesDir(stateDir), kind);
  if (!meta || !existsSync(path)) return undefined;
  return { path, contentType: IMAGE_MIME[meta.type] };
}

/** The folder of the extracted custom page (index.html at its top), when one is uploaded. */
export function customPortalDir(stateDir: string): string | undefined {
  const dir = join(portalFilesDir(stateDir), 'custom');
  return readPortalFiles(stateDir).custom && existsSync(join(dir, 'index.html')) ? dir : undefined;
}

class UploadRefused extends Error {
  constructor(readonly msg: string) {
    super(msg);
  }
}

async function readUpload(request: FastifyRequest, kind: PortalFileKind): Promise<{ name: string; data: Buffer }> {
  if (!request.isMultipart()) throw new UploadRefused(UPLOAD_MSG.failed);
  const part = await request.file({ limits: { fileSize: LIMIT_BYTES[kind], files: 1, fields: 0, parts: 1, headerPairs: 100 } });
  if (!part) throw new UploadRefused(UPLOAD_MSG.failed);
  let data: Buffer;
  try {
    // Throws as soon as the stream passes the limit; the rest of the body is never buffered.
    data = await part.toBuffer();
  } catch (error) {
    if (error instanceof Error && 'code' in error && (error as { code: string }).code === 'FST_REQ_FILE_TOO_LARGE') throw new UploadRefused(UPLOAD_MSG.tooLarge);
    throw error;
  }
  if (part.file.truncated) throw new UploadRefused(UPLOAD_MSG.tooLarge);
  return { name: part.filename, data };
}

function checkName(kind: PortalFileKind, name: string): void {
  if (!UPLOAD_FILE_NAME.test(name)) throw new UploadRefused(UPLOAD_MSG.name);
  const lower = name.toLowerCase();
  if (kind === 'custom' && !UPLOAD_LIMITS.customPortalExtensions.some((ext) => lower.endsWith(ext))) throw new UploadRefused(UPLOAD_MSG.type);
}

/**
 * Upload routes of the local portal (spec §5): POST /api/portal/upload/{picture,logo,custom}
 * (multipart, one file) and GET/POST /api/portal/files (list; action=delete with `kind`).
 * Multipart is registered in this scope only; sizes are enforced while the file streams in.
 * The picture is a PNG, JPEG or GIF of at most 200 KB; the logo at most 30 KB and 960×640; the
 * custom page a zip checked entry by entry. Files are replaced atomically.
 */
export async function registerPortalUploadRoutes(app: FastifyInstance, ctx: AppContext): Promise<void> {
  const dir = portalFilesDir(ctx.settings.stateDir);
  await app.register(async (scope) => {
    await scope.register(fastifyMultipart, { limits: { fileSize: ZIP_LIMITS.archiveBytes, files: 1, parts: 2 } });

    const storedFiles = () => readPortalFiles(ctx.settings.stateDir);
    const remove = (kinds: readonly PortalFileKind[], body: { action?: unknown; kind?: unknown }) => {
      if (body.action !== 'delete') return failure(MSG.invalid, { action: 'validation.option' });
      if (!kinds.includes(body.kind as PortalFileKind)) return failure(MSG.invalid, { kind: 'validation.option' });
      const kind = body.kind as PortalFileKind;
      const stored = storedFiles();
      if (!stored[kind]) return failure(MSG.notFound);
      delete stored[kind];
      writeMeta(dir, stored);
      rmSync(join(dir, kind), { recursive: true, force: true });
      return success(stored);
    };
    // The portal's pictures as spec §7 names them (auth/image): the picture and the logo.
    const images = () => {
      const { picture, logo } = storedFiles();
      return { ...(picture ? { picture } : {}), ...(logo ? { logo } : {}) };
    };
    const IMAGE_KINDS = ['picture', 'logo'] as const;

    scope.get('/api/portal/files', { config: { policy: { module: 'localportal', effect: 'read' }, doc: { summary: 'Uploaded portal files' } } }, async () => success(storedFiles()));
    scope.post(
      '/api/portal/files',
      { config: { policy: { module: 'localportal', effect: 'write' }, doc: { summary: 'action=delete with kind: picture, logo or custom' } } },
      async (request) => remove(PORTAL_FILE_KINDS, (request.body ?? {}) as { action?: unknown; kind?: unknown }),
    );
    scope.get('/api/auth/image', { config: { policy: { module: 'localportal', effect: 'read' }, doc: { summary: 'Uploaded portal picture and logo' } } }, async () => success(images()));
    scope.post(
      '/api/auth/image',
      {
        config: { policy: { module: 'localportal', effect: 'write', actionEffects: { get: 'read' } }, doc: { summary: 'action=get, or action=delete with kind: picture or logo (uploads: portal/upload/<kind>)' } },
      },
      async (request) => {
        const body = (request.body ?? {}) as { action?: unknown; kind?: unknown };
        return body.action === 'get' ? success(images()) : remove(IMAGE_KINDS, body);
      },
    );

    for (const kind of PORTAL_FILE_KINDS) {
      scope.post(
        `/api/portal/upload/${kind}`,
        { config: { policy: { module: 'localportal', effect: 'write' }, doc: { summary: `multipart upload of the portal ${kind} (one file)` } } },
        async (request) => {
          try {
            const upload = await readUpload(request, kind);
            checkName(kind, upload.name);
            mkdirSync(dir, { recursive: true, mode: 0o755 });
            const files = storedFiles();
            if (kind === 'custom') {
              const staging = join(dir, `custom.${process.pid}.${Date.now()}.new`);
              let extracted: { files: number; bytes: number };
              try {
                extracted = await extractPortalZip(upload.data, staging);
              } catch (error) {
                rmSync(staging, { recursive: true, force: true });
                if (error instanceof ZipRefused) throw new UploadRefused(error.message === 'no index.html' ? UPLOAD_MSG.zipIndex : UPLOAD_MSG.zip);
                throw error;
              }
              const old = join(dir, `custom.${process.pid}.${Date.now()}.old`);
              if (existsSync(join(dir, 'custom'))) renameSync(join(dir, 'custom'), old);
              renameSync(staging, join(dir, 'custom'));
              rmSync(old, { recursive: true, force: true });
              files.custom = { name: upload.name, size: upload.data.length, files: extracted.files };
            } else {
              const info = imageInfo(upload.data);
              if (!info || info.width === 0 || info.height === 0) throw new UploadRefused(UPLOAD_MSG.type);
              if (kind === 'logo' && (info.width !== UPLOAD_LIMITS.logoWidth || info.height !== UPLOAD_LIMITS.logoHeight)) {
                throw new UploadRefused(UPLOAD_MSG.logoSize);
              }
              const temp = join(dir, `${kind}.tmp`);
              writeFileSync(temp, upload.data, { mode: 0o644 });
              renameSync(temp, join(dir, kind));
              files[kind] = { name: upload.name, type: info.type, size: upload.data.length, width: info.width, height: info.height };
            }
            writeMeta(dir, files);
            request.log.info({ user: request.auth?.account.username, kind, size: upload.data.length }, 'portal file uploaded');
            return success(files);
          } catch (error) {
            if (error instanceof UploadRefused) return failure(error.msg);
            throw error;
          }
        },
      );
    }
  });
}

/** Stray staging folders of an interrupted upload are removed at start. */
export function cleanPortalStaging(stateDir: string): void {
  const dir = portalFilesDir(stateDir);
  if (!existsSync(dir)) return;
  for (const name of readdirSync(dir)) {
    if (/^custom\..*\.(new|old)$/.test(name) && statSync(join(dir, name)).isDirectory()) rmSync(join(dir, name), { recursive: true, force: true });
  }
}
