/**
 * The Network section's public face: what other domains build on (the network plan and its
 * devices, the value syntax every renderer shares, the one ruleset's extension point, the one
 * IKE daemon's).
 * Other domains import the network domain through this file only.
 */
export * from './network-config.js';
export * from './network-domain.js';
export { syntaxLines } from './network-formats.js';
export * from './network-openwrt-mwan3.js';
export * from './network-plan.js';
export * from './network-ruleset-parts.js';
export { IKE_FILES, IKE_USERS, ikeViciSocket, parseStrongswanSettings, type IkeUser, type SettingsLine } from './network-ike.js';
export { ikeDaemonOf, BoundedLog, IPSEC_LOG_MAX_BYTES } from './network-ike-daemon.js';
export { readIpsecLogFile } from './network-ipsec-log.js';
export { isIpsecClientConnection } from './network-vpn-swanctl.js';
export * from './network-syntax.js';
export { RESTART_BACKOFF, restartDelay, SupervisedProcess, spawnService, stopChild } from './network-child-process.js';
