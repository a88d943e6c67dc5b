// Files the daemon hands to other programs by path, copied by build.mjs from the network
// domain to beside the bundle, where the domain looks for them: the DHCP WAN client's hook
// (udhcpc runs it, network-wan-dhcp.ts) and the PPPoE WANs' link-up and link-down hooks with
// the module they share (pppd runs them, network-wan-ppp.ts). Packaging reads the list too.
export const NETWORK_HOOK_FILES = Object.freeze([
  Object.freeze({ file: 'dhcp-hook.mjs', executable: true }),
  Object.freeze({ file: 'ppp-up-hook.mjs', executable: true }),
  Object.freeze({ file: 'ppp-down-hook.mjs', executable: true }),
  Object.freeze({ file: 'ppp-hook-record.mjs', executable: false }),
  // The PPP servers' session hook (domains/ppp-server, ppp-server-files.ts).
  Object.freeze({ file: 'ppp-server-hook.mjs', executable: true, domain: 'ppp-server' }),
]);
