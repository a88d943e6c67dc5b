export * from './openvpn-server.js';
export * from './ipsec-server.js';
export * from './ppp-server.js';
