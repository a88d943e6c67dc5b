import { describe, expect, test } from 'vitest';
import {
  batchUserNames,
  checkListWrite,
  checkLocalNoticeWrite,
  checkPlanDelete,
  checkPlanWrite,
  checkPortalWrite,
  checkUserBatch,
  checkUserWrite,
  checkVoucherBatch,
  checkZoneWrite,
  dueTimeEnd,
  ENTITIES,
  fieldErrors,
  formatVoucherCode,
  hotspotAccounting,
  hotspotBlacklist,
  hotspotLocalNotice,
  hotspotPlan,
  hotspotPortal,
  hotspotReminder,
  hotspotUser,
  hotspotUserBatch,
  hotspotWhitelist,
  hotspotZone,
  isDueTime,
  isVoucherCodeShape,
  normalizeVoucherCode,
  VOUCHER_ALPHABET,
  voucherBatchInput,
  writeSchema,
  type AnyEntity,
  type HotspotPlan,
  type HotspotRows,
} from '../src/index.js';

/** Field errors of an add (or update) with the entity's own rules. */
function errorsOf(entity: AnyEntity, value: Record<string, unknown>, mode: 'add' | 'update' = 'add'): Record<string, string> {
  const result = writeSchema(entity, mode).safeParse(value);
  return result.success ? {} : fieldErrors(result.error);
}

const any = (entity: unknown) => entity as AnyEntity;

const planRow = (name: string, extra: Partial<HotspotPlan> = {}): HotspotPlan => ({
  ...(writeSchema(any(hotspotPlan), 'add').parse({ name }) as Omit<HotspotPlan, 'id'>),
  id: `id-${name}`,
  ...extra,
});

describe('registration', () => {
  test('every hotspot entity is in ENTITIES with its own path', () => {
    const names = ENTITIES.map((e) => e.name);
    for (const entity of [hotspotZone, hotspotPortal, hotspotPlan, hotspotAccounting, hotspotUser, hotspotUserBatch, hotspotWhitelist, hotspotBlacklist, hotspotReminder, hotspotLocalNotice]) {
      expect(names).toContain(entity.name);
    }
    const paths = ENTITIES.map((e) => e.path);
    expect(new Set(paths).size).toBe(paths.length);
  });

  test('no hotspot entity has a field named like a write verb', () => {
    for (const entity of ENTITIES.filter((e) => e.name.startsWith('hotspot'))) {
      expect(Object.keys(entity.schema.shape)).not.toContain('action');
    }
  });
});

