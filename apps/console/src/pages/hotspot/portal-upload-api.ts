import type { ApiReply } from '@portico/schema';
import { apiGet, apiPost, apiUpload } from '../../api/api-client.js';
import type { PortalFileKind } from './portal-upload-rules.js';

/**
 * Calls of the portal files (spec §5): GET /api/portal/files lists what is uploaded,
 * POST /api/portal/upload/<kind> sends one file as multipart, POST /api/portal/files with
 * action=delete removes one.
 */

export interface PortalImageFile {
  name: string;
  type: 'png' | 'jpeg' | 'gif';
  size: number;
  width: number;
  height: number;
}

export interface PortalFiles {
  picture?: PortalImageFile;
  logo?: PortalImageFile;
  custom?: { name: string; size: number; files: number };
}

export const PORTAL_FILES_PATH = 'portal/files';

export function uploadPathOf(kind: PortalFileKind): string {
  return `portal/upload/${kind}`;
}

export function fetchPortalFiles(): Promise<PortalFiles> {
  return apiGet<PortalFiles>(PORTAL_FILES_PATH);
}

export function deletePortalFile(kind: PortalFileKind): Promise<ApiReply<PortalFiles>> {
  return apiPost<PortalFiles>(PORTAL_FILES_PATH, { action: 'delete', kind });
}

/**
 * Sends one file. A refusal resolves with the reply so the panel can also show it beside the
 * control that sent the file.
 */
export function uploadPortalFile(kind: PortalFileKind, file: Blob, name: string): Promise<ApiReply<PortalFiles>> {
  const form = new FormData();
  form.append('file', file, name);
  return apiUpload<PortalFiles>(uploadPathOf(kind), form, 'hotspot.msg.uploadTooLarge');
}
