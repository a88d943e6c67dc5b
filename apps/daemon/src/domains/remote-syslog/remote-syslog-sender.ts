import { createSocket, type Socket as UdpSocket } from 'node:dgram';
import { connect as tcpConnect, isIP, type Socket } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import type { RemoteSyslog } from '@portico/schema';
import { formatRfc5424, octetFrame, severityCode, type SyslogMessage } from './remote-syslog-format.js';

/** Messages kept while a stream transport is down; the oldest go first when it is full. */
export const SYSLOG_QUEUE_MAX = 1000;
const RETRY_MIN_MS = 1000;
const RETRY_MAX_MS = 60_000;

export interface SenderOptions {
  hostname: () => string;
  report: (error: unknown) => void;
  /** Starts a timer (a test's fake clock); returns its cancel. */
  schedule: (ms: number, run: () => void) => () => void;
  /** Extra trusted authorities for TLS (a test's own CA); the system's are used otherwise. */
  ca?: string;
}

export function portOf(settings: RemoteSyslog): number {
  return settings.port !== 0 ? settings.port : settings.transport === 'tls' ? 6514 : 514;
}

/**
 * Sends RFC 5424 messages to the one configured receiver. UDP: fire and forget. TCP and TLS:
 * one connection, kept open, re-opened after a failure with a growing pause (1 s .. 60 s);
 * messages wait in a bounded queue meanwhile. Settings changes replace the connection.
 */
export class SyslogSender {
  private settings: RemoteSyslog | null = null;
  private udp: UdpSocket | null = null;
  private stream: Socket | null = null;
  private connected = false;
  private queue: Buffer[] = [];
  private retryMs = RETRY_MIN_MS;
  private cancelRetry: (() => void) | null = null;
  private sent = 0;

  constructor(private readonly options: SenderOptions) {}

  /** Messages handed to the transport since start. */
  get sentCount(): number {
    return this.sent;
  }

  configure(settings: RemoteSyslog | null): void {
    const next = settings && settings.enabled && settings.server !== '' ? settings : null;
    if (JSON.stringify(next) === JSON.stringify(this.settings)) return;
    this.close();
    this.settings = next;
    this.retryMs = RETRY_MIN_MS;
    if (next && next.transport !== 'udp') this.open();
  }

  /** Queues one message if the receiver takes its severity. */
  send(message: SyslogMessage): boolean {
    const settings = this.settings;
    if (!settings || severityCode(message.severity) > severityCode(settings.severity)) return false;
    const line = formatRfc5424(message, this.options.hostname(), process.pid);
    if (settings.transport === 'udp') {
      this.udp ??= this.udpSocket(settings.server);
      const datagram = Buffer.from(line, 'utf8');
      this.udp.send(datagram, portOf(settings), settings.server, (error) => error && this.options.report(error));
      this.sent += 1;
      return true;
    }
    this.queue.push(octetFrame(line));
    if (this.queue.length > SYSLOG_QUEUE_MAX) this.queue.shift();
    this.flush();
    return true;
  }

  close(): void {
    this.cancelRetry?.();
    this.cancelRetry = null;
    this.udp?.close();
    this.udp = null;
    this.stream?.destroy();
    this.stream = null;
    this.connected = false;
    this.queue = [];
  }

  private udpSocket(server: string): UdpSocket {
    const socket = createSocket(isIP(server) === 6 ? 'udp6' : 'udp4');
    socket.on('error', (error) => this.options.report(error));
    socket.unref();
    return socket;
  }

  private open(): void {
    const settings = this.settings!;
    const port = portOf(settings);
    const socket =
      settings.transport === 'tls'
        ? tlsConnect({
            host: settings.server,
            port,
            servername: isIP(settings.server) ? undefined : settings.server,
            rejectUnauthorized: settings.tls_verify,
            ...(this.options.ca ? { ca: this.options.ca } : {}),
          })
        : tcpConnect({ host: settings.server, port });
    this.stream = socket;
    socket.setKeepAlive(true, 30_000);
    socket.once(settings.transport === 'tls' ? 'secureConnect' : 'connect', () => {
      if (this.stream !== socket) return;
      this.connected = true;
      this.retryMs = RETRY_MIN_MS;
      this.flush();
    });
    // A receiver sends nothing back; whatever it sends is ignored.
    socket.on('data', () => undefined);
    socket.on('error', (error) => this.options.report(error));
    socket.on('close', () => {
      if (this.stream !== socket) return;
      this.stream = null;
      this.connected = false;
      const wait = this.retryMs;
      this.retryMs = Math.min(this.retryMs * 2, RETRY_MAX_MS);
      this.cancelRetry = this.options.schedule(wait, () => {
        this.cancelRetry = null;
        if (this.settings === settings) this.open();
      });
    });
  }

  private flush(): void {
    if (!this.connected || !this.stream) return;
    while (this.queue.length) {
      this.stream.write(this.queue.shift()!);
      this.sent += 1;
    }
  }
}
