import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';

/**
 * How the AP agent runs on an access point: the systemd unit (Debian) and the procd init script
 * (OpenWrt) in apps/ap-agent/files, each checked with the real tools this machine has.
 */
const files = join(import.meta.dirname, '../../apps/ap-agent/files');
const stubs = join(import.meta.dirname, 'openwrt');
const work = mkdtempSync(join(tmpdir(), 'portico-agent-service-'));
const onPath = (tool: string) => ['/usr/bin', '/bin', '/usr/sbin', '/sbin'].some((dir) => {
  try {
    readFileSync(join(dir, tool));
    return true;
  } catch {
    return false;
  }
});

const COMMAND = ['/usr/bin/node', '--enable-source-maps', '/usr/lib/portico-agent/portico-agent.mjs', '/etc/portico-agent/agent.json'];

describe('the agent as a service', () => {
  it('systemd: the unit runs the executable with its settings file and passes systemd-analyze verify', async () => {
    const unit = readFileSync(join(files, 'portico-agent.service'), 'utf8');
    expect(/^ExecStart=(.*)$/m.exec(unit)![1]!.split(' ')).toEqual(COMMAND);
    expect(unit).toMatch(/^RestartPreventExitStatus=2$/m);
    if (!onPath('systemd-analyze')) return;
    const result = await execa('systemd-analyze', ['verify', '--man=no', join(files, 'portico-agent.service')], { reject: false });
    // verify reads the whole system's units; only this unit's findings matter here.
    const own = `${result.stdout}\n${result.stderr}`.split('\n').filter((line) => line.includes('portico-agent'));
    expect(own).toEqual([]);
  });

  it('procd: start_service sends one instance running the executable, respawned, restarted when its settings change', async () => {
    const log = join(work, 'procd.log');
    writeFileSync(log, '');
    const result = await execa('busybox', ['sh', '-c', '. "$STUB"; . "$INIT"; start_service'], {
      reject: false,
      env: { STUB: join(stubs, 'procd-stub.sh'), INIT: join(files, 'portico-agent.init'), PROCD_LOG: log },
    });
    expect(result.stderr).toBe('');
    expect(result.exitCode).toBe(0);
    const calls = readFileSync(log, 'utf8').split('\n').filter(Boolean).map((line) => line.split('\t'));
    const params = new Map(calls.filter((c) => c[0] === 'procd_set_param').map((c) => [c[1]!, c.slice(2)]));
    expect(calls[0]).toEqual(['procd_open_instance']);
    expect(calls.at(-1)).toEqual(['procd_close_instance']);
    expect(params.get('command')).toEqual(COMMAND);
    expect(params.get('respawn')).toEqual(['3600', '5', '5']);
    expect(params.get('file')).toEqual(['/etc/portico-agent/agent.json']);
  });

  it.skipIf(!onPath('shellcheck'))('procd: the init script passes shellcheck -s sh', async () => {
    const wrapper = join(work, 'agent-init-check.sh');
    writeFileSync(
      wrapper,
      [
        '#!/bin/sh',
        `# shellcheck source=${join(stubs, 'procd-stub.sh')}`,
        `. ${join(stubs, 'procd-stub.sh')}`,
        `# shellcheck source=${join(files, 'portico-agent.init')}`,
        `. ${join(files, 'portico-agent.init')}`,
        ': "$START" "$STOP" "$USE_PROCD"',
        'start_service',
        '',
      ].join('\n'),
    );
    const result = await execa('shellcheck', ['-s', 'sh', '-x', wrapper], { reject: false });
    expect(result.stdout).toBe('');
    expect(result.exitCode).toBe(0);
  });
});
