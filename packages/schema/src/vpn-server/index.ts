export * from './openvpn-server.js';
