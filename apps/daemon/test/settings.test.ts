import { describe, expect, test } from 'vitest';
import { resolve } from 'node:path';
import { readSettings, SettingsError } from '../src/settings.js';

describe('settings from the environment', () => {
  test('the wireless device port: its own, never the console\'s or the portal\'s', () => {
    expect(readSettings({ PORTICO_WIRELESS_PORT: '25002' }).wirelessPort).toBe(25002);
    expect(() => readSettings({ PORTICO_WIRELESS_PORT: '8080' })).toThrow(SettingsError);
    expect(() => readSettings({ PORTICO_WIRELESS_PORT: '2050' })).toThrow(SettingsError);
    expect(() => readSettings({ PORTICO_WIRELESS_PORT: '70000' })).toThrow(SettingsError);
  });

  test('defaults', () => {
    const s = readSettings({});
    expect(s).toMatchObject({
      stateDir: resolve('./var'),
      port: 8080,
      host: '0.0.0.0',
      driver: 'sim',
      capabilityString: 'gateway nas vlan qrcode cmcc wifidog phtunnel',
      logLevel: 'info',
      sessionIdle: 1800,
      sessionMax: 43200,
      allowedHosts: [],
      wirelessPort: 15002,
    });
    expect([...s.capabilities].sort()).toEqual(['cmcc', 'gateway', 'nas', 'phtunnel', 'qrcode', 'vlan', 'wifidog']);
    expect(s.consoleDir).toBe(resolve(__dirname, '../../console/dist'));
    expect(s.portalDir).toBe(resolve(__dirname, '../../portal/dist'));
    expect(s.tlsCert).toBeUndefined();
  });

  test('explicit values', () => {
    const s = readSettings({
      PORTICO_STATE_DIR: '/tmp/x',
      PORTICO_PORT: '9443',
      PORTICO_HOST: '127.0.0.1',
      PORTICO_DRIVER: 'linux',
      PORTICO_CAPABILITIES: 'gateway,iptv',
      PORTICO_DISABLED_MODULES: 'cloud telnetclient,ddns',
      PORTICO_ALLOWED_HOSTS: 'Router.Lan gw.example',
      PORTICO_SESSION_IDLE: '600',
      PORTICO_SESSION_MAX: '3600',
      PORTICO_LOG_LEVEL: 'warn',
      PORTICO_TLS_CERT: '/etc/c.pem',
      PORTICO_TLS_KEY: '/etc/k.pem',
    });
    expect(s).toMatchObject({ stateDir: '/tmp/x', port: 9443, host: '127.0.0.1', driver: 'linux', sessionIdle: 600, sessionMax: 3600, logLevel: 'warn' });
    expect([...s.capabilities].sort()).toEqual(['gateway', 'iptv']);
    expect([...s.disabledModules].sort()).toEqual(['cloud', 'ddns', 'telnetclient']);
    expect(s.allowedHosts).toEqual(['router.lan', 'gw.example']);
    expect(s.tlsCert).toBe('/etc/c.pem');
  });

  test('clear errors for values that cannot work', () => {
    expect(readSettings({ PORTICO_DRIVER: 'openwrt' }).driver).toBe('openwrt');
    expect(() => readSettings({ PORTICO_DRIVER: 'bsd' })).toThrow(SettingsError);
    expect(() => readSettings({ PORTICO_PORT: '70000' })).toThrow(/PORTICO_PORT/);
    expect(() => readSettings({ PORTICO_SESSION_IDLE: 'soon' })).toThrow(/PORTICO_SESSION_IDLE/);
    expect(() => readSettings({ PORTICO_LOG_LEVEL: 'loud' })).toThrow(/PORTICO_LOG_LEVEL/);
    expect(() => readSettings({ PORTICO_TLS_CERT: '/etc/c.pem' })).toThrow(/together/);
    expect(readSettings({}).qosDownload).toBe('auto');
    expect(readSettings({ PORTICO_QOS_DOWNLOAD: 'ifb' }).qosDownload).toBe('ifb');
    expect(readSettings({ PORTICO_QOS_DOWNLOAD: 'ifb-bpf' }).qosDownload).toBe('ifb-bpf');
    expect(() => readSettings({ PORTICO_QOS_DOWNLOAD: 'wan' })).toThrow(/PORTICO_QOS_DOWNLOAD/);
  });
});
