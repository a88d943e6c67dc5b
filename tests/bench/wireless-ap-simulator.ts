// The simulated APs of tests/bench/wireless-controller.bench.ts: each answers configure (applied)
// and ping and sends its state report when told. `InMemoryFleet` holds them on linkPair ends in the
// benchmark's own process; `runSimulatorChild` is a child process holding its share of the fleet,
// each AP on its own TLS WebSocket to the controller's device listener, with its own device
// certificate (CN = its serial, signed by the device CA), driven by the parent over IPC.
import 'reflect-metadata';
import { createPrivateKey, webcrypto } from 'node:crypto';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import * as x509 from '@peculiar/x509';
import WebSocket from 'ws';
import { linkPair, rpcNotification, rpcResult, type UcentralLink } from '@portico/schema';

export const REPORT_INTERVAL_S = 10;

export function serialOf(i: number): string {
  return (0x04aa00000000 + i).toString(16).padStart(12, '0');
}

function hex2(n: number): string {
  return (n & 255).toString(16).padStart(2, '0');
}

export function stateText(serial: string, i: number, uuid: number): string {
  const stations = 10 + (i % 21);
  const associations = Array.from({ length: stations }, (_, s) => ({
    station: `02:${hex2(i >> 16)}:${hex2(i >> 8)}:${hex2(i)}:00:${hex2(s)}`,
    rssi: -40 - (s % 40),
    rx_rate: { bitrate: 866_700 },
    tx_rate: { bitrate: 433_300 },
    rx_bytes: 123_456_789 + s,
    tx_bytes: 987_654_321 + s,
    connected: 3600 + s,
    inactive: s,
    hostname: `client-${s}`,
  }));
  const half = Math.ceil(stations / 2);
  const ssid = (name: string, band: '2G' | '5G', list: typeof associations, last: number) => ({
    ssid: name,
    bssid: `02:${hex2(i >> 16)}:${hex2(i >> 8)}:${hex2(i)}:01:${hex2(last)}`,
    band,
    associations: list,
  });
  return rpcNotification('state', {
    serial,
    uuid,
    state: {
      unit: { load: [0.12, 0.2, 0.25], memory: { total: 262_144_000, free: 131_072_000 }, uptime: 86_400 + i, localtime: 1_700_000_000 },
      radios: [
        { band: '2G', channel: 1 + (i % 11), channel_width: 20, tx_power: 20, noise: -95 },
        { band: '5G', channel: 36, channel_width: 80, tx_power: 23, noise: -100 },
      ],
      interfaces: [{ name: 'lan', ssids: [ssid('Office', '2G', associations.slice(0, half), 1), ssid('Office', '5G', associations.slice(half), 2)] }],
    },
  });
}

/**
 * One AP's protocol side. Its state report is built once per configuration; the first (uuid 1,
 * what the controller gives at connect) before any measurement, so the simulator's strings do
 * not count as the controller's growth when both share a process.
 */
class SimulatedAp {
  uuid = 1;
  report: string;
  link: UcentralLink | null = null;
  constructor(
    readonly serial: string,
    readonly index: number,
    private readonly applied: () => void,
  ) {
    this.report = stateText(serial, index, 1);
  }

  attach(link: UcentralLink): void {
    this.link = link;
    link.onMessage((text) => this.receive(text));
    link.send(rpcNotification('connect', { serial: this.serial, uuid: 0, firmware: 'portico-ap 1.0', capabilities: { platform: 'ap', model: 'PX-1' } }));
  }

  sendState(): void {
    this.link?.send(this.report);
  }

