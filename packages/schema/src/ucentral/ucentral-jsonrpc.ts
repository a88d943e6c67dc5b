import { z } from 'zod';
import { isSafeText } from '../common/text-guard.js';

/**
 * The frame of the uCentral device protocol (OpenWiFi): JSON-RPC 2.0 text messages over a TLS
 * WebSocket. Devices send notifications (no `id`) and answer the controller's requests (same
 * `id`). Everything a device sends is hostile until parsed here: size, shape and text.
 */

/** One message as received; a state report with 30 stations is about 12 KB. */
export const UCENTRAL_MAX_MESSAGE_BYTES = 256 * 1024;
/** A `compress_64` body inflates to at most this (zip-bomb guard). */
export const UCENTRAL_MAX_INFLATED_BYTES = 1024 * 1024;
/** JSON nesting a device may send; deeper is refused before any schema runs. */
export const UCENTRAL_MAX_DEPTH = 16;

/** Device serial: the MAC without separators, 12 lower-case hex digits. */
export const SERIAL_PATTERN = /^[0-9a-f]{12}$/;

export function serialField() {
  return z
    .string()
    .transform((v) => v.toLowerCase())
    .refine((v) => SERIAL_PATTERN.test(v), { error: 'ucentral.serial' });
}

/** A colon MAC from a device report, normalised to lower case. */
export function reportMacField() {
  return z
    .string()
    .transform((v) => v.toLowerCase())
    .refine((v) => /^[0-9a-f]{2}(?::[0-9a-f]{2}){5}$/.test(v), { error: 'ucentral.mac' });
}

/** Free text from a device (SSIDs, host names, log lines): bounded, no control characters. */
export function reportText(max: number) {
  return z.string().max(max).refine(isSafeText, { error: 'ucentral.text' });
}

/** Configuration ids are int64 in the protocol; devices echo ours, which stay below 2^53. */
export const configUuidField = () => z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER);

export const rpcIdField = () => z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER);

export const commandStatusSchema = z.object({
  error: z.number().int(),
  text: reportText(1024).optional().default(''),
  when: z.number().int().nonnegative().optional(),
});
export type CommandStatus = z.infer<typeof commandStatusSchema>;

export type RpcFrame =
  | { kind: 'notification'; method: string; params: unknown }
  | { kind: 'request'; id: number; method: string; params: unknown }
  | { kind: 'result'; id: number; result: unknown }
  | { kind: 'error'; id: number; code: number; message: string };

/** Why a frame was refused; the controller logs the code and closes the link. */
export type FrameFault = 'tooLarge' | 'notJson' | 'tooDeep' | 'notRpc';

function depthOf(value: unknown, limit: number, depth = 0): number {
  if (depth > limit) return depth;
  if (value === null || typeof value !== 'object') return depth;
  let max = depth;
  if (Array.isArray(value)) {
    for (const item of value) {
      max = Math.max(max, depthOf(item, limit, depth + 1));
      if (max > limit) break;
    }
    return max;
  }
  // By key, not over Object.values: no array made for each object of every report (parsed JSON
  // has only own properties).
  const record = value as Record<string, unknown>;
  for (const key in record) {
    max = Math.max(max, depthOf(record[key], limit, depth + 1));
    if (max > limit) break;
  }
  return max;
}

/**
 * Whether a parsed value nests deeper than a device may send. parseRpcFrame applies it to every
 * frame; the controller applies it again to `compress_64` params once inflated.
 */
export function exceedsUcentralDepth(value: unknown): boolean {
  return depthOf(value, UCENTRAL_MAX_DEPTH) > UCENTRAL_MAX_DEPTH;
}

const METHOD = /^[a-z_]{1,32}$/;
const idSchema = rpcIdField();

/** Parses one text message into a frame, or names the fault. */
export function parseRpcFrame(text: string): RpcFrame | { fault: FrameFault } {
  // Length in UTF-16 units bounds the byte length from below; the transport bounds bytes.
  if (text.length > UCENTRAL_MAX_MESSAGE_BYTES) return { fault: 'tooLarge' };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { fault: 'notJson' };
  }
  if (exceedsUcentralDepth(value)) return { fault: 'tooDeep' };
  if (!value || typeof value !== 'object' || Array.isArray(value)) return { fault: 'notRpc' };
  const frame = value as Record<string, unknown>;
  if (frame.jsonrpc !== '2.0') return { fault: 'notRpc' };
  const hasId = frame.id !== undefined && frame.id !== null;
  if (hasId && !idSchema.safeParse(frame.id).success) return { fault: 'notRpc' };
  if (typeof frame.method === 'string') {
    if (!METHOD.test(frame.method)) return { fault: 'notRpc' };
    const params = frame.params ?? {};
    return hasId
      ? { kind: 'request', id: frame.id as number, method: frame.method, params }
      : { kind: 'notification', method: frame.method, params };
  }
  if (!hasId) return { fault: 'notRpc' };
  if ('result' in frame) return { kind: 'result', id: frame.id as number, result: frame.result };
  const error = frame.error as { code?: unknown; message?: unknown } | undefined;
  if (error && typeof error.code === 'number') {
    const message = typeof error.message === 'string' && isSafeText(error.message) ? error.message.slice(0, 1024) : '';
    return { kind: 'error', id: frame.id as number, code: error.code, message };
  }
  return { fault: 'notRpc' };
}

export function rpcRequest(id: number, method: string, params: unknown): string {
  return JSON.stringify({ jsonrpc: '2.0', method, params, id });
}

export function rpcNotification(method: string, params: unknown): string {
  return JSON.stringify({ jsonrpc: '2.0', method, params });
}

export function rpcResult(id: number, result: unknown): string {
  return JSON.stringify({ jsonrpc: '2.0', result, id });
}

export function rpcError(id: number, code: number, message: string): string {
  return JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id });
}

/** JSON-RPC's own error codes the two sides use. */
export const RPC_METHOD_NOT_FOUND = -32601;
export const RPC_INVALID_PARAMS = -32602;
