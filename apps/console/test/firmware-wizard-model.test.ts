import { describe, expect, test } from 'vitest';
import { parseFirmwareStatus, percentOf } from '../src/pages/system-maintain/firmware-api.js';
import { parseLicenseView } from '../src/pages/license/license-api.js';
import { lanUpdate, wanFormOf, wanUpdate, type InterfaceRow } from '../src/pages/wizard/wizard-model.js';

describe('firmware status as the card reads it', () => {
  test('keeps what it understands and drops the rest', () => {
    const status = parseFirmwareStatus({
      operation: 'download',
      running: true,
      elapsedSeconds: 12,
      done: 50,
      total: 200,
      current: '1.0.0',
      latest: { version: '1.1.0', size: 200, newer: true },
      file: null,
      error: null,
      slots: { running: 'a', trial: null, unavailable: false },
      restartSeconds: 8,
    });
    expect(status).toMatchObject({ operation: 'download', running: true, elapsedSeconds: 12, latest: { version: '1.1.0', newer: true }, restartSeconds: 8 });
    expect(parseFirmwareStatus({ operation: 'rm -rf', latest: { version: 7 }, error: { msg: 3 } })).toMatchObject({ operation: null, latest: null, error: null, restartSeconds: 60 });
    expect(parseFirmwareStatus(null).running).toBe(false);
  });

  test('percent of a total, bounded, 0 without one', () => {
    expect(percentOf(50, 200)).toBe(25);
    expect(percentOf(300, 200)).toBe(100);
    expect(percentOf(5, null)).toBe(0);
  });
});

describe('licence view', () => {
  test('an unknown state reads as unlicensed', () => {
    expect(parseLicenseView({ state: 'hacked', locked: 'yes' })).toMatchObject({ state: 'unlicensed', locked: false, license: null });
    expect(parseLicenseView({ state: 'locked', locked: true }).state).toBe('locked');
  });
});

describe('wizard rows', () => {
  const wan: InterfaceRow = {
    id: 'w1',
    ifname: 'wan1',
    role: 'wan',
    proto: 'dhcp',
    ipaddr: '',
    netmask: '',
    gateway: '',
    dns: [],
    pppoe_username: '',
    pppoe_password: '[stored]',
    hwport: ['eth0'],
    mtu: 1450,
  };

  test('a PPPoE WAN: the row as stored with the wizard fields over it, no stored password echoed back', () => {
    const body = wanUpdate(wan, { ...wanFormOf(wan), proto: 'pppoe', pppoe_username: ' line ', pppoe_password: 'secret-1', dns: '1.1.1.1, 9.9.9.9' });
    expect(body).toMatchObject({ id: 'w1', hwport: ['eth0'], mtu: 1450, proto: 'pppoe', pppoe_username: 'line', pppoe_password: 'secret-1', dns: ['1.1.1.1', '9.9.9.9'] });
    const kept = wanUpdate(wan, { ...wanFormOf(wan), proto: 'pppoe', pppoe_username: 'line' });
    expect(kept).not.toHaveProperty('pppoe_password');
  });

  test('a static WAN and a LAN address', () => {
    expect(wanUpdate(wan, { ...wanFormOf(wan), proto: 'static', ipaddr: '203.0.113.2 ', netmask: '255.255.255.0', gateway: '203.0.113.1' })).toMatchObject({
      proto: 'static',
      ipaddr: '203.0.113.2',
      gateway: '203.0.113.1',
    });
    expect(lanUpdate({ ...wan, role: 'lan' }, '192.168.20.1', '255.255.255.0')).toMatchObject({ ipaddr: '192.168.20.1', netmask: '255.255.255.0', hwport: ['eth0'] });
    expect(wanFormOf({ ...wan, proto: 'l2tp' }).proto).toBe('dhcp');
  });
});
