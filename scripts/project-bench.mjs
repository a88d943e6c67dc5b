// `npm run bench`: every tests/bench/*.bench.mjs, each printing one JSON line of figures.
// Budgets are reported in the line; BENCH_STRICT=1 makes a breach fail the run.
import { readdirSync } from 'node:fs';
import { run } from './project-steps.mjs';

const files = readdirSync('tests/bench').filter((f) => f.endsWith('.bench.mjs')).sort();
let failed = 0;
for (const file of files) {
  if (run(process.execPath, [`tests/bench/${file}`]) !== 0) failed += 1;
}
process.exit(failed ? 1 : 0);
