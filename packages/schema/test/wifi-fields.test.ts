import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  channelField,
  channelWidthField,
  countryCodeField,
  htmodeField,
  TX_POWER_OPTIONS,
  txPowerField,
} from '../src/index.js';

const firstMessage = (schema: z.ZodType, value: unknown) => schema.safeParse(value).error?.issues[0]?.message;

describe('transmit power', () => {
  it('offers auto then 1..30 dBm', () => {
    expect(TX_POWER_OPTIONS[0]).toBe('auto');
    expect(TX_POWER_OPTIONS.slice(1)).toEqual(Array.from({ length: 30 }, (_, i) => i + 1));
  });

  it('accepts auto, 1 and 30 and refuses 0, 31 and fractions', () => {
    const field = txPowerField();
    for (const ok of ['auto', 1, 15, 30]) expect(field.safeParse(ok).success, String(ok)).toBe(true);
    for (const bad of [0, 31, -1, 1.5, '10', null, 'max']) {
      expect(firstMessage(field, bad), String(bad)).toBe('validation.wifi.txPower');
    }
  });

  it('describes itself in JSON Schema', () => {
    expect(z.toJSONSchema(txPowerField())).toMatchObject({
      anyOf: [{ const: 'auto' }, { type: 'integer', minimum: 1, maximum: 30 }],
    });
  });
});

describe('countryCodeField', () => {
  it('accepts catalogue codes only', () => {
    const field = countryCodeField();
    expect(field.parse('CN')).toBe('CN');
    expect(field.safeParse('US').success).toBe(true);
    for (const bad of ['XX', 'cn', '', 'CHN', 86]) expect(firstMessage(field, bad), String(bad)).toBe('validation.wifi.country');
  });
});

describe('channelField', () => {
  it('accepts auto and the channels of that country and band', () => {
    const cn5 = channelField('CN', '5g');
    for (const ok of ['auto', 36, 64, 149, 165]) expect(cn5.safeParse(ok).success, String(ok)).toBe(true);
    for (const bad of [100, 140, 6, 37, '36', 36.5, null]) {
      expect(firstMessage(cn5, bad), String(bad)).toBe('validation.wifi.channel');
    }
    const ca2 = channelField('CA', '2g');
    expect(ca2.safeParse(11).success).toBe(true);
    expect(ca2.safeParse(12).success).toBe(false);
    expect(channelField('CN', '2g').safeParse(13).success).toBe(true);
  });

  it('refuses everything, even auto, for an unknown country', () => {
    expect(channelField('XX', '2g').safeParse('auto').success).toBe(false);
  });
});

describe('htmode and width fields', () => {
  it('allows HT80 only on 5 GHz', () => {
    expect(htmodeField('5g').safeParse('HT80').success).toBe(true);
    expect(firstMessage(htmodeField('2g'), 'HT80')).toBe('validation.wifi.htmode');
    expect(htmodeField('2g').safeParse('auto').success).toBe(true);
    expect(htmodeField('2g').safeParse('HT40').success).toBe(true);
  });

  it('allows auto, 20, 40, 80 MHz', () => {
    const field = channelWidthField();
    for (const ok of ['auto', 20, 40, 80]) expect(field.safeParse(ok).success, String(ok)).toBe(true);
    for (const bad of [10, 160, '20']) expect(firstMessage(field, bad), String(bad)).toBe('validation.wifi.channelWidth');
  });
});
