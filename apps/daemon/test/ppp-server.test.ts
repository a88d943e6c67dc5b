import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { l2tpServer, networkInterface, pppoeServer, pptpServer, writeSchema, type AnyEntity, type L2tpServer, type PppoeServer, type PptpServer } from '@portico/schema';
import { addAccount, adminClient, get, json, login, post, startDaemon, type Client, type Harness } from './daemon-harness.js';
import {
  checkPppServerOptions,
  checkPptpdConf,
  checkXl2tpdConf,
  parsePppoeArgs,
  pppoeServerArgv,
  renderPppoeArgs,
  renderPppServerOptions,
  renderPptpdConf,
  renderXl2tpdConf,
} from '../src/domains/ppp-server/ppp-server-files.js';
import { checkPppSecrets, expiredAddresses, renderPppSecrets } from '../src/domains/ppp-server/ppp-server-secrets.js';
import { endStaleSessions, pppSecretsWriter, PPP_EXPIRY_CHECK_MS } from '../src/domains/ppp-server/ppp-server-secrets-writer.js';
import { pppExpiredNotices } from '../src/domains/ppp-server/ppp-server-ruleset.js';
import { pppExpiredPool } from '../src/domains/ppp-server/ppp-server-files.js';
import { renderNetwork } from '../src/domains/network/network-render.js';
import { networkConfigOf } from '../src/domains/network/network-domain.js';
import { DEFAULT_RENDER_OPTIONS } from '../src/domains/network/network-config.js';
import { checkRendered } from './network-checker-run.js';
import { kickPppSession, pppSessions } from '../src/domains/ppp-server/ppp-server-sessions.js';
import { pppRangeConflict } from '../src/domains/ppp-server/ppp-server-rules.js';
import { pppServerContributor } from '../src/domains/ppp-server/ppp-server-ruleset.js';
import type { NetworkPlan } from '../src/domains/network/network-public.js';
import { AccountSecretSeal } from '../src/domains/hotspot-config/account-secret-seal.js';
import { forgetSealedPassword } from './local-user-fixture.js';

const parse = <T>(entity: unknown, value: Record<string, unknown>) => (entity as AnyEntity).schema.parse(value) as T;
const rows = (entity: { name: string }, data: Record<string, unknown>) => ({ [entity.name]: [{ id: '', data }] });
const env = { root: '/', hook: '/usr/lib/portico/apps/daemon/dist/ppp-server-hook.mjs' };

