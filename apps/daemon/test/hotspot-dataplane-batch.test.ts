import { describe, expect, it } from 'vitest';
import { ACCT_DOWN_SET, ACCT_UP_SET, AUTH_IP_SET, AUTH_SET, NftDataplane, renderClientBatch, type ClientEntry } from '../src/domains/hotspot/hotspot-dataplane.js';
import type { CommandRunner } from '../src/engine/command-runner.js';

function clients(count: number): ClientEntry[] {
  return Array.from({ length: count }, (_, i) => ({
    mac: `02:00:00:00:${((i >> 8) & 255).toString(16).padStart(2, '0')}:${(i & 255).toString(16).padStart(2, '0')}`,
    ip: `10.1.${i >> 8}.${i & 255}`,
    timeoutSeconds: 3600,
    upKbps: 0,
    downKbps: 0,
  }));
}

/** A runner that records each `nft -f -` script and answers as `answer` says. */
function recorder(answer: (script: string) => number = () => 0) {
  const scripts: string[] = [];
  const run: CommandRunner = async (argv, options) => {
    expect(argv).toEqual(['nft', '-f', '-']);
    scripts.push(options?.input ?? '');
    const exitCode = answer(options?.input ?? '');
    return { exitCode, stdout: '', stderr: exitCode ? 'Error: refused' : '' };
  };
  return { scripts, run };
}

const elementsIn = (script: string, set: string) =>
  (new RegExp(`add element inet portico ${set} \\{ ([^}]*) \\}`).exec(script)?.[1] ?? '').split(', ').filter(Boolean).length;

describe('nftables data plane batches', () => {
  it('puts a large burst of logins in two transactions of half the clients each, every client once', async () => {
    const { scripts, run } = recorder();
    await new NftDataplane(run).apply(clients(3001), []);
    expect(scripts).toHaveLength(2);
    expect(scripts.map((s) => elementsIn(s, AUTH_SET))).toEqual([1501, 1500]);
    // One element per client: the data path fills the per-address sets itself.
    expect(scripts.join('\n')).not.toContain(AUTH_IP_SET);
    const all = scripts.join('\n');
    expect(all).toContain('02:00:00:00:00:00 . 10.1.0.0 timeout 3600s');
    expect(all).toContain('02:00:00:00:0b:b8 . 10.1.11.184 timeout 3600s');
  });

  it('keeps small batches, and batches with removals, in one transaction', async () => {
    const small = recorder();
    await new NftDataplane(small.run).apply(clients(10), []);
    expect(small.scripts).toHaveLength(1);
    const mixed = recorder();
    await new NftDataplane(mixed.run).apply(clients(2500), [{ mac: '02:aa:00:00:00:01', ip: '10.9.0.1' }]);
    expect(mixed.scripts).toHaveLength(1);
    expect(mixed.scripts[0]).toMatch(/^add element inet portico hs_auth \{ 02:aa:00:00:00:01 \. 10\.9\.0\.1 \}\ndelete element inet portico hs_auth \{ 02:aa:00:00:00:01 \. 10\.9\.0\.1 \}/);
  });

  it('removes a client from every set whether or not the element is still there, before any addition', () => {
    const script = renderClientBatch(clients(1), [{ mac: '02:aa:00:00:00:01', ip: '10.9.0.1' }]);
    for (const set of [AUTH_IP_SET, ACCT_UP_SET, ACCT_DOWN_SET]) {
      expect(script).toContain(`add element inet portico ${set} { 10.9.0.1 }\ndelete element inet portico ${set} { 10.9.0.1 }`);
    }
    expect(script.trimEnd().split('\n').at(-1)).toBe('add element inet portico hs_auth { 02:00:00:00:00:00 . 10.1.0.0 timeout 3600s }');
  });

  it('fails the burst when either half is refused', async () => {
    const { run } = recorder((script) => (script.includes('10.1.11.184') ? 1 : 0));
    await expect(new NftDataplane(run).apply(clients(3001), [])).rejects.toThrow(/nft: Error: refused/);
  });
});

describe('forgetting addresses at start', () => {
  it('takes every address but the kept ones out of the data path sets, idempotently', async () => {
    const scripts: string[] = [];
    const listing: Record<string, string[]> = { [AUTH_IP_SET]: ['10.0.0.1', '10.0.0.2'], [ACCT_UP_SET]: ['10.0.0.2', '10.0.0.3'], [ACCT_DOWN_SET]: [] };
    const run: CommandRunner = async (argv, options) => {
      if (argv[1] === '-j') {
        const set = argv.at(-1)!;
        const elem = (listing[set] ?? []).map((val) => ({ elem: { val, counter: { packets: 1, bytes: 100 } } }));
        return { exitCode: 0, stdout: JSON.stringify({ nftables: [{ set: { name: set, elem } }] }), stderr: '' };
      }
      scripts.push(options?.input ?? '');
      return { exitCode: 0, stdout: '', stderr: '' };
    };
    await new NftDataplane(run).forgetAddresses(new Set(['10.0.0.2']));
    expect(scripts).toEqual([
      `add element inet portico ${AUTH_IP_SET} { 10.0.0.1 }\ndelete element inet portico ${AUTH_IP_SET} { 10.0.0.1 }\n` +
        `add element inet portico ${ACCT_UP_SET} { 10.0.0.3 }\ndelete element inet portico ${ACCT_UP_SET} { 10.0.0.3 }\n`,
    ]);
  });
});

describe('a ruleset without hotspot zones', () => {
  it('counts no clients when the hotspot sets do not exist, and still reports other nft failures', async () => {
    const missing: CommandRunner = async (argv) => ({ exitCode: 1, stdout: '', stderr: `Error: No such file or directory\nlist set inet portico ${argv.at(-1)}\n` });
    await expect(new NftDataplane(missing).counters()).resolves.toEqual([]);
    const refused: CommandRunner = async () => ({ exitCode: 1, stdout: '', stderr: 'Error: Operation not permitted' });
    await expect(new NftDataplane(refused).counters()).rejects.toThrow(/Operation not permitted/);
  });
});
