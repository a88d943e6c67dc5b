import { beforeEach, describe, expect, it } from 'vitest';
import { migrateModule, openDatabase, type Db } from '../src/plugins/db-open.js';
import { WIRELESS_DEVICE_MIGRATIONS, WirelessDeviceStore, type WirelessDeviceRecord } from '../src/domains/wireless/controller/wireless-device-store.js';

const ROWS = 10_000;

function serialOf(i: number): string {
  return (0x0a0000000000 + i).toString(16).padStart(12, '0');
}

function newStore(): { db: Db; store: WirelessDeviceStore } {
  const db = openDatabase(':memory:');
  migrateModule(db, 'wireless', WIRELESS_DEVICE_MIGRATIONS);
  return { db, store: new WirelessDeviceStore(db) };
}

describe('wireless device store', () => {
  let store: WirelessDeviceStore;

  beforeEach(() => {
    ({ store } = newStore());
  });

  it('records a new device as pending and keeps what a later connect reports', () => {
    store.recordConnect({ serial: serialOf(1), kind: 'ap', model: 'EAP-1', firmware: '1.0', address: '192.0.2.1:4000', at: 1000 });
    expect(store.get(serialOf(1))).toMatchObject({ status: 'pending', firstSeen: 1000, lastSeen: 1000, model: 'EAP-1', groupId: null, desiredUuid: 0, appliedUuid: 0 });
    store.adopt(serialOf(1), 'g1', 'Lobby');
    store.recordConnect({ serial: serialOf(1), kind: 'ap', model: 'EAP-1', firmware: '1.1', address: '192.0.2.9:4000', at: 5000 });
    expect(store.get(serialOf(1))).toMatchObject({ status: 'adopted', groupId: 'g1', name: 'Lobby', firstSeen: 1000, lastSeen: 5000, firmware: '1.1', lastAddress: '192.0.2.9:4000' });
  });

  it('adopts ahead of the first connection, binds, renames, revokes and forgets', () => {
    store.adopt(serialOf(2), 'g1');
    expect(store.get(serialOf(2))).toMatchObject({ status: 'adopted', firstSeen: null, name: '' });
    expect(store.bind(serialOf(2), 'g2')).toBe(true);
    expect(store.serialsInGroup('g2')).toEqual([serialOf(2)]);
    expect(store.rename(serialOf(2), '会议室 AP')).toBe(true);
    expect(store.revoke(serialOf(2))).toBe(true);
    expect(store.bind(serialOf(2), 'g1')).toBe(false);
    expect(store.serialsInGroup('g2')).toEqual([]);
    expect(store.get(serialOf(2))).toMatchObject({ status: 'revoked', name: '会议室 AP' });
    expect(store.forget(serialOf(2))).toBe(true);
    expect(store.get(serialOf(2))).toBeUndefined();
    expect(store.forget(serialOf(2))).toBe(false);
  });

  it('keeps the configuration bookkeeping, reasons bounded', () => {
    store.adopt(serialOf(3), 'g1');
    store.setDesiredConfig(serialOf(3), 4, 'digest-a');
    store.recordApplied(serialOf(3), 3);
    const reasons = Array.from({ length: 40 }, (_, i) => ({ parameter: 'x'.repeat(2000), reason: `r${i}` }));
    store.recordConfigOutcome(serialOf(3), 4, 'rejected', reasons);
    const record = store.get(serialOf(3))!;
    expect(record).toMatchObject({ desiredUuid: 4, desiredDigest: 'digest-a', appliedUuid: 3, configOutcome: 'rejected', outcomeUuid: 4 });
    expect(record.configReasons).toHaveLength(32);
    expect(record.configReasons[0]!.parameter.length).toBeLessThanOrEqual(512);
    store.recordConfigOutcome(serialOf(3), 4, 'applied', []);
    expect(store.get(serialOf(3))!.configReasons).toEqual([]);
    store.recordFirmware(serialOf(3), '2.0');
    expect(store.get(serialOf(3))!.firmware).toBe('2.0');
  });
});

