import { describe, expect, test } from 'vitest';
import {
  arpConflicts,
  arpProbe,
  dhcpDiscover,
  isLoopProbe,
  loopProbe,
  parseArpClaim,
  parseArpSender,
  parseCapture,
  parseDhcpOffer,
  parsePado,
  pppoePadi,
} from '../src/domains/health/health-packets.js';
import { helperProbe, neighbourAddresses, probeInterface, type L2Probe } from '../src/domains/health/health-detectors.js';

const GW = '02:00:00:00:00:01';
const ROGUE = '02:66:66:66:66:66';

/** A DHCPOFFER as a server sends it, with any options (the hostile part). */
function offer(xid: number, options: number[], opts: { serverMac?: string; yiaddr?: string; src?: string; truncateIp?: number } = {}): Buffer {
  const bootp = Buffer.alloc(240);
  bootp[0] = 2;
  bootp[1] = 1;
  bootp[2] = 6;
  bootp.writeUInt32BE(xid >>> 0, 4);
  Buffer.from((opts.yiaddr ?? '192.168.11.77').split('.').map(Number)).copy(bootp, 16);
  bootp.writeUInt32BE(0x63825363, 236);
  const dhcp = Buffer.concat([bootp, Buffer.from(options)]);
  const udp = Buffer.alloc(8);
  udp.writeUInt16BE(67, 0);
  udp.writeUInt16BE(68, 2);
  udp.writeUInt16BE(8 + dhcp.length, 4);
  const ip = Buffer.alloc(20);
  ip[0] = 0x45;
  ip.writeUInt16BE(opts.truncateIp ?? 28 + dhcp.length, 2);
  ip[9] = 17;
  Buffer.from((opts.src ?? '192.168.11.250').split('.').map(Number)).copy(ip, 12);
  Buffer.from([255, 255, 255, 255]).copy(ip, 16);
  const eth = Buffer.alloc(14);
  Buffer.from('ffffffffffff', 'hex').copy(eth, 0);
  Buffer.from((opts.serverMac ?? ROGUE).replaceAll(':', ''), 'hex').copy(eth, 6);
  eth.writeUInt16BE(0x0800, 12);
  return Buffer.concat([eth, ip, udp, dhcp]);
}

function pado(hostUniq: Buffer, extraTags: Buffer = Buffer.alloc(0), lengthOverride?: number): Buffer {
  const uniq = Buffer.concat([Buffer.from([0x01, 0x03, 0, hostUniq.length]), hostUniq]);
  const tags = Buffer.concat([extraTags, uniq]);
  const head = Buffer.from([0x11, 0x07, 0, 0, 0, 0]);
  head.writeUInt16BE(lengthOverride ?? tags.length, 4);
  const eth = Buffer.concat([Buffer.from(GW.replaceAll(':', ''), 'hex'), Buffer.from(ROGUE.replaceAll(':', ''), 'hex'), Buffer.from([0x88, 0x63])]);
  return Buffer.concat([eth, head, tags]);
}

function arpReply(senderMac: string, senderIp: string, op = 2): Buffer {
  const arp = Buffer.alloc(28);
  arp.writeUInt16BE(1, 0);
  arp.writeUInt16BE(0x0800, 2);
  arp[4] = 6;
  arp[5] = 4;
  arp.writeUInt16BE(op, 6);
  Buffer.from(senderMac.replaceAll(':', ''), 'hex').copy(arp, 8);
  Buffer.from(senderIp.split('.').map(Number)).copy(arp, 14);
  const eth = Buffer.concat([Buffer.from(GW.replaceAll(':', ''), 'hex'), Buffer.from(senderMac.replaceAll(':', ''), 'hex'), Buffer.from([0x08, 0x06])]);
  return Buffer.concat([eth, arp]);
}

