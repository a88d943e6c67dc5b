export * from './entity/define-entity.js';
export * from './entity/entity-registry.js';
export * from './api/api-envelope.js';
export * from './auth/role-policy.js';
export * from './menu/menu-types.js';
export * from './common/index.js';
export * from './system/admin-user.js';
