import { join } from 'node:path';
import { execa } from 'execa';
import { describe, expect, test } from 'vitest';

const daemonDir = join(import.meta.dirname, '..');
const depcruise = join(daemonDir, 'node_modules', '.bin', 'depcruise');
const rules = join(daemonDir, 'dependency-rules.cjs');

interface Violation {
  from: string;
  to: string;
  rule: { name: string };
}

/** The violations dependency-cruiser finds under `src` of `cwd` with the daemon's rules. */
async function violations(cwd: string): Promise<Violation[]> {
  const result = await execa(depcruise, ['--config', rules, '--output-type', 'json', 'src'], { cwd, reject: false });
  const report = JSON.parse(result.stdout) as { summary: { violations: Violation[] } };
  return report.summary.violations;
}

describe('the daemon layers point one way', () => {
  test('no import breaks a rule of dependency-rules.cjs', async () => {
    expect((await violations(daemonDir)).map((v) => `${v.rule.name}: ${v.from} → ${v.to}`)).toEqual([]);
  }, 60_000);

  test('the rules catch an engine that names a domain and a domain that skips a public face', async () => {
    const found = (await violations(join(daemonDir, 'test', 'fixtures', 'layering'))).map((v) => `${v.rule.name}: ${v.from} → ${v.to}`);
    expect(found.sort()).toEqual([
      'core-never-imports-a-domain: src/engine/engine-reach.ts → src/domains/alpha/alpha-internal.ts',
      'domains-meet-through-public-faces: src/domains/beta/beta-uses-alpha.ts → src/domains/alpha/alpha-internal.ts',
    ]);
  }, 60_000);
});
