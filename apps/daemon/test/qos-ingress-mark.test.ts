import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildQosIngressObject, findClang } from '../bpf-build.mjs';
import { CLASS_MINOR, downloadCode } from '../src/domains/qos/qos-plan.js';
import { deviceTreeLines, ingressRedirectLines } from '../src/domains/qos/qos-tc.js';

/**
 * The eBPF WAN ingress classifier of `ifb-bpf` (qos-ingress-mark.bpf.c) on this kernel, for both
 * address families: replies arriving on a WAN find their connection by their tuple and carry
 * its download code to the IFB device, whose tree puts them in the class the code names. A
 * gateway namespace opens UDP flows to an upstream namespace (its output hook writes the code
 * into the connection mark) and the upstream answers each datagram. The lab runs the whole
 * path through the daemon's applier (tests/lab/qos-ifb-download.test.ts); this is the
 * classifier alone, IPv6 included. Needs root and clang (the lab installs it).
 */
const runnable = process.getuid?.() === 0 && findClang() !== null;
const work = mkdtempSync(join(tmpdir(), 'portico-qos-ingress-'));
const gw = `qosin-gw${process.pid}`;
const up = `qosin-up${process.pid}`;
const inNs = (ns: string, argv: string[], input?: string) => execa('ip', ['netns', 'exec', ns, ...argv], input === undefined ? {} : { input });

/** Answers every datagram on `port` with one of its own, back to where it came from. */
const ECHO = `
const s = require('node:dgram').createSocket(process.argv[1]);
s.on('message', (m, r) => s.send('y', r.port, r.address));
s.bind(Number(process.argv[2]), process.argv[3], () => process.stdout.write('ready\\n'));
`;
/** Sends \`count\` datagrams from a fixed port and waits for as many answers. */
const SEND = `
const [type, from, to, port, count] = process.argv.slice(1);
const s = require('node:dgram').createSocket(type);
let got = 0;
s.on('message', () => { if (++got === Number(count)) { s.close(); } });
s.bind(40000, from, () => { for (let i = 0; i < Number(count); i++) s.send('x', Number(port), to); });
setTimeout(() => { process.stdout.write(String(got)); process.exit(0); }, 3000).unref();
s.on('close', () => process.stdout.write(String(got)));
`;

let echoes: Array<ReturnType<typeof execa>> = [];

beforeAll(async () => {
  if (!runnable) return;
  const object = await buildQosIngressObject();
  await execa('ip', ['netns', 'add', gw]);
  await execa('ip', ['netns', 'add', up]);
  await inNs(gw, ['ip', 'link', 'add', 'wan0', 'type', 'veth', 'peer', 'name', 'up0', 'netns', up]);
  await inNs(gw, ['ip', 'link', 'add', 'qifb9', 'type', 'ifb']);
  for (const [ns, dev, v4, v6] of [
    [gw, 'wan0', '10.9.0.1/24', 'fd09::1/64'],
    [up, 'up0', '10.9.0.2/24', 'fd09::2/64'],
  ] as const) {
    await inNs(ns, ['ip', 'addr', 'add', v4, 'dev', dev]);
    await inNs(ns, ['ip', '-6', 'addr', 'add', v6, 'dev', dev, 'nodad']);
    await inNs(ns, ['ip', 'link', 'set', dev, 'up']);
    await inNs(ns, ['ip', 'link', 'set', 'lo', 'up']);
  }
  await inNs(gw, ['ip', 'link', 'set', 'qifb9', 'up']);
  // The codes as the Smart QoS ruleset writes them: port 9001 Priority, 9002 Bulk, 9003 none.
  const codes = `udp dport 9001 ct mark set ${downloadCode({ minor: CLASS_MINOR.priority })}\nudp dport 9002 ct mark set ${downloadCode({ minor: CLASS_MINOR.bulk })}`;
  await inNs(gw, ['nft', '-f', '-'], `table inet t {\nchain out {\ntype filter hook output priority mangle; policy accept;\n${codes}\n}\n}\n`);
  const script = join(work, 'ingress.tc');
  const tree = deviceTreeLines({ device: 'qifb9', direction: 'down', ingressOf: 'wan0', rate: 100_000, defaultMinor: CLASS_MINOR.normal });
  writeFileSync(script, [...tree, ...ingressRedirectLines('wan0', 'qifb9', 'ifb-bpf', () => object)].join('\n') + '\n');
  await inNs(gw, ['tc', '-batch', script]);
  for (const [type, address] of [
    ['udp4', '10.9.0.2'],
    ['udp6', 'fd09::2'],
  ]) {
    for (const port of ['9001', '9002', '9003']) {
      const echo = inNs(up, [process.execPath, '-e', ECHO, type!, port, address!]);
      // Ended by afterAll's kill.
      echo.catch(() => undefined);
      echoes.push(echo);
      await new Promise<void>((resolve) => echo.stdout!.once('data', () => resolve()));
    }
  }
}, 60_000);

afterAll(async () => {
  for (const echo of echoes) echo.kill('SIGKILL');
  echoes = [];
  if (runnable) {
    await execa('ip', ['netns', 'del', gw], { reject: false });
    await execa('ip', ['netns', 'del', up], { reject: false });
  }
  rmSync(work, { recursive: true, force: true });
});

/** Packets each class of the IFB tree has sent. */
async function classPackets(): Promise<Record<string, number>> {
  const shown = (await inNs(gw, ['tc', '-s', 'class', 'show', 'dev', 'qifb9'])).stdout;
  const out: Record<string, number> = {};
  for (const m of shown.matchAll(/class htb (\S+) [^]*?Sent \d+ bytes (\d+) pkt/g)) out[m[1]!] = Number(m[2]);
  return out;
}

describe.skipIf(!runnable)('the eBPF ingress classifier on this kernel', () => {
  for (const [family, type, from, to] of [
    ['IPv4', 'udp4', '10.9.0.1', '10.9.0.2'],
    ['IPv6', 'udp6', 'fd09::1', 'fd09::2'],
  ] as const) {
    it(`puts ${family} replies in the class their connection's code names, and those without one in Normal`, async () => {
      const before = await classPackets();
      const answered: Record<string, number> = {};
      for (const port of ['9001', '9002', '9003']) answered[port] = Number((await inNs(gw, [process.execPath, '-e', SEND, type, from, to, port, '20'])).stdout);
      expect(answered).toEqual({ '9001': 20, '9002': 20, '9003': 20 });
      const after = await classPackets();
      const sent = (minor: number) => (after[`1:${minor.toString(16)}`] ?? 0) - (before[`1:${minor.toString(16)}`] ?? 0);
      expect(sent(CLASS_MINOR.priority)).toBe(20);
      expect(sent(CLASS_MINOR.bulk)).toBe(20);
      // Normal also gets what the namespace says unasked (neighbour discovery), never less than the 20.
      expect(sent(CLASS_MINOR.normal)).toBeGreaterThanOrEqual(20);
      expect(sent(CLASS_MINOR.express)).toBe(0);
    });
  }
});
