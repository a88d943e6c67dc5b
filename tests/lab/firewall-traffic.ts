import { spawn, type ChildProcess } from 'node:child_process';
import { inNs } from './lab-topology.js';

/**
 * Small traffic tools for the firewall lab tests, run with this Node inside a namespace:
 * servers that report what they saw, clients that report what they got, each as one JSON
 * line on stdout. No shell is involved.
 */

const WHOAMI = `
const net = require('node:net');
const [host, port] = process.argv.slice(1);
net.createServer((s) => s.end(String(s.remoteAddress).replace(/^::ffff:/, '') + '\\n')).listen(Number(port), host, () => console.log('ready'));
`;

const HOLD_SERVER = `
const net = require('node:net');
const [host, port] = process.argv.slice(1);
const held = [];
net.createServer((s) => { held.push(s); s.on('error', () => {}); }).listen(Number(port), host, () => console.log('ready'));
`;

const HOLD_CLIENT = `
const net = require('node:net');
const [host, port, count, timeout] = process.argv.slice(1).map((v, i) => (i ? Number(v) : v));
const open = [];
let connected = 0, refused = 0;
function next(i) {
  if (i === count) { console.log(JSON.stringify({ connected, refused })); open.forEach((s) => s.destroy()); return; }
  const s = net.connect({ host, port });
  const timer = setTimeout(() => { refused++; s.destroy(); next(i + 1); }, timeout);
  s.once('connect', () => { clearTimeout(timer); connected++; open.push(s); next(i + 1); });
  s.once('error', () => { clearTimeout(timer); refused++; s.destroy(); next(i + 1); });
}
next(0);
`;

const UDP_COUNTER = `
const dgram = require('node:dgram');
const [host, port] = process.argv.slice(1);
let received = 0;
const sock = dgram.createSocket('udp4');
sock.on('message', () => { received++; });
sock.bind(Number(port), host, () => console.log('ready'));
process.on('SIGTERM', () => { console.log(JSON.stringify({ received })); process.exit(0); });
`;

const UDP_STREAM = `
const dgram = require('node:dgram');
const [host, port, everyMs] = process.argv.slice(1);
let sent = 0;
const sock = dgram.createSocket('udp4');
const payload = Buffer.from('probe');
const timer = setInterval(() => { for (let i = 0; i < 4; i++) { sock.send(payload, Number(port), host); sent++; } }, Number(everyMs));
process.on('SIGTERM', () => { clearInterval(timer); console.log(JSON.stringify({ sent })); process.exit(0); });
`;

/** A long-running Node script in a namespace; `ready` resolves on its first stdout line. */
export interface NsProcess {
  child: ChildProcess;
  ready: Promise<void>;
  /** Sends SIGTERM and resolves with the JSON line the script printed on the way out. */
  stop(): Promise<Record<string, number>>;
  kill(): void;
}

function startScript(ns: string, script: string, args: Array<string | number>, waitsForReady: boolean): NsProcess {
  const child = spawn('ip', ['netns', 'exec', ns, process.execPath, '-e', script, ...args.map(String)], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  let onLine: (() => void) | undefined;
  child.stdout!.on('data', (chunk: Buffer) => {
    out += chunk.toString();
    if (out.includes('\n')) onLine?.();
  });
  const ready = waitsForReady
    ? new Promise<void>((resolve, reject) => {
        onLine = resolve;
        child.once('exit', (code) => reject(new Error(`script in ${ns} exited (${code}) before it was ready`)));
      })
    : Promise.resolve();
  return {
    child,
    ready,
    stop: () =>
      new Promise((resolve) => {
        child.once('exit', () => {
          const last = out.trim().split('\n').filter((l) => l.startsWith('{')).pop();
          resolve(last ? (JSON.parse(last) as Record<string, number>) : {});
        });
        child.kill('SIGTERM');
      }),
    kill: () => child.kill('SIGKILL'),
  };
}

/** A TCP server answering every connection with the peer address it saw. */
export async function whoamiServer(ns: string, host: string, port: number): Promise<NsProcess> {
  const proc = startScript(ns, WHOAMI, [host, port], true);
  await proc.ready;
  return proc;
}

/** A TCP server that accepts connections and keeps them open. */
export async function holdServer(ns: string, host: string, port: number): Promise<NsProcess> {
  const proc = startScript(ns, HOLD_SERVER, [host, port], true);
  await proc.ready;
  return proc;
}

/** The address a whoami server saw for a connection from `ns`; '' when it never answered. */
export function whoami(ns: string, host: string, port: number): string {
  const script = `const s = require('node:net').connect(${port}, ${JSON.stringify(host)}); let d = ''; s.on('data', (c) => (d += c)); s.on('end', () => console.log(d.trim())); s.on('error', () => {}); setTimeout(() => process.exit(0), 2500);`;
  return inNs(ns, [process.execPath, '-e', script], { allowFail: true, timeoutMs: 5000 }).stdout.trim();
}

/** Opens `count` TCP connections one after another, all held until the last is tried. */
export function holdConnections(ns: string, host: string, port: number, count: number): { connected: number; refused: number } {
  const result = inNs(ns, [process.execPath, '-e', HOLD_CLIENT, host, String(port), String(count), '1500'], { timeoutMs: count * 2000 + 5000 });
  return JSON.parse(result.stdout.trim().split('\n').pop()!) as { connected: number; refused: number };
}

/** Counts UDP datagrams arriving on a port. */
export async function udpCounter(ns: string, host: string, port: number): Promise<NsProcess> {
  const proc = startScript(ns, UDP_COUNTER, [host, port], true);
  await proc.ready;
  return proc;
}

/** Sends four UDP datagrams every `everyMs` until stopped. */
export function udpStream(ns: string, host: string, port: number, everyMs = 1): NsProcess {
  return startScript(ns, UDP_STREAM, [host, port, everyMs], false);
}
