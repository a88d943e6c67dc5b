import { describe, expect, test } from 'vitest';
import { cleanHost, ipv4TcpPayload, MAX_PATH, nflogPayload, parseHttpRequest, parseTlsSni, PcapStreamReader, urlOfPayload } from '../src/domains/audit/audit-packet.js';
import { parseConntrackEvent } from '../src/domains/audit/audit-capture.js';

/** An IPv4/TCP packet from 192.168.11.50:40000 to 192.0.2.80:<dport> carrying `payload`. */
export function tcpPacket(payload: Uint8Array, dport = 80): Buffer {
  const ip = Buffer.alloc(20);
  ip[0] = 0x45;
  ip.writeUInt16BE(20 + 20 + payload.length, 2);
  ip[8] = 64;
  ip[9] = 6;
  Buffer.from([192, 168, 11, 50]).copy(ip, 12);
  Buffer.from([192, 0, 2, 80]).copy(ip, 16);
  const tcp = Buffer.alloc(20);
  tcp.writeUInt16BE(40000, 0);
  tcp.writeUInt16BE(dport, 2);
  tcp[12] = 5 << 4;
  tcp[13] = 0x18;
  return Buffer.concat([ip, tcp, payload]);
}

/** An NFLOG record (header, a prefix TLV, then the payload TLV), as tcpdump writes it. */
export function nflogRecord(packet: Uint8Array): Buffer {
  const tlv = (type: number, value: Uint8Array) => {
    const head = Buffer.alloc(4);
    head.writeUInt16LE(4 + value.length, 0);
    head.writeUInt16LE(type, 2);
    const pad = Buffer.alloc((4 - ((4 + value.length) % 4)) % 4);
    return Buffer.concat([head, value, pad]);
  };
  return Buffer.concat([Buffer.from([2, 0, 0x0f, 0xe6]), tlv(10, Buffer.from('audit\0')), tlv(9, packet)]);
}

export function pcapStream(records: Uint8Array[]): Buffer {
  const head = Buffer.alloc(24);
  head.writeUInt32LE(0xa1b2c3d4, 0);
  head.writeUInt16LE(2, 4);
  head.writeUInt16LE(4, 6);
  head.writeUInt32LE(262144, 16);
  head.writeUInt32LE(239, 20);
  const parts = [head];
  for (const record of records) {
    const r = Buffer.alloc(16);
    r.writeUInt32LE(record.length, 8);
    r.writeUInt32LE(record.length, 12);
    parts.push(r, Buffer.from(record));
  }
  return Buffer.concat(parts);
}

/** A TLS 1.2/1.3 ClientHello record naming `name` (raw bytes, so hostile names can be built). */
export function clientHello(name: Uint8Array): Buffer {
  const sniEntry = Buffer.concat([Buffer.from([0]), u16(name.length), name]);
  const sniList = Buffer.concat([u16(sniEntry.length), sniEntry]);
  const otherExt = Buffer.concat([u16(0x000a), u16(4), Buffer.from([0, 2, 0, 0x1d])]);
  const sniExt = Buffer.concat([u16(0), u16(sniList.length), sniList]);
  const extensions = Buffer.concat([otherExt, sniExt]);
  const body = Buffer.concat([
    Buffer.from([3, 3]),
    Buffer.alloc(32, 7),
    Buffer.from([32]),
    Buffer.alloc(32, 9),
    u16(4),
    Buffer.from([0x13, 0x01, 0x13, 0x02]),
    Buffer.from([1, 0]),
    u16(extensions.length),
    extensions,
  ]);
  const handshake = Buffer.concat([Buffer.from([1, 0, body.length >> 8, body.length & 0xff]), body]);
  return Buffer.concat([Buffer.from([0x16, 3, 1]), u16(handshake.length), handshake]);
}

function u16(n: number): Buffer {
  const b = Buffer.alloc(2);
  b.writeUInt16BE(n);
  return b;
}