  private receive(text: string): void {
    const message = JSON.parse(text) as { id: number; method: string; params: { uuid: number } };
    if (message.method === 'configure') {
      if (message.params.uuid !== this.uuid) this.report = stateText(this.serial, this.index, message.params.uuid);
      this.uuid = message.params.uuid;
      this.link?.send(rpcResult(message.id, { serial: this.serial, uuid: this.uuid, status: { error: 0, text: '', rejected: [] } }));
      this.applied();
    } else if (message.method === 'ping') {
      this.link?.send(rpcResult(message.id, { serial: this.serial, uuid: this.uuid, deviceUTCTime: Date.now() }));
    }
  }
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** What the benchmark asks of a fleet, whatever carries it. */
export interface Fleet {
  readonly transport: string;
  /** Connects every AP; resolves with how many connected once each has applied its first configuration. */
  connectAll(): Promise<number>;
  /** One round of reports spread evenly over `ms`; over TLS, the simulators' event-loop delay meanwhile. */
  pacedRound(ms: number): Promise<LoopDelay | null>;
  /** One report from every AP, as fast as they go out. */
  burst(): Promise<void>;
  applied(): Promise<number>;
  close(): Promise<void>;
}

/** An event loop's delay over a while (perf_hooks' histogram), ms. */
export interface LoopDelay {
  p99Ms: number;
  maxMs: number;
  /** CPU seconds the process used meanwhile (the simulators': all of them together). */
  cpuSeconds?: number;
}

export function loopDelayOf(histogram: import('node:perf_hooks').IntervalHistogram): LoopDelay {
  return { p99Ms: Math.round(histogram.percentile(99) / 1e4) / 100, maxMs: Math.round(histogram.max / 1e4) / 100 };
}

export class InMemoryFleet implements Fleet {
  readonly transport = 'in-memory link';
  private readonly aps: SimulatedAp[];
  private appliedCount = 0;
  constructor(
    private readonly serials: readonly string[],
    private readonly attach: (link: UcentralLink) => void,
  ) {
    this.aps = serials.map((serial, i) => new SimulatedAp(serial, i, () => this.appliedCount++));
  }

  async connectAll(): Promise<number> {
    for (const [i, ap] of this.aps.entries()) {
      const pair = linkPair(ap.serial, `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}:40000`);
      this.attach(pair.controller);
      ap.attach(pair.device);
    }
    while (this.appliedCount < this.aps.length) await new Promise<void>((resolve) => setImmediate(resolve));
    return this.aps.length;
  }

  async pacedRound(ms: number): Promise<null> {
    const slices = 1000;
    const per = Math.ceil(this.aps.length / slices);
    for (let slice = 0; slice < slices; slice++) {
      for (const ap of this.aps.slice(slice * per, (slice + 1) * per)) ap.sendState();
      await sleep(ms / slices);
    }
    return null;
  }

  async burst(): Promise<void> {
    for (const ap of this.aps) ap.sendState();
  }

  async applied(): Promise<number> {
    return this.appliedCount;
  }

