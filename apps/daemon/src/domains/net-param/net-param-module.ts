import { netParam } from '@portico/schema';
import { defineDomain } from '../../config/domain-module.js';
import { NETPARAM_FILE, renderNetParam, savedNetParam } from './net-param-render.js';

/**
 * Network parameters (spec §2 /system/networkparameter, §7 sysconf/netparam): kernel TCP/IP
 * settings, rendered once saved (before that the system's own values stay). The file is of the
 * network domain's `sysctl` format, so on linux it goes live the way every sysctl file does
 * (each key whose value under /proc/sys differs is written); OpenWrt loads it with `sysctl -p`.
 */
export const netParamModule = defineDomain({
  name: 'net-param',
  pages: ['networkparameter'],
  configDomains: () => [
    {
      name: 'net-param',
      entities: [netParam.name],
      render: (snapshot) => {
        const saved = savedNetParam(snapshot);
        return [{ domain: 'net-param', files: saved ? [{ target: NETPARAM_FILE, content: renderNetParam(saved), check: 'sysctl', mode: 0o644 }] : [] }];
      },
    },
  ],
  activation: {
    openwrt: () => ({ reloadFor: (target) => (target === NETPARAM_FILE ? { argv: ['sysctl', '-p', target] } : undefined) }),
  },
});
