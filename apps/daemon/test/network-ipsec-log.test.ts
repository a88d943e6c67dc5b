import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { VpnClient } from '@portico/schema';
import { readIpsecLogFile, simulatedIpsecLog, tailLines } from '../src/domains/network/network-ipsec-log.js';

const dir = mkdtempSync(join(tmpdir(), 'portico-ipsec-log-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const client: VpnClient = {
  id: '1',
  type: 'ipsec',
  name: 'branch',
  server: '203.0.113.9',
  port: 1194,
  username: '',
  enabled: true,
  defaultroute: false,
  ike: 'ikev2',
  ipsec_mode: 'main',
  peer_subnets: '10.8.0.0/24',
  local_id: '',
  remote_id: '',
  psk: 'secret',
};

describe('IPsec client log', () => {
  it('a missing file is no log yet, not an error', async () => {
    expect(await readIpsecLogFile(join(dir, 'absent.log'))).toEqual({ source: 'file', present: false, lines: [], truncated: false });
  });

  it('reads the newest lines of the file, oldest first', async () => {
    const file = join(dir, 'ipsec.log');
    writeFileSync(file, 'one\ntwo\nthree\n');
    expect(await readIpsecLogFile(file)).toEqual({ source: 'file', present: true, lines: ['one', 'two', 'three'], truncated: false });
    // A large file is read from its end: the first, cut line is dropped.
    writeFileSync(file, `${'x'.repeat(70 * 1024)}\nlast\n`);
    const tail = await readIpsecLogFile(file);
    expect(tail.lines).toEqual(['last']);
    expect(tail.truncated).toBe(true);
  });

  it('keeps at most the newest lines', () => {
    expect(tailLines('a\nb\nc\n', false, 2)).toEqual({ lines: ['b', 'c'], truncated: true });
  });

  it('the sim driver logs each enabled IPsec client and says it is simulated', () => {
    const now = Date.UTC(2024, 2, 5, 10, 0, 0);
    const log = simulatedIpsecLog([client, { ...client, id: '2', name: 'off', enabled: false }, { ...client, id: '3', type: 'pptp' }], now);
    expect(log.source).toBe('simulated');
    expect(log.lines).toHaveLength(4);
    expect(log.lines[0]).toBe('Mar  5 09:59:00 05[IKE] <branch[1]> initiating IKEv2 IKE_SA branch[1] to 203.0.113.9');
    expect(log.lines.join('\n')).not.toContain('secret');
    expect(simulatedIpsecLog([], now)).toEqual({ source: 'simulated', present: false, lines: [], truncated: false });
  });
});