describe('billing plan (spec §3, §5)', () => {
  const base = { name: 'day' };
  test('defaults: unlimited flow, duration, rates and purchases; offline after expiry', () => {
    expect(writeSchema(any(hotspotPlan), 'add').parse(base)).toMatchObject({ flow: 0, effecttime: 0, upspeed: 0, downspeed: 0, maxbuy: 0, expire_action: 'offline' });
  });
  test.each([
    ['remind_time', 0, 'validation.hotspot.reminderTime'],
    ['remind_time', 61, 'validation.hotspot.reminderTime'],
    ['remind_flow', 0, 'validation.hotspot.reminderFlow'],
    ['remind_flow', 101, 'validation.hotspot.reminderFlow'],
    ['cycle', 301, 'validation.hotspot.cycle'],
    ['cycle', 9, 'validation.hotspot.cycle'],
    ['maxbuy', -1, 'validation.limit.range'],
    ['flow', 1.5, 'validation.integer'],
    ['effectunit', 'weeks', 'validation.duration.unit'],
    ['expire_action', 'delete', 'validation.option'],
  ])('%s = %s is refused', (field, value, message) => {
    expect(errorsOf(any(hotspotPlan), { ...base, [field]: value })[field]).toBe(message);
  });
  test.each([
    ['remind_time', 1],
    ['remind_time', 60],
    ['remind_flow', 1],
    ['remind_flow', 100],
    ['cycle', 0],
    ['cycle', 10],
    ['cycle', 300],
  ])('%s = %s is accepted', (field, value) => {
    expect(errorsOf(any(hotspotPlan), { ...base, [field]: value })).toEqual({});
  });
  test('switching after expiry needs a target other than itself', () => {
    expect(errorsOf(any(hotspotPlan), { ...base, expire_action: 'switch' })).toEqual({ switch_plan: 'validation.required' });
    expect(errorsOf(any(hotspotPlan), { ...base, expire_action: 'switch', switch_plan: 'day' })).toEqual({ switch_plan: 'validation.hotspot.selfSwitch' });
  });
  test('cross-record: unique name, existing switch target; delete refused while referenced', () => {
    const rows: HotspotRows = { hotspotPlan: [planRow('day'), planRow('week', { expire_action: 'switch', switch_plan: 'day' })] };
    expect(checkPlanWrite({ ...planRow('day'), id: undefined }, rows)).toEqual({ name: 'validation.nameExists' });
    expect(checkPlanWrite(planRow('day'), rows)).toBeUndefined();
    expect(checkPlanWrite({ ...planRow('month', { expire_action: 'switch', switch_plan: 'year' }), id: undefined }, rows)).toEqual({
      switch_plan: 'validation.hotspot.unknownPlan',
    });
    expect(checkPlanWrite({ ...planRow('month', { expire_action: 'switch', switch_plan: 'week' }), id: undefined }, rows)).toBeUndefined();
    expect(checkPlanDelete([rows.hotspotPlan![0]!], rows)).toBe('hotspot.msg.planInUse');
    expect(checkPlanDelete([...rows.hotspotPlan!], rows)).toBeUndefined();
    expect(checkPlanDelete([rows.hotspotPlan![1]!], { ...rows, hotspotUser: [{ id: 'u', username: 'a', model: 'week' }] })).toBe('hotspot.msg.planInUse');
    expect(checkPlanDelete([rows.hotspotPlan![1]!], { ...rows, voucherPlans: ['week'] })).toBe('hotspot.msg.planInUse');
    expect(checkPlanDelete([rows.hotspotPlan![1]!], rows)).toBeUndefined();
  });
});

describe('accounting settings (spec §3, §9)', () => {
  test('defaults are interval 120, expire time 24, expire flow 10', () => {
    expect(writeSchema(any(hotspotAccounting), 'update').parse({})).toMatchObject({ interval: 120, expiretime: 24, expireflow: 10, limit_action: 'offline', model: 'local' });
  });
  test.each([
    [9, 'validation.hotspot.interval'],
    [10, undefined],
    [300, undefined],
    [301, 'validation.hotspot.interval'],
  ])('interval %s', (interval, message) => {
    expect(errorsOf(any(hotspotAccounting), { interval }, 'update').interval).toBe(message);
  });
});

describe('authentication validity at most 20 days (spec §5)', () => {
  test.each([
    [20, 'days', undefined],
    [21, 'days', 'validation.hotspot.authTime'],
    [480, 'hours', undefined],
    [481, 'hours', 'validation.hotspot.authTime'],
    [0, 'minutes', 'validation.hotspot.authTime'],
    [1, 'seconds', undefined],
  ])('%s %s', (authtime, unit, message) => {
    expect(errorsOf(any(hotspotZone), { name: 'z', ifname: 'lan', authtime, authtime_unit: unit }).authtime).toBe(message);
    expect(errorsOf(any(hotspotPortal), { authtime, authtime_unit: unit }, 'update').authtime).toBe(message);
  });
  test('zones: one per interface, interfaces that exist, unique names', () => {
    const zone = writeSchema(any(hotspotZone), 'add').parse({ name: 'guests', ifname: 'lan' }) as never as Parameters<typeof checkZoneWrite>[0];
    const rows: HotspotRows = { hotspotZone: [{ ...zone, id: 'z1' } as never], interfaces: ['lan', 'lan2'] };
    expect(checkZoneWrite({ ...zone, name: 'other' }, rows)).toEqual({ ifname: 'validation.hotspot.zoneInterface' });
    expect(checkZoneWrite({ ...zone, ifname: 'lan2' }, rows)).toEqual({ name: 'validation.nameExists' });
    expect(checkZoneWrite({ ...zone, name: 'x', ifname: 'lan3' }, rows)).toEqual({ ifname: 'validation.network.unknownInterface' });
    expect(checkZoneWrite({ ...zone, id: 'z1' }, rows)).toBeUndefined();
  });
});

