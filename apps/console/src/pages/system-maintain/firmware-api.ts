import { FIRMWARE_OPERATIONS, type ApiReply, type FirmwareOperation, type FirmwareStatus } from '@portico/schema';
import { apiPost, apiUpload, apiUrl } from '../../api/api-client.js';
import { redirectToLogin } from '../../routes/navigation.js';

/**
 * The firmware flow (spec §4, §7): GET sysconf/bgcheck reads the device's state of it, the
 * POSTs of bgcheck, bgdownload (or a multipart upload to it), bgfilecheck and bgupgrade start
 * each step. The state lives on the device, so a reload picks up a running step.
 */
export const FIRMWARE_PATHS = {
  check: 'sysconf/bgcheck',
  result: 'sysconf/bgcheckresult',
  download: 'sysconf/bgdownload',
  fileCheck: 'sysconf/bgfilecheck',
  upgrade: 'sysconf/bgupgrade',
} as const;

export type { FirmwareOperation, FirmwareStatus };

function num(value: unknown, fallback = 0): number {
  return typeof value === 'number' && Number.isFinite(value) ? value : fallback;
}
function str(value: unknown): string | null {
  return typeof value === 'string' ? value : null;
}
function obj(value: unknown): Record<string, unknown> | null {
  return value && typeof value === 'object' ? (value as Record<string, unknown>) : null;
}

/** Reads the daemon's answer defensively: the page renders only what it understood. */
export function parseFirmwareStatus(value: unknown): FirmwareStatus {
  const v = obj(value) ?? {};
  const latest = obj(v.latest);
  const file = obj(v.file);
  const error = obj(v.error);
  const upgraded = obj(v.upgraded);
  const slots = obj(v.slots) ?? {};
  const trial = obj(slots.trial);
  const operation = FIRMWARE_OPERATIONS.find((op) => op === v.operation) ?? null;
  return {
    operation,
    running: v.running === true,
    startedAt: typeof v.startedAt === 'number' ? v.startedAt : null,
    elapsedSeconds: num(v.elapsedSeconds),
    done: num(v.done),
    total: typeof v.total === 'number' ? v.total : null,
    current: str(v.current) ?? '',
    serverConfigured: v.serverConfigured === true,
    latest: latest && str(latest.version) ? { version: str(latest.version)!, size: num(latest.size), newer: latest.newer === true } : null,
    file: file ? { version: str(file.version), size: num(file.size), verified: file.verified === true } : null,
    error: error && str(error.msg) ? { msg: str(error.msg)!, reason: str(error.reason) } : null,
    upgraded: upgraded && str(upgraded.version) ? { version: str(upgraded.version)!, keepConfig: upgraded.keepConfig !== false } : null,
    slots: {
      running: str(slots.running) ?? 'a',
      versions: Object.fromEntries(Object.entries(obj(slots.versions) ?? {}).map(([slot, version]) => [slot, str(version)])),
      trial: trial && str(trial.slot) ? { slot: str(trial.slot)!, triesLeft: num(trial.triesLeft) } : null,
      unavailable: slots.unavailable === true,
    },
    maxBytes: num(v.maxBytes),
    restartSeconds: num(v.restartSeconds, 60),
  };
}

/** Whole percent of `done` of `total`, 0 when the total is unknown. */
export function percentOf(done: number, total: number | null): number {
  if (!total || total <= 0) return 0;
  return Math.min(100, Math.floor((done / total) * 100));
}

export type PollAnswer = { kind: 'status'; status: FirmwareStatus } | { kind: 'restarting' } | { kind: 'unreachable' };

/**
 * One quiet question for the poll: while the device restarts it answers 503 or nothing, which
 * is what the page waits for, not a failure to report every second.
 */
export async function pollFirmware(signal?: AbortSignal): Promise<PollAnswer> {
  let response: Response;
  try {
    response = await fetch(apiUrl(FIRMWARE_PATHS.check), { credentials: 'same-origin', headers: { accept: 'application/json' }, signal });
  } catch {
    return { kind: 'unreachable' };
  }
  if (response.status === 401) {
    redirectToLogin();
    return { kind: 'unreachable' };
  }
  if (response.status === 503) return { kind: 'restarting' };
  if (!response.ok) return { kind: 'unreachable' };
  try {
    const reply = (await response.json()) as { success?: boolean; data?: unknown };
    return reply.success ? { kind: 'status', status: parseFirmwareStatus(reply.data) } : { kind: 'unreachable' };
  } catch {
    return { kind: 'unreachable' };
  }
}

async function start(path: string, body: Record<string, unknown> = {}): Promise<ApiReply<FirmwareStatus>> {
  const reply = await apiPost<unknown>(path, body);
  return reply.success ? { success: true, data: parseFirmwareStatus(reply.data) } : reply;
}

export const checkVersion = () => start(FIRMWARE_PATHS.check);
export const downloadFirmware = () => start(FIRMWARE_PATHS.download);
export const checkFile = () => start(FIRMWARE_PATHS.fileCheck);
export const upgradeFirmware = (keepConfig: boolean) => start(FIRMWARE_PATHS.upgrade, { keepConfig });

/** Uploads a firmware file (multipart, field `firmware`); refusals are reported as notices. */
export async function uploadFirmware(file: File): Promise<ApiReply<FirmwareStatus> | null> {
  const form = new FormData();
  form.append('firmware', file, file.name);
  try {
    const reply = await apiUpload<unknown>(FIRMWARE_PATHS.download, form, 'msg.firmwareFlow.tooLarge');
    return reply.success ? { success: true, data: parseFirmwareStatus(reply.data) } : reply;
  } catch {
    // Reported by the client.
    return null;
  }
}
