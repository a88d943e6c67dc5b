import { appendFileSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { CappedLog } from '../src/engine/capped-log.js';
import { decodeLogLine, LogBook } from '../src/config/log-book.js';
import { DHCP_LOG_FILE } from '../src/domains/logs/logs-service.js';
import { logsServiceOf } from '../src/domains/logs/logs-module.js';
import { adminClient, get, json, startDaemon, tempDir } from './daemon-harness.js';

/** Logs the daemon writes never grow past their cap: size-capped segments, the oldest dropped. */

const sizeOf = (dir: string) => readdirSync(dir).reduce((sum, name) => sum + statSync(join(dir, name)).size, 0);

describe('a capped log', () => {
  test('rotates into at most `segments` files of at most `segmentBytes`, keeping the newest lines', () => {
    const dir = tempDir('portico-capped-');
    const log = new CappedLog(dir, 'port', { segmentBytes: 1000, segments: 3 });
    for (let i = 0; i < 5000; i++) log.append(`line ${String(i).padStart(5, '0')} ${'x'.repeat(40)}`);
    const files = readdirSync(dir).sort();
    expect(files).toEqual(['port.log', 'port.log.1', 'port.log.2']);
    for (const name of files) expect(statSync(join(dir, name)).size).toBeLessThanOrEqual(1000);
    expect(sizeOf(dir)).toBeLessThanOrEqual(3000);
    // Oldest file first; the last line written is the last line of the current file.
    const text = log.files().map((path) => readFileSync(path, 'utf8')).join('');
    const lines = text.trimEnd().split('\n');
    expect(lines.at(-1)).toMatch(/^line 04999 /);
    expect(lines.map((line) => Number(line.slice(5, 10)))).toEqual(lines.map((_, i) => 5000 - lines.length + i));
    log.clear();
    expect(readdirSync(dir)).toEqual([]);
  });

  test('a line longer than a segment is cut to fit, and a new daemon goes on in the same file', () => {
    const dir = tempDir('portico-capped-');
    const log = new CappedLog(dir, 'auth', { segmentBytes: 300, segments: 2 });
    log.append('y'.repeat(10_000));
    expect(statSync(join(dir, 'auth.log')).size).toBe(300);
    log.close();
    const again = new CappedLog(dir, 'auth', { segmentBytes: 300, segments: 2 });
    again.append('short');
    expect(readFileSync(join(dir, 'auth.log.1'), 'utf8')).toHaveLength(300);
    expect(readFileSync(join(dir, 'auth.log'), 'utf8')).toBe('short\n');
  });

  test('through the log book: entries with hostile text stay one line each, within the cap', () => {
    const dir = tempDir('portico-book-');
    let now = 1_700_000_000_000;
    const book = new LogBook(dir, () => now, { segmentBytes: 4096, segments: 2 });
    for (let i = 0; i < 2000; i++) {
      now += 1;
      book.append('auth', { level: 'warning', origin: 'console', key: 'logs.auth.adminFailed', values: { user: `evil\n${i}\u0000<b>`, address: '10.0.0.1' } });
    }
    expect(sizeOf(dir)).toBeLessThanOrEqual(8192);
    const lines = book.files('auth').flatMap((path) => readFileSync(path, 'utf8').trimEnd().split('\n'));
    const entries = lines.map(decodeLogLine);
    expect(entries.every((e) => e !== null)).toBe(true);
    expect(entries.at(-1)).toEqual({ time: now, level: 'warning', origin: 'console', key: 'logs.auth.adminFailed', values: { user: 'evil 1999 <b>', address: '10.0.0.1' } });
  });
});

describe('the logs of the daemon stay bounded', () => {
  test('a flood of entries fills at most the cap of the auth log', async () => {
    const h = await startDaemon({ deps: { logLimits: { segmentBytes: 2048, segments: 3 } } });
    try {
      const admin = await adminClient(h);
      for (let i = 0; i < 300; i++) h.app.appContext.logs.append('auth', { level: 'warning', origin: 'console', key: 'logs.auth.adminFailed', values: { user: `u${i}`, address: '10.0.0.2' } });
      expect(sizeOf(join(h.stateDir, 'logs'))).toBeLessThanOrEqual(3 * 2048);
      const page = json(await get(h.app, admin, '/api/sysconf/log?name=auth&size=20'));
      expect(page.data.items[0].values.user).toBe('u299');
      expect(page.data.total).toBeLessThan(300);
    } finally {
      await h.close();
    }
  });

  test("dnsmasq's DHCP log is cut past its cap, one older copy kept", async () => {
    const h = await startDaemon({ deps: { logs: { dhcpCap: 4096 } } });
    try {
      const file = join(h.stateDir, 'rendered', DHCP_LOG_FILE);
      mkdirSync(join(file, '..'), { recursive: true });
      writeFileSync(file, '');
      const service = logsServiceOf(h.app.appContext)!;
      for (let i = 0; i < 200; i++) appendFileSync(file, `Mar  1 12:00:00 dnsmasq-dhcp[1]: ${i} DHCPACK(br-lan) 192.168.11.${i % 250} 02:00:00:00:00:01 host${i}\n`);
      const admin = await adminClient(h);
      const before = json(await get(h.app, admin, '/api/sysconf/log?name=dhcp')).data.total;
      expect(before).toBe(200);
      expect(await service.capDhcpLog()).toBe(true);
      expect(statSync(file).size).toBe(0);
      expect(statSync(`${file}.1`).size).toBeGreaterThan(4096);
      expect(await service.capDhcpLog()).toBe(false);
      // The entries are still read from the older copy until the next cut.
      expect(json(await get(h.app, admin, '/api/sysconf/log?name=dhcp')).data.total).toBe(200);
    } finally {
      await h.close();
    }
  });
});
