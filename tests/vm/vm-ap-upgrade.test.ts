import { execFileSync } from 'node:child_process';
import { createHash, generateKeyPairSync, sign } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { apiCommand, apiData, BOOT_LIMIT_MS, GuestPeer, poll, recordFigures, roundSeconds, startSignedInGateway, vmPrerequisites, writeGuestFile, type AdminApi, type VmGateway } from './vm-gateway.js';

/**
 * An agent upgrade rolled out in two waves, with no radios: four Debian access points (the
 * image's agent, each in a namespace of the guest on a veth pair the console bridges into a LAN
 * network, its one "radio" a wired port with no SSID) are adopted into a group. A signing key
 * and two signed agent images (the version they run, and the next) are uploaded through the
 * console API; a rollout sends the next one to a canary, then to the rest. Each agent fetches
 * the image over the address it reached the gateway on, verifies its signature and runs its
 * settings' flash command: the agent's own Debian flash step (`portico-agent flash`), which
 * checks the image runs, installs it in place of the running program and restarts the agent's
 * systemd unit, so the new version is what connects again.
 *
 * The fourth AP's storage has gone read-only (its program's folder is bind-mounted read-only):
 * it accepts the upgrade, its flash fails, and it never comes back on the new version; past the
 * rollout's deadline the controller rolls it back (the previous image sent to it), counts it
 * failed and halts. Everything waits on conditions; the deadline is the rollout's own option.
 */

const skip = vmPrerequisites();
const here = dirname(fileURLToPath(import.meta.url));
const SHIPPED_AGENT = '/usr/lib/portico/apps/ap-agent/dist/portico-agent.mjs';
const NODE = '/usr/local/bin/node';
const IP = '/usr/sbin/ip';
const MODEL = 'portico-ap';
const AP_NET = { gateway: '10.92.0.1', prefix: 24 };
/** Seconds an AP sent the upgrade has to come back on it (software emulation restarts Node slowly). */
const DEADLINE_S = 150;
/** Seconds the canary is watched before the next wave. */
const SOAK_S = 10;

interface Ap {
  name: string;
  serial: string;
  peer: GuestPeer;
  address: string;
  etc: string;
  /** The installed agent program, which the flash step replaces. */
  program: string;
  unit: string;
}

let gw: VmGateway;
let admin: AdminApi;
let aps: Ap[] = [];
let build = '';
/** The image the rollout sends and the version it carries, once uploaded. */
let nextImageId = '';
let nextVersion = '';
const vendor = generateKeyPairSync('ed25519');

const api = (path: string) => apiData(admin, path);
const command = (path: string, body: Record<string, unknown>) => apiCommand(admin, path, body);

async function apRows(): Promise<Array<Record<string, any>>> {
  return ((await api('ac/aplist')).items as Array<Record<string, any>>).filter((row) => aps.some((ap) => ap.serial === row.serial));
}


/** The agent bundle stamped with `version`, built on the host as a release would be. */
function agentImage(version: string): Buffer {
  const out = join(build, version);
  execFileSync(process.execPath, [join(here, '../../apps/ap-agent/build.mjs')], { env: { ...process.env, PORTICO_AGENT_VERSION: version, PORTICO_AGENT_OUT: out }, stdio: 'pipe' });
  return readFileSync(join(out, 'portico-agent.mjs'));
}

async function uploadImage(version: string, image: Buffer): Promise<Record<string, any>> {
  const form = new FormData();
  form.append('model', MODEL);
  form.append('version', version);
  form.append('signature', sign(null, createHash('sha256').update(image).digest(), vendor.privateKey).toString('base64'));
  form.append('file', new Blob([new Uint8Array(image)]), 'portico-agent.mjs');
  const reply = await admin.api.postForm('ac/firmware/upload', form);
  if (!reply.success) throw new Error(`upload ${version}: ${JSON.stringify(reply)}`);
  return reply.data as Record<string, any>;
}

/**
 * Installs an AP as a Debian one is: the agent program, the certificate files, the firmware
 * key, settings whose flash command is the agent's own flash step, and a systemd unit (the
 * shipped one, run in the AP's namespace).
 */
