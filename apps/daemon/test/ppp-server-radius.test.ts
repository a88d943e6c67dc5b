import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { hotspotRadius, pppoeServer, type AnyEntity, type HotspotRadius, type PppoeServer } from '@portico/schema';
import { adminClient, get, json, post, startDaemon, type Client, type Harness } from './daemon-harness.js';
import { forgetSealedPassword } from './local-user-fixture.js';
import { checkPppServerOptions, renderPppServerOptions } from '../src/domains/ppp-server/ppp-server-files.js';
import {
  checkRadiusClientConf,
  checkRadiusDictionary,
  checkRadiusServers,
  pppRadiusProblem,
  PPP_RADIUS_FILES,
  renderPppRadiusFiles,
  renderRadiusClientConf,
  renderRadiusDictionary,
  renderRadiusServers,
} from '../src/domains/ppp-server/ppp-server-radius.js';

const parse = <T>(entity: unknown, value: Record<string, unknown>) => (entity as AnyEntity).schema.parse(value) as T;
const radius = (value: Record<string, unknown>) => parse<HotspotRadius>(hotspotRadius, { enabled: true, radiusip: '10.77.0.1', sharekey: 'Radius-Key1', ...value });
const env = { root: '/', hook: '/usr/lib/portico/apps/daemon/dist/ppp-server-hook.mjs', radiusConfig: PPP_RADIUS_FILES.config };

describe('RADIUS accounts: rendering and checkers', () => {
  test('pppd options load the radius plugin first and name its configuration; the checker accepts them', () => {
    const server = parse<PppoeServer>(pppoeServer, { enabled: true, interfaces: ['lan'], authway: 'radius', authproto: ['chap'], mppe: false });
    const text = renderPppServerOptions('pppoe', server, env);
    const lines = text.split('\n');
    expect(lines[1]).toBe('plugin radius.so');
    expect(lines[2]).toBe(`radius-config-file ${PPP_RADIUS_FILES.config}`);
    expect(checkPppServerOptions(text)).toEqual([]);
    expect(checkPppServerOptions(text.replace('plugin radius.so', 'plugin /tmp/evil.so'))).toEqual([expect.stringContaining('bad argument of plugin')]);
    // Local accounts: no plugin.
    expect(renderPppServerOptions('pppoe', { ...server, authway: 'local' }, env)).not.toContain('radius');
    // A RADIUS server without the plugin's configuration cannot be rendered.
    expect(() => renderPppServerOptions('pppoe', server, { ...env, radiusConfig: undefined })).toThrow(/RADIUS/);
  });

  test("radiusclient.conf carries the hotspot's servers, ports, timeout and retries; the checker holds every line", () => {
    const text = renderRadiusClientConf(radius({ radiusip2: '10.77.0.2', authport: 11812, accoutport: 11813, timeout: 5, retries: 0, nasid: 'gw-7' }), '/run/portico/ppp-server');
    expect(text).toContain('\nauthserver 10.77.0.1:11812,10.77.0.2:11812\n');
    expect(text).toContain('\nacctserver 10.77.0.1:11813,10.77.0.2:11813\n');
    expect(text).toContain(`\nservers ${PPP_RADIUS_FILES.servers}\n`);
    expect(text).toContain(`\ndictionary ${PPP_RADIUS_FILES.dictionary}\n`);
    expect(text).toContain('\nseqfile /run/portico/ppp-server/radius.seq\n');
    expect(text).toContain('\nradius_timeout 5\n');
    // radiusclient refuses 0 retries; one send at least.
    expect(text).toContain('\nradius_retries 1\n');
    expect(text).toContain('\nnas_identifier gw-7\n');
    expect(checkRadiusClientConf(text)).toEqual([]);
    expect(renderRadiusClientConf(radius({}), '/run')).toContain('\nnas_identifier portico\n');
    expect(checkRadiusClientConf(`${text}authserver 10.0.0.9:1812\n`)).not.toEqual([]);
    expect(checkRadiusClientConf(text.replace('auth_order radius', 'auth_order radius,local'))).not.toEqual([]);
    expect(checkRadiusClientConf(text.replace(/^dictionary .*\n/m, ''))).toEqual(['dictionary missing']);
    expect(() => renderRadiusClientConf(radius({ nasid: 'a\u0000b' }), '/run')).toThrow();
  });

  test('the servers file pairs each server with the key, one token; a key radiusclient would cut or split is refused', () => {
    const text = renderRadiusServers(radius({ radiusip2: '10.77.0.2' }));
    expect(text).toBe('10.77.0.1 Radius-Key1\n10.77.0.2 Radius-Key1\n');
    expect(checkRadiusServers(text)).toEqual([]);
    expect(checkRadiusServers('10.77.0.1 two words\n')).not.toEqual([]);
    expect(checkRadiusServers(`10.77.0.1 ${'k'.repeat(49)}\n`)).not.toEqual([]);
    expect(() => renderRadiusServers(radius({ sharekey: 'with space' }))).toThrow();
    expect(() => renderRadiusServers(radius({ sharekey: 'k'.repeat(49) }))).toThrow();
    expect(pppRadiusProblem(radius({ sharekey: 'with space' }))).toBe('validation.ppp.radiusSecret');
    expect(pppRadiusProblem(radius({ enabled: false }))).toBe('validation.ppp.radiusUnset');
    expect(pppRadiusProblem(radius({ radiusip: '2001:db8::1' }))).toBe('validation.ppp.radiusUnset');
    expect(pppRadiusProblem(radius({}))).toBeNull();
  });

  test('the dictionary names what the plugin sends, MS-CHAP attributes under vendor 311; the checker refuses anything else', () => {
    const text = renderRadiusDictionary();
    expect(text).toContain('\nATTRIBUTE User-Name 1 string\n');
    expect(text).toContain('\nATTRIBUTE CHAP-Challenge 60 string\n');
    expect(text).toContain('\nVENDOR Microsoft 311\n');
    expect(text).toContain('\nATTRIBUTE MS-CHAP2-Response 25 string Microsoft\n');
    expect(checkRadiusDictionary(text)).toEqual([]);
    expect(checkRadiusDictionary(`${text}$INCLUDE /etc/shadow\n`)).not.toEqual([]);
    const files = renderPppRadiusFiles(radius({}), '/run/portico/ppp-server');
    expect(files.map((file) => [file.target, file.mode ?? null, file.check])).toEqual([
      [PPP_RADIUS_FILES.config, null, 'ppp-radius-conf'],
      [PPP_RADIUS_FILES.servers, 0o600, 'ppp-radius-servers'],
      [PPP_RADIUS_FILES.dictionary, null, 'ppp-radius-dictionary'],
    ]);
  });
});