describe('local users (spec §3, §5)', () => {
  const user = { username: 'alice', password: 'Secret123', confirm: 'Secret123' };
  test('defaults: portal type, one login at a time, normal status, never expires', () => {
    expect(writeSchema(any(hotspotUser), 'add').parse(user)).toMatchObject({ type: 'portal', usernum: 1, status: 'normal', duetime: '', totalflow: 0 });
  });
  test('every type and status of the spec is accepted, others are not', () => {
    for (const type of ['pptp', 'pppoe', 'l2tp', 'portal', 'voucher']) expect(errorsOf(any(hotspotUser), { ...user, type })).toEqual({});
    for (const status of ['normal', 'expired']) expect(errorsOf(any(hotspotUser), { ...user, status })).toEqual({});
    expect(errorsOf(any(hotspotUser), { ...user, type: 'ssh' }).type).toBe('validation.option');
    expect(errorsOf(any(hotspotUser), { ...user, status: 'locked' }).status).toBe('validation.option');
  });
  test.each([
    ['username', 'a-b', 'validation.username.chars'],
    ['password', 'short1', 'validation.password.length'],
    ['usernum', 1000, 'validation.limit.range'],
    ['usernum', -1, 'validation.limit.range'],
    ['duetime', '2025-13-01', 'validation.hotspot.dueTime'],
    ['duetime', '2025-02-29', 'validation.hotspot.dueTime'],
    ['duetime', '2024-02-29 24:00', 'validation.hotspot.dueTime'],
    ['tel', '12ab', 'validation.hotspot.tel'],
  ])('%s = %s is refused', (field, value, message) => {
    const body: Record<string, unknown> = { ...user, [field]: value };
    if (field === 'password') body.confirm = value;
    expect(errorsOf(any(hotspotUser), body)[field]).toBe(message);
  });
  test('usernum 0 is unlimited, the confirmation must match, SMS needs a number', () => {
    expect(errorsOf(any(hotspotUser), { ...user, usernum: 0 })).toEqual({});
    expect(errorsOf(any(hotspotUser), { ...user, confirm: 'Secret124' })).toEqual({ confirm: 'validation.password.mismatch' });
    expect(errorsOf(any(hotspotUser), { ...user, sms: true })).toEqual({ tel: 'validation.required' });
    expect(errorsOf(any(hotspotUser), { ...user, sms: true, tel: '+8613800000000' })).toEqual({});
  });
  test('due times: a date lasts the whole day', () => {
    expect(isDueTime('2024-02-29')).toBe(true);
    expect(isDueTime('2024-02-29 23:59')).toBe(true);
    expect(dueTimeEnd('2025-03-01')).toBe(new Date(2025, 2, 2).getTime());
    expect(dueTimeEnd('2025-03-01 08:30')).toBe(new Date(2025, 2, 1, 8, 30).getTime());
  });
  test('cross-record: names are unique in any case and plans must exist', () => {
    const rows: HotspotRows = { hotspotUser: [{ id: '1', username: 'Alice', model: '' }], hotspotPlan: [planRow('day')] };
    expect(checkUserWrite({ username: 'alice', model: '' }, rows)).toEqual({ username: 'validation.nameExists' });
    expect(checkUserWrite({ id: '1', username: 'Alice', model: 'day' }, rows)).toBeUndefined();
    expect(checkUserWrite({ username: 'bob', model: 'week' }, rows)).toEqual({ model: 'validation.hotspot.unknownPlan' });
  });
  test('batch: prefix + zero-padded number; 1-500 users; taken names refused', () => {
    expect(batchUserNames('guest', 3)).toEqual(['guest001', 'guest002', 'guest003']);
    expect(batchUserNames('g', 500).at(-1)).toBe('g500');
    const batch = { prefix: 'guest', count: 1, password: 'Guest2025' };
    expect(errorsOf(any(hotspotUserBatch), { ...batch, count: 0 }, 'update').count).toBe('validation.hotspot.batchCount');
    expect(errorsOf(any(hotspotUserBatch), { ...batch, count: 501 }, 'update').count).toBe('validation.hotspot.batchCount');
    expect(errorsOf(any(hotspotUserBatch), { ...batch, count: 500 }, 'update')).toEqual({});
    expect(errorsOf(any(hotspotUserBatch), { ...batch, prefix: 'x'.repeat(25) }, 'update').prefix).toBe('validation.hotspot.prefix');
    const rows: HotspotRows = { hotspotUser: [{ id: '1', username: 'GUEST002', model: '' }] };
    expect(checkUserBatch({ ...batch, count: 2, model: '' }, rows)).toEqual({ prefix: 'validation.hotspot.userExists' });
    expect(checkUserBatch({ ...batch, prefix: 'visitor', count: 2, model: '' }, rows)).toBeUndefined();
  });
});

