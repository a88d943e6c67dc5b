import { generateKeyPairSync } from 'node:crypto';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { linkPair } from '@portico/schema';
import { firmwareVersion, wiredSerial } from '../src/ap-agent-identity.js';
import { startAgent, type ControllerTarget } from '../src/ap-agent-main.js';
import { AgentSettingsError, parseAgentSettings, readAgentSettings } from '../src/ap-agent-settings.js';
import { ControllerEnd } from './controller-end.js';
import { tempDir } from './agent-fixtures.js';

const minimal = {
  controller: { host: 'controller.portico.lan' },
  tls: { cert: '/etc/portico-agent/cert.pem', key: '/etc/portico-agent/key.pem', ca: '/etc/portico-agent/ca.pem' },
  radios: [{ phy: 'phy0', interface: 'wlan0' }],
};

describe('agent settings', () => {
  it('fills defaults for a minimal file', () => {
    const settings = parseAgentSettings(JSON.stringify(minimal), 'agent.json');
    expect(settings.controller.port).toBe(15002);
    expect(settings.platform).toBe('ap');
    expect(settings.stateDir).toBe('/var/lib/portico-agent');
    expect(settings.system.upgrade).toEqual(['sysupgrade']);
    expect(settings.firmware.versionOf).toBe('system');
    expect(settings.flash).toEqual({ program: '/usr/lib/portico-agent/portico-agent.mjs', restart: ['systemctl', 'restart', '--no-block', 'portico-agent.service'] });
  });

  it('takes the controller address and the certificate paths from the environment over the file', () => {
    const env = {
      PORTICO_AGENT_CONTROLLER_HOST: '192.168.11.1',
      PORTICO_AGENT_CONTROLLER_PORT: '25002',
      PORTICO_AGENT_TLS_CERT: '/data/ap/cert.pem',
      PORTICO_AGENT_TLS_KEY: '/data/ap/key.pem',
      PORTICO_AGENT_TLS_CA: '/data/ap/ca.pem',
    };
    const settings = parseAgentSettings(JSON.stringify(minimal), 'agent.json', env);
    expect(settings.controller).toEqual({ host: '192.168.11.1', port: 25002 });
    expect(settings.tls).toEqual({ cert: '/data/ap/cert.pem', key: '/data/ap/key.pem', ca: '/data/ap/ca.pem' });
    // Empty variables leave the file's values; bad ones are named like the file's.
    expect(parseAgentSettings(JSON.stringify(minimal), 'agent.json', { PORTICO_AGENT_CONTROLLER_HOST: ' ' }).controller.host).toBe('controller.portico.lan');
    expect(() => parseAgentSettings(JSON.stringify(minimal), 'agent.json', { PORTICO_AGENT_CONTROLLER_PORT: 'http' })).toThrow(/controller\.port: /);
    expect(() => parseAgentSettings(JSON.stringify(minimal), 'agent.json', { PORTICO_AGENT_TLS_KEY: 'key.pem' })).toThrow(/tls\.key: /);
    // The file may leave out what the environment gives.
    const { controller: _c, tls: _t, ...bare } = minimal;
    expect(parseAgentSettings(JSON.stringify(bare), 'agent.json', env).controller.host).toBe('192.168.11.1');
  });

  it('names every bad field, and says when the file is missing or not JSON', async () => {
    const bad = { ...minimal, radios: [{ phy: 'phy0', interface: '-evil' }], stateDir: '../state', serial: 'not-a-mac' };
    expect(() => parseAgentSettings(JSON.stringify(bad), 'agent.json')).toThrow(AgentSettingsError);
    expect(() => parseAgentSettings(JSON.stringify(bad), 'agent.json')).toThrow(/serial: .*radios\.0\.interface: .*stateDir: /);
    expect(() => parseAgentSettings('{', 'agent.json')).toThrow(/agent\.json: not JSON/);
    await expect(readAgentSettings(join(tempDir(), 'absent.json'))).rejects.toThrow(/absent\.json: cannot read \(ENOENT\)/);
  });
});

