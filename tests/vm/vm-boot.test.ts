import { appendFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { IMAGE_LAYOUT } from '../../image/image-layout.mjs';
import { inNs } from '../lab/lab-topology.js';
import { BOOT_LIMIT_MS, consoleReady, guestPortName, startVmGateway, UPSTREAM, vmPrerequisites, type VmGateway } from './vm-gateway.js';

/**
 * The gateway image boots under QEMU, assigns its ports, starts the daemon with the linux
 * driver and does a gateway's first job: a LAN client gets a lease and reaches the upstream
 * through NAT, and the console answers from the host.
 */

const skip = vmPrerequisites();
let gw: VmGateway;
let consoleSeconds = 0;

/** Figures of this run for the closing report (the VM tier prints them at the end). */
function record(figures: Record<string, unknown>) {
  if (process.env.PORTICO_VM_FIGURES) appendFileSync(process.env.PORTICO_VM_FIGURES, `${JSON.stringify(figures)}\n`);
}

const round = (seconds: number) => Math.round(seconds * 10) / 10;

describe.skipIf(skip !== null)(`the gateway image${skip ? ` (skipped: ${skip})` : ''}`, () => {
  beforeAll(async () => {
    gw = await startVmGateway();
    await gw.vm.booted(BOOT_LIMIT_MS);
    gw.agentSeconds = gw.vm.elapsed();
    // Boot to console, as a user meets it: plug a computer into a LAN port, get a lease, open the console.
    await consoleReady(gw);
    consoleSeconds = gw.vm.elapsed();
    record({ test: 'boot', accel: gw.vm.accel, agentSeconds: round(gw.agentSeconds), bootToConsoleSeconds: round(consoleSeconds) });
  }, 2 * BOOT_LIMIT_MS);

  afterAll(async () => {
    if (gw) {
      const failedSerial = gw.vm.serial();
      if (process.env.PORTICO_VM_SERIAL) appendFileSync(process.env.PORTICO_VM_SERIAL, failedSerial);
      await gw.down();
    }
  });

  test('assigns the first port to the WAN and the rest to the LAN, and runs the daemon with the linux driver', async () => {
    const ports = await gw.vm.agent.readFile(IMAGE_LAYOUT.portsEnv);
    expect(ports).toContain(`PORTICO_WAN_PORTS=${guestPortName(0)}\n`);
    expect(ports).toContain(`PORTICO_LAN_PORTS=${guestPortName(1)}\n`);
    await expect.poll(async () => (await gw.vm.agent.exec(['/usr/bin/systemctl', 'is-active', 'portico.service'])).stdout.trim(), { timeout: 120_000 }).toBe('active');
    const environ = await gw.vm.agent.run(['/usr/bin/systemctl', 'show', '-p', 'Environment', 'portico.service']);
    expect(environ).toContain('PORTICO_DRIVER=linux');
    // The daemon printed its first password to the journal and kept it in its state folder.
    const password = (await gw.vm.agent.readFile(`${IMAGE_LAYOUT.stateDir}/initial-admin-password`)).trim();
    expect(password.length).toBeGreaterThanOrEqual(12);
    await expect.poll(async () => gw.vm.agent.run(['/usr/bin/journalctl', '-u', 'portico.service', '--no-pager', '-o', 'cat']), { timeout: 60_000 }).toContain('Initial admin password');
  });

  test('a LAN client gets a lease from the gateway and reaches the upstream through its NAT', async () => {
    await expect.poll(async () => (await gw.vm.agent.exec(['/usr/bin/systemctl', 'is-active', 'portico.service'])).stdout.trim(), { timeout: 120_000 }).toBe('active');
    const lease = gw.clientLease();
    expect(lease.address).toMatch(/^192\.168\.11\.\d+$/);
    expect(lease.router).toBe('192.168.11.1');
    // The gateway's WAN got its address from the upstream's DHCP server …
    let wanAddress = '';
    await expect
      .poll(
        async () => {
          const shown = await gw.vm.agent.run(['/usr/sbin/ip', '-4', '-o', 'addr', 'show', 'dev', guestPortName(0)]);
          wanAddress = /inet ([\d.]+)\//.exec(shown)?.[1] ?? '';
          return wanAddress;
        },
        { timeout: 120_000 },
      )
      .toMatch(/^10\.77\.0\.\d+$/);
    // … and the upstream sees the client's request come from it: the source was translated.
    await expect
      .poll(
        () => {
          // No `-T`: Debian's busybox 1.35 wget crashes with it; the run's own limit bounds the request.
          const reply = inNs(gw.clientNs, ['busybox', 'wget', '-q', '-O', '-', `http://${UPSTREAM.address}:${UPSTREAM.httpPort}/`], { allowFail: true, timeoutMs: 15_000 });
          return reply.status === 0 ? (JSON.parse(reply.stdout) as { remote: string }).remote : '';
        },
        { timeout: 120_000 },
      )
      .toBe(wanAddress);
  });

  test('the console answers from the host through a forwarded port, and the first password signs in', async () => {
    const page = await (await fetch(`${gw.consoleUrl}/`)).text();
    expect(page).toContain('<div id="root">');
    const password = (await gw.vm.agent.readFile(`${IMAGE_LAYOUT.stateDir}/initial-admin-password`)).trim();
    const login = await fetch(`${gw.consoleUrl}/api/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'admin', password }),
    });
    const body = (await login.json()) as { success: boolean };
    expect(body.success).toBe(true);
  });
});