describe('RADIUS accounts: API', () => {
  let h: Harness;
  let admin: Client;
  beforeAll(async () => {
    h = await startDaemon({ env: { PORTICO_LAN_PORTS: 'eth1', PORTICO_WAN_PORTS: 'eth0' } });
    admin = await adminClient(h);
  });
  afterAll(async () => {
    await h.close();
  });
  const rendered = (target: string) => join(h.stateDir, 'rendered', target);

  test('RADIUS accounts need the RADIUS server set up; then the plugin files render (servers 0600) and leave with the server', async () => {
    expect(json(await post(h.app, admin, '/api/auth/pppoe', { enabled: true, interfaces: ['lan'], authway: 'radius', authproto: ['chap'], mppe: false }))).toMatchObject({
      success: false,
      errors: { authway: 'validation.ppp.radiusUnset' },
    });
    expect(json(await post(h.app, admin, '/api/auth/radius', { enabled: true, radiusip: '10.77.0.1', sharekey: 'has a space' })).success).toBe(true);
    expect(json(await post(h.app, admin, '/api/auth/pppoe', { enabled: true, interfaces: ['lan'], authway: 'radius', authproto: ['chap'], mppe: false }))).toMatchObject({
      success: false,
      errors: { authway: 'validation.ppp.radiusSecret' },
    });
    expect(json(await post(h.app, admin, '/api/auth/radius', { enabled: true, radiusip: '10.77.0.1', sharekey: 'Radius-Key1' })).success).toBe(true);
    expect(json(await post(h.app, admin, '/api/auth/pppoe', { enabled: true, interfaces: ['lan'], authway: 'radius', authproto: ['chap'], mppe: false }))).toMatchObject({ success: true });
    expect(readFileSync(rendered('etc/portico/ppp-server/pppoe.options'), 'utf8')).toContain('\nplugin radius.so\n');
    expect(readFileSync(rendered(PPP_RADIUS_FILES.servers.slice(1)), 'utf8')).toBe('10.77.0.1 Radius-Key1\n');
    expect(statSync(rendered(PPP_RADIUS_FILES.servers.slice(1))).mode & 0o777).toBe(0o600);
    expect(readFileSync(rendered(PPP_RADIUS_FILES.config.slice(1)), 'utf8')).toContain('\nauthserver 10.77.0.1:1812\n');
    // The RADIUS page's key is what pppd uses: a change there renders again.
    expect(json(await post(h.app, admin, '/api/auth/radius', { enabled: true, radiusip: '10.77.0.1', sharekey: 'Radius-Key2' })).success).toBe(true);
    expect(readFileSync(rendered(PPP_RADIUS_FILES.servers.slice(1)), 'utf8')).toBe('10.77.0.1 Radius-Key2\n');
    // No local secrets for a server whose accounts are RADIUS's, and none missing.
    // (as an account made before passwords were sealed: no secret to dial with)
    expect(json(await post(h.app, admin, '/api/auth/userauth', { action: 'add', username: 'web1', password: 'web1Pass1', confirm: 'web1Pass1', type: 'pppoe' })).success).toBe(true);
    forgetSealedPassword(h.stateDir, 'web1');
    expect(existsSync(rendered('etc/ppp/chap-secrets'))).toBe(false);
    expect(json(await get(h.app, admin, '/api/auth/pppoe/status'))).toMatchObject({ success: true, data: { needPassword: [] } });

    expect(json(await post(h.app, admin, '/api/auth/pppoe', { enabled: true, interfaces: ['lan'], authway: 'local', authproto: ['chap'], mppe: false })).success).toBe(true);
    for (const target of Object.values(PPP_RADIUS_FILES)) expect(existsSync(rendered(target.slice(1)))).toBe(false);
    expect(readFileSync(rendered('etc/portico/ppp-server/pppoe.options'), 'utf8')).not.toContain('radius');
    expect(json(await get(h.app, admin, '/api/auth/pppoe/status'))).toMatchObject({ success: true, data: { needPassword: ['web1'] } });
    expect(json(await post(h.app, admin, '/api/auth/pppoe', { enabled: false })).success).toBe(true);
  });
});