  async close(): Promise<void> {
    for (const ap of this.aps) ap.link?.close();
  }
}

// ---- over TLS WebSockets: child processes ----

type ParentMessage =
  | { type: 'init'; port: number; caCert: string; caKey: string; first: number; count: number }
  | { type: 'connect'; concurrency: number }
  | { type: 'paced'; ms: number }
  | { type: 'burst' }
  | { type: 'applied' }
  | { type: 'close' };

type ChildMessage =
  | { type: 'ready' }
  | { type: 'connected'; ok: number; failed: number; firstError: string }
  | { type: 'done'; loopDelay?: LoopDelay }
  | { type: 'applied'; count: number };

function wsLink(ws: WebSocket): UcentralLink {
  const messages: Array<(text: string) => void> = [];
  const closes: Array<(code: number, reason: string) => void> = [];
  ws.on('message', (data: Buffer) => {
    const text = data.toString('utf8');
    for (const handler of messages) handler(text);
  });
  ws.on('close', (code: number, reason: Buffer) => {
    for (const handler of closes) handler(code, reason.toString());
  });
  ws.on('error', () => undefined);
  return {
    peerSerial: '',
    remoteAddress: 'controller',
    send: (text) => {
      if (ws.readyState === WebSocket.OPEN) ws.send(text);
    },
    close: (code, reason) => ws.close(code, reason),
    onMessage: (handler) => void messages.push(handler),
    onClose: (handler) => void closes.push(handler),
  };
}

/** A child process's share of the fleet; started with WIRELESS_BENCH_SIMULATOR=1. */
export async function runSimulatorChild(): Promise<void> {
  const send = (message: ChildMessage) => process.send!(message);
  let port = 0;
  let aps: SimulatedAp[] = [];
  let applied = 0;
  const sockets: WebSocket[] = [];
  const certs: string[] = [];
  let devicePem = '';
  let caPem = '';

  process.on('message', (raw) => {
    void (async () => {
      const message = raw as ParentMessage;
      switch (message.type) {
        case 'init': {
          port = message.port;
          caPem = message.caCert;
          x509.cryptoProvider.set(webcrypto as unknown as Crypto);
          const alg = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' };
          const ca = new x509.X509Certificate(message.caCert);
          const caKey = await webcrypto.subtle.importKey('pkcs8', createPrivateKey(message.caKey).export({ type: 'pkcs8', format: 'der' }), alg, false, ['sign']);
          // One key pair for the simulated devices; each has its own certificate naming its serial.
          const pair = (await webcrypto.subtle.generateKey(alg, true, ['sign', 'verify'])) as CryptoKeyPair;
          const pkcs8 = Buffer.from(await webcrypto.subtle.exportKey('pkcs8', pair.privateKey)).toString('base64');
          devicePem = `-----BEGIN PRIVATE KEY-----\n${pkcs8.match(/.{1,64}/g)!.join('\n')}\n-----END PRIVATE KEY-----\n`;
          const authorityKey = await x509.AuthorityKeyIdentifierExtension.create(ca, false);
          const now = Date.now();
          for (let i = message.first; i < message.first + message.count; i++) {
            const serial = serialOf(i);
            const cert = await x509.X509CertificateGenerator.create({
              serialNumber: (0x100000 + i).toString(16),
              subject: `CN=${serial}`,
              issuer: ca.subjectName,
              notBefore: new Date(now - 3_600_000),
              notAfter: new Date(now + 86_400_000),
              signingAlgorithm: alg,
              publicKey: pair.publicKey,
              signingKey: caKey,
              extensions: [
                new x509.BasicConstraintsExtension(false, undefined, true),
                new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
                new x509.ExtendedKeyUsageExtension(['1.3.6.1.5.5.7.3.2']),
                authorityKey,
              ],
            });
            certs.push(cert.toString('pem'));
            aps.push(new SimulatedAp(serial, i, () => applied++));
          }
          send({ type: 'ready' });
          break;
        }
        case 'connect': {
          let next = 0;
          let failed = 0;
          let firstError = '';
          const one = async (): Promise<void> => {
            while (next < aps.length) {
              const k = next++;
              const ap = aps[k]!;
              const ws = new WebSocket(`wss://127.0.0.1:${port}/`, 'ucentral-broker', {
                cert: certs[k],
                key: devicePem,
                ca: caPem,
                perMessageDeflate: false,
                handshakeTimeout: 60_000,
              });
              const ok = await new Promise<boolean>((resolve) => {
                ws.once('open', () => resolve(true));
                ws.once('error', (error) => {
                  firstError ||= error.message;
                  resolve(false);
                });
              });
              if (!ok) {
                failed++;
                continue;
              }
              sockets.push(ws);
              ap.attach(wsLink(ws));
            }
          };
          await Promise.all(Array.from({ length: message.concurrency }, one));
          aps = aps.filter((ap) => ap.link !== null);
          send({ type: 'connected', ok: aps.length, failed, firstError });
          break;
        }
        case 'paced': {
          const slices = 500;
          const per = Math.ceil(aps.length / slices);
          const start = performance.now();
          // How late this process's own loop runs meanwhile: a ping answered here waits as long.
          const delay = monitorEventLoopDelay({ resolution: 1 });
          delay.enable();
          const cpu = process.cpuUsage();
          for (let slice = 0; slice < slices; slice++) {
            for (const ap of aps.slice(slice * per, (slice + 1) * per)) ap.sendState();
            const due = start + ((slice + 1) * message.ms) / slices;
            await sleep(Math.max(0, due - performance.now()));
          }
          delay.disable();
          const used = process.cpuUsage(cpu);
          send({ type: 'done', loopDelay: { ...loopDelayOf(delay), cpuSeconds: (used.user + used.system) / 1e6 } });
          break;
        }
        case 'burst': {
          // In chunks, letting the sockets write between them.
          for (let i = 0; i < aps.length; i += 200) {
            for (const ap of aps.slice(i, i + 200)) ap.sendState();
            await new Promise<void>((resolve) => setImmediate(resolve));
          }
          send({ type: 'done' });
          break;
        }
        case 'applied':
          send({ type: 'applied', count: applied });
          break;
        case 'close':
          for (const ws of sockets) ws.terminate();
          process.exit(0);
      }
    })().catch((error: unknown) => {
      process.stderr.write(`simulator: ${error instanceof Error ? error.stack : String(error)}\n`);
      process.exit(1);
    });
  });
}

/** The parent's handle on the child processes holding the fleet over TLS WebSockets. */
export class TlsFleet implements Fleet {
  readonly transport = 'tls websocket';
  connectFailures = 0;
  firstError = '';
  private constructor(private readonly children: import('node:child_process').ChildProcess[]) {}

