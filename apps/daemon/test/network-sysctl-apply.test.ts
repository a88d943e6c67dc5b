import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import type { CommandResult } from '../src/engine/command-runner.js';
import { ActivationError, type RenderedFile } from '../src/engine/engine-types.js';
import type { TargetActivation } from '../src/config/domain-module.js';
import { networkLinuxActivation } from '../src/domains/network/network-activation.js';
import { NETWORK_FILES } from '../src/domains/network/network-config.js';
import { recordingRunner, tempDir } from './daemon-harness.js';

/**
 * The sysctl activation of the linux driver against a temp tree standing in for /proc/sys
 * (under the install root) and a runner that records `sysctl -w`: only what differs is
 * written, so a read-only /proc/sys (a container) is fine while nothing differs, and a write
 * that fails there names its key.
 */

const FILE = [
  '# Portico kernel network settings. Generated; changes are overwritten.',
  'net.ipv4.ip_forward = 1',
  'net.ipv4.conf.all.rp_filter = 0',
  'net/ipv4/conf/eth1.35/rp_filter = 2',
  'net.ipv4.tcp_rmem = 4096 131072 6291456',
  '',
].join('\n');

const READ_ONLY: CommandResult = { exitCode: 255, stdout: '', stderr: 'sysctl: setting key "net.ipv4.ip_forward": Read-only file system' };

let activation: TargetActivation | undefined;
afterEach(async () => {
  await activation?.stop?.();
  activation = undefined;
});

function setUp(answer: CommandResult = { exitCode: 0, stdout: '', stderr: '' }) {
  const root = tempDir('portico-sysctl-root-');
  const { run, commands } = recordingRunner(answer);
  activation = networkLinuxActivation({ root, run });
  const procSys = (path: string, value: string) => {
    const file = join(root, 'proc/sys', path);
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, `${value}\n`);
  };
  const file: RenderedFile = { target: NETWORK_FILES.sysctl, content: FILE, check: 'sysctl' };
  const apply = (content = FILE) => activation!.activate!.sysctl!({ ...file, content }, join(root, file.target));
  /** /proc/sys holding the file's values, but `ip_forward` at `forward`. */
  const holding = (forward: string) => {
    procSys('net/ipv4/ip_forward', forward);
    procSys('net/ipv4/conf/all/rp_filter', '0');
    procSys('net/ipv4/conf/eth1.35/rp_filter', '2');
    // The kernel separates the words of a multi-valued key with tabs.
    procSys('net/ipv4/tcp_rmem', '4096\t131072\t6291456');
  };
  return { commands, procSys, holding, apply };
}

describe('sysctl settings are read first and only those that differ are written', () => {
  test('every value already holds: nothing runs', async () => {
    const { commands, holding, apply } = setUp(READ_ONLY);
    holding('1');
    await apply();
    expect(commands).toEqual([]);
  });

  test('a value that differs, or a key that cannot be read, is written with sysctl -w, each alone', async () => {
    const { commands, procSys, apply } = setUp();
    procSys('net/ipv4/ip_forward', '0');
    procSys('net/ipv4/conf/all/rp_filter', '0');
    procSys('net/ipv4/tcp_rmem', '4096\t131072\t6291456');
    await apply();
    expect(commands).toEqual([
      ['sysctl', '-q', '-w', 'net.ipv4.ip_forward=1'],
      ['sysctl', '-q', '-w', 'net/ipv4/conf/eth1.35/rp_filter=2'],
    ]);
  });

  test('a write refused by a read-only /proc/sys fails the activation, naming the key', async () => {
    const { commands, holding, apply } = setUp(READ_ONLY);
    holding('0');
    const failure = await apply().then(() => null, (error: unknown) => error);
    expect(failure).toBeInstanceOf(ActivationError);
    expect((failure as ActivationError).target).toBe(NETWORK_FILES.sysctl);
    expect((failure as ActivationError).detail).toBe(
      'net.ipv4.ip_forward: the file system of /proc/sys is read-only, so it cannot be set to 1 (it is 0)',
    );
    expect(commands).toEqual([['sysctl', '-q', '-w', 'net.ipv4.ip_forward=1']]);
  });

  test('another failure is reported with what sysctl said', async () => {
    const { apply } = setUp({ exitCode: 255, stdout: '', stderr: 'sysctl: cannot stat /proc/sys/net/ipv4/conf/eth1.35/rp_filter: No such file or directory' });
    await expect(apply('net/ipv4/conf/eth1.35/rp_filter = 2\n')).rejects.toThrow(
      'net/ipv4/conf/eth1.35/rp_filter: cannot be set to 2: sysctl: cannot stat /proc/sys/net/ipv4/conf/eth1.35/rp_filter: No such file or directory',
    );
  });

  test('a key that would leave /proc/sys is refused before anything is read or run', async () => {
    const { commands, apply } = setUp();
    await expect(apply('net/../../etc/shadow = 1\n')).rejects.toThrow('not a sysctl setting');
    await expect(apply('net.ipv4.ip_forward = 1; reboot\n')).rejects.toThrow('not a sysctl setting');
    expect(commands).toEqual([]);
  });
});
