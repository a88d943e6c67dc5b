import { describe, expect, test } from 'vitest';
import { z } from 'zod';
import { adminUser, defineEntity, type AnyEntity } from '@portico/schema';
import {
  buildFormModel,
  choicesOf,
  formPayload,
  inferWidget,
  initialValues,
  isFieldVisible,
  ruleHolds,
  toFieldValue,
  visibleFieldNames,
  writeModeOf,
} from '../src/pages/entity/entity-form-model.js';

const admin = adminUser as unknown as AnyEntity;

/** A made-up entity exercising every inference path and visibility rules. */
const tunnel = defineEntity({
  name: 'tunnelTest',
  path: 'tunneltest',
  module: 'tunneltest',
  kind: 'collection',
  schema: z.object({
    id: z.string(),
    name: z.string().min(1),
    enabled: z.boolean().default(true),
    port: z.number().int().min(1).max(65535).default(4443),
    mtu: z.number().int().min(46).max(1500).optional(),
    proto: z.enum(['udp', 'tcp']).default('udp'),
    mode: z.union([z.literal('nat'), z.literal('route')]),
    routes: z.array(z.string()).default([]),
    cipher: z.string().optional(),
    tlsauth: z.string().optional(),
    comment: z.string().optional(),
  }),
  form: {
    tabs: [
      {
        key: 'basic',
        fields: [
          { name: 'name', addOnly: true },
          { name: 'enabled' },
          { name: 'port' },
          { name: 'proto' },
          { name: 'mode' },
        ],
      },
      {
        key: 'advanced',
        fields: [
          { name: 'mtu' },
          { name: 'routes', visibleWhen: { field: 'mode', equals: 'route' } },
          { name: 'cipher', widget: 'select', options: ['AES-256-GCM', 'BF-CBC'], visibleWhen: { field: 'proto', in: ['udp', 'tcp'] } },
          { name: 'tlsauth', visibleWhen: { field: 'cipher', equals: 'AES-256-GCM' } },
          { name: 'comment', widget: 'textarea' },
        ],
      },
    ],
  },
}) as unknown as AnyEntity;

describe('widget inference from the zod type', () => {
  test.each([
    ['string', z.string(), 'text'],
    ['boolean with default', z.boolean().default(false), 'switch'],
    ['number', z.number().int(), 'number'],
    ['optional number', z.number().optional(), 'number'],
    ['enum', z.enum(['a', 'b']), 'select'],
    ['union of literals', z.union([z.literal(0), z.literal(1)]), 'select'],
    ['array of strings', z.array(z.string()).default([]), 'tags'],
    ['array of refined strings', z.array(z.string().refine((v) => v !== '')), 'tags'],
    ['array of numbers', z.array(z.number()), 'text'],
    ['transformed string', z.string().transform((v) => v.trim()), 'text'],
  ])('%s -> %s', (_label, schema, widget) => {
    expect(inferWidget(schema as z.ZodType)).toBe(widget);
  });

  test('choices of enums, literals and unions of literals', () => {
    expect(choicesOf(z.enum(['udp', 'tcp']))).toEqual(['udp', 'tcp']);
    expect(choicesOf(z.union([z.literal(0), z.literal(1), z.literal(2)]))).toEqual([0, 1, 2]);
    expect(choicesOf(z.union([z.literal('a'), z.string()]))).toBeNull();
    expect(choicesOf(z.string())).toBeNull();
  });
});

