import { createReadStream, type Stats } from 'node:fs';
import { lstat, realpath } from 'node:fs/promises';
import { extname, join, sep } from 'node:path';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { customPortalDir, portalImageFile, safeEntryPath } from '../hotspot-config/hotspot-config-public.js';

/**
 * The administrator's uploaded portal files as the portal listener serves them to hotspot
 * clients: the picture and the logo under /portal-files/, and the custom page (extracted from
 * its zip) under /portal-custom/. Only what the upload routes stored is reachable: two fixed
 * names, and regular files inside the extracted folder.
 */

/** Where the uploaded files are and whether the custom page replaces the built-in portal. */
export interface PortalFilesSource {
  stateDir: string;
  /** The local portal's `customportal` switch, read at each request. */
  customPortal(): boolean;
}

export const PORTAL_IMAGE_PREFIX = '/portal-files/';
export const CUSTOM_PORTAL_PREFIX = '/portal-custom/';
export const PORTAL_IMAGE_KINDS = ['picture', 'logo'] as const;
export type PortalImageKind = (typeof PORTAL_IMAGE_KINDS)[number];

/**
 * The custom page may run its own scripts and styles (inline ones too: it is the operator's
 * page), but only from the portal itself; it can neither frame nor be framed, so it cannot be
 * used to overlay another page or be overlaid.
 */
export const CUSTOM_PORTAL_CSP = [
  "default-src 'self'",
  "script-src 'self' 'unsafe-inline'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "frame-src 'none'",
  "child-src 'none'",
  "object-src 'none'",
  "frame-ancestors 'none'",
  "base-uri 'self'",
  "form-action 'self'",
].join('; ');

/** Types of the files a custom page is made of; anything else is sent as opaque bytes. */
const CUSTOM_TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.htm': 'text/html; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
  '.svg': 'image/svg+xml',
  '.ico': 'image/x-icon',
  '.woff': 'font/woff',
  '.woff2': 'font/woff2',
  '.ttf': 'font/ttf',
  '.otf': 'font/otf',
};

export function customContentType(file: string): string {
  return CUSTOM_TYPES[extname(file).toLowerCase()] ?? 'application/octet-stream';
}

/** A validator that changes whenever the file is replaced (uploads rename a new file in). */
function fileTag(stats: Stats): string {
  return `${stats.ino.toString(36)}-${stats.size.toString(36)}-${Math.floor(stats.mtimeMs).toString(36)}`;
}

async function regularFile(path: string): Promise<Stats | null> {
  try {
    const stats = await lstat(path);
    return stats.isFile() ? stats : null;
  } catch {
    return null;
  }
}

/** The stored picture or logo: its path, checked content type and version; null when none. */
export async function portalImage(stateDir: string, kind: PortalImageKind): Promise<{ path: string; contentType: string; stats: Stats; version: string } | null> {
  let stored: { path: string; contentType: string } | undefined;
  try {
    stored = portalImageFile(stateDir, kind);
  } catch {
    // An unreadable list of uploads shows the portal without images rather than failing it.
    return null;
  }
  if (!stored) return null;
  const stats = await regularFile(stored.path);
  return stats ? { ...stored, stats, version: fileTag(stats) } : null;
}

/** Addresses of the uploaded images for the portal's zone data, versioned so a replacement is fetched anew. */
export async function portalImageUrls(source: PortalFilesSource): Promise<{ logo?: string; picture?: string }> {
  const urls: { logo?: string; picture?: string } = {};
  for (const kind of PORTAL_IMAGE_KINDS) {
    const image = await portalImage(source.stateDir, kind);
    if (image) urls[kind] = `${PORTAL_IMAGE_PREFIX}${kind}?v=${image.version}`;
  }
  return urls;
}

/** The extracted custom page's folder when the switch is on and a page is uploaded. */
export function activeCustomPortal(source: PortalFilesSource | undefined): string | undefined {
  if (!source?.customPortal()) return undefined;
  try {
    return customPortalDir(source.stateDir);
  } catch {
    return undefined;
  }
}

