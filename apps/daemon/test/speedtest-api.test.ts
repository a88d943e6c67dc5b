import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import { adminClient, CONDITION_WAIT, get, json, post, startDaemon, type Client, type Harness } from './daemon-harness.js';
import type { CommandRunner } from '../src/engine/command-runner.js';
import { iperfRate } from '../src/domains/speedtest/speedtest-iperf.js';

/*
 * Speed test through the API: iperf3 run with an argument array bound to the WAN's device,
 * download (reverse) then upload, its received rates as the result; refusals before a server
 * is set, for an unknown WAN and while a test runs; iperf3's failure reported.
 */

const report = (bps: number) => JSON.stringify({ end: { sum_received: { bits_per_second: bps } } });
const calls: string[][] = [];
let release: (() => void) | null = null;
let fail = false;
const run: CommandRunner = async (argv) => {
  calls.push([...argv]);
  // The first command waits for the test to let it go, so "busy" can be seen.
  if (calls.length === 1) await new Promise<void>((done) => (release = done));
  if (fail) return { exitCode: 1, stdout: JSON.stringify({ error: 'unable to connect to server: Connection refused' }), stderr: '' };
  return { exitCode: 0, stdout: report(argv.includes('--reverse') ? 48_000_000 : 9_500_000), stderr: '' };
};

let h: Harness;
let admin: Client;
beforeAll(async () => {
  h = await startDaemon({ env: { PORTICO_LAN_PORTS: 'eth1', PORTICO_WAN_PORTS: 'eth0' }, deps: { speedtest: { run } } as never });
  admin = await adminClient(h);
});
afterAll(async () => {
  await h.close();
});

const status = async () => json(await get(h.app, admin, `/api/security/speedtest?_=${h.clock.ms}`)).data;

describe('speed test', () => {
  test('refused without a server or for an unknown WAN; then download and upload of the WAN', async () => {
    const { wans } = await status();
    expect(wans.length).toBeGreaterThan(0);
    const wan = wans[0];
    expect(json(await post(h.app, admin, '/api/security/speedtest', { action: 'start', wan: wan.name }))).toMatchObject({ success: false, msg: 'speedTest.msg.noServer' });
    expect(json(await post(h.app, admin, '/api/sysconf/speedtest', { server: '<script>' }))).toMatchObject({ success: false, errors: { server: 'validation.hostOrIp' } });
    expect(json(await post(h.app, admin, '/api/sysconf/speedtest', { server: '192.0.2.80', port: 5201, seconds: 3 })).success).toBe(true);
    expect(json(await post(h.app, admin, '/api/security/speedtest', { action: 'start', wan: 'nowan' }))).toMatchObject({ success: false, msg: 'speedTest.msg.noWan' });

    expect(json(await post(h.app, admin, '/api/security/speedtest', { action: 'start', wan: wan.name }))).toMatchObject({ success: true, data: { running: { wan: wan.name, phase: 'download' } } });
    expect(json(await post(h.app, admin, '/api/security/speedtest', { action: 'start', wan: wan.name }))).toMatchObject({ success: false, msg: 'speedTest.msg.busy' });
    await vi.waitFor(() => expect(release).not.toBeNull(), CONDITION_WAIT);
    release!();
    await vi.waitFor(async () => expect((await status()).running).toBeNull(), CONDITION_WAIT);
    const done = await status();
    expect(done.results[0]).toMatchObject({ wan: wan.name, server: '192.0.2.80', port: 5201, download: 48_000_000, upload: 9_500_000 });
    expect(calls[0]).toEqual(['iperf3', '--client', '192.0.2.80', '--port', '5201', '--time', '3', '--json', '--bind-dev', wan.device, '--connect-timeout', '5000', '--omit', '1', '--reverse']);
    expect(calls[1]).toEqual(calls[0]!.slice(0, -1));
  });

  test("iperf3's failure is reported as the test's failure, with its words beside", async () => {
    fail = true;
    const { wans } = await status();
    expect(json(await post(h.app, admin, '/api/security/speedtest', { action: 'start', wan: wans[0].name })).success).toBe(true);
    await vi.waitFor(async () => expect((await status()).error).toEqual({ msg: 'speedTest.msg.failed', detail: 'unable to connect to server: Connection refused' }), CONDITION_WAIT);
    expect(() => iperfRate('not json')).toThrow(/no report/);
    expect(() => iperfRate(JSON.stringify({ end: { sum_received: { bits_per_second: -1 } } }))).toThrow(/without a received rate/);
  });
});
