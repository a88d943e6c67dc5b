import { describe, expect, it } from 'vitest';
import {
  channelMhz,
  channelsFor,
  CHANNEL_WIDTHS,
  DEFAULT_WIFI_COUNTRY,
  formatChannelLabel,
  formatHtmodeLabel,
  getCountry,
  htmodesFor,
  isChannelAllowed,
  listCountries,
  localizedCountryName,
  WIFI_AUTO,
  type ChannelOption,
} from '../src/index.js';

const numbers = (options: readonly ChannelOption[]) =>
  options.flatMap((option) => (option.value === WIFI_AUTO ? [] : [option.value]));

const range = (first: number, last: number, step: number) =>
  Array.from({ length: (last - first) / step + 1 }, (_, i) => first + i * step);

const LOW = range(36, 64, 4);
const MID = range(100, 140, 4);
const HIGH = range(149, 165, 4);

describe('country catalogue', () => {
  it('holds a solid set of countries, CN by default', () => {
    expect(listCountries().length).toBeGreaterThanOrEqual(60);
    expect(DEFAULT_WIFI_COUNTRY).toBe('CN');
    expect(getCountry('CN')?.name).toBe('China');
    const required = ['CN', 'US', 'CA', 'GB', 'DE', 'FR', 'JP', 'KR', 'TW', 'HK', 'SG', 'IN', 'AU', 'BR', 'RU', 'ID',
      'TH', 'VN', 'MY', 'PH', 'SA', 'AE', 'TR', 'IL', 'ZA', 'MX', 'DO', 'IR', 'NI', 'PA', 'PR'];
    for (const code of required) expect(getCountry(code), code).toBeDefined();
  });

  it('has no duplicate codes and only upper-case alpha-2 keys', () => {
    const codes = listCountries().map((c) => c.code);
    expect(new Set(codes).size).toBe(codes.length);
    for (const code of codes) expect(code).toMatch(/^[A-Z]{2}$/);
    expect([...codes].sort()).toEqual(codes);
  });

  it('gives every country names in three languages and both bands, 2.4 GHz first', () => {
    for (const country of listCountries()) {
      expect(country.name, country.code).not.toBe('');
      expect(country.nameZhCN, country.code).toMatch(/\p{Script=Han}/u);
      expect(country.nameZhTW, country.code).toMatch(/\p{Script=Han}/u);
      expect(country.bands.map((b) => b.band)).toEqual(['2g', '5g']);
      for (const band of country.bands) {
        expect(band.channels[0], `${country.code} ${band.band}`).toEqual({ value: 'auto' });
        expect(numbers(band.channels).length, `${country.code} ${band.band}`).toBeGreaterThan(0);
        expect(band.htmodes[0]?.value).toBe('auto');
      }
    }
  });

  it('localises names', () => {
    const tw = getCountry('TW')!;
    expect(localizedCountryName(tw, 'zh-TW')).toBe('台灣');
    expect(localizedCountryName(getCountry('DE')!, 'zh-CN')).toBe('德国');
    expect(localizedCountryName(getCountry('DE')!, 'en-US')).toBe('Germany');
  });

  it('rejects unknown or lower-case codes', () => {
    expect(getCountry('XX')).toBeUndefined();
    expect(getCountry('cn')).toBeUndefined();
    expect(getCountry('toString')).toBeUndefined();
    expect(channelsFor('XX', '2g')).toEqual([]);
  });
});

describe('2.4 GHz channels', () => {
  it('lists 1-13 in most countries', () => {
    for (const code of ['CN', 'GB', 'DE', 'JP', 'KR', 'AU', 'RU', 'BR', 'IN']) {
      expect(numbers(channelsFor(code, '2g')), code).toEqual(range(1, 13, 1));
    }
  });

  it('lists 1-11 in Canada, Dominican Republic, Iran, Nicaragua, Panama, Puerto Rico and the US', () => {
    for (const code of ['CA', 'DO', 'IR', 'NI', 'PA', 'PR', 'US']) {
      expect(numbers(channelsFor(code, '2g')), code).toEqual(range(1, 11, 1));
    }
    expect(channelsFor('CA', '2g')).toHaveLength(12); // 11 channels plus 'auto'
    expect(channelsFor('CN', '2g')).toHaveLength(14);
  });

  it('carries frequencies 2412..2472 MHz in 5 MHz steps', () => {
    const options = channelsFor('CN', '2g').slice(1);
    expect(options[0]).toEqual({ value: 1, channel: 1, mhz: 2412 });
    expect(options.at(-1)).toEqual({ value: 13, channel: 13, mhz: 2472 });
    options.forEach((option, i) => {
      if (option.value === WIFI_AUTO) throw new Error('auto only first');
      expect(option.mhz).toBe(2412 + 5 * i);
    });
  });
});

