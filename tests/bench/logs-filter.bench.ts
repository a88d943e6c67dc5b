// Filtering a log of 1,000,000 lines the way `sysconf/log` does (apps/daemon/src/domains/logs/):
// one streaming pass over the daemon's stored format with the filter compiled once, times and
// levels read at fixed places without parsing a line, the text matched on the raw line and
// confirmed on the few that hit. Budget: a filtered page in under 300 ms (median of BENCH_RUNS).
import { createWriteStream, mkdtempSync, rmSync, statSync } from 'node:fs';
import { once } from 'node:events';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { encodeLogLine } from '../../apps/daemon/src/config/log-book.js';
import { compileFilter } from '../../apps/daemon/src/domains/logs/logs-filter.js';
import { readPage } from '../../apps/daemon/src/domains/logs/logs-query.js';
import { storedFilesSource } from '../../apps/daemon/src/domains/logs/logs-sources.js';
import { median, report, reportError } from './bench-util.mjs';

const LINES = Number(process.env.BENCH_LOG_LINES ?? 1_000_000);
const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const START = Date.UTC(2026, 0, 1);
const LEVELS = ['info', 'info', 'info', 'notice', 'warning', 'err'] as const;

async function writeLog(path: string): Promise<void> {
  const out = createWriteStream(path);
  let chunk = '';
  for (let i = 0; i < LINES; i++) {
    // One host name in 10,000 is the one searched for.
    const host = i % 10_000 === 7 ? 'printer-lobby' : `host-${i % 977}`;
    chunk += `${encodeLogLine({ time: START + i * 100, level: LEVELS[i % LEVELS.length]!, origin: 'dnsmasq-dhcp', text: `${i} DHCPACK(br-lan) 192.168.${(i >> 8) & 255}.${i & 255} 02:00:00:${String(i % 100).padStart(2, '0')}:00:01 ${host}` })}\n`;
    if (chunk.length > 1 << 20) {
      if (!out.write(chunk)) await once(out, 'drain');
      chunk = '';
    }
  }
  out.end(chunk);
  await once(out, 'finish');
}

/** Wall time, and the CPU time the process spent (the machine is shared: wall time waits for a core). */
async function timed(run: () => Promise<unknown>, cpu: number[]): Promise<number> {
  const started = process.hrtime.bigint();
  const used = process.cpuUsage();
  await run();
  const spent = process.cpuUsage(used);
  cpu.push((spent.user + spent.system) / 1000);
  return Number(process.hrtime.bigint() - started) / 1e6;
}

try {
  const dir = mkdtempSync(join(tmpdir(), 'portico-bench-logs-'));
  const path = join(dir, 'dhcp.log');
  await writeLog(path);
  const source = storedFilesSource(() => [path]);
  const text = compileFilter({ text: 'PRINTER-LOBBY' });
  const combined = compileFilter({ level: 'warning', from: START + 10_000_000, to: START + 90_000_000, text: 'br-lan' });
  const unfiltered = compileFilter({});
  // Warm the page cache and the compiler once, as a running daemon would be.
  const first = await readPage(source, text, 1, 50);
  if (first.total !== LINES / 10_000) throw new Error(`expected ${LINES / 10_000} matches, got ${first.total}`);
  const textMs: number[] = [];
  const combinedMs: number[] = [];
  const allMs: number[] = [];
  const textCpu: number[] = [];
  const combinedCpu: number[] = [];
  const allCpu: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    textMs.push(await timed(() => readPage(source, text, 1, 50), textCpu));
    combinedMs.push(await timed(() => readPage(source, combined, 1, 50), combinedCpu));
    allMs.push(await timed(() => readPage(source, unfiltered, 3, 50), allCpu));
  }
  const bytes = statSync(path).size;
  rmSync(dir, { recursive: true, force: true });
  report(
    'logs-filter',
    {
      lines: LINES,
      file_mb: Math.round(bytes / 1e5) / 10,
      text_filter_ms_median: Math.round(median(textMs)),
      level_time_text_filter_ms_median: Math.round(median(combinedMs)),
      unfiltered_page3_ms_median: Math.round(median(allMs)),
      text_filter_cpu_ms_median: Math.round(median(textCpu)),
      level_time_text_filter_cpu_ms_median: Math.round(median(combinedCpu)),
      unfiltered_page3_cpu_ms_median: Math.round(median(allCpu)),
      load_average_1m: Math.round(loadavg()[0]! * 10) / 10,
    },
    { text_filter_ms_median: 300, level_time_text_filter_ms_median: 300 },
  );
} catch (error) {
  reportError('logs-filter', error);
  process.exitCode = 1;
}