describe('DHCP', () => {
  test('the DISCOVER is a broadcast BOOTREQUEST from our MAC with a valid IPv4 header checksum', () => {
    const frame = dhcpDiscover(GW, 0x01020304);
    expect(frame.subarray(0, 6).toString('hex')).toBe('ffffffffffff');
    expect(frame.subarray(6, 12).toString('hex')).toBe('020000000001');
    const ip = frame.subarray(14, 34);
    let sum = 0;
    for (let i = 0; i < 20; i += 2) sum += ip.readUInt16BE(i);
    while (sum > 0xffff) sum = (sum & 0xffff) + (sum >>> 16);
    expect(sum).toBe(0xffff);
    expect(frame.readUInt32BE(14 + 20 + 8 + 4)).toBe(0x01020304);
  });

  test('an OFFER gives the server identifier, the sender MAC and the offered address; hostile options are skipped, never kept', () => {
    const text = Buffer.from('<img src=x onerror=1>');
    const hostile = [12, text.length, ...text];
    const parsed = parseDhcpOffer(offer(7, [53, 1, 2, ...hostile, 54, 4, 10, 9, 8, 7, 255]), 7);
    expect(parsed).toEqual({ serverIp: '10.9.8.7', serverMac: ROGUE, offeredIp: '192.168.11.77' });
    expect(JSON.stringify(parsed)).not.toContain('<');
  });

  test('without a server identifier the IP source is the server', () => {
    expect(parseDhcpOffer(offer(7, [53, 1, 2, 255]), 7)?.serverIp).toBe('192.168.11.250');
  });

  test('other transactions, other message types, truncated and overrunning frames are dropped', () => {
    expect(parseDhcpOffer(offer(8, [53, 1, 2, 255]), 7)).toBeNull();
    expect(parseDhcpOffer(offer(7, [53, 1, 5, 255]), 7)).toBeNull(); // an ACK
    expect(parseDhcpOffer(offer(7, [53, 1, 2, 54, 200, 1]), 7)).toBeNull(); // option length past the end
    expect(parseDhcpOffer(offer(7, [53, 1, 2, 255], { truncateIp: 9000 }), 7)).toBeNull();
    expect(parseDhcpOffer(offer(7, [53]), 7)).toBeNull();
    const full = offer(7, [53, 1, 2, 255]);
    for (let cut = 0; cut < full.length; cut += 7) expect(parseDhcpOffer(full.subarray(0, cut), 7)).toBeNull();
    expect(parseDhcpOffer(Buffer.alloc(0), 7)).toBeNull();
  });
});

describe('PPPoE', () => {
  test('a PADO echoing our Host-Uniq names the concentrator by MAC; its AC-Name text is not kept', () => {
    const uniq = Buffer.from('0123456789abcdef', 'hex');
    const padi = pppoePadi(GW, uniq);
    expect(padi.readUInt16BE(12)).toBe(0x8863);
    expect(padi[15]).toBe(0x09);
    const acName = Buffer.concat([Buffer.from([0x01, 0x02, 0, 11]), Buffer.from('<script>1</')]);
    expect(parsePado(pado(uniq, acName), uniq)).toEqual({ acMac: ROGUE });
  });

  test('a PADO for someone else, a tag overrunning the payload, or a lying length are dropped', () => {
    const uniq = Buffer.from('0123456789abcdef', 'hex');
    expect(parsePado(pado(Buffer.from('ffffffffffffffff', 'hex')), uniq)).toBeNull();
    expect(parsePado(pado(uniq, Buffer.from([0x01, 0x02, 0xff, 0xff])), uniq)).toBeNull();
    expect(parsePado(pado(uniq, Buffer.alloc(0), 60000), uniq)).toBeNull();
    expect(parsePado(pado(uniq).subarray(0, 19), uniq)).toBeNull();
  });
});