describe('HTTP requests', () => {
  test('method, path and Host header; the port and case of the host dropped', () => {
    expect(parseHttpRequest(Buffer.from('GET /a/b?c=1 HTTP/1.1\r\nUser-Agent: x\r\nHost: Example.TEST:8080\r\n\r\n'))).toEqual({ host: 'example.test', path: '/a/b?c=1' });
    expect(parseHttpRequest(Buffer.from('POST http://proxy.test/x HTTP/1.1\r\n\r\n'))).toEqual({ host: 'proxy.test', path: '/x' });
  });

  test('hostile bytes: a Host of markup or control characters is no host; a path is escaped to visible ASCII', () => {
    expect(parseHttpRequest(Buffer.from('GET / HTTP/1.1\r\nHost: <script>alert(1)</script>\r\n\r\n'))).toBeNull();
    expect(parseHttpRequest(Buffer.from('GET / HTTP/1.1\r\nHost: a\u0000b.test\r\n\r\n'))).toBeNull();
    const hit = parseHttpRequest(Buffer.concat([Buffer.from('GET /<x>\u0007\u00ff%'), Buffer.from(' HTTP/1.1\r\nHost: ok.test\r\n\r\n')]));
    expect(hit).toEqual({ host: 'ok.test', path: '/<x>%07%C3%BF%25' });
    expect(hit!.path).toMatch(/^[\x21-\x7e]+$/);
  });

  test('a long path is cut; a request cut before its Host line ends gives nothing', () => {
    const long = parseHttpRequest(Buffer.from(`GET /${'a'.repeat(5000)} HTTP/1.1\r\nHost: h.test\r\n\r\n`));
    // The request line alone is longer than the bytes read: no whole Host line, no record.
    expect(long).toBeNull();
    const cutPath = parseHttpRequest(Buffer.from(`GET /${'a'.repeat(1000)} HTTP/1.1\r\nHost: h.test\r\n\r\n`));
    expect(cutPath?.path.length).toBe(MAX_PATH);
    expect(parseHttpRequest(Buffer.from('GET / HTTP/1.1\r\nHost: trunc'))).toBeNull();
    expect(parseHttpRequest(Buffer.from('GE'))).toBeNull();
    expect(parseHttpRequest(Buffer.from('BREW /pot HTTP/1.1\r\nHost: tea.test\r\n\r\n'))).toBeNull();
  });

  test('host names: letters, digits, dots, dashes; at most 253 characters', () => {
    expect(cleanHost('www.example.test.')).toBe('www.example.test');
    expect(cleanHost(`${'a'.repeat(250)}.test`)).toBeNull();
    expect(cleanHost('a..b')).toBeNull();
    expect(cleanHost('"onmouseover=x')).toBeNull();
  });
});

describe('TLS ClientHello', () => {
  test('the server name', () => {
    expect(parseTlsSni(clientHello(Buffer.from('secure.example.test')))).toBe('secure.example.test');
    expect(urlOfPayload(clientHello(Buffer.from('Secure.Example.test')))).toEqual({ kind: 'tls', host: 'secure.example.test', path: '' });
  });

  test('hostile and truncated hellos give nothing, at every cut', () => {
    expect(parseTlsSni(clientHello(Buffer.from('<script>')))).toBeNull();
    const whole = clientHello(Buffer.from('cut.example.test'));
    for (let length = 0; length < whole.length; length++) expect(parseTlsSni(whole.subarray(0, length))).toBeNull();
    // Lengths that claim more than is there, anywhere in the hello.
    for (let at = 3; at < whole.length; at++) {
      const broken = Buffer.from(whole);
      broken[at] = 0xff;
      const name = parseTlsSni(broken);
      expect(name === null || /^[a-z0-9_.-]+$/.test(name)).toBe(true);
    }
    expect(parseTlsSni(Buffer.from([0x16, 3, 1, 0, 0]))).toBeNull();
  });
});

