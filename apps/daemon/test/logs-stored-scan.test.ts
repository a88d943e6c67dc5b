import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import type { LogEntry } from '@portico/schema';
import { decodeLogLine, encodeLogLine } from '../src/config/log-book.js';
import { compileFilter, entryMatches, type LogFilter } from '../src/domains/logs/logs-filter.js';
import { fileChunks, storedFilesSource } from '../src/domains/logs/logs-sources.js';

/**
 * The chunk scan of stored files (no line parsed unless it may match, the text searched across
 * the chunk) answers exactly what decoding every line and matching it would.
 */

const dir = mkdtempSync(join(tmpdir(), 'portico-logs-scan-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const START = Date.UTC(2026, 0, 1);
const LEVELS = ['err', 'warning', 'notice', 'info', 'debug'] as const;

function entries(): LogEntry[] {
  const list: LogEntry[] = [];
  for (let i = 0; i < 6000; i++) {
    const entry: LogEntry = { time: START + i * 1000, level: LEVELS[i % LEVELS.length]!, origin: i % 7 === 0 ? 'hostapd' : 'dnsmasq-dhcp' };
    // Hits in the message, in the origin, in a value, in a field name only ("m"), and in UTF-8 text.
    if (i % 11 === 0) entry.text = `DHCPACK(br-lan) 192.168.1.${i % 250} laptop-${i}`;
    else if (i % 13 === 0) entry.text = `打印机-${i} "quoted" \\ back École`;
    else entry.text = `line ${i}`;
    if (i % 17 === 0) entry.values = { host: `Br-Lan-${i}` };
    list.push(entry);
  }
  return list;
}

const lines = entries().map(encodeLogLine);
// A line longer than a read chunk (1 MB) in the middle: the daemon cuts its own fields, a
// stored file need not have been written by it.
lines.splice(3000, 0, JSON.stringify({ t: START + 2_999_500, l: 3, o: 'kernel', m: `${'x'.repeat(1_200_000)} br-lan` }));
// A foreign line and a cut last line (no newline) beside the daemon's own.
const path = join(dir, 'stored.log');
writeFileSync(path, `${lines.slice(0, 10).join('\n')}\nnot json at all br-lan\n${lines.slice(10).join('\n')}\n{"t":17`);

async function scanned(filter: LogFilter): Promise<string[]> {
  const out: string[] = [];
  for await (const batch of storedFilesSource(() => [path]).batches(compileFilter(filter))) for (const item of batch) out.push(item as string);
  return out;
}

function expected(filter: LogFilter): string[] {
  const compiled = compileFilter(filter);
  return lines.filter((line) => {
    const entry = decodeLogLine(line);
    return entry !== null && entryMatches(entry, compiled);
  });
}

describe('the stored-file scan', () => {
  test('reads whole lines in order, a line longer than a chunk included, UTF-8 intact', async () => {
    const read: string[] = [];
    for await (const chunk of fileChunks(path)) {
      expect(chunk.ascii).toBe(!/[^\x00-\x7f]/.test(chunk.text));
      for (const line of chunk.text.split('\n')) read.push(Buffer.from(line, 'latin1').toString('utf8'));
    }
    expect(read).toEqual([...lines.slice(0, 10), 'not json at all br-lan', ...lines.slice(10), '{"t":17']);
  });

  test.each<[string, LogFilter]>([
    ['nothing', {}],
    ['a text', { text: 'BR-LAN' }],
    ['a UTF-8 text', { text: '打印机-26' }],
    ['a text with a quote', { text: '"quoted"' }],
    ['a text with a backslash', { text: '\\ back' }],
    ['a non-ASCII text in another case', { text: 'éCOLE' }],
    ['a field name only', { text: 'm' }],
    ['a level', { level: 'warning' }],
    ['a time range', { from: START + 1_000_000, to: START + 4_000_000 }],
    ['level, time range and text', { level: 'notice', from: START + 500_000, to: START + 5_000_000, text: 'br-lan' }],
    ['level and a rare text', { level: 'err', text: 'laptop-55' }],
  ])('%s: the same lines as decoding each', async (_name, filter) => {
    const got = await scanned(filter);
    const want = expected(filter);
    expect(want.length).toBeGreaterThan(0);
    expect(got).toEqual(want);
  });
});