describe('ARP and loops', () => {
  test('a reply claiming the probed address gives the holder; other addresses and malformed frames do not', () => {
    const probe = arpProbe(GW, '192.168.11.1');
    expect(probe.readUInt32BE(14 + 14)).toBe(0); // sender address 0.0.0.0: a probe claims nothing
    expect(parseArpClaim(probe, '192.168.11.1')).toBeNull();
    expect(parseArpClaim(arpReply(ROGUE, '192.168.11.1'), '192.168.11.1')).toEqual({ ip: '192.168.11.1', mac: ROGUE });
    expect(parseArpClaim(arpReply(ROGUE, '192.168.11.2'), '192.168.11.1')).toBeNull();
    expect(parseArpClaim(arpReply(ROGUE, '192.168.11.1').subarray(0, 40), '192.168.11.1')).toBeNull();
  });

  test('two MACs claiming one address in a window are a conflict (replies, requests, announcements); one MAC, probes and ignored MACs are not', () => {
    const A = '02:aa:00:00:00:01';
    const B = '02:bb:00:00:00:02';
    const C = '02:cc:00:00:00:03';
    const at = (frame: Buffer) => ({ ifname: 'br-lan', frame });
    expect(parseArpSender(arpReply(A, '192.168.11.20', 1))).toEqual({ ip: '192.168.11.20', mac: A });
    expect(parseArpSender(arpProbe(A, '192.168.11.20'))).toBeNull();
    expect(parseArpSender(arpReply(A, '192.168.11.20', 3))).toBeNull();
    const frames = [
      arpReply(B, '192.168.11.20'),
      arpReply(A, '192.168.11.20'),
      arpReply(A, '192.168.11.20', 1), // its own request later: the same claim
      arpReply(C, '192.168.11.5', 1), // a gratuitous announcement of an address held by another
      arpReply(A, '192.168.11.5'),
      arpReply(GW, '192.168.11.30'),
      arpReply(C, '192.168.11.30'), // GW is ignored: one claimant left
      arpReply(C, '192.168.11.40'),
      arpProbe(B, '192.168.11.40'), // a probe claims nothing
      arpReply(B, '192.168.11.50').subarray(0, 30),
    ].map(at);
    expect(arpConflicts(frames, (m) => m === GW)).toEqual([
      { ip: '192.168.11.5', macs: [A, C] },
      { ip: '192.168.11.20', macs: [A, B] },
    ]);
    expect(arpConflicts([], () => false)).toEqual([]);
  });

  test('the loop probe is recognised by its nonce only', () => {
    const nonce = Buffer.alloc(16, 7);
    const frame = loopProbe(GW, nonce);
    expect(frame.length).toBe(60);
    expect(isLoopProbe(frame, nonce)).toBe(true);
    expect(isLoopProbe(frame, Buffer.alloc(16, 8))).toBe(false);
    expect(isLoopProbe(frame.subarray(0, 20), nonce)).toBe(false);
  });

  test('the helper output keeps only well-formed lines', () => {
    const good = `br-lan 1 ${'ab'.repeat(20)}`;
    const frames = parseCapture([good, 'x; rm -rf / 1 abab', `lanp1 1 ${'zz'.repeat(20)}`, `${'a'.repeat(16)} 1 ${'ab'.repeat(20)}`, `lanp2 1 ${'ab'.repeat(5)}`].join('\n'));
    expect(frames).toHaveLength(1);
    expect(frames[0]!.ifname).toBe('br-lan');
  });

  test('refuses to build frames from values that are not addresses', () => {
    expect(() => arpProbe(GW, '192.168.11.1\n')).toThrow();
    expect(() => dhcpDiscover('02:00:00:00:00:0g', 1)).toThrow();
  });
});

describe('the probes of one interface', () => {
  /** A fake wire: answers each probe as a rogue server, the gateway's own server and a loop would. */
  function wire(options: { loop: boolean }) {
    const sent: Array<{ device: string; type: number | null; count: number }> = [];
    let circling: Buffer | null = null;
    const probe: L2Probe = async (device, _ms, frames) => {
      const list = frames === null ? [] : Buffer.isBuffer(frames) ? [frames] : frames;
      const frame = list[0] ?? null;
      const type = frame ? frame.readUInt16BE(12) : null;
      sent.push({ device, type, count: list.length });
      if (frame === null) return circling ? [{ ifname: 'lanp2', frame: circling }] : [];
      if (type === 0x88b5) {
        if (!options.loop) return [];
        circling = frame;
        return [
          { ifname: 'lanp2', frame },
          { ifname: 'lanp2', frame: Buffer.from('garbage') },
        ];
      }
      if (type === 0x0800) {
        const xid = frame.readUInt32BE(14 + 20 + 8 + 4);
        return [
          { ifname: 'lanp1', frame: offer(xid, [53, 1, 2, 54, 4, 192, 168, 11, 250, 255]) },
          { ifname: 'lanp1', frame: offer(xid, [53, 1, 2, 255], { serverMac: '02:00:00:00:00:09' }) },
          { ifname: 'lanp1', frame: offer(xid ^ 1, [53, 1, 2, 255], { serverMac: '02:77:00:00:00:01' }) },
        ];
      }
      if (type === 0x8863) return [{ ifname: 'lanp2', frame: pado(frame.subarray(14 + 6 + 4 + 4, 14 + 6 + 4 + 4 + 8)) }];
      if (type === 0x0806) {
        // Our own address held by the rogue; 192.168.11.20 answered by two clients, .21 by one.
        return [
          { ifname: 'lanp2', frame: arpReply(ROGUE, '192.168.11.1') },
          { ifname: 'lanp1', frame: arpReply(CLIENT_B, '192.168.11.20') },
          { ifname: 'lanp2', frame: arpReply(CLIENT_A, '192.168.11.20') },
          { ifname: 'lanp2', frame: arpReply(CLIENT_A, '192.168.11.21') },
        ];
      }
      return [];
    };
    return { probe, sent };
  }
  const CLIENT_A = '02:aa:00:00:00:01';
  const CLIENT_B = '02:bb:00:00:00:02';
  const target = { interface: 'lan', device: 'br-lan', addresses: ['192.168.11.1'], neighbours: ['192.168.11.20', '192.168.11.21', '192.168.11.1'] };
  const own = new Set([GW, '02:00:00:00:00:09']);

  test('answers from another device are findings; our own MACs, other transactions and noise are not', async () => {
    const { probe, sent } = wire({ loop: false });
    expect(await probeInterface(target, GW, own, probe)).toEqual([
      { kind: 'dhcpServer', interface: 'lan', port: '', ip: '192.168.11.250', mac: ROGUE, otherMac: '' },
      { kind: 'pppoeServer', interface: 'lan', port: '', ip: '', mac: ROGUE, otherMac: '' },
      { kind: 'ipConflict', interface: 'lan', port: '', ip: '192.168.11.1', mac: ROGUE, otherMac: '' },
      { kind: 'ipConflict', interface: 'lan', port: '', ip: '192.168.11.20', mac: CLIENT_A, otherMac: CLIENT_B },
    ]);
    expect(sent.every((s) => s.device === 'br-lan')).toBe(true);
    // One ARP probe for our address and one per neighbour that is not ours, in one window.
    expect(sent.filter((s) => s.type === 0x0806)).toEqual([{ device: 'br-lan', type: 0x0806, count: 3 }]);
  });

  test('on a loop only the loop is reported, and while our probe still circles no new broadcast is sent', async () => {
    const { probe, sent } = wire({ loop: true });
    const loops = new Map<string, Buffer>();
    const loop = [{ kind: 'loop', interface: 'lan', port: 'lanp2', ip: '', mac: '', otherMac: '' }];
    expect(await probeInterface(target, GW, own, probe, loops)).toEqual(loop);
    expect(sent.map((s) => s.type)).toEqual([0x88b5]);
    expect(await probeInterface(target, GW, own, probe, loops)).toEqual(loop);
    // The second round only listened.
    expect(sent.map((s) => s.type)).toEqual([0x88b5, null]);
  });
});

