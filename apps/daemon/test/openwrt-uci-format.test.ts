import { describe, expect, test } from 'vitest';
import { parseUci, serializeUci, UciError, type UciPackage } from '../src/engine/uci-format.js';

const sample: UciPackage = [
  { type: 'interface', name: 'lan', options: { device: 'br-lan', proto: 'static', ipaddr: '192.168.11.1', netmask: '255.255.255.0' } },
  { type: 'interface', name: 'wan', options: { device: 'eth1', proto: 'dhcp', dns: ['1.1.1.1', '9.9.9.9'] } },
  { type: 'host', options: { name: "o'brien laptop", mac: '02:00:00:00:00:01', ip: '192.168.11.50' } },
];

describe('UCI format', () => {
  test('serialises the way uci writes its files', () => {
    expect(serializeUci(sample.slice(0, 2))).toBe(
      [
        "config interface 'lan'",
        "\toption device 'br-lan'",
        "\toption proto 'static'",
        "\toption ipaddr '192.168.11.1'",
        "\toption netmask '255.255.255.0'",
        '',
        "config interface 'wan'",
        "\toption device 'eth1'",
        "\toption proto 'dhcp'",
        "\tlist dns '1.1.1.1'",
        "\tlist dns '9.9.9.9'",
        '',
      ].join('\n'),
    );
  });

  test('round-trips through its own parser, quotes included', () => {
    expect(parseUci(serializeUci(sample))).toEqual(sample);
    expect(serializeUci(sample)).toContain(`option name 'o'\\''brien laptop'`);
  });

  test('reads files written by hand: double quotes, bare words, comments, package line', () => {
    const text = `package network\n# managed elsewhere\nconfig globals globals\n\toption ula_prefix "fd00::/48" # comment\n\toption packet_steering 1\n`;
    expect(parseUci(text)).toEqual([{ type: 'globals', name: 'globals', options: { ula_prefix: 'fd00::/48', packet_steering: '1' } }]);
  });

  test('hostile values stay values: no new option or section can appear', () => {
    const hostile = ["x'\nconfig rule 'evil", "a' 'b", '$(reboot)', '`id`', "'; option x 'y"];
    for (const value of hostile.filter((v) => !v.includes('\n'))) {
      const pkg: UciPackage = [{ type: 'host', options: { name: value } }];
      expect(parseUci(serializeUci(pkg))).toEqual(pkg);
    }
    expect(() => serializeUci([{ type: 'host', options: { name: hostile[0]! } }])).toThrow(UciError);
    expect(() => serializeUci([{ type: 'host;x', options: {} }])).toThrow(UciError);
    expect(() => serializeUci([{ type: 'host', options: { 'na me': 'x' } }])).toThrow(UciError);
  });

  test('malformed input is refused with the line number', () => {
    expect(() => parseUci("config interface 'lan\n")).toThrow(/line 1/);
    expect(() => parseUci("option proto 'dhcp'\n")).toThrow(/outside a section/);
    expect(() => parseUci('config interface lan\n\tfrobnicate x y\n')).toThrow(/line 2/);
  });
});