async function installAgent(ap: Ap): Promise<void> {
  const bundle = await command('ac/devicecert', { serial: ap.serial });
  await writeGuestFile(gw, `${ap.etc}/cert.pem`, String(bundle.certificate), '644');
  await writeGuestFile(gw, `${ap.etc}/key.pem`, String(bundle.key));
  await writeGuestFile(gw, `${ap.etc}/ca.pem`, String(bundle.ca), '644');
  await writeGuestFile(gw, `${ap.etc}/firmware.pem`, vendor.publicKey.export({ type: 'spki', format: 'pem' }).toString(), '644');
  await gw.vm.agent.run(['/usr/bin/mkdir', '-p', dirname(ap.program)]);
  await gw.vm.agent.run(['/usr/bin/cp', SHIPPED_AGENT, ap.program]);
  const settings = {
    controller: { host: AP_NET.gateway, port: 15002 },
    serial: ap.serial,
    tls: { cert: `${ap.etc}/cert.pem`, key: `${ap.etc}/key.pem`, ca: `${ap.etc}/ca.pem` },
    // No radio: a wired port with no SSID runs no hostapd.
    radios: [{ phy: 'phy0', interface: ap.peer.far(1), driver: 'wired' }],
    model: MODEL,
    firmware: { versionOf: 'agent', publicKey: `${ap.etc}/firmware.pem` },
    stateDir: `/var/lib/portico-agent-${ap.name}`,
    runDir: `/run/portico-agent-${ap.name}`,
    hostapdControlDir: `/run/hostapd-${ap.name}`,
    supplicantControlDir: `/run/wpa_supplicant-${ap.name}`,
    system: { upgrade: [NODE, ap.program, 'flash', `${ap.etc}/agent.json`] },
    flash: { program: ap.program, restart: ['/usr/bin/systemctl', 'restart', '--no-block', ap.unit] },
    reconnect: { minMs: 500, maxMs: 3000 },
  };
  await writeGuestFile(gw, `${ap.etc}/agent.json`, JSON.stringify(settings, null, 2));
  const shipped = readFileSync(join(here, '../../apps/ap-agent/files/portico-agent.service'), 'utf8');
  const unit = shipped.replace(/^ExecStart=.*$/m, `ExecStart=${IP} netns exec ${ap.peer.ns} ${NODE} --enable-source-maps ${ap.program} ${ap.etc}/agent.json`).replace(/^(StateDirectory|RuntimeDirectory)=.*$/gm, '');
  await writeGuestFile(gw, `/run/systemd/system/${ap.unit}`, unit, '644');
}

const sha256 = (data: Buffer) => createHash('sha256').update(data).digest('hex');
const guestSha256 = async (path: string) => (await gw.vm.agent.run(['/usr/bin/sha256sum', path])).split(' ')[0];

