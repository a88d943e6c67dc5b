#!/usr/bin/env node
// Waits until the daemon answers its console on the loopback address (or gives up after the
// bound): the one condition for systemd-bless-boot to mark a new firmware slot good. A slot
// whose daemon never answers is not confirmed, and systemd-boot falls back to the old slot
// once its tries are spent.
const port = Number(process.env.PORTICO_PORT ?? 8080);
const deadline = Date.now() + Number(process.env.PORTICO_BOOT_CHECK_SECONDS ?? 300) * 1000;

export async function answers(url) {
  try {
    const reply = await fetch(url, { signal: AbortSignal.timeout(5000) });
    return reply.ok;
  } catch {
    return false;
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const url = `http://127.0.0.1:${port}/api/changelang`;
  for (;;) {
    if (await answers(url)) process.exit(0);
    if (Date.now() > deadline) {
      console.error(`portico did not answer at ${url}: this boot is not confirmed`);
      process.exit(1);
    }
    await new Promise((resolve) => setTimeout(resolve, 2000));
  }
}
