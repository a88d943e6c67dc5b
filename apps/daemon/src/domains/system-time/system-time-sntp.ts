import { createSocket, type Socket } from 'node:dgram';

/**
 * The device as an NTP server for the LAN: an SNTP responder (RFC 4330 §5, RFC 5905 packet
 * format) answering client requests (mode 3) with the device's clock. The NTP client the image
 * carries (systemd-timesyncd) cannot serve, so the daemon answers. Replies tell the truth
 * about the clock: synchronised by NTP (stratum 3), set by hand with NTP off (stratum 10, the
 * local-clock convention, refid LOCL), or not yet synchronised (leap 3, stratum 16, which
 * clients refuse to follow).
 */

/** Seconds from 1900-01-01 (NTP era 0) to 1970-01-01. */
const NTP_UNIX_OFFSET = 2_208_988_800;
const PACKET = 48;

export type ClockState = 'synchronised' | 'local' | 'unsynchronised';

function writeTimestamp(buffer: Buffer, offset: number, ms: number): void {
  const seconds = Math.floor(ms / 1000) + NTP_UNIX_OFFSET;
  const fraction = Math.floor(((ms % 1000) / 1000) * 0x1_0000_0000);
  buffer.writeUInt32BE(seconds >>> 0, offset);
  buffer.writeUInt32BE(fraction >>> 0, offset + 4);
}

/** The reply to one datagram, or null for anything that is not a client request. */
export function sntpReply(request: Buffer, receivedMs: number, nowMs: number, clock: ClockState): Buffer | null {
  if (request.length < PACKET) return null;
  const version = (request[0]! >> 3) & 0x07;
  const mode = request[0]! & 0x07;
  if (mode !== 3 || version < 1 || version > 4) return null;
  const reply = Buffer.alloc(PACKET);
  const leap = clock === 'unsynchronised' ? 3 : 0;
  reply[0] = (leap << 6) | (version << 3) | 4;
  reply[1] = clock === 'synchronised' ? 3 : clock === 'local' ? 10 : 16;
  reply[2] = request[2]!; // poll interval: the client's
  reply.writeInt8(-20, 3); // precision: about a microsecond
  reply.writeUInt32BE(0, 4); // root delay
  reply.writeUInt32BE(clock === 'synchronised' ? 0x0000_1000 : 0x0001_0000, 8); // root dispersion
  reply.write(clock === 'local' ? 'LOCL' : clock === 'synchronised' ? 'SYNC' : 'INIT', 12, 'latin1');
  writeTimestamp(reply, 16, receivedMs); // reference: the clock as last read
  request.copy(reply, 24, 40, 48); // originate = the client's transmit timestamp
  writeTimestamp(reply, 32, receivedMs);
  writeTimestamp(reply, 40, nowMs);
  return reply;
}

export interface SntpServerOptions {
  now: () => number;
  clock: () => ClockState;
  report: (error: unknown) => void;
}

/** One UDP socket on port 123 (or a test's port) while the LAN NTP server is on. */
export class SntpServer {
  private socket: Socket | null = null;

  constructor(private readonly options: SntpServerOptions) {}

  get listening(): boolean {
    return this.socket !== null;
  }

  /** The bound port, for tests that ask for port 0. */
  port(): number | null {
    return this.socket ? this.socket.address().port : null;
  }

  async start(port: number, host: string): Promise<void> {
    if (this.socket) return;
    const socket = createSocket({ type: host.includes(':') ? 'udp6' : 'udp4', reuseAddr: false });
    socket.on('message', (message, peer) => {
      const received = this.options.now();
      const reply = sntpReply(message, received, this.options.now(), this.options.clock());
      if (reply) socket.send(reply, peer.port, peer.address, (error) => error && this.options.report(error));
    });
    socket.on('error', (error) => this.options.report(error));
    await new Promise<void>((resolve, reject) => {
      socket.once('error', reject);
      socket.bind(port, host, () => {
        socket.off('error', reject);
        resolve();
      });
    });
    this.socket = socket;
  }

  async stop(): Promise<void> {
    const socket = this.socket;
    this.socket = null;
    if (socket) await new Promise<void>((resolve) => socket.close(() => resolve()));
  }
}
