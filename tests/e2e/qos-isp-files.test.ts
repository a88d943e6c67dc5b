import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { parseIspFile } from '@portico/schema';
import { consoleFixture, loginInBrowser, newPage, REPO } from './e2e-harness.js';

/*
 * The operator definition files on /smartqos/qosbase, in Chromium against the built daemon:
 * the shipped telecom file is what the console shows and downloads; an uploaded file replaces
 * it (stored through the API); "Use default" brings the shipped file back.
 */

const fx = consoleFixture();

/** The file the built fx.daemon reads (dist/isp, copied from the source tree by its build). */
const shipped = parseIspFile(readFileSync(join(REPO, 'apps/daemon/dist/isp/telecom.txt'), 'utf8'))!;

async function storedTelecom(): Promise<string[] | undefined> {
  const reply = await fx.api.get('flow/ispinfo');
  return (reply.data as { items: Array<{ group: string; networks: string[] }> }).items.find((row) => row.group === 'telecom')?.networks;
}

describe('operator definition files', () => {
  test('download the shipped file, upload a replacement, go back to the shipped file', async () => {
    const { context, page } = await newPage(fx.browser);
    await loginInBrowser(page, fx.daemon.url, 'admin', 'AdminPassw0rd');
    await page.waitForURL('**/dashboard');
    await page.goto(`${fx.daemon.url}/smartqos/qosbase`);
    const status = page.getByTestId('isp-status-telecom');
    // The page's reads finish when they do on a busy machine: wait for the condition.
    await expect.poll(() => status.textContent(), { timeout: 15_000 }).toBe(`${shipped.length} networks (shipped file)`);
    expect(await page.getByTestId('isp-status-custom1').textContent()).toBe('No networks');

    const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('isp-download-telecom').click()]);
    const text = readFileSync((await download.path())!, 'utf8');
    expect(parseIspFile(text)).toEqual(shipped);

    const [chooser] = await Promise.all([page.waitForEvent('filechooser'), page.getByTestId('isp-upload-telecom').click()]);
    await chooser.setFiles({ name: 'telecom.txt', mimeType: 'text/plain', buffer: Buffer.from('# our own list\n192.0.2.0/24\n198.51.100.0/24\n') });
    await expect.poll(() => status.textContent()).toBe('2 networks (uploaded file)');
    expect(await storedTelecom()).toEqual(['192.0.2.0/24', '198.51.100.0/24']);

    // A file with a line that is not a network is refused and changes nothing.
    const [again] = await Promise.all([page.waitForEvent('filechooser'), page.getByTestId('isp-upload-telecom').click()]);
    await again.setFiles({ name: 'bad.txt', mimeType: 'text/plain', buffer: Buffer.from('192.0.2.0/24\nexample.com\n') });
    await page.getByText('The file has a line that is not a network').waitFor();
    expect(await storedTelecom()).toEqual(['192.0.2.0/24', '198.51.100.0/24']);

    await page.getByTestId('isp-default-telecom').click();
    await expect.poll(() => status.textContent()).toBe(`${shipped.length} networks (shipped file)`);
    expect(await storedTelecom()).toBeUndefined();
    await context.close();
  });
});
