import { describe, expect, test } from 'vitest';
import { entityByName, INTERFACE_REF, LAN_SIDE_REF, PLAN_REF, WAN_REF, type AnyEntity } from '@portico/schema';
import { refChoices, refOptions } from '../src/pages/entity/entity-ref-choices.js';
import { buildFormModel, formPayload, initialValues } from '../src/pages/entity/entity-form-model.js';

const entity = (name: string) => entityByName(name) as AnyEntity;

const rows = {
  networkInterface: [
    { ifname: 'lan', role: 'lan' },
    { ifname: 'wan1', role: 'wan' },
    { ifname: 'bond0', role: 'bond' },
  ],
  vlan: [{ ifname: 'guest' }, { ifname: 'lan' }],
  hotspotPlan: [{ name: 'day' }, { name: '<b>week</b>' }],
};

describe('choices of a reference', () => {
  test('rows of each source in order, filtered by their rule, each value once', () => {
    expect(refChoices(INTERFACE_REF, rows).map((c) => c.value)).toEqual(['lan', 'wan1', 'bond0', 'guest']);
    expect(refChoices(WAN_REF, rows).map((c) => c.value)).toEqual(['wan1']);
    expect(refChoices(LAN_SIDE_REF, rows).map((c) => c.value)).toEqual(['lan', 'bond0', 'guest']);
    // Names are shown as they are; React renders them as text.
    expect(refChoices(PLAN_REF, rows)).toEqual([
      { value: 'day', label: 'day' },
      { value: '<b>week</b>', label: '<b>week</b>' },
    ]);
    expect(refChoices(PLAN_REF, {})).toEqual([]);
  });

  test('a stored value no longer among the rows stays visible', () => {
    const choices = refChoices(WAN_REF, rows);
    expect(refOptions(choices, 'wan9').map((o) => o.key)).toEqual(['wan1', 'wan9']);
    expect(refOptions(choices, ['wan1', 'old']).map((o) => o.key)).toEqual(['wan1', 'old']);
    expect(refOptions(choices, '').map((o) => o.key)).toEqual(['wan1']);
    expect(refOptions(choices, null)[0]).toEqual({ value: 'wan1', key: 'wan1', labelKey: '', label: 'wan1' });
  });
});

describe('form fields that name other rows', () => {
  test('a single reference is a select, a list of references a multi-select; no free text', () => {
    const zone = buildFormModel(entity('hotspotZone'), 'add').fields.find((f) => f.name === 'ifname')!;
    expect(zone).toMatchObject({ widget: 'select', required: true, ref: LAN_SIDE_REF, options: [] });
    const notice = buildFormModel(entity('hotspotLocalNotice'), 'edit').fields.find((f) => f.name === 'interfaces')!;
    expect(notice).toMatchObject({ widget: 'multiselect', required: false });
    const user = buildFormModel(entity('hotspotUser'), 'add').fields.find((f) => f.name === 'model')!;
    expect(user).toMatchObject({ widget: 'select', required: false, ref: PLAN_REF });
  });

  test('an optional reference left empty is sent as empty (none), a chosen one as its value', () => {
    const model = buildFormModel(entity('hotspotUser'), 'add');
    const values = initialValues(entity('hotspotUser'), model);
    expect(values.model).toBe('');
    expect(formPayload(model, { ...values, model: 'day' }).model).toBe('day');
  });
});

describe('a form fixed to a kind by its sub-route', () => {
  test('on pptpadd the type is shown read-only and sent; on edit it is not sent', () => {
    const vpn = entity('vpnClient');
    const add = buildFormModel(vpn, 'add', 'type');
    const type = add.fields.find((f) => f.name === 'type')!;
    expect(type).toMatchObject({ readOnly: true, fixed: true });
    const values = { ...initialValues(vpn, add), type: 'pptp' };
    expect(formPayload(add, values).type).toBe('pptp');
    const edit = buildFormModel(vpn, 'edit', 'type');
    expect(formPayload(edit, initialValues(vpn, edit, { type: 'pptp', name: 'x' }))).not.toHaveProperty('type');
  });
});
