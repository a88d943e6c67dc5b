/**
 * The time domain's public face: on OpenWrt it renders UCI `system` (/etc/config/system) whole,
 * and other domains add their options of its `system` section through this extension point
 * (the host name). Other domains import system-time through this file only.
 */
export { SYSTEM_UCI_OPTIONS, type SystemUciContributor } from './system-time-openwrt.js';