describe('packets and the pcap stream', () => {
  test('an NFLOG record in a pcap stream split at every byte gives its HTTP request', () => {
    const stream = pcapStream([nflogRecord(tcpPacket(Buffer.from('GET /x HTTP/1.1\r\nHost: split.test\r\n\r\n'))), nflogRecord(tcpPacket(clientHello(Buffer.from('tls.test')), 443))]);
    for (const step of [1, 7, 64, stream.length]) {
      const reader = new PcapStreamReader();
      const hits: unknown[] = [];
      for (let at = 0; at < stream.length; at += step) {
        reader.push(stream.subarray(at, at + step), (record) => {
          const tcp = ipv4TcpPayload(nflogPayload(record)!);
          hits.push({ dport: tcp!.dport, src: tcp!.src, hit: urlOfPayload(tcp!.payload) });
        });
      }
      expect(hits).toEqual([
        { dport: 80, src: '192.168.11.50', hit: { kind: 'http', host: 'split.test', path: '/x' } },
        { dport: 443, src: '192.168.11.50', hit: { kind: 'tls', host: 'tls.test', path: '' } },
      ]);
    }
  });

  test('a stream of another kind, a record larger than any snaplen, broken TLVs and IP headers are refused', () => {
    const reader = new PcapStreamReader();
    reader.push(Buffer.alloc(24, 1), () => undefined);
    expect(reader.failed).toBe('not a pcap stream');
    const huge = pcapStream([]);
    const record = Buffer.alloc(16);
    record.writeUInt32LE(1 << 30, 8);
    const big = new PcapStreamReader();
    big.push(Buffer.concat([huge, record]), () => undefined);
    expect(big.failed).toMatch(/larger/);
    expect(nflogPayload(Buffer.from([2, 0, 0, 1, 0xff, 0x00, 9, 0]))).toBeNull();
    expect(nflogPayload(Buffer.from([2, 0]))).toBeNull();
    const packet = tcpPacket(Buffer.from('GET / HTTP/1.1\r\n'));
    expect(ipv4TcpPayload(packet.subarray(0, 30))).toBeNull();
    const badOffset = Buffer.from(packet);
    badOffset[32] = 0xf0;
    expect(ipv4TcpPayload(badOffset)).toBeNull();
    const fragment = Buffer.from(packet);
    fragment[7] = 1;
    expect(ipv4TcpPayload(fragment)).toBeNull();
    // A total length larger than what was captured (the snaplen) keeps what is there.
    const claimed = Buffer.from(packet);
    claimed.writeUInt16BE(60_000, 2);
    expect(ipv4TcpPayload(claimed)?.payload.length).toBe(packet.length - 40);
  });

  test('random bytes never throw', () => {
    let seed = 42;
    const random = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) & 0xff;
    for (let i = 0; i < 2000; i++) {
      const bytes = Buffer.from(Array.from({ length: random() + random() }, random));
      if (i % 3 === 0) bytes[0] = 0x16;
      expect(() => urlOfPayload(bytes)).not.toThrow();
      expect(() => ipv4TcpPayload(bytes)).not.toThrow();
      expect(() => nflogPayload(bytes)).not.toThrow();
    }
  });
});

describe('conntrack events', () => {
  test('a NATed new connection is a LAN client flow; one not NATed is not', () => {
    const line = '    [NEW] tcp      6 120 SYN_SENT src=192.168.11.50 dst=192.0.2.80 sport=40000 dport=80 [UNREPLIED] src=192.0.2.80 dst=198.51.100.2 sport=80 dport=40000';
    expect(parseConntrackEvent(line, 5)).toEqual({ ts: 5, client: '192.168.11.50', cport: 40000, server: '192.0.2.80', port: 80, proto: 'tcp' });
    expect(parseConntrackEvent(line.replace('dst=198.51.100.2', 'dst=192.168.11.50'), 5)).toBeNull();
    expect(parseConntrackEvent(' [DESTROY] tcp 6 src=1.1.1.1 dst=2.2.2.2', 5)).toBeNull();
    expect(parseConntrackEvent(`[NEW] udp 17 src=<script> dst=2.2.2.2 src=2.2.2.2 dst=3.3.3.3`, 5)).toBeNull();
  });
});