describe('form model of the admin user entity', () => {
  test('add: one tab (so no tab strip), declared widgets, labels and option keys', () => {
    const model = buildFormModel(admin, 'add');
    expect(model.showTabs).toBe(false);
    expect(model.fields.map((f) => [f.name, f.widget])).toEqual([
      ['username', 'text'],
      ['password', 'password'],
      ['confirm', 'password'],
      ['privilege', 'select'],
      ['disabled', 'switch'],
      ['allowd_ips', 'tags'],
    ]);
    const privilege = model.fields.find((f) => f.name === 'privilege')!;
    expect(privilege.labelKey).toBe('adminUser.field.privilege');
    expect(privilege.helpKey).toBe('adminUser.help.privilege');
    expect(privilege.options).toEqual([
      { value: 0, key: '0', labelKey: 'adminUser.option.privilege.0' },
      { value: 1, key: '1', labelKey: 'adminUser.option.privilege.1' },
      { value: 2, key: '2', labelKey: 'adminUser.option.privilege.2' },
    ]);
    const username = model.fields.find((f) => f.name === 'username')!;
    expect(username.readOnly).toBe(false);
    expect(username.required).toBe(true);
    expect(model.fields.find((f) => f.name === 'password')!.keepWhenEmpty).toBe(false);
    expect(model.fields.find((f) => f.name === 'password')!.required).toBe(true);
    // A plain string accepts '' so the confirm box carries no required mark.
    expect(model.fields.find((f) => f.name === 'confirm')!.required).toBe(false);
  });

  test('edit: addOnly fields are read-only, keepWhenEmpty fields are optional', () => {
    const model = buildFormModel(admin, 'edit');
    const byName = Object.fromEntries(model.fields.map((f) => [f.name, f]));
    expect(byName.username!.readOnly).toBe(true);
    expect(byName.username!.required).toBe(false);
    expect(byName.username!.addOnly).toBe(true);
    expect(byName.password!.keepWhenEmpty).toBe(true);
    expect(byName.password!.required).toBe(false);
    expect(byName.confirm!.keepWhenEmpty).toBe(true);
    expect(byName.privilege!.readOnly).toBe(false);
  });

  test('add starts from the schema defaults (least privilege for a new account)', () => {
    const model = buildFormModel(admin, 'add');
    expect(initialValues(admin, model)).toEqual({
      username: '',
      password: '',
      confirm: '',
      privilege: 2,
      disabled: false,
      allowd_ips: [],
    });
  });

  test('edit starts from the record, with keepWhenEmpty fields empty', () => {
    const model = buildFormModel(admin, 'edit');
    const values = initialValues(admin, model, {
      id: '7',
      username: 'ops',
      privilege: 1,
      disabled: true,
      allowd_ips: ['10.0.0.0/8'],
      password: 'should-not-show',
    });
    expect(values).toEqual({
      username: 'ops',
      password: '',
      confirm: '',
      privilege: 1,
      disabled: true,
      allowd_ips: ['10.0.0.0/8'],
    });
  });

  test('writeSchema modes: edit is update', () => {
    expect(writeModeOf('add')).toBe('add');
    expect(writeModeOf('edit')).toBe('update');
  });
});

