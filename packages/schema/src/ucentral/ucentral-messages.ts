import { z } from 'zod';
import { commandStatusSchema, configUuidField, reportText, serialField } from './ucentral-jsonrpc.js';
import { deviceConfigSchema } from './ucentral-config.js';
import { deviceStateSchema, scanResultSchema } from './ucentral-state.js';

/**
 * The events a device sends and the commands the controller sends, as in the uCentral
 * protocol document (PROTOCOL.md of the OpenWiFi gateway). Every event carries the sender's
 * serial; the controller compares it with the serial of the certificate the device connected
 * with, so one device cannot speak for another.
 */

/** `params` of a compressed event: zlib-deflated JSON, base64. */
export const compressedParamsSchema = z.object({
  compress_64: z.string().max(512 * 1024).regex(/^[A-Za-z0-9+/=]*$/),
  compress_sz: z.number().int().nonnegative().optional(),
});

const firmwareText = reportText(128);

export const DEVICE_EVENTS = {
  connect: z.object({
    serial: serialField(),
    uuid: configUuidField(),
    firmware: firmwareText,
    wanip: z.array(reportText(64)).max(8).default([]),
    capabilities: z
      .object({
        compatible: reportText(64).optional(),
        model: reportText(64).optional(),
        platform: z.enum(['ap', 'switch', 'cpe']).optional(),
        /** Radios by phy path, as OpenWiFi devices report them; only the bands are read. */
        wifi: z
          .record(reportText(128), z.object({ band: z.array(z.enum(['2G', '5G', '6G', '60G'])).max(4).default([]) }))
          .refine((phys) => Object.keys(phys).length <= 8, { error: 'ucentral.tooMany' })
          .optional(),
      })
      .default({}),
  }),
  state: z.object({
    serial: serialField(),
    uuid: configUuidField(),
    request_uuid: reportText(64).optional(),
    state: deviceStateSchema,
  }),
  healthcheck: z.object({
    serial: serialField(),
    uuid: configUuidField(),
    request_uuid: reportText(64).optional(),
    sanity: z.number().int().min(0).max(100),
  }),
  log: z.object({ serial: serialField(), log: reportText(2048), severity: z.number().int().min(0).max(7) }),
  crashlog: z.object({ serial: serialField(), uuid: configUuidField(), loglines: z.array(reportText(2048)).max(200) }),
  cfgpending: z.object({ serial: serialField(), active: configUuidField(), uuid: configUuidField() }),
  ping: z.object({ serial: serialField(), uuid: configUuidField() }),
  wifiscan: z.object({ serial: serialField(), data: z.object({ scan: scanResultSchema }) }),
  event: z.object({
    serial: serialField(),
    data: z.object({
      event: z.tuple([z.number().int().nonnegative(), z.object({ type: reportText(64), payload: z.record(z.string(), z.unknown()).default({}) })]),
    }),
  }),
} as const;

export type DeviceEventName = keyof typeof DEVICE_EVENTS;
export type DeviceEvent<N extends DeviceEventName> = z.infer<(typeof DEVICE_EVENTS)[N]>;

export function isDeviceEventName(method: string): method is DeviceEventName {
  return Object.hasOwn(DEVICE_EVENTS, method);
}

const when = z.number().int().nonnegative().default(0);

/** Commands with their params and their result. */
export const CONTROLLER_COMMANDS = {
  configure: {
    params: z.object({ serial: serialField(), uuid: configUuidField(), when, config: deviceConfigSchema }),
    result: z.object({
      serial: serialField(),
      uuid: configUuidField(),
      status: commandStatusSchema.extend({
        rejected: z
          .array(z.object({ parameter: z.unknown(), reason: reportText(256), substitution: z.unknown().optional() }))
          .max(64)
          .default([]),
      }),
    }),
  },
  reboot: {
    params: z.object({ serial: serialField(), when }),
    result: z.object({ serial: serialField(), status: commandStatusSchema }),
  },
  upgrade: {
    params: z.object({ serial: serialField(), when, uri: z.string().url().max(1024), FWsignature: z.string().max(512).optional() }),
    result: z.object({ serial: serialField(), status: commandStatusSchema }),
  },
  factory: {
    params: z.object({ serial: serialField(), when, keep_redirector: z.union([z.literal(0), z.literal(1)]).default(0) }),
    result: z.object({ serial: serialField(), status: commandStatusSchema }),
  },
  leds: {
    params: z.object({
      serial: serialField(),
      when,
      duration: z.number().int().min(1).max(600_000).optional(),
      pattern: z.enum(['on', 'off', 'blink']),
    }),
    result: z.object({ serial: serialField(), status: commandStatusSchema }),
  },
  wifiscan: {
    params: z.object({
      serial: serialField(),
      bands: z.array(z.enum(['2', '5'])).max(2).optional(),
      channels: z.array(z.number().int().min(1).max(196)).max(64).optional(),
      active: z.union([z.literal(0), z.literal(1)]).default(1),
    }),
    result: z.object({ serial: serialField(), status: commandStatusSchema, scan: scanResultSchema.default([]) }),
  },
  trace: {
    params: z.object({
      serial: serialField(),
      when,
      duration: z.number().int().min(1).max(600).optional(),
      packets: z.number().int().min(1).max(100_000).optional(),
      network: z.string().max(32).optional(),
      interface: z.string().max(32).optional(),
      uri: z.string().url().max(1024),
    }),
    result: z.object({ serial: serialField(), status: commandStatusSchema }),
  },
  rrm: {
    params: z.object({
      serial: serialField(),
      actions: z
        .array(
          z.object({
            type: z.enum(['roam', 'tx-power', 'beacon-request', 'channel-switch']),
            bss: z.array(z.string().max(17)).max(16).default([]),
            params: z.record(z.string(), z.unknown()).default({}),
          }),
        )
        .max(16),
    }),
    result: z.object({ serial: serialField(), status: commandStatusSchema }),
  },
  request: {
    params: z.object({ serial: serialField(), when, message: z.enum(['state', 'healthcheck']), request_uuid: z.string().max(64).optional() }),
    result: z.object({ serial: serialField(), status: commandStatusSchema }),
  },
  ping: {
    params: z.object({ serial: serialField() }),
    result: z.object({ serial: serialField(), uuid: configUuidField(), deviceUTCTime: z.number().int().nonnegative().optional() }),
  },
} as const;

export type ControllerCommandName = keyof typeof CONTROLLER_COMMANDS;
export type CommandParams<N extends ControllerCommandName> = z.input<(typeof CONTROLLER_COMMANDS)[N]['params']>;
export type CommandResult<N extends ControllerCommandName> = z.infer<(typeof CONTROLLER_COMMANDS)[N]['result']>;

export function isControllerCommandName(method: string): method is ControllerCommandName {
  return Object.hasOwn(CONTROLLER_COMMANDS, method);
}

/** `configure` result codes (PROTOCOL.md). */
export const CONFIG_APPLIED = 0;
export const CONFIG_APPLIED_WITH_CHANGES = 1;
export const CONFIG_REJECTED = 2;