describe('rendering and checkers', () => {
  test('pppd options: required protocols, MPPE, compression, hook; the checker accepts them', () => {
    const server = parse<PptpServer>(pptpServer, { enabled: true, authproto: ['mschap-v2'], mppe: true, msdns: '1.1.1.1' });
    const text = renderPppServerOptions('pptp', server, env);
    expect(text).toContain('\nname portico-pptp\n');
    expect(text).toContain('\nrequire-mschap-v2\n');
    expect(text).toContain('\nrefuse-pap\n');
    expect(text).toContain('\nrequire-mppe-128\n');
    expect(text).toContain('\nms-dns 1.1.1.1\n');
    expect(text).toContain('\nnodeflate\n');
    expect(text).toContain(`\nip-up-script ${env.hook}\n`);
    expect(checkPppServerOptions(text)).toEqual([]);
    expect(checkPppServerOptions(`${text}pty /bin/sh\n`)).toEqual([expect.stringContaining('unknown option pty')]);
    expect(checkPppServerOptions(text.replace('mtu 1450', 'mtu "1450"'))).not.toEqual([]);
  });

  test('pptpd.conf, xl2tpd.conf and pppoe-server arguments pass their checkers; tampered ones do not', () => {
    const pptp = parse<PptpServer>(pptpServer, { enabled: true });
    const pptpd = renderPptpdConf(pptp);
    expect(pptpd).toContain('\nremoteip 10.0.20.10-200\n');
    expect(checkPptpdConf(pptpd)).toEqual([]);
    expect(checkPptpdConf(`${pptpd}connections 1\n`)).not.toEqual([]);
    const l2tp = parse<L2tpServer>(l2tpServer, { enabled: true });
    const xl2tpd = renderXl2tpdConf(l2tp);
    expect(xl2tpd).toContain('\nip range = 10.0.30.10-10.0.30.200\n');
    expect(checkXl2tpdConf(xl2tpd)).toEqual([]);
    expect(checkXl2tpdConf(xl2tpd.replace('require authentication = yes', 'require authentication = no'))).not.toEqual([]);
    const pppoe = parse<PppoeServer>(pppoeServer, { enabled: true, interfaces: ['lan'] });
    const args = parsePppoeArgs(renderPppoeArgs(pppoe, ['br-lan']));
    expect(args).not.toBeNull();
    expect(pppoeServerArgv(args!)).toEqual(['pppoe-server', '-F', '-I', 'br-lan', '-L', '10.0.40.1', '-R', '10.0.40.10', '-N', '191', '-O', '/etc/portico/ppp-server/pppoe.options']);
    expect(parsePppoeArgs(JSON.stringify({ ...args, interfaces: ['eth0 -O /tmp/x'] }))).toBeNull();
    expect(() => renderPppoeArgs(pppoe, ['bad dev'])).toThrow();
  });

  test('secrets: one quoted line per account with a secret, under its own server name; expired and secretless ones left out', () => {
    const text = renderPppSecrets([
      {
        kind: 'pppoe',
        accounts: [
          { username: 'alice', secret: 'alicePass1', expired: false },
          { username: 'old', secret: null, expired: false },
          { username: 'gone', secret: 'gonePass12', expired: true },
        ],
      },
      { kind: 'l2tp', accounts: [{ username: 'bob', secret: 'bobPass123', expired: false }] },
    ]);
    expect(text.split('\n').slice(1)).toEqual(['"alice" portico-pppoe "alicePass1" *', '"bob" portico-l2tp "bobPass123" *', '']);
    expect(checkPppSecrets(text)).toEqual([]);
    expect(checkPppSecrets(`${text}"x" * "y" *\n`)).not.toEqual([]);
    expect(() => renderPppSecrets([{ kind: 'pptp', accounts: [{ username: 'a"b', secret: 'x', expired: false }] }])).toThrow();
    expect(() => renderPppSecrets([{ kind: 'pptp', accounts: [{ username: 'ab', secret: 'x\ny', expired: false }] }])).toThrow();
  });

  test('sealed secrets open for their account only, on the device that sealed them', () => {
    const dir = mkdtempSync(join(tmpdir(), 'ppp-seal-'));
    try {
      const seal = new AccountSecretSeal(join(dir, 'key'));
      const sealed = seal.seal('alice', 'alicePass1');
      expect(sealed).not.toContain('alicePass1');
      expect(statSync(join(dir, 'key')).mode & 0o777).toBe(0o600);
      expect(seal.open('alice', sealed)).toBe('alicePass1');
      expect(seal.open('bob', sealed)).toBeNull();
      expect(new AccountSecretSeal(join(dir, 'other')).open('alice', sealed)).toBeNull();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('validation: range within one /24, local IP outside it, MPPE needs MS-CHAP, ranges of enabled servers apart', () => {
    const errors = (value: Record<string, unknown>) => writeSchema(pptpServer as unknown as AnyEntity, 'update').safeParse(value).error?.issues.map((i) => `${i.path.join('.')}:${i.message}`);
    expect(errors({ remoteip: '10.0.20.10-10.0.21.20' })).toContain('remoteip:validation.ppp.remoteRange');
    expect(errors({ localip: '10.0.20.50' })).toContain('localip:validation.ppp.localInRange');
    expect(errors({ mppe: true, authproto: ['pap'] })).toContain('mppe:validation.ppp.mppeNeedsMschap');
    expect(errors({ mtu: 1501 })).toContain('mtu:validation.ppp.mtu');
    expect(pppRangeConflict({ enabled: true, remoteip: '10.0.40.5-10.0.40.20' }, [{ enabled: true, remoteip: '10.0.40.10-10.0.40.200', localip: '10.0.40.1' }])).toEqual({ remoteip: 'validation.ppp.rangeOverlap' });
    expect(pppRangeConflict({ enabled: true, remoteip: '10.0.40.5-10.0.40.20' }, [{ enabled: false, remoteip: '10.0.40.10-10.0.40.200' }])).toEqual({});
  });
});

describe('ruleset part', () => {
  const plan = { deviceOf: new Map([['lan', 'br-lan']]) } as unknown as NetworkPlan;
  test('nothing while every server is off', () => {
    expect(pppServerContributor(2050).part({}, plan)).toBeNull();
  });
  test('ports, sessions (never a PPPoE WAN device), masquerade in NAT mode, PPPoE users only', () => {
    const part = pppServerContributor(2050).part(
      { ...rows(pptpServer, { enabled: true }), ...rows(l2tpServer, { enabled: true, ipsec: true, psk: 'k', workmode: 'route' }), ...rows(pppoeServer, { enabled: true, interfaces: ['lan'], pppoeonly: true }) },
      plan,
    )!;
    const input = part.filter!.hooks!.input_rules!;
    expect(input).toContain('tcp dport 1723 accept');
    expect(input).toContain('ip protocol gre accept');
    expect(input).toContain('meta secpath exists udp dport 1701 accept');
    expect(input).not.toContain('udp dport 1701 accept');
    expect(input).toContain('iifname "ppp*" iifname != "ppp-*" ip saddr 10.0.40.10-10.0.40.200 accept');
    expect(part.filter!.hooks!.forward_rules).toContain('iifname { "br-lan" } drop');
    const nat = part.nat!.hooks!.postrouting_rules!;
    expect(nat).toContain('ip saddr 10.0.20.10-10.0.20.200 oifname != "ppp*" masquerade');
    expect(nat.some((rule) => rule.includes('10.0.30.'))).toBe(false);
  });
});

describe('remind expired users (PPPoE)', () => {
  const pppoe = (extra: Record<string, unknown> = {}) => parse<PppoeServer>(pppoeServer, { enabled: true, interfaces: ['lan'], remindexpired: true, ...extra });

  test('the last quarter of the range (at most 32) is set aside; pppoe-server hands out the rest; too small a range is refused on remoteip', () => {
    const pool = pppExpiredPool(pppoe())!;
    expect(pool).toHaveLength(32);
    expect([pool[0], pool.at(-1)]).toEqual(['10.0.40.169', '10.0.40.200']);
    expect(pppExpiredPool(pppoe({ remoteip: '10.0.40.10-10.0.40.21' }))).toEqual(['10.0.40.19', '10.0.40.20', '10.0.40.21']);
    expect(pppExpiredPool(pppoe({ remindexpired: false }))).toBeNull();
    expect(parsePppoeArgs(renderPppoeArgs(pppoe(), ['br-lan']))).toMatchObject({ first: '10.0.40.10', count: 159 });
    const errors = (value: Record<string, unknown>) => writeSchema(pppoeServer as unknown as AnyEntity, 'update').safeParse(value).error?.issues.map((i) => `${i.path.join('.')}:${i.message}`);
    expect(errors({ remindexpired: true, remoteip: '10.0.40.10-10.0.40.12' })).toEqual(['remoteip:validation.ppp.expiredPool']);
    expect(errors({ remindexpired: false, remoteip: '10.0.40.10-10.0.40.12' })).toBeUndefined();
    expect(errors({ remindexpired: true, remoteip: '10.0.40.10-10.0.40.13' })).toBeUndefined();
  });

  test('secrets: each expired account that can dial gets its own pool address, in store order; beyond the pool it is refused', () => {
    const accounts = [
      { username: 'alice', secret: 'alicePass1', expired: false },
      { username: 'gone1', secret: 'gonePass11', expired: true },
      { username: 'nosecret', secret: null, expired: true },
      { username: 'gone2', secret: 'gonePass22', expired: true },
      { username: 'gone3', secret: 'gonePass33', expired: true },
    ];
    const pool = ['10.0.40.20', '10.0.40.21'];
    expect([...expiredAddresses(accounts, pool)]).toEqual([['gone1', '10.0.40.20'], ['gone2', '10.0.40.21']]);
    const text = renderPppSecrets([{ kind: 'pppoe', accounts, expiredPool: pool }, { kind: 'l2tp', accounts: [{ username: 'late', secret: 'latePass12', expired: true }] }]);
    expect(text.split('\n').slice(1)).toEqual([
      '"alice" portico-pppoe "alicePass1" *',
      '"gone1" portico-pppoe "gonePass11" 10.0.40.20',
      '"gone2" portico-pppoe "gonePass22" 10.0.40.21',
      '',
    ]);
    expect(checkPppSecrets(text)).toEqual([]);
    expect(checkPppSecrets(`${text}"x" portico-pppoe "y" 10.0.40.256\n`)).toEqual([expect.stringContaining('malformed')]);
    expect(checkPppSecrets(`${text}"x" portico-pppoe "y" 10.0.40.2 10.0.40.3\n`)).toEqual([expect.stringContaining('malformed')]);
    expect(() => renderPppSecrets([{ kind: 'pppoe', accounts, expiredPool: ['10.0.40.20\n"x" * "y" *'] }])).toThrow();
  });

  test('ruleset: the pool reaches DNS and the portal only, its web requests go to the portal, spoofed sources drop; nft -c and dnsmasq --test accept it', async () => {
    const lan = { id: 'lan', data: { ...(writeSchema(networkInterface as unknown as AnyEntity, 'add').parse({ ifname: 'lan', role: 'lan', hwport: ['lanp1'], proto: 'static', ipaddr: '192.168.11.1', netmask: '255.255.255.0' }) as object), id: 'lan' } };
    const snapshot = { networkInterface: [lan], ...rows(pppoeServer, { enabled: true, interfaces: ['lan'], remindexpired: true, msdns: '192.0.2.53' }) };
    const part = pppServerContributor(2050).part(snapshot, { deviceOf: new Map([['lan', 'br-lan']]) } as unknown as NetworkPlan)!;
    const pool = 'iifname "ppp*" iifname != "ppp-*" ip saddr 10.0.40.169-10.0.40.200';
    const spoofed = 'iifname "ppp*" iifname != "ppp-*" fib saddr . iif oif missing drop';
    expect(part.filter!.chains).toEqual([
      {
        name: 'ppp_expired_input',
        base: 'type filter hook input priority -5; policy accept;',
        rules: [spoofed, `${pool} meta l4proto { tcp, udp } th dport 53 accept`, `${pool} tcp dport 2050 accept`, `${pool} drop`],
      },
      {
        name: 'ppp_expired_forward',
        base: 'type filter hook forward priority -5; policy accept;',
        rules: [spoofed, `${pool} ip daddr 192.0.2.53 meta l4proto { tcp, udp } th dport 53 accept`, `${pool} drop`],
      },
    ]);
    expect(part.nat!.chains).toEqual([{ name: 'ppp_expired_redirect', base: 'type nat hook prerouting priority -105; policy accept;', rules: [`${pool} tcp dport 80 redirect to :2050`] }]);
    // Its own DNS server handed out: no dnsmasq lines; the gateway's: dnsmasq answers on the sessions.
    expect(part.dnsmasq).toBeUndefined();
    const own = { ...snapshot, ...rows(pppoeServer, { enabled: true, interfaces: ['lan'], remindexpired: true }) };
    expect(pppServerContributor(2050).part(own, { deviceOf: new Map([['lan', 'br-lan']]) } as unknown as NetworkPlan)!.dnsmasq).toEqual(['interface=ppp*', 'except-interface=ppp-*']);
    // Off: no pool, no chains.
    const off = pppServerContributor(2050).part({ ...snapshot, ...rows(pppoeServer, { enabled: true, interfaces: ['lan'] }) }, { deviceOf: new Map([['lan', 'br-lan']]) } as unknown as NetworkPlan)!;
    expect(off.filter!.chains).toEqual([]);
    expect(off.nat!.chains).toEqual([]);

    for (const variant of [snapshot, own]) {
      const files = renderNetwork(networkConfigOf(variant), DEFAULT_RENDER_OPTIONS, (plan) => [pppServerContributor(2050).part(variant, plan)!]).flatMap((o) => o.files);
      const nft = files.find((f) => f.target.endsWith('network.nft'))!;
      expect(nft.content).toContain('chain ppp_expired_input {');
      const dir = mkdtempSync(join(tmpdir(), 'ppp-expired-check-'));
      try {
        for (const file of files.filter((f) => f.check === 'nft' || f.check === 'dnsmasq')) {
          const checked = await checkRendered(file, dir);
          expect(checked.problems, file.target).toEqual([]);
        }
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    }
  });

  test("the portal's notice source: addresses of the pool while the option is on", () => {
    const on = rows(pppoeServer, { enabled: true, interfaces: ['lan'], remindexpired: true });
    expect(pppExpiredNotices.noticeFor(on, '10.0.40.169')).toBe('expired');
    expect(pppExpiredNotices.noticeFor(on, '10.0.40.200')).toBe('expired');
    expect(pppExpiredNotices.noticeFor(on, '10.0.40.168')).toBeNull();
    expect(pppExpiredNotices.noticeFor(on, 'not-an-ip')).toBeNull();
    expect(pppExpiredNotices.noticeFor(rows(pppoeServer, { enabled: true, interfaces: ['lan'] }), '10.0.40.180')).toBeNull();
    expect(pppExpiredNotices.noticeFor(rows(pppoeServer, { enabled: false, remindexpired: true }), '10.0.40.180')).toBeNull();
  });

  test('sessions no longer matching their account are ended: expired outside its address, renewed inside the pool', () => {
    const root = mkdtempSync(join(tmpdir(), 'ppp-stale-'));
    try {
      const records = join(root, 'run/portico/ppp-server');
      mkdirSync(records, { recursive: true });
      const session = (ifname: string, pid: number, username: string, address: string, kind = 'pppoe') => {
        writeFileSync(join(records, `${ifname}.json`), JSON.stringify({ kind, ifname, username, from: '02:00:00:00:00:01', address, pid, at: pid }));
        mkdirSync(join(root, 'sys/class/net', ifname), { recursive: true });
        writeFileSync(join(root, 'sys/class/net', ifname, 'ifindex'), '7\n');
        mkdirSync(join(root, 'proc', String(pid)), { recursive: true });
        writeFileSync(join(root, 'proc', String(pid), 'comm'), 'pppd\n');
      };
      session('ppp0', 100, 'alice', '10.0.40.10'); // ordinary, stays
      session('ppp1', 101, 'gone1', '10.0.40.11'); // expired while online: ended
      session('ppp2', 102, 'gone2', '10.0.40.20'); // at its expiry address: stays
      session('ppp3', 103, 'back', '10.0.40.22'); // renewed, still in the pool: ended
      session('ppp4', 104, 'stranger', '10.0.40.12'); // no such account: left alone
      session('ppp5', 105, 'late', '10.0.30.10', 'l2tp'); // expired l2tp account (refused): ended
      const accounts = [
        { username: 'alice', secret: 'alicePass1', expired: false },
        { username: 'gone2', secret: 'gonePass22', expired: true },
        { username: 'gone1', secret: 'gonePass11', expired: true },
        { username: 'back', secret: 'backPass12', expired: false },
      ];
      const killed: number[] = [];
      endStaleSessions(
        { root, kernel: root },
        [
          { kind: 'pppoe', accounts, expiredPool: ['10.0.40.20', '10.0.40.21', '10.0.40.22'] },
          { kind: 'l2tp', accounts: [{ username: 'late', secret: 'latePass12', expired: true }] },
        ],
        (pid) => killed.push(pid),
      );
      expect(killed.sort()).toEqual([101, 103, 105]);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});

describe('sessions from the hook records', () => {
  test('only live pppd sessions count; bytes from the interface; kick signals that pppd', () => {
    const root = mkdtempSync(join(tmpdir(), 'ppp-sessions-'));
    try {
      const records = join(root, 'run/portico/ppp-server');
      mkdirSync(records, { recursive: true });
      const record = (ifname: string, pid: number, extra: Record<string, unknown> = {}) =>
        writeFileSync(join(records, `${ifname}.json`), JSON.stringify({ kind: 'pppoe', ifname, username: 'alice', from: '02:00:00:00:00:01', address: '10.0.40.10', pid, at: 1000, ...extra }));
      const kernel = (ifname: string, pid: number, comm: string) => {
        mkdirSync(join(root, 'sys/class/net', ifname, 'statistics'), { recursive: true });
        writeFileSync(join(root, 'sys/class/net', ifname, 'ifindex'), '7\n');
        writeFileSync(join(root, 'sys/class/net', ifname, 'statistics/rx_bytes'), '1200\n');
        writeFileSync(join(root, 'sys/class/net', ifname, 'statistics/tx_bytes'), '3400\n');
        mkdirSync(join(root, 'proc', String(pid)), { recursive: true });
        writeFileSync(join(root, 'proc', String(pid), 'comm'), `${comm}\n`);
      };
      record('ppp0', 101);
      kernel('ppp0', 101, 'pppd');
      record('ppp1', 102, { username: '<script>', from: 'x; rm -rf /' });
      kernel('ppp1', 102, 'pppd');
      record('ppp2', 103); // its pppd is gone
      record('ppp3', 104);
      kernel('ppp3', 104, 'bash'); // a recycled pid
      const source = { root, kernel: root };
      const sessions = pppSessions(source, 'pppoe');
      expect(sessions.map((s) => s.ifname)).toEqual(['ppp0', 'ppp1']);
      expect(sessions[0]).toMatchObject({ username: 'alice', from: '02:00:00:00:00:01', address: '10.0.40.10', rx: 1200, tx: 3400 });
      expect(sessions[1]).toMatchObject({ username: '', from: '' });
      expect(pppSessions(source, 'l2tp')).toEqual([]);
      const killed: number[] = [];
      expect(kickPppSession(source, 'pppoe', 'ppp0', (pid) => killed.push(pid))).toBe(true);
      expect(kickPppSession(source, 'pppoe', 'ppp2', (pid) => killed.push(pid))).toBe(false);
      expect(killed).toEqual([101]);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});

describe('API', () => {
  let h: Harness;
  let admin: Client;
  beforeAll(async () => {
    // The factory network: a LAN the PPPoE server can answer on, a WAN to masquerade to.
    h = await startDaemon({ env: { PORTICO_LAN_PORTS: 'eth1', PORTICO_WAN_PORTS: 'eth0' } });
    admin = await adminClient(h);
  });
  afterAll(async () => {
    await h.close();
  });
  const rendered = (target: string) => join(h.stateDir, 'rendered', target);

  test('each server reads its defaults, saves, answers field errors; its status reads STOPPED on sim', async () => {
    for (const kind of ['pptp', 'l2tp', 'pppoe']) {
      const reply = json(await get(h.app, admin, `/api/auth/${kind}`));
      expect(reply).toMatchObject({ success: true, data: { enabled: false, mtu: 1450, workmode: 'natmode' } });
      expect(json(await post(h.app, admin, `/api/auth/${kind}`, { localip: '300.1.1.1', mtu: 20 }))).toMatchObject({
        success: false,
        errors: { localip: expect.any(String), mtu: 'validation.ppp.mtu' },
      });
      expect(json(await get(h.app, admin, `/api/auth/${kind}/status`))).toMatchObject({ success: true, data: { running: false, sessions: [] } });
    }
    expect(json(await post(h.app, admin, '/api/auth/pppoe', { enabled: true, interfaces: [] }))).toMatchObject({ success: false, errors: { interfaces: 'validation.required' } });
    expect(json(await post(h.app, admin, '/api/auth/l2tp', { enabled: true, ipsec: true }))).toMatchObject({ success: false, errors: { psk: 'validation.required' } });
  });

  test('an enabled server renders its checked files, and pppd secrets 0600 from sealed PPP accounts; disabling removes them', async () => {
    const add = (username: string, type: string) => post(h.app, admin, '/api/auth/userauth', { action: 'add', username, password: `${username}Pass1`, confirm: `${username}Pass1`, type }).then(json);
    expect((await add('dialer', 'l2tp')).success).toBe(true);
    expect((await add('webuser', 'portal')).success).toBe(true);
    expect(json(await post(h.app, admin, '/api/auth/l2tp', { enabled: true, ipsec: true, psk: 'l2tp-shared-1' })).success).toBe(true);
    expect(readFileSync(rendered('etc/portico/ppp-server/xl2tpd.conf'), 'utf8')).toContain('pppoptfile = /etc/portico/ppp-server/l2tp.options');
    expect(readFileSync(rendered('etc/portico/ppp-server/l2tp.options'), 'utf8')).toContain('name portico-l2tp');
    // The IPsec share of L2TP rides on the IPsec server's charon.
    expect(readFileSync(rendered('etc/portico/ipsec-server/swanctl.conf'), 'utf8')).toContain('l2tp_ipsec');
    await expect.poll(() => existsSync(rendered('etc/ppp/chap-secrets')) && readFileSync(rendered('etc/ppp/chap-secrets'), 'utf8')).toContain('"dialer" portico-l2tp "dialerPass1" *');
    expect(statSync(rendered('etc/ppp/chap-secrets')).mode & 0o777).toBe(0o600);
    expect(readFileSync(rendered('etc/ppp/chap-secrets'), 'utf8')).not.toContain('webuser');

    expect(json(await post(h.app, admin, '/api/auth/l2tp', { enabled: false })).success).toBe(true);
    expect(existsSync(rendered('etc/portico/ppp-server/xl2tpd.conf'))).toBe(false);
    await expect.poll(() => existsSync(rendered('etc/ppp/chap-secrets'))).toBe(false);
  });

  test('the PPPoE server answers on its LAN: pppoe-server arguments, its share of the ruleset; an unknown interface is refused', async () => {
    expect(json(await post(h.app, admin, '/api/auth/pppoe', { enabled: true, interfaces: ['nosuch'] }))).toMatchObject({
      success: false,
      errors: { interfaces: 'validation.network.unknownInterface' },
    });
    expect(json(await post(h.app, admin, '/api/auth/pppoe', { enabled: true, interfaces: ['lan'], pppoeonly: true })).success).toBe(true);
    const args = parsePppoeArgs(readFileSync(rendered('etc/portico/ppp-server/pppoe-server.json'), 'utf8'))!;
    expect(args.interfaces).toHaveLength(1);
    expect(args).toMatchObject({ localip: '10.0.40.1', first: '10.0.40.10', count: 191 });
    const nft = readFileSync(rendered('etc/portico/network.nft'), 'utf8');
    expect(nft).toContain('iifname "ppp*" iifname != "ppp-*" ip saddr 10.0.40.10-10.0.40.200 accept');
    expect(nft).toContain(`iifname { "${args.interfaces[0]}" } drop`);
    expect(json(await post(h.app, admin, '/api/auth/pppoe', { enabled: false })).success).toBe(true);
    expect(existsSync(rendered('etc/portico/ppp-server/pppoe-server.json'))).toBe(false);
    expect(readFileSync(rendered('etc/portico/network.nft'), 'utf8')).not.toContain('10.0.40.10-10.0.40.200');
  });

  test('remind expired users: an expired pppoe account gets its pool address in the secrets; the portal sends the pool to the expiry notice', async () => {
    expect(json(await post(h.app, admin, '/api/auth/pppoe', { enabled: true, interfaces: ['lan'], remindexpired: true, remoteip: '10.0.40.10-10.0.40.12' }))).toMatchObject({
      success: false,
      errors: { remoteip: 'validation.ppp.expiredPool' },
    });
    const add = (username: string, duetime: string) =>
      post(h.app, admin, '/api/auth/userauth', { action: 'add', username, password: `${username}Pass1`, confirm: `${username}Pass1`, type: 'pppoe', duetime }).then(json);
    expect((await add('lapsed', '2020-01-01')).success).toBe(true);
    expect((await add('current', '')).success).toBe(true);
    expect(json(await post(h.app, admin, '/api/auth/pppoe', { enabled: true, interfaces: ['lan'], remindexpired: true })).success).toBe(true);
    const secrets = () => (existsSync(rendered('etc/ppp/chap-secrets')) ? readFileSync(rendered('etc/ppp/chap-secrets'), 'utf8') : '');
    await expect.poll(secrets).toContain('"lapsed" portico-pppoe "lapsedPass1" 10.0.40.169\n');
    expect(secrets()).toContain('"current" portico-pppoe "currentPass1" *\n');
    expect(readFileSync(rendered('etc/portico/network.nft'), 'utf8')).toContain('ip saddr 10.0.40.169-10.0.40.200 tcp dport 80 redirect to :');
    const portal = h.app.hotspot.portal;
    const asked = await portal.inject({ method: 'GET', url: '/news?id=1', remoteAddress: '10.0.40.169', headers: { host: 'example.com' } });
    expect(asked.statusCode).toBe(302);
    expect(asked.headers.location).toMatch(/^http:\/\/[\d.]+:\d+\/notice\/expired$/);
    const ordinary = await portal.inject({ method: 'GET', url: '/', remoteAddress: '10.0.40.20', headers: { host: 'example.com' } });
    expect(ordinary.headers.location).toContain('/auth/portal?url=');
    const notice = json(await portal.inject({ method: 'GET', url: '/portal-api/notice/expired', remoteAddress: '10.0.40.169', headers: { host: '10.0.40.1:2050' } }));
    expect(notice).toMatchObject({ success: true, data: { template: 'default' } });
    // Renewed: an ordinary line again. Off: expired accounts left out.
    const id = (json(await get(h.app, admin, '/api/auth/userauth')).data.items as Array<{ id: string; username: string }>).find((u) => u.username === 'lapsed')!.id;
    const renewed = json(await post(h.app, admin, '/api/auth/userauth', { action: 'update', id, duetime: '2099-01-01', status: 'normal' }));
    expect(renewed.success, JSON.stringify(renewed)).toBe(true);
    await expect.poll(secrets).toContain('"lapsed" portico-pppoe "lapsedPass1" *\n');
    expect(json(await post(h.app, admin, '/api/auth/userauth', { action: 'update', id, duetime: '2020-01-01' })).success).toBe(true);
    expect(json(await post(h.app, admin, '/api/auth/pppoe', { remindexpired: false })).success).toBe(true);
    await expect.poll(secrets).not.toContain('lapsed');
    expect(readFileSync(rendered('etc/portico/network.nft'), 'utf8')).not.toContain('ppp_expired');
    const after = await portal.inject({ method: 'GET', url: '/', remoteAddress: '10.0.40.169', headers: { host: 'example.com' } });
    expect(after.headers.location).toContain('/auth/portal?url=');
    expect(json(await post(h.app, admin, '/api/auth/pppoe', { enabled: false })).success).toBe(true);
  });

  test("the secrets follow the clock: an account whose due time passes gets its expiry address at the next minute's check", async () => {
    expect(json(await post(h.app, admin, '/api/auth/pppoe', { enabled: true, interfaces: ['lan'], remindexpired: true })).success).toBe(true);
    // Due five minutes from the daemon's clock, written in device local time as the form takes it.
    const due = new Date(h.clock.ms + 5 * 60_000);
    const pad = (n: number) => String(n).padStart(2, '0');
    const duetime = `${due.getFullYear()}-${pad(due.getMonth() + 1)}-${pad(due.getDate())} ${pad(due.getHours())}:${pad(due.getMinutes())}`;
    const added = json(await post(h.app, admin, '/api/auth/userauth', { action: 'add', username: 'soon', password: 'soonPass12', confirm: 'soonPass12', type: 'pppoe', duetime }));
    expect(added.success, JSON.stringify(added)).toBe(true);
    const root = mkdtempSync(join(tmpdir(), 'ppp-clock-'));
    const checks: Array<() => void> = [];
    const writer = pppSecretsWriter(h.app.appContext, root, (error) => { throw error; }, {
      sessions: null,
      schedule: (ms, work) => {
        expect(ms).toBe(PPP_EXPIRY_CHECK_MS);
        checks.push(work);
        return () => undefined;
      },
    });
    try {
      const secrets = () => readFileSync(join(root, 'etc/ppp/chap-secrets'), 'utf8');
      await writer.sync();
      expect(secrets()).toContain('"soon" portico-pppoe "soonPass12" *\n');
      h.clock.advance(10 * 60);
      expect(checks).toHaveLength(1);
      checks.shift()!();
      await writer.sync();
      expect(secrets()).toMatch(/^"soon" portico-pppoe "soonPass12" 10\.0\.40\.(169|1[7-9]\d|200)$/m);
      // The check keeps coming back.
      expect(checks).toHaveLength(1);
    } finally {
      writer.stop();
      rmSync(root, { recursive: true, force: true });
      expect(json(await post(h.app, admin, '/api/auth/pppoe', { enabled: false })).success).toBe(true);
    }
  });

  test('an account that has no sealed secret is listed as needing its password again', async () => {
    const users = json(await get(h.app, admin, '/api/auth/userauth')) as { data: { items: Array<{ id: string; username: string }> } };
    const id = users.data.items.find((user) => user.username === 'webuser')!.id;
    expect(json(await post(h.app, admin, '/api/auth/userauth', { action: 'update', id, type: 'pptp' })).success).toBe(true);
    // As an account made before passwords were sealed: no secret to dial with.
    forgetSealedPassword(h.stateDir, 'webuser');
    expect(json(await get(h.app, admin, '/api/auth/pptp/status'))).toMatchObject({ data: { needPassword: ['webuser'] } });
    expect(json(await post(h.app, admin, '/api/auth/userauth', { action: 'update', id, password: 'webuserPass2', confirm: 'webuserPass2' })).success).toBe(true);
    expect(json(await get(h.app, admin, '/api/auth/pptp/status'))).toMatchObject({ data: { needPassword: [] } });
  });

  test('two enabled servers cannot share addresses; kick of an unknown session fails; a visitor reads but cannot write', async () => {
    expect(json(await post(h.app, admin, '/api/auth/pptp', { enabled: true })).success).toBe(true);
    expect(json(await post(h.app, admin, '/api/auth/pppoe', { enabled: true, interfaces: ['lan'], remoteip: '10.0.20.100-10.0.20.120', localip: '10.0.41.1' }))).toMatchObject({
      success: false,
      errors: { remoteip: 'validation.ppp.rangeOverlap' },
    });
    expect(json(await post(h.app, admin, '/api/auth/pptp/status', { action: 'kick', ifname: 'ppp9' }))).toMatchObject({ success: false, msg: 'msg.ppp.noSession' });
    expect(json(await post(h.app, admin, '/api/auth/pptp/status', { action: 'kick', ifname: 'eth0' }))).toMatchObject({ success: false, errors: { ifname: 'validation.ifname' } });
    const visitor = await addAccount(h, admin, 'viewer', 2);
    const client = await login(h.app, 'viewer', visitor.password);
    expect(json(await get(h.app, client, '/api/auth/pppoe')).success).toBe(true);
    expect(json(await get(h.app, client, '/api/auth/pppoe/status')).success).toBe(true);
    expect(json(await post(h.app, client, '/api/auth/pppoe', { enabled: false }))).toMatchObject({ success: false, msg: 'forbidden' });
    expect(json(await post(h.app, client, '/api/auth/pptp/status', { action: 'kick', ifname: 'ppp0' }))).toMatchObject({ success: false, msg: 'forbidden' });
  });
});