describe('5 GHz channels', () => {
  it('gives China 36-64 and 149-165 but not 100-140', () => {
    const cn = numbers(channelsFor('CN', '5g'));
    expect(cn).toEqual([...LOW, ...HIGH]);
    expect(cn).not.toContain(100);
  });

  it('follows each regulator group', () => {
    expect(numbers(channelsFor('US', '5g'))).toEqual([...LOW, ...MID, ...HIGH]);
    expect(numbers(channelsFor('DE', '5g'))).toEqual([...LOW, ...MID]);
    expect(numbers(channelsFor('FR', '5g'))).toEqual([...LOW, ...MID]);
    expect(numbers(channelsFor('JP', '5g'))).toEqual([...LOW, ...MID]);
    expect(numbers(channelsFor('GB', '5g'))).toEqual([...LOW, ...MID, ...HIGH]);
    expect(numbers(channelsFor('IL', '5g'))).toEqual(LOW);
    expect(numbers(channelsFor('IR', '5g'))).toEqual(HIGH);
    expect(numbers(channelsFor('ID', '5g'))).toEqual([...LOW, 149, 153, 157, 161]);
    expect(numbers(channelsFor('RU', '5g'))).toEqual([...LOW, 132, 136, 140, ...HIGH]);
    // weather-radar gap 5600-5650 MHz
    for (const code of ['CA', 'AU']) {
      const list = numbers(channelsFor(code, '5g'));
      expect(list, code).toContain(116);
      expect(list, code).toContain(132);
      for (const ch of [120, 124, 128]) expect(list, `${code} ${ch}`).not.toContain(ch);
    }
  });

  it('only offers channels from 36-64, 100-140 and 149-165', () => {
    const offered = new Set([...LOW, ...MID, ...HIGH]);
    for (const country of listCountries()) {
      for (const ch of numbers(channelsFor(country.code, '5g'))) expect(offered.has(ch), `${country.code} ${ch}`).toBe(true);
    }
  });

  it('computes 5000 + 5 x channel MHz', () => {
    const us = channelsFor('US', '5g');
    expect(us.find((o) => o.value === 36)).toEqual({ value: 36, channel: 36, mhz: 5180 });
    expect(us.find((o) => o.value === 165)).toEqual({ value: 165, channel: 165, mhz: 5825 });
    expect(channelMhz('5g', 100)).toBe(5500);
    expect(channelMhz('2g', 14)).toBe(2484);
    expect(() => channelMhz('2g', 15)).toThrow(RangeError);
    expect(() => channelMhz('5g', 0)).toThrow(RangeError);
  });
});

describe('labels', () => {
  it('formats channel labels with the frequency in GHz', () => {
    expect(formatChannelLabel({ channel: 1, mhz: 2412 })).toBe('1 (2.412 GHz)');
    expect(formatChannelLabel({ channel: 36, mhz: 5180 })).toBe('36 (5.180 GHz)');
    expect(formatChannelLabel({ channel: 165, mhz: 5825 })).toBe('165 (5.825 GHz)');
  });

  it('lists htmodes with auto first and HT80 only on 5 GHz', () => {
    expect(htmodesFor('2g').map((h) => h.value)).toEqual(['auto', 'HT20', 'HT40']);
    expect(htmodesFor('5g').map((h) => h.value)).toEqual(['auto', 'HT20', 'HT40', 'HT80']);
    const labels = htmodesFor('5g').slice(1).map(formatHtmodeLabel);
    expect(labels).toEqual(['HT20 20MHz', 'HT40 40MHz/20MHz', 'HT80 80MHz/40MHz/20MHz']);
    for (const country of listCountries()) {
      expect(country.bands[0].htmodes.some((h) => h.value === 'HT80'), country.code).toBe(false);
      expect(country.bands[1].htmodes.some((h) => h.value === 'HT80'), country.code).toBe(true);
    }
  });

  it('offers channel widths auto, 20, 40, 80 MHz', () => {
    expect(CHANNEL_WIDTHS).toEqual(['auto', 20, 40, 80]);
  });
});

describe('isChannelAllowed', () => {
  it('checks the channel against the country and band', () => {
    expect(isChannelAllowed('CN', '5g', 149)).toBe(true);
    expect(isChannelAllowed('CN', '5g', 100)).toBe(false);
    expect(isChannelAllowed('US', '2g', 12)).toBe(false);
    expect(isChannelAllowed('CN', '2g', 13)).toBe(true);
    expect(isChannelAllowed('CN', '2g', 'auto')).toBe(true);
    expect(isChannelAllowed('XX', '2g', 'auto')).toBe(false);
    expect(isChannelAllowed('CN', '2g', '6')).toBe(false);
  });
});