describe('white and black lists', () => {
  test.each([
    ['mac', '02:00:00:00:00:01', true],
    ['mac', '02-00-00-00-00-01', true],
    ['mac', '00:00:00:00:00:00', false],
    ['url', 'example.com', true],
    ['url', '*.example.com', true],
    ['url', 'http://example.com/', false],
    ['ip', '10.0.0.1', true],
    ['ip', '10.0.0.0/8', true],
    ['ip', '10.0.0.1-10.0.0.9', true],
    ['ip', 'example.com', false],
  ])('%s %s valid: %s', (type, value, ok) => {
    const errors = errorsOf(any(hotspotWhitelist), { type, value });
    expect(errors.value === undefined).toBe(ok);
  });
  test('duplicates in a list and entries on both lists are refused', () => {
    const entry = { id: 'w1', type: 'mac' as const, value: '02:00:00:00:00:01', comment: '' };
    const rows: HotspotRows = { hotspotWhitelist: [entry], hotspotBlacklist: [{ ...entry, id: 'b1', type: 'url', value: 'Example.com' }] };
    expect(checkListWrite('hotspotWhitelist', { ...entry, id: undefined }, rows)).toEqual({ value: 'validation.hotspot.duplicate' });
    expect(checkListWrite('hotspotWhitelist', entry, rows)).toBeUndefined();
    expect(checkListWrite('hotspotWhitelist', { type: 'url', value: 'example.COM', comment: '' }, rows)).toEqual({ value: 'validation.hotspot.otherList' });
    expect(checkListWrite('hotspotBlacklist', { type: 'mac', value: '02:00:00:00:00:01', comment: '' }, rows)).toEqual({ value: 'validation.hotspot.otherList' });
    expect(checkListWrite('hotspotBlacklist', { type: 'ip', value: '10.0.0.1', comment: '' }, rows)).toBeUndefined();
    expect(hotspotBlacklist.path).not.toBe(hotspotWhitelist.path);
  });
});

