import type { ChildProcess } from 'node:child_process';
import { SupervisedProcess } from '../network/network-public.js';
import { ipv4TcpPayload, nflogPayload, PcapStreamReader, urlOfPayload } from './audit-packet.js';
import type { AuditRecorder } from './audit-recorder.js';
import type { FlowRecord } from './audit-store.js';

/**
 * The behaviour audit's readers of the data path, run while the audit is on:
 * - URLs: `tcpdump` reads the NFLOG group the audit's ruleset part logs the first payload
 *   packets of LAN→WAN HTTP/HTTPS connections to, and writes them as pcap to its stdout; the
 *   HTTP Host and path or the TLS server name are read out of each (audit-packet.ts);
 * - IP flows: `conntrack -E -e NEW` prints each new connection; a connection whose reply goes
 *   to another address than its source was NATed on its way out, i.e. a LAN client's flow to a WAN.
 * Each reader is a SupervisedProcess: restarted after 1 s, 2 s, 4 s … at most a minute when it exits.
 */

export const AUDIT_NFLOG_GROUP = 4070;
/** Bytes of each logged packet the kernel hands over: headers and the start of a request or ClientHello. */
export const AUDIT_SNAPLEN = 1024;
/** A connection's URL is recorded once, though several of its first packets are logged. */
const SEEN_MS = 30_000;
const SEEN_MAX = 8192;
const MAX_LINE = 4096;

export interface CaptureOptions {
  urls: boolean;
  flows: boolean;
}

/** A conntrack event line → a LAN client's outbound flow, or null. */
export function parseConntrackEvent(line: string, ts: number): FlowRecord | null {
  if (line.length > MAX_LINE) return null;
  const event = /^\s*\[NEW\]\s+(tcp|udp|icmp)\s/.exec(line);
  if (!event) return null;
  const field = (name: string) => [...line.matchAll(new RegExp(`\\b${name}=(\\S+)`, 'g'))].map((m) => m[1]!);
  const [src, replySrc] = field('src');
  const [dst, replyDst] = field('dst');
  const [sport] = field('sport');
  const [dport] = field('dport');
  const ipv4 = /^(\d{1,3}\.){3}\d{1,3}$/;
  if (!src || !dst || !replyDst || !replySrc || ![src, dst, replyDst].every((a) => ipv4.test(a))) return null;
  if (replyDst === src) return null;
  const port = (text: string | undefined) => (text && /^\d{1,5}$/.test(text) && Number(text) <= 65535 ? Number(text) : 0);
  return { ts, client: src, cport: port(sport), server: dst, port: port(dport), proto: event[1]! };
}

export class AuditCapture {
  private readonly readers: SupervisedProcess[] = [];
  private readonly seen = new Map<string, number>();

  constructor(
    private readonly recorder: AuditRecorder,
    private readonly options: CaptureOptions,
    private readonly now: () => number,
    private readonly spawnPrefix: readonly string[] | undefined,
    private readonly report: (error: unknown) => void,
  ) {}

  start(): void {
    if (this.options.urls) this.supervise(['tcpdump', '-i', `nflog:${AUDIT_NFLOG_GROUP}`, '-U', '-w', '-'], (child) => this.readPcap(child));
    if (this.options.flows) this.supervise(['conntrack', '-E', '-e', 'NEW'], (child) => this.readLines(child));
  }

  async stop(): Promise<void> {
    await Promise.all(this.readers.splice(0).map((reader) => reader.stop()));
    this.recorder.flush();
  }

  private supervise(argv: readonly string[], attach: (child: ChildProcess) => void): void {
    const reader = new SupervisedProcess({ name: argv[0]!, argv, spawnPrefix: this.spawnPrefix, stdout: true, started: attach, report: this.report });
    this.readers.push(reader);
    reader.start();
  }

  private readPcap(child: ChildProcess): void {
    const pcap = new PcapStreamReader();
    child.stdout!.on('data', (chunk: Buffer) => {
      pcap.push(chunk, (record) => this.onPacket(record));
      if (pcap.failed) {
        this.report(new Error(`audit capture: ${pcap.failed}`));
        child.kill('SIGTERM');
      }
    });
  }

  /** One logged packet: a URL record once per connection. */
  onPacket(record: Uint8Array): void {
    const payload = nflogPayload(record);
    const tcp = payload && ipv4TcpPayload(payload);
    if (!tcp || tcp.payload.length === 0) return;
    const key = `${tcp.src}:${tcp.sport}>${tcp.dst}:${tcp.dport}`;
    const now = this.now();
    const seen = this.seen.get(key);
    if (seen !== undefined && now - seen < SEEN_MS) return;
    const hit = urlOfPayload(tcp.payload);
    if (!hit) return;
    if (this.seen.size >= SEEN_MAX) {
      // Forget the oldest half (Map keeps insertion order).
      let drop = SEEN_MAX / 2;
      for (const old of this.seen.keys()) {
        if (drop-- <= 0) break;
        this.seen.delete(old);
      }
    }
    this.seen.set(key, now);
    this.recorder.addUrl({ ts: now, client: tcp.src, server: tcp.dst, port: tcp.dport, kind: hit.kind, host: hit.host, path: hit.path });
  }

  private readLines(child: ChildProcess): void {
    let rest = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      const lines = (rest + chunk.toString('latin1')).split('\n');
      rest = lines.pop() ?? '';
      if (rest.length > MAX_LINE) rest = '';
      const now = this.now();
      for (const line of lines) {
        const flow = parseConntrackEvent(line, now);
        if (flow) this.recorder.addFlow(flow);
      }
    });
  }
}