describe.skipIf(skip !== null)(`an agent upgrade rolled out in waves${skip ? ` (skipped: ${skip})` : ''}`, () => {
  beforeAll(async () => {
    build = mkdtempSync(join(tmpdir(), 'portico-vm-agent-'));
    ({ gw, admin } = await startSignedInGateway('VmUpgradePassw0rd', 0));
    aps = [1, 2, 3, 4].map((i) => {
      const name = `ap${i}`;
      return {
        name,
        serial: `02f1b000000${i}`,
        peer: new GuestPeer(gw, `u${name}`, { near: `u${name}p`, far: 'eth' }),
        address: `10.92.0.${10 + i}`,
        etc: `/etc/portico-agent-${name}`,
        program: `/opt/portico-agent-${name}/portico-agent.mjs`,
        unit: `portico-agent-${name}.service`,
      };
    });
    for (const ap of aps) await ap.peer.create(1);
    await admin.write('network', {
      action: 'add', ifname: 'aplan', role: 'lan', hwport: aps.map((ap) => ap.peer.near(1)), proto: 'static',
      ipaddr: AP_NET.gateway, netmask: '255.255.255.0',
    });
    for (const ap of aps) await ap.peer.run([IP, 'addr', 'add', `${ap.address}/${AP_NET.prefix}`, 'dev', ap.peer.far(1)]);
    for (const ap of aps) await poll(() => ap.peer.ping(AP_NET.gateway), (up) => up, 120_000, `${ap.name} reaches the gateway`);
  }, 2 * BOOT_LIMIT_MS);

  afterAll(async () => {
    rmSync(build, { recursive: true, force: true });
    if (!gw) return;
    if (process.env.PORTICO_VM_DEBUG) {
      for (const ap of aps) console.log(await gw.vm.agent.exec(['/usr/bin/journalctl', '-u', ap.unit, '--no-pager', '-o', 'cat']).then((r) => r.stdout, String));
      console.log(await gw.vm.agent.exec(['/usr/bin/journalctl', '-u', 'portico.service', '--no-pager', '-o', 'cat', '-n', '200']).then((r) => r.stdout, String));
    }
    await gw.down();
  });

  test('four Debian APs running the agent are adopted and report the agent version they run', async () => {
    const started = Date.now();
    for (const ap of aps) await installAgent(ap);
    // The fourth AP's storage has gone read-only (a worn flash chip): its agent runs, but its
    // flash step will not be able to replace the program.
    const programDir = dirname(aps[3]!.program);
    await gw.vm.agent.run(['/usr/bin/mount', '--bind', programDir, programDir]);
    await gw.vm.agent.run(['/usr/bin/mount', '-o', 'remount,bind,ro', programDir]);
    await gw.vm.agent.run(['/usr/bin/systemctl', 'daemon-reload']);
    for (const ap of aps) await gw.vm.agent.run(['/usr/bin/systemctl', 'start', ap.unit]);
    await expect.poll(async () => ((await api('ac/apbind')).items as Array<{ serial: string }>).map((r) => r.serial).sort(), { timeout: 180_000 }).toEqual(aps.map((ap) => ap.serial));
    const group = String(((await admin.write('ac/apgroup', { action: 'add', name: 'Fleet', country: 'CN', channel2g: 6, enabled5g: false, reportInterval: 10 })).data as { id: string }).id);
    expect(await command('ac/apcmd', { action: 'adopt', serials: aps.map((ap) => ap.serial), group })).toEqual({ done: aps.map((ap) => ap.serial), refused: [] });
    await expect
      .poll(async () => (await apRows()).map((r) => [r.serial, r.status, r.online, r.configOutcome, r.model]).sort(), { timeout: 120_000 })
      .toEqual(aps.map((ap) => [ap.serial, 'adopted', true, 'applied', MODEL]));
    // Each reports the version stamped in the shipped bundle, which is what `--version` prints.
    const shipped = (await gw.vm.agent.run([NODE, SHIPPED_AGENT, '--version'])).trim();
    expect((await apRows()).map((r) => r.firmware)).toEqual(aps.map(() => shipped));
    recordFigures({ test: 'ap-upgrade', adoptedSeconds: roundSeconds((Date.now() - started) / 1000) });
  }, 600_000);

  test('a signed agent image goes to a canary, then to the rest; an AP that never comes back on it is rolled back and halts the rollout', async () => {
    const current = String((await apRows())[0]!.firmware);
    const next = `${current}-next`;
    const currentImage = agentImage(current);
    const nextImage = agentImage(next);
    await command('ac/firmware', { action: 'addkey', name: 'vendor', pem: vendor.publicKey.export({ type: 'spki', format: 'pem' }).toString() });
    // The version they run is uploaded too: it is what an AP that does not come back is returned to.
    await uploadImage(current, currentImage);
    const uploaded = await uploadImage(next, nextImage);
    nextImageId = String(uploaded.id);
    nextVersion = next;
    expect(uploaded).toMatchObject({ model: MODEL, version: next, sha256: sha256(nextImage) });
    const broken = aps[3]!;

    const started = Date.now();
    const serials = aps.map((ap) => ap.serial);
    expect(await command('ac/firmware', { action: 'rollout', id: uploaded.id, serials, canary: 1, waves: [100], soak: SOAK_S, deadline: DEADLINE_S })).toEqual({ done: serials, refused: [] });

    // The console's view of the rollout, sampled until it ends.
    type Rollout = { state: string; wave: number; waves: number; failures: number; haltReason: string | null; aps: Array<{ serial: string; status: string; wave: number | null; version: string }> };
    const samples: Rollout[] = [];
    const rollout = async () => {
      const shown = (await api('ac/firmware')).rollout as Rollout;
      samples.push(shown);
      return shown;
    };
    const statusOf = (shown: Rollout, ap: Ap) => shown.aps.find((a) => a.serial === ap.serial)!.status;
    const first = await rollout();
    expect(first).toMatchObject({ waves: 2, wave: 0 });
    expect(first.aps.map((a) => [a.serial, a.wave])).toEqual(serials.map((serial, i) => [serial, i === 0 ? 0 : 1]));

    // The canary comes back on the new version first; until it has, nobody else is sent it.
    await expect.poll(async () => statusOf(await rollout(), aps[0]!), { timeout: DEADLINE_S * 1000, interval: 1000 }).toBe('upgraded');
    const canarySeconds = (Date.now() - started) / 1000;
    const beforeCanary = samples.filter((s) => statusOf(s, aps[0]!) !== 'upgraded');
    for (const shown of beforeCanary) for (const ap of aps.slice(1)) expect(statusOf(shown, ap)).toBe('pending');

    await expect.poll(async () => (await rollout()).state, { timeout: 2 * DEADLINE_S * 1000 + SOAK_S * 1000, interval: 1000 }).toMatch(/^(done|halted|cancelled)$/);
    const end = await rollout();
    expect(end).toMatchObject({ state: 'halted', wave: 1, failures: 1, haltReason: 'tooManyFailures' });
    expect(end.aps.map((a) => [a.serial, a.status, a.version])).toEqual([
      ...aps.slice(0, 3).map((ap) => [ap.serial, 'upgraded', next]),
      [broken.serial, 'rolledBack', current],
    ]);
    // On the APs' own clock: the canary was flashed before any AP of the second wave.
    const flashedAt = async (ap: Ap) => Number((await gw.vm.agent.run(['/usr/bin/stat', '-c', '%.9Y', ap.program])).trim());
    const canaryAt = await flashedAt(aps[0]!);
    for (const ap of aps.slice(1, 3)) expect(await flashedAt(ap)).toBeGreaterThan(canaryAt);

    // The AP list: three on the new version, the fourth back online on the one it ran.
    await expect
      .poll(async () => (await apRows()).map((r) => [r.serial, r.online, r.firmware]).sort(), { timeout: 60_000, interval: 1000 })
      .toEqual(aps.map((ap, i) => [ap.serial, true, i < 3 ? next : current]));
    // On the APs: the new program in place with the old one kept beside; the fourth untouched.
    for (const ap of aps.slice(0, 3)) {
      expect(await guestSha256(ap.program)).toBe(sha256(nextImage));
      expect((await gw.vm.agent.run([NODE, ap.program.replace(/\.mjs$/, '.previous.mjs'), '--version'])).trim()).toBe(current);
    }
    expect((await gw.vm.agent.run([NODE, broken.program, '--version'])).trim()).toBe(current);
    const journal = await gw.vm.agent.run(['/usr/bin/journalctl', '-u', broken.unit, '--no-pager', '-o', 'cat']);
    expect(journal).toMatch(/upgrade failed: .*flash failed/);
    recordFigures({ test: 'ap-upgrade', canarySeconds: roundSeconds(canarySeconds), rolloutSeconds: roundSeconds((Date.now() - started) / 1000), samples: samples.length });
  }, 900_000);

  test('its storage writable again, a rollout of the one AP left brings every AP onto the new version', async () => {
    const broken = aps[3]!;
    await gw.vm.agent.run(['/usr/bin/umount', dirname(broken.program)]);
    expect(await command('ac/firmware', { action: 'rollout', id: nextImageId, serials: [broken.serial], canary: 1, waves: [100], soak: SOAK_S, deadline: DEADLINE_S })).toEqual({
      done: [broken.serial],
      refused: [],
    });
    await expect.poll(async () => (await api('ac/firmware')).rollout.state, { timeout: DEADLINE_S * 1000 + SOAK_S * 1000, interval: 1000 }).toMatch(/^(done|halted|cancelled)$/);
    expect((await api('ac/firmware')).rollout).toMatchObject({ state: 'done', failures: 0, aps: [{ serial: broken.serial, status: 'upgraded', version: nextVersion }] });
    await expect
      .poll(async () => (await apRows()).map((r) => [r.serial, r.online, r.firmware]).sort(), { timeout: 60_000, interval: 1000 })
      .toEqual(aps.map((ap) => [ap.serial, true, nextVersion]));
  }, 600_000);
});
