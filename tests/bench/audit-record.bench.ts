// Behaviour audit, recording: URL events as the daemon receives them from tcpdump (a pcap
// stream of NFLOG records, each an IPv4/TCP packet with an HTTP request or a TLS ClientHello),
// parsed and written through the recorder into the audit's SQLite store. Figure: the daemon
// process's CPU time (process.cpuUsage, user + system) per second of events at 5,000 URL events
// a second, as a share of one core, median of BENCH_RUNS runs of BENCH_AUDIT_EVENTS events.
// Budget: under 10 %. tcpdump's own CPU (a separate process) is not in the figure.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AuditCapture } from '../../apps/daemon/src/domains/audit/audit-capture.js';
import { PcapStreamReader } from '../../apps/daemon/src/domains/audit/audit-packet.js';
import { AuditRecorder } from '../../apps/daemon/src/domains/audit/audit-recorder.js';
import { AuditStore } from '../../apps/daemon/src/domains/audit/audit-store.js';
import { median, report, reportError } from './bench-util.mjs';

const NAME = 'audit-record';
const RATE = 5000;
const EVENTS = Number(process.env.BENCH_AUDIT_EVENTS ?? 50_000);
const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const CHUNK = 64 * 1024;

function u16(n: number): Buffer {
  const b = Buffer.alloc(2);
  b.writeUInt16BE(n);
  return b;
}

function clientHello(name: string): Buffer {
  const host = Buffer.from(name);
  const entry = Buffer.concat([Buffer.from([0]), u16(host.length), host]);
  const list = Buffer.concat([u16(entry.length), entry]);
  const ext = Buffer.concat([u16(0x000a), u16(4), Buffer.from([0, 2, 0, 0x1d]), u16(0), u16(list.length), list]);
  const body = Buffer.concat([Buffer.from([3, 3]), Buffer.alloc(32, 7), Buffer.from([32]), Buffer.alloc(32, 9), u16(4), Buffer.from([0x13, 1, 0x13, 2]), Buffer.from([1, 0]), u16(ext.length), ext]);
  const hs = Buffer.concat([Buffer.from([1, 0, body.length >> 8, body.length & 0xff]), body]);
  return Buffer.concat([Buffer.from([0x16, 3, 1]), u16(hs.length), hs]);
}

/** One logged packet as tcpdump writes it: pcap record header, NFLOG header and TLVs, IPv4, TCP, payload. */
function record(i: number): Buffer {
  const tls = i % 2 === 1;
  const payload = tls
    ? clientHello(`cdn${i % 997}.example${i % 13}.test`)
    : Buffer.from(`GET /path/${i % 10007}/item?id=${i} HTTP/1.1\r\nHost: www${i % 991}.example${i % 17}.test\r\nUser-Agent: Mozilla/5.0 (X11; Linux x86_64)\r\nAccept: */*\r\n\r\n`);
  const ip = Buffer.alloc(20);
  ip[0] = 0x45;
  ip.writeUInt16BE(40 + payload.length, 2);
  ip[9] = 6;
  ip.writeUInt32BE(((192 << 24) >>> 0) + (168 << 16) + (11 << 8) + 2 + (i % 250), 12);
  ip.writeUInt32BE(((198 << 24) >>> 0) + (51 << 16) + (100 << 8) + (i % 200), 16);
  const tcp = Buffer.alloc(20);
  tcp.writeUInt16BE(10000 + (i % 50000), 0);
  tcp.writeUInt16BE(tls ? 443 : 80, 2);
  tcp[12] = 0x50;
  const packet = Buffer.concat([ip, tcp, payload]);
  const tlv = Buffer.alloc(4);
  tlv.writeUInt16LE(4 + packet.length, 0);
  tlv.writeUInt16LE(9, 2);
  const nflog = Buffer.concat([Buffer.from([2, 0, 0x0f, 0xe6]), tlv, packet, Buffer.alloc((4 - (packet.length % 4)) % 4)]);
  const head = Buffer.alloc(16);
  head.writeUInt32LE(nflog.length, 8);
  head.writeUInt32LE(nflog.length, 12);
  return Buffer.concat([head, nflog]);
}

function stream(count: number, offset: number): Buffer {
  const header = Buffer.alloc(24);
  header.writeUInt32LE(0xa1b2c3d4, 0);
  header.writeUInt16LE(2, 4);
  header.writeUInt16LE(4, 6);
  header.writeUInt32LE(262144, 16);
  header.writeUInt32LE(239, 20);
  const parts: Buffer[] = [header];
  for (let i = 0; i < count; i++) parts.push(record(offset + i));
  return Buffer.concat(parts);
}

const work = mkdtempSync(join(tmpdir(), 'portico-bench-audit-'));
try {
  const shares: number[] = [];
  let stored = 0;
  for (let run = 0; run < RUNS; run++) {
    const bytes = stream(EVENTS, run * EVENTS);
    const store = new AuditStore(join(work, `run${run}`, 'audit.db'));
    // The events' own clock: 5,000 a second, so each second's batch is one transaction as on a device.
    let clock = Date.UTC(2026, 0, 1);
    const recorder = new AuditRecorder(store, work, () => clock, async () => ({ total: 64 * 1024 ** 3, free: 60 * 1024 ** 3 }), (error) => {
      throw error;
    });
    const capture = new AuditCapture(recorder, { urls: true, flows: false }, () => clock, undefined, (error) => {
      throw error;
    });
    const reader = new PcapStreamReader();
    let events = 0;
    const before = process.cpuUsage();
    for (let at = 0; at < bytes.length; at += CHUNK) {
      reader.push(bytes.subarray(at, at + CHUNK), (rec) => {
        capture.onPacket(rec);
        events++;
        if (events % RATE === 0) {
          clock += 1000;
          recorder.flush();
        }
      });
    }
    recorder.flush();
    const used = process.cpuUsage(before);
    const seconds = (used.user + used.system) / 1e6;
    shares.push((seconds / (events / RATE)) * 100);
    stored = store.counts().urls;
    if (stored !== EVENTS) throw new Error(`stored ${stored} of ${EVENTS} events`);
    recorder.close();
  }
  const ok = report(NAME, { events_per_run: EVENTS, event_rate: RATE, stored_per_run: stored, runs: RUNS, cpu_percent_of_one_core: Number(median(shares).toFixed(2)), cpu_percent_runs: shares.map((s) => Number(s.toFixed(2))) }, { cpu_percent_of_one_core: 10 });
  process.exitCode = ok || !process.env.BENCH_STRICT ? 0 : 1;
} catch (error) {
  reportError(NAME, error);
  process.exitCode = 1;
} finally {
  rmSync(work, { recursive: true, force: true });
}
