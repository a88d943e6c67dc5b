import { z } from 'zod';
import { defineEntity } from '../entity/define-entity.js';
import { wirelessRowIdField } from './wireless-group.js';
import { macField } from '../common/mac-address.js';
import { plainTextField } from '../common/text-fields.js';

/**
 * The wireless MAC filter (spec §3 apmaclist, /wirelessmanage/whiteblacklist): stations on
 * the black list are refused and disconnected at once; with a group in white-list mode only
 * listed stations associate. An entry applies to one group or to every group (`all`).
 */
export const MAC_FILTER_LISTS = ['blacklist', 'whitelist'] as const;
/** An entry without a group applies to every group. */
export const MAC_FILTER_ALL_GROUPS = '';
export const MAC_FILTER_MAX = 4096;

export const apMacFilter = defineEntity({
  name: 'apMacFilter',
  path: 'ac/macfilter',
  module: 'whiteblacklist',
  route: '/wirelessmanage/whiteblacklist',
  kind: 'collection',
  schema: z.object({
    id: z.string(),
    list: z.enum(MAC_FILTER_LISTS, { error: 'validation.option' }).default('blacklist'),
    mac: macField(),
    group: wirelessRowIdField({ allowEmpty: true }).default(MAC_FILTER_ALL_GROUPS),
    comment: plainTextField(64).default(''),
  }),
  list: {
    columns: [
      { field: 'list', format: 'option', sortable: true },
      { field: 'mac', sortable: true },
      { field: 'group', sortable: true },
      { field: 'comment' },
    ],
    defaultSort: 'mac',
  },
  form: {
    tabs: [
      {
        key: 'basic',
        fields: [
          { name: 'list', options: [...MAC_FILTER_LISTS] },
          { name: 'mac' },
          { name: 'group', ref: [{ entity: 'apGroup', value: 'id', label: 'name' }] },
          { name: 'comment' },
        ],
      },
    ],
  },
  formRoutes: { prefix: '' },
  maxRows: MAC_FILTER_MAX,
});
export type ApMacFilter = z.infer<typeof apMacFilter.schema>;
