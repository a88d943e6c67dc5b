import { describe, expect, test } from 'vitest';
import { comparePortNames } from '../src/domains/network/network-plan.js';

// The plan orders ports without ICU for plain names; the order must be the collation's.
describe('port name order', () => {
  const collation = (a: string, b: string) => Math.sign(a.localeCompare(b, 'en', { numeric: true }));

  test('natural order of plain names, as the collation gives it', () => {
    expect(['eth10', 'wan', 'eth2', 'eth1a10', 'eth1a2', 'lan1', 'eth', 'eth01', 'eth0'].sort(comparePortNames)).toEqual([
      'eth',
      'eth0',
      'eth01',
      'eth1a2',
      'eth1a10',
      'eth2',
      'eth10',
      'lan1',
      'wan',
    ]);
  });

  test('agrees with the collation on generated names, plain or not', () => {
    const alphabet = ['a', 'b', 'z', '0', '1', '9', 'E', '-', '.'];
    let seed = 7;
    const next = () => (seed = (seed * 48271) % 2147483647);
    const names = ['eth001', 'eth1', '0', '00', ''];
    for (let i = 0; i < 120; i++) names.push(Array.from({ length: next() % 7 }, () => alphabet[next() % alphabet.length]).join(''));
    const disagreements: string[] = [];
    for (const a of names) for (const b of names) if (Math.sign(comparePortNames(a, b)) !== collation(a, b)) disagreements.push(`${a} ${b}`);
    expect(disagreements).toEqual([]);
  });
});