  static async start(options: { script: string; port: number; caCert: string; caKey: string; count: number; processes: number }): Promise<TlsFleet> {
    const { fork } = await import('node:child_process');
    const per = Math.ceil(options.count / options.processes);
    const children = Array.from({ length: options.processes }, () =>
      fork(options.script, [], { execArgv: [], env: { ...process.env, WIRELESS_BENCH_SIMULATOR: '1' }, stdio: ['ignore', 'ignore', 'inherit', 'ipc'] }),
    );
    const fleet = new TlsFleet(children);
    await fleet.all((child, k) => ({ type: 'init', port: options.port, caCert: options.caCert, caKey: options.caKey, first: k * per, count: Math.max(0, Math.min(per, options.count - k * per)) }), 'ready');
    return fleet;
  }

  private ask(child: import('node:child_process').ChildProcess, message: ParentMessage, reply: ChildMessage['type']): Promise<ChildMessage> {
    return new Promise((resolve, reject) => {
      const onMessage = (raw: unknown) => {
        const answer = raw as ChildMessage;
        if (answer.type !== reply) return;
        child.off('message', onMessage);
        child.off('exit', onExit);
        resolve(answer);
      };
      const onExit = (code: number | null) => reject(new Error(`a simulator process exited (${code})`));
      child.on('message', onMessage);
      child.once('exit', onExit);
      child.send(message);
    });
  }

  private all(message: (child: import('node:child_process').ChildProcess, k: number) => ParentMessage, reply: ChildMessage['type']): Promise<ChildMessage[]> {
    return Promise.all(this.children.map((child, k) => this.ask(child, message(child, k), reply)));
  }

  async connectAll(): Promise<number> {
    const answers = (await this.all(() => ({ type: 'connect', concurrency: 64 }), 'connected')) as Array<Extract<ChildMessage, { type: 'connected' }>>;
    this.connectFailures = answers.reduce((sum, a) => sum + a.failed, 0);
    this.firstError = answers.find((a) => a.firstError)?.firstError ?? '';
    const connected = answers.reduce((sum, a) => sum + a.ok, 0);
    while ((await this.applied()) < connected) await sleep(100);
    return connected;
  }

  async pacedRound(ms: number): Promise<LoopDelay> {
    const answers = (await this.all(() => ({ type: 'paced', ms }), 'done')) as Array<Extract<ChildMessage, { type: 'done' }>>;
    const delays = answers.map((a) => a.loopDelay ?? { p99Ms: 0, maxMs: 0 });
    return {
      p99Ms: Math.max(...delays.map((d) => d.p99Ms)),
      maxMs: Math.max(...delays.map((d) => d.maxMs)),
      cpuSeconds: delays.reduce((sum, d) => sum + (d.cpuSeconds ?? 0), 0),
    };
  }

  async burst(): Promise<void> {
    await this.all(() => ({ type: 'burst' }), 'done');
  }

  async applied(): Promise<number> {
    const answers = (await this.all(() => ({ type: 'applied' }), 'applied')) as Array<Extract<ChildMessage, { type: 'applied' }>>;
    return answers.reduce((sum, a) => sum + a.count, 0);
  }

  async close(): Promise<void> {
    for (const child of this.children) {
      if (child.exitCode === null) child.send({ type: 'close' } satisfies ParentMessage);
    }
    await Promise.all(this.children.map((child) => (child.exitCode === null ? new Promise((resolve) => child.once('exit', resolve)) : undefined)));
  }
}
