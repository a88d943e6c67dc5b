import { TUNNEL_PORT_DEFAULT, TUNNEL_PORT_MAX, TUNNEL_PORT_MIN } from '../common/port-fields.js';

/** OpenVPN server defaults (spec §3, §9). */
export const OPENVPN_DEFAULTS = {
  port: 1194,
  proto: 'udp',
  dev: 'tun',
  cipher: 'BF-CBC',
  compress: 'lzo',
} as const;

/** Tunnel server port (spec §5, §9). */
export const TUNNEL_SERVER_PORT = {
  default: TUNNEL_PORT_DEFAULT,
  min: TUNNEL_PORT_MIN,
  max: TUNNEL_PORT_MAX,
} as const;
