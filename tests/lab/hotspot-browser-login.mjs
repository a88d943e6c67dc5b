// A portal login in Chromium, run inside a lab client namespace (`ip netns exec <ns> node …`),
// so the browser's traffic takes the client's path through the gateway's firewall.
// Input (stdin, JSON): { start, code, upstream, chromium }. Output (stdout, JSON): what it saw.
import { chromium } from 'playwright-core';

const input = JSON.parse(await new Promise((resolve) => {
  let text = '';
  process.stdin.on('data', (chunk) => (text += chunk));
  process.stdin.on('end', () => resolve(text));
}));

const browser = await chromium.launch({
  executablePath: input.chromium ?? '/usr/bin/chromium',
  headless: true,
  args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
});
const out = {};
try {
  const context = await browser.newContext({ locale: 'en-US' });
  const page = await context.newPage();
  // An unauthorised client opening any web site lands on the portal.
  await page.goto(input.start, { waitUntil: 'load', timeout: 15_000 });
  out.landed = page.url();
  await page.getByTestId('auth-form').waitFor({ timeout: 10_000 });
  const codeTab = page.getByTestId('auth-tab-voucher');
  if (await codeTab.count()) await codeTab.click();
  await page.locator('input[name="code"]').fill(input.code);
  await page.locator('input[name="acceptTerms"]').check();
  await page.getByTestId('auth-submit').click();
  await page.waitForURL(/\/auth\/success/, { timeout: 10_000 });
  out.success = page.url();
  // Signed in: the same site now answers from upstream.
  const upstream = await page.goto(input.upstream, { waitUntil: 'load', timeout: 15_000 });
  out.after = upstream ? await upstream.text() : '';
} catch (error) {
  out.error = String(error);
} finally {
  await browser.close();
}
process.stdout.write(JSON.stringify(out));
