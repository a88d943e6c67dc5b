import { describe, expect, test } from 'vitest';
import { z } from 'zod';
import { adminUser, defineEntity, hotspotRadius, type AnyEntity } from '@portico/schema';
import { buildFormModel, initialValues, type FormValues } from '../src/pages/entity/entity-form-model.js';
import {
  clearFieldError,
  firstTabWithError,
  splitErrors,
  validateForm,
  writeCandidate,
} from '../src/pages/entity/entity-form-errors.js';

const admin = adminUser as unknown as AnyEntity;
const addModel = buildFormModel(admin, 'add');
const editModel = buildFormModel(admin, 'edit');

function addValues(changes: FormValues): FormValues {
  return { ...initialValues(admin, addModel), ...changes };
}

const stored = { id: '3', username: 'ops', privilege: 1, disabled: false, allowd_ips: [], created: 1700000000 };

describe('client-side validation of the admin user form', () => {
  test('an empty add form reports each required field with its i18n key', () => {
    const errors = validateForm(admin, addModel, initialValues(admin, addModel));
    expect(errors).toMatchObject({
      username: 'validation.required',
      password: 'validation.required',
    });
    // privilege has a least-privilege default, so an untouched form is not missing it.
    expect(errors.privilege).toBeUndefined();
    for (const key of Object.values(errors)) expect(key).toMatch(/^validation\./);
  });

  test('spec §5 rules: characters, length, matching confirmation, access IPs', () => {
    const errors = validateForm(
      admin,
      addModel,
      addValues({
        username: 'bad name!',
        password: 'short1',
        confirm: 'other',
        privilege: 0,
        allowd_ips: ['10.0.0.0/8', 'not-an-ip'],
      }),
    );
    expect(errors.username).toBe('validation.username.chars');
    expect(errors.password).toBe('validation.password.length');
    expect(errors.allowd_ips).toBe('validation.accessIp');
    expect(validateForm(admin, addModel, addValues({ username: 'ops', password: 'abc!defgh', confirm: 'abc!defgh', privilege: 2 })).password).toBe(
      'validation.password.chars',
    );
  });

  test('a mismatched confirmation lands on confirm', () => {
    const errors = validateForm(
      admin,
      addModel,
      addValues({ username: 'ops', password: 'Passw0rd1', confirm: 'Passw0rd2', privilege: 2 }),
    );
    expect(errors).toEqual({ confirm: 'validation.password.mismatch' });
  });

  test('a complete add form passes', () => {
    const values = addValues({ username: 'ops', password: 'Passw0rd1', confirm: 'Passw0rd1', privilege: 1, allowd_ips: ['192.168.1.0/24'] });
    expect(validateForm(admin, addModel, values)).toEqual({});
    expect(writeCandidate(admin, addModel, values)).not.toHaveProperty('id');
  });

  test('edit with empty password keeps it and passes; extra stored fields are not written', () => {
    const values = initialValues(admin, editModel, stored);
    expect(validateForm(admin, editModel, values, stored)).toEqual({});
    const candidate = writeCandidate(admin, editModel, values, stored);
    expect(candidate).toMatchObject({ id: '3', username: 'ops', password: '', confirm: '' });
    expect(candidate).not.toHaveProperty('created');
  });

  test('edit with a new password still checks it', () => {
    const values = { ...initialValues(admin, editModel, stored), password: 'NewPassw0rd', confirm: 'nope' };
    expect(validateForm(admin, editModel, values, stored)).toEqual({ confirm: 'validation.password.mismatch' });
    expect(validateForm(admin, editModel, { ...values, password: 'x' }, stored).password).toBe('validation.password.length');
  });
});

describe('placing errors', () => {
  const shaped = defineEntity({
    name: 'shapedTest',
    path: 'shapedtest',
    module: 'shapedtest',
    kind: 'collection',
    schema: z.object({
      id: z.string(),
      mode: z.enum(['a', 'b']),
      host: z.string().min(1).optional(),
      key: z.string().min(1),
    }),
    form: {
      tabs: [
        { key: 'basic', fields: [{ name: 'mode' }] },
        { key: 'advanced', fields: [{ name: 'host', visibleWhen: { field: 'mode', equals: 'b' } }, { name: 'key' }] },
      ],
    },
  }) as unknown as AnyEntity;
  const model = buildFormModel(shaped, 'add');

  test('server errors on shown fields go to the fields, the rest to the list', () => {
    const values: FormValues = { mode: 'a', host: '', key: '' };
    const split = splitErrors(model, values, {
      key: 'validation.required',
      host: 'validation.hostname',
      _: 'msg.saveFailed',
      secret: 'validation.required',
    });
    expect(split.fields).toEqual({ key: 'validation.required' });
    expect(split.other).toEqual({ host: 'validation.hostname', _: 'msg.saveFailed', secret: 'validation.required' });
    expect(splitErrors(model, { ...values, mode: 'b' }, { host: 'validation.hostname' }).fields).toEqual({ host: 'validation.hostname' });
    expect(splitErrors(model, values, undefined)).toEqual({ fields: {}, other: {} });
  });

  test('the first tab with an error is the one to show', () => {
    expect(firstTabWithError(model, { key: 'validation.required' })).toBe('advanced');
    expect(firstTabWithError(model, { key: 'validation.required', mode: 'validation.option' })).toBe('basic');
    expect(firstTabWithError(model, {})).toBeNull();
  });

  test('editing a field clears only its error', () => {
    const errors = { key: 'validation.required', mode: 'validation.option' };
    expect(clearFieldError(errors, 'key')).toEqual({ mode: 'validation.option' });
    expect(clearFieldError(errors, 'host')).toBe(errors);
  });
});

describe('a stored key the form keeps when left empty', () => {
  const radius = hotspotRadius as unknown as AnyEntity;
  const model = buildFormModel(radius, 'edit');
  // What the daemon sends back: the key (write-only) left out.
  const record = { enabled: true, radiusip: '192.0.2.10', radiusip2: '', authport: 1812, acctport: 1813 };

  test('is not "required" in the console: the daemon, holding the stored key, decides', () => {
    const values = { ...initialValues(radius, model, record), sharekey: '' };
    expect(validateForm(radius, model, values, record).sharekey).toBeUndefined();
  });

  test('other rules still hold beside it', () => {
    const values = { ...initialValues(radius, model, record), sharekey: '', radiusip: '' };
    expect(validateForm(radius, model, values, record)).toMatchObject({ radiusip: 'validation.required' });
  });
});
