import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { describe, expect, test } from 'vitest';
import { consoleFixture, loginInBrowser, newPage } from './e2e-harness.js';

/**
 * The System section's pages in the browser: time (zone and NTP saved; the clock set by hand
 * answered honestly on the simulator), remote access (saved behind the apply confirmation),
 * network parameters with remote logging, and network diagnosis with its output appearing
 * line by line while the ping runs, then stopped.
 */
const fx = consoleFixture();

async function signedIn() {
  const { context, page } = await newPage(fx.browser);
  await loginInBrowser(page, fx.daemon.url, 'admin', 'AdminPassw0rd');
  await page.waitForURL('**/dashboard');
  return { context, page };
}

describe('System pages', () => {
  test('time: the zone and NTP servers are saved; a bad zone is a field error; setting the clock by hand says why it cannot here', async () => {
    const { context, page } = await signedIn();
    await page.goto(`${fx.daemon.url}/system/clockconfiguration`);
    await page.getByTestId('entity-form').waitFor();
    await page.getByTestId('clock-now').getByText(/\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}/).waitFor();
    await page.getByTestId('field-timezone').fill('Mars/Phobos');
    await page.getByTestId('entity-save').click();
    await page.getByTestId('field-error-timezone').waitFor();
    await page.getByTestId('field-timezone').fill('Europe/Berlin');
    await page.getByTestId('field-ntp_servers').fill('ntp.example.org\n192.0.2.123');
    await page.getByTestId('entity-save').click();
    await expect.poll(async () => (await fx.api.get('sysconf/time')).data, { timeout: 15_000 }).toMatchObject({ timezone: 'Europe/Berlin', ntp_servers: ['ntp.example.org', '192.0.2.123'] });
    // NTP on: setting the clock by hand is refused with the reason.
    await page.getByTestId('clock-manual-set').click();
    await page.getByText('Turn NTP synchronisation off and save before setting the clock by hand.').waitFor();
    await page.getByTestId('field-ntp_client').uncheck();
    await page.getByTestId('entity-save').click();
    await expect.poll(async () => ((await fx.api.get('sysconf/time')).data as { ntp_client: boolean }).ntp_client, { timeout: 15_000 }).toBe(false);
    await page.getByTestId('clock-manual-set').click();
    await page.getByText("The simulator does not set the host's clock.").waitFor();
    await context.close();
  }, 120_000);

  test('remote access: saved, then confirmed in the bar', async () => {
    const { context, page } = await signedIn();
    await page.goto(`${fx.daemon.url}/system/romotevisit`);
    await page.getByTestId('entity-form').waitFor();
    await page.getByTestId('field-enabled').check();
    await page.getByTestId('field-port').fill('8443');
    await page.getByTestId('field-allowed_ips').fill('8.8.8.8;reboot');
    await page.keyboard.press('Enter');
    await page.getByTestId('entity-save').click();
    await page.getByTestId('field-error-allowed_ips').waitFor();
    expect(((await fx.api.get('sysconf/remoteaccess')).data as { enabled?: boolean }).enabled).not.toBe(true);
    await page.goto(`${fx.daemon.url}/system/romotevisit`);
    await page.getByTestId('entity-form').waitFor();
    await page.getByTestId('field-enabled').check();
    await page.getByTestId('field-port').fill('8443');
    await page.getByTestId('field-allowed_ips').fill('203.0.113.0/24');
    await page.keyboard.press('Enter');
    await page.getByTestId('entity-save').click();
    await page.getByTestId('apply-confirm-bar').waitFor();
    await page.getByTestId('apply-confirm-ok').click();
    await expect.poll(async () => (await fx.api.get('sysconf/remoteaccess')).data, { timeout: 15_000 }).toMatchObject({ enabled: true, port: 8443, allowed_ips: ['203.0.113.0/24'] });
    await expect.poll(async () => ((await fx.api.post('status/config', { action: 'get' })).data as { pending: unknown }).pending, { timeout: 15_000 }).toMatchObject({ pending: false });
    await context.close();
  }, 120_000);

  test('host name, network parameters and remote logging are saved each on their own', async () => {
    const { context, page } = await signedIn();
    await page.goto(`${fx.daemon.url}/system/networkparameter`);
    const host = page.getByTestId('hostname-form');
    await host.getByTestId('field-hostname').fill('edge;reboot');
    await host.getByTestId('entity-save').click();
    await host.getByTestId('field-error-hostname').waitFor();
    await host.getByTestId('field-hostname').fill('edge-gw1');
    await host.getByTestId('entity-save').click();
    await expect.poll(async () => ((await fx.api.get('sysconf/hostname')).data as { hostname?: string }).hostname, { timeout: 15_000 }).toBe('edge-gw1');
    const params = page.getByTestId('netparam-form');
    await params.getByTestId('entity-form').waitFor();
    await params.getByTestId('field-tcp_fin_timeout').fill('45');
    await params.getByTestId('entity-save').click();
    await expect.poll(async () => ((await fx.api.get('sysconf/netparam')).data as { tcp_fin_timeout?: number }).tcp_fin_timeout, { timeout: 15_000 }).toBe(45);
    const syslog = page.getByTestId('syslog-form');
    await syslog.getByTestId('field-enabled').check();
    await syslog.getByTestId('field-server').fill('logs.example.org;reboot');
    await syslog.getByTestId('entity-save').click();
    await syslog.getByTestId('field-error-server').waitFor();
    await syslog.getByTestId('field-server').fill('127.0.0.1');
    await syslog.getByTestId('entity-save').click();
    await expect.poll(async () => (await fx.api.get('sysconf/syslog')).data, { timeout: 15_000 }).toMatchObject({ enabled: true, server: '127.0.0.1', transport: 'udp' });
    await page.getByTestId('syslog-test').click();
    await page.getByText('A test message was sent to 127.0.0.1.').waitFor();
    await context.close();
  }, 120_000);

  test('diagnosis: a hostile target is a field error; ping output appears while it runs and the run can be stopped', async () => {
    const { context, page } = await signedIn();
    await page.goto(`${fx.daemon.url}/system/networkdiagnosis`);
    await page.getByTestId('diagnosis-target').fill('8.8.8.8;reboot');
    await page.getByTestId('diagnosis-start').click();
    await page.getByText('Enter a host name or an IP address.').waitFor();
    await page.getByTestId('diagnosis-target').fill('127.0.0.1');
    await page.getByRole('textbox', { name: 'Count' }).fill('30');
    await page.getByTestId('diagnosis-start').click();
    // Live: a reply line is shown while the status still says running.
    await page.getByTestId('diagnosis-output').getByText(/bytes from 127\.0\.0\.1/).first().waitFor({ timeout: 20_000 });
    expect(await page.getByTestId('diagnosis-status').textContent()).toBe('Running…');
    await page.getByTestId('diagnosis-stop').click();
    await page.getByTestId('diagnosis-status').getByText('Stopped.').waitFor({ timeout: 20_000 });
    await context.close();
  }, 120_000);

  test('telnet: a line console to a server on loopback, its options refused', async () => {
    const received: Buffer[] = [];
    const server = createServer((socket) => {
      socket.write(Buffer.from([255, 253, 1]));
      socket.write('lab-router login: ');
      socket.on('data', (d) => {
        received.push(d);
        if (Buffer.concat(received).toString('latin1').includes('operator\r\n')) socket.write('\r\nwelcome operator\r\n');
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { context, page } = await signedIn();
      await page.goto(`${fx.daemon.url}/system/telnetclient`);
      await page.getByTestId('telnet-host').fill('127.0.0.1');
      await page.getByTestId('telnet-port').fill(String((server.address() as AddressInfo).port));
      await page.getByTestId('telnet-connect').click();
      await page.getByTestId('telnet-output').getByText('lab-router login:').waitFor({ timeout: 20_000 });
      await page.getByTestId('telnet-line').fill('operator');
      await page.keyboard.press('Enter');
      await page.getByTestId('telnet-output').getByText('welcome operator').waitFor({ timeout: 20_000 });
      expect([...Buffer.concat(received)].slice(0, 3)).toEqual([255, 252, 1]);
      await page.getByTestId('telnet-disconnect').click();
      await page.getByTestId('telnet-status').getByText('Disconnected.').waitFor({ timeout: 20_000 });
      await context.close();
    } finally {
      server.close();
    }
  }, 120_000);
});
