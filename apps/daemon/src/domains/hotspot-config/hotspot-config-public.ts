/** The hotspot configuration's public face: local accounts and the portal's uploaded files. */
export * from './local-user-store.js';
export * from './portal-uploads.js';
export * from './portal-zip.js';