describe('portal and notices', () => {
  test('multi-line portal texts are lists of safe lines; at least one method', () => {
    expect(errorsOf(any(hotspotPortal), { logintext: ['line one', '', 'line two'] }, 'update')).toEqual({});
    expect(errorsOf(any(hotspotPortal), { logintext: ['a\nb'] }, 'update').logintext).toBe('validation.text.control');
    expect(errorsOf(any(hotspotPortal), { logintext: Array(21).fill('x') }, 'update').logintext).toBe('validation.text.length');
    expect(errorsOf(any(hotspotPortal), { welcome: 'a\nb' }, 'update').welcome).toBe('validation.text.control');
    expect(errorsOf(any(hotspotPortal), { methods: [] }, 'update').methods).toBe('validation.hotspot.methods');
    expect(errorsOf(any(hotspotPortal), { methods: ['sms'] }, 'update').methods).toBe('validation.option');
    expect(checkPortalWrite({ methods: ['password'], password: undefined })).toEqual({ password: 'validation.required' });
    expect(checkPortalWrite({ methods: ['password'], password: 'Shared2025' })).toBeUndefined();
    expect(hotspotPortal.writeOnly).toContain('password');
  });
  test('remote reminder defaults (interval 24, port 80) and bounds', () => {
    expect(writeSchema(any(hotspotReminder), 'update').parse({})).toMatchObject({ interval: 24, port: 80, enabled: false });
    expect(errorsOf(any(hotspotReminder), { interval: 0 }, 'update').interval).toBe('validation.hotspot.reminderInterval');
    expect(errorsOf(any(hotspotReminder), { port: 65536 }, 'update').port).toBe('validation.port.range');
    expect(errorsOf(any(hotspotReminder), { enabled: true, content: ['  '] }, 'update').content).toBe('validation.required');
  });
  test('local notice: content and interfaces when enabled; interfaces must exist', () => {
    expect(errorsOf(any(hotspotLocalNotice), { enabled: true }, 'update')).toEqual({ content: 'validation.required', interfaces: 'validation.required' });
    expect(checkLocalNoticeWrite({ interfaces: ['lan', 'guest'] }, { interfaces: ['lan'] })).toEqual({ interfaces: 'validation.network.unknownInterface' });
    expect(checkLocalNoticeWrite({ interfaces: ['lan'] }, { interfaces: ['lan'] })).toBeUndefined();
  });
});

describe('vouchers', () => {
  const batch = { amount: 10, validity: 2 };
  test('the alphabet has 32 unambiguous symbols', () => {
    expect(VOUCHER_ALPHABET).toHaveLength(32);
    expect(new Set(VOUCHER_ALPHABET).size).toBe(32);
    expect(VOUCHER_ALPHABET).not.toMatch(/[01IO]/);
  });
  test.each([
    ['codelength', 5, 'validation.hotspot.codeLength'],
    ['codelength', 17, 'validation.hotspot.codeLength'],
    ['amount', 0, 'validation.hotspot.amount'],
    ['amount', 1001, 'validation.hotspot.amount'],
    ['validity', 0, 'validation.duration.value'],
    ['usernum', 1000, 'validation.limit.range'],
  ])('%s = %s is refused', (field, value, message) => {
    const result = voucherBatchInput.safeParse({ ...batch, [field]: value });
    expect(result.success ? {} : fieldErrors(result.error)).toEqual({ [field]: message });
  });
  test('boundaries accepted; validity at most a year; plans must exist', () => {
    for (const extra of [{ codelength: 6 }, { codelength: 16 }, { amount: 1 }, { amount: 1000 }, { usernum: 0 }, { validity: 366, unit: 'days' }]) {
      expect(voucherBatchInput.safeParse({ ...batch, ...extra }).success, JSON.stringify(extra)).toBe(true);
    }
    const long = voucherBatchInput.safeParse({ ...batch, validity: 367, unit: 'days' });
    expect(long.success ? {} : fieldErrors(long.error)).toEqual({ validity: 'validation.duration.max' });
    expect(checkVoucherBatch({ plan: 'day' }, { hotspotPlan: [] })).toEqual({ plan: 'validation.hotspot.unknownPlan' });
    expect(checkVoucherBatch({ plan: '' }, {})).toBeUndefined();
  });
  test('typed codes are normalised before lookup', () => {
    expect(normalizeVoucherCode(' abcd-efgh ')).toBe('ABCDEFGH');
    expect(isVoucherCodeShape('ABCDEFGH')).toBe(true);
    expect(isVoucherCodeShape('ABCDEFG0')).toBe(false);
    expect(isVoucherCodeShape('ABCDE')).toBe(false);
    expect(formatVoucherCode('ABCDEFGHJK')).toBe('ABCD-EFGH-JK');
  });
});