describe('agent identity', () => {
  it('takes the serial from the first wired interface, skipping loopback, radios and virtual ones', async () => {
    const net = tempDir();
    const iface = (name: string, address: string, options: { device?: boolean; wireless?: boolean; type?: string } = {}) => {
      mkdirSync(join(net, name));
      writeFileSync(join(net, name, 'address'), `${address}\n`);
      writeFileSync(join(net, name, 'type'), `${options.type ?? '1'}\n`);
      if (options.device !== false) symlinkSync('/', join(net, name, 'device'));
      if (options.wireless) mkdirSync(join(net, name, 'phy80211'));
    };
    iface('lo', '00:00:00:00:00:00', { device: false, type: '772' });
    iface('br-lan', '02:00:00:00:00:01', { device: false });
    iface('eth1', '02:42:ac:11:00:03');
    iface('eth0', '02:42:AC:11:00:02');
    iface('wlan0', '02:42:ac:11:00:09', { wireless: true });
    expect(await wiredSerial(net)).toBe('0242ac110002');
    expect(await wiredSerial(join(net, 'absent'))).toBeNull();
  });

  it('reports the configured firmware, else the distribution’s release', async () => {
    const etc = tempDir();
    expect(await firmwareVersion('Portico AP 1.2', etc)).toBe('Portico AP 1.2');
    expect(await firmwareVersion(undefined, etc)).toBe('unknown');
    writeFileSync(join(etc, 'debian_version'), '12.8\n');
    expect(await firmwareVersion(undefined, etc)).toBe('Debian 12.8');
    writeFileSync(join(etc, 'openwrt_version'), 'r24106-10cc5fcd00\n');
    expect(await firmwareVersion(undefined, etc)).toBe('OpenWrt r24106-10cc5fcd00');
    // A Debian AP whose firmware is the agent reports the agent's own version (unbundled: dev).
    expect(await firmwareVersion(undefined, etc, 'agent')).toBe('dev');
    expect(await firmwareVersion('Portico AP 1.2', etc, 'agent')).toBe('Portico AP 1.2');
  });
});

describe('startAgent', () => {
  it('dials the configured controller with the device certificate and stops cleanly', async () => {
    const dir = tempDir();
    const key = join(dir, 'firmware.pem');
    writeFileSync(key, generateKeyPairSync('ed25519').publicKey.export({ type: 'spki', format: 'pem' }));
    const path = join(dir, 'agent.json');
    writeFileSync(path, JSON.stringify({ ...minimal, serial: '0242AC110002', stateDir: join(dir, 'state'), runDir: join(dir, 'run'), firmware: { version: 'Portico AP 1.2', publicKey: key } }));
    const targets: ControllerTarget[] = [];
    const ends: ControllerEnd[] = [];
    const commands: string[][] = [];
    const agent = await startAgent(
      async (target) => {
        targets.push(target);
        const pair = linkPair(target.serial);
        ends.push(new ControllerEnd(pair.controller));
        return pair.device;
      },
      { settingsPath: path, run: async (argv) => (commands.push([...argv]), { exitCode: 0, stdout: '', stderr: '' }) },
    );
    await expect.poll(() => ends.length).toBe(1);
    expect(targets).toEqual([{ host: 'controller.portico.lan', port: 15002, serial: '0242ac110002', tls: minimal.tls }]);
    expect(await ends[0]!.next('connect')).toMatchObject({ serial: '0242ac110002', uuid: 0, firmware: 'Portico AP 1.2' });
    agent.stop();
    await expect.poll(() => ends[0]!.closed).toBe(true);
    // Without a stored configuration nothing touched the radios.
    expect(commands).toEqual([]);
  });

  it('refuses a firmware key that is not Ed25519', async () => {
    const dir = tempDir();
    const key = join(dir, 'rsa.pem');
    writeFileSync(key, generateKeyPairSync('rsa', { modulusLength: 1024 }).publicKey.export({ type: 'spki', format: 'pem' }));
    const path = join(dir, 'agent.json');
    writeFileSync(path, JSON.stringify({ ...minimal, serial: '0242ac110002', stateDir: join(dir, 'state'), firmware: { publicKey: key } }));
    await expect(startAgent(async () => linkPair('0242ac110002').device, { settingsPath: path })).rejects.toThrow(/firmware\.publicKey: .* not an Ed25519 public key/);
  });
});