describe('wireless device list paging over 10,000 devices', () => {
  const { store } = newStore();
  const all: Array<Pick<WirelessDeviceRecord, 'serial' | 'name' | 'status' | 'lastSeen' | 'groupId' | 'kind'>> = [];
  store.batch(() => {
    for (let i = 0; i < ROWS; i++) {
      const serial = serialOf(i);
      const kind = i % 10 === 0 ? 'cpe' : 'ap';
      // Seen times and names out of serial order, so each sort really orders.
      const lastSeen = 1_000_000 + ((i * 7919) % ROWS) * 1000;
      store.recordConnect({ serial, kind, model: i % 2 ? 'EAP-225' : 'WAX-610', firmware: '1.0', address: `10.0.${i >> 8}.${i & 255}:443`, at: lastSeen });
      const name = `AP ${String((i * 31) % ROWS).padStart(5, '0')}`;
      let status: WirelessDeviceRecord['status'] = 'pending';
      let groupId: string | null = null;
      if (i % 3 !== 0) {
        groupId = `g${i % 7}`;
        store.adopt(serial, groupId, name);
        status = 'adopted';
        if (i % 50 === 1) {
          store.revoke(serial);
          status = 'revoked';
        }
      } else store.rename(serial, name);
      all.push({ serial, name, status, lastSeen, groupId, kind });
    }
  });

  const compare = (a: string | number | null, b: string | number | null) => (a === b ? 0 : a === null ? -1 : b === null ? 1 : a < b ? -1 : 1);

  it('gives the total and the requested slice in name order, both directions', () => {
    const expected = [...all].sort((a, b) => compare(a.name.toLowerCase(), b.name.toLowerCase()) || compare(a.serial, b.serial));
    const first = store.page({ offset: 0, limit: 50 });
    expect(first.total).toBe(ROWS);
    expect(first.rows.map((r) => r.serial)).toEqual(expected.slice(0, 50).map((r) => r.serial));
    const middle = store.page({ offset: 5000, limit: 100, sort: 'name', order: 'desc' });
    expect(middle.rows.map((r) => r.serial)).toEqual([...expected].reverse().slice(5000, 5100).map((r) => r.serial));
    const last = store.page({ offset: ROWS - 10, limit: 50 });
    expect(last.rows).toHaveLength(10);
  });

  it('orders by last seen, status, group and serial with the serial breaking ties', () => {
    for (const [sort, key] of [
      ['lastSeen', 'lastSeen'],
      ['status', 'status'],
      ['group', 'groupId'],
      ['serial', 'serial'],
    ] as const) {
      const expected = [...all].sort((a, b) => compare(a[key], b[key]) || compare(a.serial, b.serial));
      const page = store.page({ offset: 1234, limit: 200, sort });
      expect(page.rows.map((r) => r.serial), sort).toEqual(expected.slice(1234, 1434).map((r) => r.serial));
    }
  });

  it('filters by status, kind and search text with matching totals', () => {
    const adoptedAps = all.filter((d) => d.status === 'adopted' && d.kind === 'ap');
    const page = store.page({ offset: 0, limit: 20, status: 'adopted', kind: 'ap', sort: 'serial' });
    expect(page.total).toBe(adoptedAps.length);
    expect(page.rows.map((r) => r.serial)).toEqual(adoptedAps.slice(0, 20).map((r) => r.serial));

    const byName = all.filter((d) => d.name.toLowerCase().includes('ap 012'));
    const search = store.page({ offset: 0, limit: 500, search: '  ap 012 ', sort: 'name' });
    expect(search.total).toBe(byName.length);
    expect(new Set(search.rows.map((r) => r.serial))).toEqual(new Set(byName.map((r) => r.serial)));

    expect(store.page({ offset: 0, limit: 10, search: serialOf(4321) }).rows.map((r) => r.serial)).toEqual([serialOf(4321)]);
    expect(store.page({ offset: 0, limit: 10, search: 'WAX' }).total).toBe(ROWS / 2);
    expect(store.page({ offset: 0, limit: 10, search: "%' OR 1=1 --" }).total).toBe(0);
    expect(store.page({ offset: 0, limit: 100_000 }).rows.length).toBe(500);
  });
});
