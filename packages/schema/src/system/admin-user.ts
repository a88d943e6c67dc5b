import { z } from 'zod';
import { defineEntity } from '../entity/define-entity.js';
import { passwordField, PASSWORD_MISMATCH, userNameField } from '../common/account-fields.js';
import { accessIpField } from '../common/access-ip.js';
import { PRIVILEGES } from '../auth/role-policy.js';

/** Admin users (spec §3 "Admin users", §6). The built-in account is `admin`, privilege 0. */
export const BUILTIN_ADMIN = 'admin';

export const adminUser = defineEntity({
  name: 'adminUser',
  path: 'admin',
  module: 'usermanagement',
  route: '/system/usermanagement',
  kind: 'collection',
  schema: z.object({
    id: z.string(),
    username: userNameField(),
    password: passwordField(),
    confirm: z.string(),
    disabled: z.boolean().default(false),
    privilege: z.union(PRIVILEGES.map((p) => z.literal(p)) as [z.ZodLiteral<0>, z.ZodLiteral<1>, z.ZodLiteral<2>], {
      error: 'validation.option',
    }).default(2), // least privilege unless the administrator chooses otherwise
    /** Allowed source addresses; empty list = unrestricted. */
    allowd_ips: z.array(accessIpField().refine((v) => v !== '', { error: 'validation.accessIp' })).max(32).default([]),
  }),
  writeOnly: ['password', 'confirm'],
  refine(value, ctx) {
    if ((value.password || value.confirm) && value.password !== value.confirm) ctx.addIssue('confirm', PASSWORD_MISMATCH);
  },
  list: {
    columns: [
      { field: 'username', sortable: true },
      { field: 'privilege', format: 'option', sortable: true },
      { field: 'disabled', format: 'enabled' },
      { field: 'allowd_ips', format: 'tags' },
    ],
    defaultSort: 'username',
  },
  form: {
    tabs: [
      {
        key: 'basic',
        fields: [
          { name: 'username', addOnly: true },
          { name: 'password', widget: 'password', keepWhenEmpty: true },
          { name: 'confirm', widget: 'password', keepWhenEmpty: true },
          { name: 'privilege', widget: 'select', options: PRIVILEGES },
          { name: 'disabled', widget: 'switch' },
          { name: 'allowd_ips', widget: 'tags' },
        ],
      },
    ],
  },
  cutsAccess: true,
  maxRows: 64,
});
export type AdminUser = z.infer<typeof adminUser.schema>;
