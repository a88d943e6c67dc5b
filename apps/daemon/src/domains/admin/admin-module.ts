import { adminUser } from '@portico/schema';
import { defineDomain } from '../../config/domain-module.js';
import { adminBinding } from './admin-entity.js';

/** Administrator accounts, served by the generic entity routes over their own table. */
export const adminModule = defineDomain({ name: 'admin', bindings: (ctx) => ({ [adminUser.name]: adminBinding(ctx) }) });
