import { describe, expect, it } from 'vitest';
import { dialCodeOf, listCountries, PHONE_COUNTRIES } from '../src/index.js';

describe('phone country table', () => {
  it('pairs countries with their ITU calling codes', () => {
    const expected: Record<string, string> = {
      CN: '+86', HK: '+852', MO: '+853', TW: '+886', US: '+1', CA: '+1', PR: '+1', DO: '+1', GB: '+44',
      JP: '+81', KR: '+82', SG: '+65', IN: '+91', AU: '+61', DE: '+49', FR: '+33', RU: '+7', KZ: '+7',
      BR: '+55', ID: '+62', TH: '+66', VN: '+84', MY: '+60', PH: '+63', SA: '+966', AE: '+971',
      TR: '+90', IL: '+972', ZA: '+27', MX: '+52', IR: '+98', NI: '+505', PA: '+507',
    };
    for (const [code, dial] of Object.entries(expected)) expect(dialCodeOf(code), code).toBe(dial);
    expect(PHONE_COUNTRIES.find((p) => p.code === 'CN')).toEqual({
      code: 'CN', name: 'China', nameZhCN: '中国', nameZhTW: '中國', dialCode: '+86',
    });
  });

  it('lists China first and covers every catalogue country once', () => {
    expect(PHONE_COUNTRIES[0]?.code).toBe('CN');
    const codes = PHONE_COUNTRIES.map((p) => p.code);
    expect(new Set(codes).size).toBe(codes.length);
    expect([...codes].sort()).toEqual(listCountries().map((c) => c.code));
    for (const entry of PHONE_COUNTRIES) expect(entry.dialCode, entry.code).toMatch(/^\+[1-9]\d{0,2}$/);
  });

  it('answers undefined for unknown codes', () => {
    expect(dialCodeOf('XX')).toBeUndefined();
    expect(dialCodeOf('cn')).toBeUndefined();
    expect(dialCodeOf('constructor')).toBeUndefined();
  });
});