describe('the packet helper', () => {
  test('is run with an argument array: device, time, frame in hex, the kernel filters; a bad device name never reaches it', async () => {
    const calls: string[][] = [];
    const run = async (argv: readonly string[]) => {
      calls.push([...argv]);
      return { exitCode: 0, stdout: `lanp1 0 ${'ab'.repeat(14)}\nnot a frame`, stderr: '' };
    };
    const probe = helperProbe(run, '/usr/lib/portico/portico-l2probe', ['ip', 'netns', 'exec', 'gw']);
    const frames = await probe('br-lan', 1500, Buffer.from('ffffffffffff020000000001', 'hex'), [{ udpPort: 68 }, 0x0806]);
    expect(calls).toEqual([['ip', 'netns', 'exec', 'gw', '/usr/lib/portico/portico-l2probe', 'br-lan', '1500', 'ffffffffffff020000000001', 'udp:68', '0806']]);
    expect(frames).toHaveLength(1);
    expect(await probe('br-lan', 400, null, [0x88b5])).toHaveLength(1);
    expect(calls[1]![7]).toBe('-');
    await probe('br-lan', 800, [Buffer.from('ffffffffffff020000000001', 'hex'), Buffer.from('ffffffffffff020000000002', 'hex')], [0x0806]);
    expect(calls[2]![7]).toBe('ffffffffffff020000000001,ffffffffffff020000000002');
    await expect(probe('br-lan; reboot', 400, null, [0x88b5])).rejects.toThrow(/device name/);
    expect(calls).toHaveLength(3);
  });

  test('the neighbours to probe: IPv4 entries with a link-layer address, nothing else from the JSON', async () => {
    const calls: string[][] = [];
    const entries = [
      { dst: '192.168.11.20', lladdr: '02:aa:00:00:00:01', state: ['REACHABLE'] },
      { dst: '192.168.11.21', state: ['FAILED'] },
      { dst: '192.168.11.20', lladdr: '02:aa:00:00:00:01', state: ['STALE'] },
      { dst: '192.168.11.22\n; reboot', lladdr: '02:aa:00:00:00:02' },
      { dst: 'fe80::1', lladdr: '02:aa:00:00:00:03' },
    ];
    const run = async (argv: readonly string[]) => {
      calls.push([...argv]);
      return { exitCode: 0, stdout: JSON.stringify(entries), stderr: '' };
    };
    expect(await neighbourAddresses(run, 'br-lan', ['ip', 'netns', 'exec', 'gw'])).toEqual(['192.168.11.20']);
    expect(calls).toEqual([['ip', 'netns', 'exec', 'gw', 'ip', '-j', '-4', 'neigh', 'show', 'dev', 'br-lan']]);
    expect(await neighbourAddresses(async () => ({ exitCode: 0, stdout: 'not json', stderr: '' }), 'br-lan')).toEqual([]);
    await expect(neighbourAddresses(run, 'br-lan; reboot')).rejects.toThrow(/device name/);
  });
});
