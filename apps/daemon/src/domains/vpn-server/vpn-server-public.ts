/**
 * The VPN server domain's public face: what other domains may use. The Logs pages read the
 * IPsec server's log through `readIpsecServerLog(systemRoot)` (newest lines, oldest first);
 * the L2TP/IPsec server's IPsec share (a transport-mode connection for UDP 1701 and its key for
 * anonymous clients) is rendered on the same charon from its `l2tpServer` entity's `psk`.
 */
export { readIpsecServerLog, type IpsecLogText } from './vpn-server-ipsec-runtime.js';
export { IPSEC_FILES, L2TP_CONNECTION } from './vpn-server-ipsec.js';
