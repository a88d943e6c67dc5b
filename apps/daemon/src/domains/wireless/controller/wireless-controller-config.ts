import { createHash } from 'node:crypto';
import { deviceConfigSchema, type DeviceConfigInput } from '@portico/schema';

/** A configuration as the lead's group settings give it; the controller assigns its uuid. */
export type WirelessConfigBody = Omit<DeviceConfigInput, 'uuid'>;

/** State reports come this often unless the configuration says otherwise (seconds). */
export const DEFAULT_STATE_INTERVAL_S = 60;

/** A configuration validated once and serialised once, whatever the number of devices it goes to. */
export interface PreparedConfig {
  /** The validated document without its uuid, as JSON: `{"unit":…}`. */
  json: string;
  /** Identifies the content: an unchanged configuration keeps its uuid. */
  digest: string;
  /** The state interval the device will report at under this configuration. */
  stateIntervalMs: number;
}

export type PreparedOutcome = { ok: true; config: PreparedConfig } | { ok: false; field: string };

/**
 * Validates and serialises each configuration object once. Devices of one group share the
 * object configFor returns, so pushing to 10,000 of them costs one validation and one
 * stringify; a changed configuration must be a new object (the cache is keyed by identity).
 */
export class PreparedConfigCache {
  private readonly cache = new WeakMap<object, PreparedOutcome>();

  prepare(body: WirelessConfigBody): PreparedOutcome {
    const cached = this.cache.get(body);
    if (cached) return cached;
    const parsed = deviceConfigSchema.safeParse({ ...body, uuid: 0 });
    let outcome: PreparedOutcome;
    if (parsed.success) {
      const { uuid: _uuid, ...rest } = parsed.data;
      const json = JSON.stringify(rest);
      outcome = {
        ok: true,
        config: {
          json,
          digest: createHash('sha256').update(json).digest('base64url').slice(0, 32),
          stateIntervalMs: (rest.metrics.statistics?.interval ?? DEFAULT_STATE_INTERVAL_S) * 1000,
        },
      };
    } else {
      outcome = { ok: false, field: parsed.error.issues[0]?.path.join('.') ?? '' };
    }
    this.cache.set(body, outcome);
    return outcome;
  }
}

/**
 * The `configure` request for one device, spliced from the shared JSON: only the serial, the
 * uuid and the request id differ between devices. Serial and numbers need no escaping (the
 * serial matched SERIAL_PATTERN).
 */
export function configureRequest(id: number, serial: string, uuid: number, config: PreparedConfig): string {
  const document = config.json === '{}' ? `{"uuid":${uuid}}` : `{"uuid":${uuid},${config.json.slice(1)}`;
  return `{"jsonrpc":"2.0","method":"configure","params":{"serial":"${serial}","uuid":${uuid},"when":0,"config":${document}},"id":${id}}`;
}
