import type { ApiReply } from '@portico/schema';
import { apiGet, apiPost } from '../../api/api-client.js';

/** The device licence (spec §4, §7 registration): GET reads it, POST activates or imports. */
export const REGISTRATION_PATH = 'registration';

export const LICENSE_STATES = ['unlicensed', 'activating', 'activationFailed', 'activationSuccess', 'licensed', 'locked'] as const;
export type LicenseState = (typeof LICENSE_STATES)[number];

export interface LicenseView {
  state: LicenseState;
  isRegister: boolean;
  locked: boolean;
  sn: string;
  mac: string;
  is_x86: boolean;
  license: { id: string; edition: string; issued: number; expires: number | null } | null;
  fileProblem: string | null;
  serverConfigured: boolean;
  attempt: { running: boolean; elapsedSeconds: number; error: { msg: string; reason: string | null } | null } | null;
}

const str = (v: unknown) => (typeof v === 'string' ? v : '');
const num = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : 0);

/** Reads the daemon's answer defensively. */
export function parseLicenseView(value: unknown): LicenseView {
  const v = (value && typeof value === 'object' ? value : {}) as Record<string, unknown>;
  const license = v.license && typeof v.license === 'object' ? (v.license as Record<string, unknown>) : null;
  const attempt = v.attempt && typeof v.attempt === 'object' ? (v.attempt as Record<string, unknown>) : null;
  const error = attempt?.error && typeof attempt.error === 'object' ? (attempt.error as Record<string, unknown>) : null;
  return {
    state: LICENSE_STATES.find((s) => s === v.state) ?? 'unlicensed',
    isRegister: v.isRegister === true,
    locked: v.locked === true,
    sn: str(v.sn),
    mac: str(v.mac),
    is_x86: v.is_x86 === true,
    license: license ? { id: str(license.id), edition: str(license.edition), issued: num(license.issued), expires: typeof license.expires === 'number' ? license.expires : null } : null,
    fileProblem: typeof v.fileProblem === 'string' ? v.fileProblem : null,
    serverConfigured: v.serverConfigured === true,
    attempt: attempt ? { running: attempt.running === true, elapsedSeconds: num(attempt.elapsedSeconds), error: error ? { msg: str(error.msg), reason: typeof error.reason === 'string' ? error.reason : null } : null } : null,
  };
}

export async function fetchLicense(): Promise<LicenseView> {
  return parseLicenseView(await apiGet<unknown>(REGISTRATION_PATH));
}

async function send(body: Record<string, unknown>): Promise<ApiReply<LicenseView>> {
  const reply = await apiPost<unknown>(REGISTRATION_PATH, body);
  return reply.success ? { success: true, data: parseLicenseView(reply.data) } : reply;
}

export const activateLicense = (code: string) => send({ action: 'update', code });
export const importLicense = (license: string) => send({ action: 'import', license });
