import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import type { CommandRunner } from '../src/engine/command-runner.js';
import { runCommand } from '../src/engine/command-runner.js';
import { FileCheckError, installFiles } from '../src/engine/file-install.js';
import { systemRegistry } from '../src/domain-list.js';

const { formats } = systemRegistry();
const builtinCheck = (format: string, content: string) => formats.builtinCheck(format, content);
import type { RenderedFile } from '../src/engine/engine-types.js';

let root: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'portico-install-'));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const calls: string[][] = [];
const passing: CommandRunner = async (argv) => {
  calls.push([...argv]);
  return { exitCode: 0, stdout: '', stderr: '' };
};
const failingOn =
  (word: string): CommandRunner =>
  async (argv) => {
    calls.push([...argv]);
    const content = readFileSync(argv.at(-1)!.replace(/^--conf-file=/, ''), 'utf8');
    return content.includes(word) ? { exitCode: 1, stdout: '', stderr: `bad: ${word}` } : { exitCode: 0, stdout: '', stderr: '' };
  };

const nftFile = (content: string): RenderedFile => ({ target: '/etc/portico/network.nft', content, check: 'nft' });
const dnsFile = (content: string): RenderedFile => ({ target: '/etc/portico/dnsmasq.conf', content, check: 'dnsmasq', mode: 0o600 });

describe('installFiles', () => {
  test('checks each candidate with its checker, then replaces the targets', async () => {
    calls.length = 0;
    const changed = await installFiles([nftFile('table inet portico {}\n'), dnsFile('port=0\n')], { root, run: passing, formats, tools: true });
    expect(changed.map((f) => f.target)).toEqual(['/etc/portico/network.nft', '/etc/portico/dnsmasq.conf']);
    expect(calls[0]!.slice(0, 3)).toEqual(['nft', '-c', '-f']);
    expect(calls[1]![0]).toBe('dnsmasq');
    expect(readFileSync(join(root, 'etc/portico/network.nft'), 'utf8')).toBe('table inet portico {}\n');
    expect(statSync(join(root, 'etc/portico/dnsmasq.conf')).mode & 0o777).toBe(0o600);
  });

  test('one failing check replaces nothing and leaves no temporary files', async () => {
    await installFiles([nftFile('old\n'), dnsFile('old\n')], { root, run: passing, formats, tools: true });
    await expect(
      installFiles([nftFile('new\n'), dnsFile('broken\n')], { root, run: failingOn('broken'), formats, tools: true }),
    ).rejects.toBeInstanceOf(FileCheckError);
    expect(readFileSync(join(root, 'etc/portico/network.nft'), 'utf8')).toBe('old\n');
    expect(readFileSync(join(root, 'etc/portico/dnsmasq.conf'), 'utf8')).toBe('old\n');
    expect(readdirSync(join(root, 'etc/portico')).sort()).toEqual(['dnsmasq.conf', 'network.nft']);
  });

  test('an unchanged file is neither checked nor rewritten', async () => {
    await installFiles([nftFile('same\n')], { root, run: passing, formats, tools: true });
    calls.length = 0;
    const changed = await installFiles([nftFile('same\n')], { root, run: passing, formats, tools: true });
    expect(changed).toEqual([]);
    expect(calls).toEqual([]);
  });

  test('builtin checks refuse anything but plain ip batch and sysctl lines', () => {
    expect(builtinCheck('ip-batch', 'link set dev wan1 up mtu 1500\naddress add 192.168.11.1/24 dev br-lan\n')).toBeNull();
    expect(builtinCheck('ip-batch', 'link set dev wan1 up; reboot\n')).toMatch(/not an ip batch command/);
    expect(builtinCheck('ip-batch', 'route add default via 1.2.3.4 $(id)\n')).toMatch(/not an ip batch command/);
    expect(builtinCheck('sysctl', 'net.ipv4.ip_forward = 1\n')).toBeNull();
    expect(builtinCheck('sysctl', 'net.ipv4.ip_forward = 1; x\n')).toMatch(/not a sysctl setting/);
    expect(builtinCheck('none', 'a\0b')).toBe('NUL byte');
  });
});

describe('runCommand', () => {
  test('runs an argument array without a shell: metacharacters stay literal', async () => {
    // A file of this test's own: were a shell to run the text, the redirection would make it.
    const target = join(mkdtempSync(join(tmpdir(), 'portico-no-shell-')), 'made');
    const text = `$(id); \`id\` | cat > ${target}`;
    const result = await runCommand(['printf', '%s', text]);
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toBe(text);
    expect(existsSync(target)).toBe(false);
  });

  test('refuses NUL in arguments', async () => {
    await expect(runCommand(['printf', 'a\0b'])).rejects.toThrow(/NUL/);
  });
});