describe('form model of a multi-tab entity', () => {
  const model = buildFormModel(tunnel, 'add');

  test('two tabs are drawn as tabs, fields in declaration order', () => {
    expect(model.showTabs).toBe(true);
    expect(model.tabs.map((t) => t.key)).toEqual(['basic', 'advanced']);
    expect(model.tabs[1]!.fields.map((f) => f.name)).toEqual(['mtu', 'routes', 'cipher', 'tlsauth', 'comment']);
  });

  test('numbers carry their bounds and integer flag; declared options win over inference', () => {
    const port = model.fields.find((f) => f.name === 'port')!;
    expect(port).toMatchObject({ widget: 'number', min: 1, max: 65535, integer: true, required: false });
    const mode = model.fields.find((f) => f.name === 'mode')!;
    expect(mode).toMatchObject({ widget: 'select', required: true });
    expect(mode.options.map((o) => o.labelKey)).toEqual(['tunnelTest.option.mode.nat', 'tunnelTest.option.mode.route']);
    const cipher = model.fields.find((f) => f.name === 'cipher')!;
    expect(cipher.options.map((o) => o.value)).toEqual(['AES-256-GCM', 'BF-CBC']);
    expect(model.fields.find((f) => f.name === 'comment')!.widget).toBe('textarea');
  });

  test('defaults fill the add form', () => {
    expect(initialValues(tunnel, model)).toEqual({
      name: '',
      enabled: true,
      port: 4443,
      proto: 'udp',
      mode: 'nat',
      mtu: '',
      routes: [],
      cipher: null,
      tlsauth: '',
      comment: '',
    });
  });

  test('visibleWhen rules: equals, in, and a chain through a hidden field', () => {
    const values = initialValues(tunnel, model);
    expect(ruleHolds({ field: 'proto', in: ['udp'] }, values)).toBe(true);
    expect(isFieldVisible(model, 'routes', values)).toBe(false);
    expect(isFieldVisible(model, 'routes', { ...values, mode: 'route' })).toBe(true);
    expect(isFieldVisible(model, 'tlsauth', { ...values, cipher: 'AES-256-GCM' })).toBe(true);
    // tlsauth depends on cipher, which depends on proto: hiding cipher hides tlsauth too.
    expect(isFieldVisible(model, 'tlsauth', { ...values, proto: 'sctp', cipher: 'AES-256-GCM' })).toBe(false);
    expect(visibleFieldNames(model, values)).toEqual(['name', 'enabled', 'port', 'proto', 'mode', 'mtu', 'cipher', 'comment']);
  });

  test('numbers compare with their text form in rules', () => {
    expect(ruleHolds({ field: 'privilege', equals: 2 }, { privilege: '2' })).toBe(true);
    expect(ruleHolds({ field: 'privilege', equals: 2 }, { privilege: null })).toBe(false);
  });

  test('payload leaves out hidden fields, empty numbers and unchosen selects', () => {
    const values = { ...initialValues(tunnel, model), name: 'hq', routes: ['10.1.0.0/16'], mode: null };
    const body = formPayload(model, values);
    // tlsauth waits for a cipher to be chosen, so it is hidden and not sent either.
    expect(body).toEqual({ name: 'hq', enabled: true, port: 4443, proto: 'udp', comment: '' });
    expect(body).not.toHaveProperty('routes');
    expect(body).not.toHaveProperty('mtu');
    expect(formPayload(model, { ...values, mode: 'route', mtu: '1400' })).toMatchObject({ mode: 'route', routes: ['10.1.0.0/16'], mtu: 1400 });
  });

  test('read-only fields are not sent on edit', () => {
    const edit = buildFormModel(tunnel, 'edit');
    const values = initialValues(tunnel, edit, { id: '1', name: 'hq', mode: 'nat', port: 1194 });
    const body = formPayload(edit, values);
    expect(body).not.toHaveProperty('name');
    expect(body).toMatchObject({ mode: 'nat', port: 1194 });
  });
});

describe('stored values as widgets hold them', () => {
  const model = buildFormModel(tunnel, 'edit');
  const field = (name: string) => model.fields.find((f) => f.name === name)!;

  test('UCI style flags and lists', () => {
    expect(toFieldValue(field('enabled'), '1')).toBe(true);
    expect(toFieldValue(field('enabled'), '0')).toBe(false);
    expect(toFieldValue(field('routes'), '10.0.0.0/8 192.168.0.0/16')).toEqual(['10.0.0.0/8', '192.168.0.0/16']);
    expect(toFieldValue(field('port'), '1194')).toBe(1194);
    expect(toFieldValue(field('port'), 'x')).toBe('');
    expect(toFieldValue(field('mode'), 'route')).toBe('route');
    expect(toFieldValue(field('mtu'), undefined)).toBe('');
  });

  test('select values are matched by their text form', () => {
    const privilege = buildFormModel(admin, 'edit').fields.find((f) => f.name === 'privilege')!;
    expect(toFieldValue(privilege, '2')).toBe(2);
  });
});

describe('an entity without a declared form', () => {
  const bare = defineEntity({
    name: 'bareTest',
    path: 'baretest',
    module: 'baretest',
    kind: 'singleton',
    schema: z.object({ enabled: z.boolean(), server: z.string().min(1), port: z.number().int() }),
  }) as unknown as AnyEntity;

  test('shows every schema field in one tab', () => {
    const model = buildFormModel(bare, 'edit');
    expect(model.showTabs).toBe(false);
    expect(model.fields.map((f) => [f.name, f.widget])).toEqual([
      ['enabled', 'switch'],
      ['server', 'text'],
      ['port', 'number'],
    ]);
  });
});