/**
 * A file of the custom page from the still-encoded URL path below /portal-custom/: plain
 * segments only (the names the zip extractor accepts), no `..`, no absolute or empty segments,
 * no NUL, no backslash, no symbolic link on the way, and a regular file at the end, inside
 * `root`. Null for anything else.
 */
export async function resolveCustomFile(root: string, encodedPath: string): Promise<{ path: string; stats: Stats } | null> {
  if (encodedPath.includes('\0') || /%00/i.test(encodedPath)) return null;
  let relative: string;
  try {
    relative = decodeURIComponent(encodedPath);
  } catch {
    return null;
  }
  if (relative === '' || relative.endsWith('/') || !safeEntryPath(relative)) return null;
  let realRoot: string;
  try {
    realRoot = await realpath(root);
  } catch {
    return null;
  }
  let current = realRoot;
  const segments = relative.split('/');
  for (const [index, segment] of segments.entries()) {
    current = join(current, segment);
    let stats: Stats;
    try {
      stats = await lstat(current);
    } catch {
      return null;
    }
    if (stats.isSymbolicLink()) return null;
    const last = index === segments.length - 1;
    if (last ? !stats.isFile() : !stats.isDirectory()) return null;
    if (last) return current.startsWith(realRoot + sep) ? { path: current, stats } : null;
  }
  return null;
}

function notFound(reply: FastifyReply) {
  return reply.code(404).header('x-content-type-options', 'nosniff').type('text/plain; charset=utf-8').send('Not found\n');
}

/** Sends a file with its validators; a matching conditional request gets 304 without a body. */
function sendFile(request: FastifyRequest, reply: FastifyReply, path: string, stats: Stats, contentType: string, cacheControl: string) {
  const etag = `"${fileTag(stats)}"`;
  reply
    .header('x-content-type-options', 'nosniff')
    .header('etag', etag)
    .header('last-modified', stats.mtime.toUTCString())
    .header('cache-control', cacheControl);
  const ifNoneMatch = request.headers['if-none-match'];
  if (ifNoneMatch && ifNoneMatch.split(',').some((tag) => tag.trim() === etag || tag.trim() === `W/${etag}`)) {
    return reply.code(304).send();
  }
  reply.type(contentType).header('content-length', stats.size);
  return reply.send(request.method === 'HEAD' ? '' : createReadStream(path));
}

/** GET /portal-files/{picture,logo}: exactly these two names, nothing below or beside them. */
export async function servePortalImage(request: FastifyRequest, reply: FastifyReply, source: PortalFilesSource | undefined, path: string) {
  const kind = path.slice(PORTAL_IMAGE_PREFIX.length);
  if (!source || !(PORTAL_IMAGE_KINDS as readonly string[]).includes(kind)) return notFound(reply);
  const image = await portalImage(source.stateDir, kind as PortalImageKind);
  if (!image) return notFound(reply);
  // A versioned address never changes content; the bare one is checked each time.
  const version = (request.query as Record<string, unknown> | undefined)?.v;
  const cacheControl = version === image.version ? 'public, max-age=31536000, immutable' : 'no-cache';
  return sendFile(request, reply, image.path, image.stats, image.contentType, cacheControl);
}

/** GET /portal-custom/…: a file of the custom page, served only while the page is in use. */
export async function serveCustomFile(request: FastifyRequest, reply: FastifyReply, source: PortalFilesSource | undefined, path: string) {
  const root = activeCustomPortal(source);
  if (!root) return notFound(reply);
  const file = await resolveCustomFile(root, path.slice(CUSTOM_PORTAL_PREFIX.length));
  if (!file) return notFound(reply);
  reply.header('content-security-policy', CUSTOM_PORTAL_CSP).header('x-frame-options', 'DENY');
  return sendFile(request, reply, file.path, file.stats, customContentType(file.path), 'no-cache');
}
