import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { BOOT_LIMIT_MS, guestWhileRebooting, consoleReady, recordFigures, roundSeconds, startVmGateway, vmPrerequisites, type VmGateway } from './vm-gateway.js';

/**
 * A firmware whose daemon never answers falls back to the good slot by itself. A boot entry on
 * trial (`portico-b+3.conf`, a newer version, so systemd-boot picks it first) boots a system whose
 * daemon is masked: the boot check waits out its bound (shortened here through portico.env), is
 * not confirmed, and reboots; systemd-boot counts a try per boot, and once the three are spent
 * (`portico-b+0-3.conf`) it boots the blessed `portico-a.conf` again, whose daemon answers.
 *
 * The trial entry boots slot a's kernel and root with the daemon masked, rather than a second
 * image written to slot b: what is proven is the counting and the reboots, without minutes of
 * writing a root in software emulation (the upgrade test writes one).
 */

const skip = vmPrerequisites();
const ENTRIES = '/boot/efi/loader/entries';
const CHECK_SECONDS = 40;
let gw: VmGateway;

/** A command in the guest that may be rebooting: '' until the agent answers again. */
const guest = (argv: string[]) => guestWhileRebooting(gw, argv);

/** Boots the journal knows (its list's rows: index, boot id, first and last entry). */
async function bootCount(): Promise<number> {
  const list = await gw.vm.agent.run(['/usr/bin/journalctl', '--list-boots', '--no-pager']);
  return list.split('\n').filter((line) => /^\s*-?\d+\s+[0-9a-f]{32}\s/.test(line)).length;
}

/** Writes a file in the guest as it is (the EFI partition is FAT: no modes to set). */
async function put(path: string, content: string): Promise<void> {
  await gw.vm.agent.run(['/usr/bin/tee', path], { input: content });
}

describe.skipIf(skip !== null)(`a firmware slot that never answers${skip ? ` (skipped: ${skip})` : ''}`, () => {
  beforeAll(async () => {
    gw = await startVmGateway({ reboot: true });
    await gw.vm.booted(BOOT_LIMIT_MS);
    await consoleReady(gw);
  }, 2 * BOOT_LIMIT_MS);

  afterAll(async () => {
    await gw?.down();
  });

  test('is tried three times, each try rebooting once the boot check gives up, then the blessed slot boots again', async () => {
    const good = await gw.vm.agent.readFile(`${ENTRIES}/portico-a.conf`);
    const trial = good
      .split('\n')
      .map((line) => {
        if (line.startsWith('title ')) return 'title Portico 99.0.0';
        if (line.startsWith('version ')) return 'version 99.0.0';
        if (line.startsWith('options ')) return `${line} systemd.mask=portico.service`;
        return line;
      })
      .join('\n');
    expect(trial).toContain('systemd.mask=portico.service');
    await put(`${ENTRIES}/portico-b+3.conf`, trial);
    const env = await gw.vm.agent.readFile('/etc/portico/portico.env');
    await put('/etc/portico/portico.env', `${env}PORTICO_BOOT_CHECK_SECONDS=${CHECK_SECONDS}\n`);
    await gw.vm.agent.run(['/usr/bin/sync']);
    const boots = await bootCount();
    const started = process.hrtime.bigint();
    await gw.vm.agent.exec(['/usr/bin/systemctl', 'reboot']).catch(() => undefined);

    // Three tries, then the good slot: its entry is out of tries and the daemon answers.
    await expect.poll(() => guest(['/usr/bin/ls', ENTRIES]), { timeout: 5 * BOOT_LIMIT_MS, interval: 5000 }).toContain('portico-b+0-3.conf');
    // `+0-3` appears as the last try starts; the boot after it is the good entry's (no mask).
    await expect
      .poll(
        async () => {
          const cmdline = await guest(['/bin/cat', '/proc/cmdline']);
          return cmdline !== '' && !cmdline.includes('systemd.mask');
        },
        { timeout: 2 * BOOT_LIMIT_MS, interval: 2000 },
      )
      .toBe(true);
    await consoleReady(gw);
    recordFigures({ test: 'boot-fallback', accel: gw.vm.accel, fallbackSeconds: roundSeconds(Number(process.hrtime.bigint() - started) / 1e9) });
    expect(await gw.vm.agent.readFile('/proc/cmdline')).toMatch(/root=PARTLABEL=portico-root-a /);
    expect((await gw.vm.agent.run(['/usr/bin/ls', ENTRIES])).split('\n').filter(Boolean).sort()).toEqual(['portico-a.conf', 'portico-b+0-3.conf']);

    // The journal keeps every boot: three tries that each gave up and rebooted, then this one.
    expect(await bootCount()).toBe(boots + 4);
    for (const back of [1, 2, 3]) {
      const tried = await gw.vm.agent.run(['/usr/bin/journalctl', '-b', `-${back}`, '-u', 'portico-boot-ok.service', '--no-pager', '-o', 'cat']);
      expect(tried).toContain('this boot is not confirmed');
      expect(tried).toContain('firmware slot on trial: rebooting');
    }
    // The good slot's own check found nothing on trial to reboot for.
    const now = await gw.vm.agent.run(['/usr/bin/journalctl', '-b', '0', '-u', 'portico-boot-ok.service', '--no-pager', '-o', 'cat']);
    expect(now).not.toContain('rebooting');
  }, 7 * BOOT_LIMIT_MS);
});
