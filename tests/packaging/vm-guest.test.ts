import { accessSync, constants, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { accelerator, GuestAgent, guestPortName, qemuArgs } from '../../image/vm-guest.mjs';

/**
 * The VM launcher's side of QEMU: its command line, and its guest-agent client against an agent
 * that speaks the QEMU guest agent's protocol (line-delimited JSON: guest-sync, guest-exec,
 * guest-exec-status), including what a real one does at boot: bytes left over from an earlier
 * client and silence until the agent runs.
 */

const work = mkdtempSync(join(tmpdir(), 'portico-vm-guest-'));
const servers: Server[] = [];
afterAll(() => {
  for (const server of servers) server.close();
  rmSync(work, { recursive: true, force: true });
});

interface FakeAgentOptions {
  /** Requests ignored before the agent "starts", as while the guest boots. */
  silentFor?: number;
  /** Sent before the first answer, as a stale reply of an earlier client would be. */
  staleLine?: string;
}

function fakeAgent(path: string, options: FakeAgentOptions = {}) {
  const execs = new Map<number, { argv: string[]; input: string; polls: number }>();
  const seen: Array<Record<string, unknown>> = [];
  let nextPid = 100;
  let ignored = 0;
  const server = createServer((socket: Socket) => {
    let buffer = '';
    let first = true;
    socket.on('data', (chunk) => {
      buffer += chunk.toString();
      let newline: number;
      while ((newline = buffer.indexOf('\n')) >= 0) {
        const request = JSON.parse(buffer.slice(0, newline)) as { execute: string; arguments?: Record<string, unknown> };
        buffer = buffer.slice(newline + 1);
        seen.push(request);
        if (ignored < (options.silentFor ?? 0)) {
          ignored += 1;
          continue;
        }
        const reply = (value: unknown) => {
          if (first && options.staleLine) socket.write(`${options.staleLine}\n`);
          first = false;
          socket.write(`${JSON.stringify({ return: value })}\n`);
        };
        const args = request.arguments ?? {};
        if (request.execute === 'guest-sync') reply(args.id);
        else if (request.execute === 'guest-exec') {
          const pid = nextPid++;
          const input = typeof args['input-data'] === 'string' ? Buffer.from(args['input-data'], 'base64').toString() : '';
          execs.set(pid, { argv: [String(args.path), ...((args.arg as string[]) ?? [])], input, polls: 0 });
          reply({ pid });
        } else if (request.execute === 'guest-exec-status') {
          const exec = execs.get(Number(args.pid))!;
          exec.polls += 1;
          // Still running on the first poll, as a real command often is.
          if (exec.polls < 2) reply({ exited: false });
          else if (exec.argv[0] === '/bin/false') reply({ exited: true, exitcode: 1, 'err-data': Buffer.from('no\n').toString('base64') });
          else reply({ exited: true, exitcode: 0, 'out-data': Buffer.from(`${exec.argv.slice(1).join(' ')}|${exec.input}`).toString('base64') });
        } else socket.write(`${JSON.stringify({ error: { class: 'CommandNotFound', desc: `no ${request.execute}` } })}\n`);
      }
    });
  });
  servers.push(server);
  return new Promise<{ seen: typeof seen }>((resolve) => server.listen(path, () => resolve({ seen })));
}

describe('the guest agent client', () => {
  test('waits for an agent that is still silent, skips a stale reply, and runs commands with their input', async () => {
    const path = join(work, 'agent-1.sock');
    const agent = await fakeAgent(path, { silentFor: 2, staleLine: '{"return": 4242}' });
    const client = new GuestAgent(path);
    await client.ready(60_000);
    // The syncs that got no answer were retried with fresh ids.
    const syncs = agent.seen.filter((r) => r.execute === 'guest-sync').map((r) => (r.arguments as { id: number }).id);
    expect(new Set(syncs).size).toBe(syncs.length);
    expect(syncs.length).toBeGreaterThanOrEqual(3);
    expect(await client.run(['/usr/bin/tee', '/tmp/x'], { input: 'line one\n' })).toBe('/tmp/x|line one\n');
    const failed = await client.exec(['/bin/false']);
    expect(failed).toEqual({ code: 1, stdout: '', stderr: 'no\n' });
    await expect(client.run(['/bin/false'])).rejects.toThrow(/\/bin\/false exited 1: no/);
    client.close();
  }, 60_000);
});

describe('the QEMU command line', () => {
  const base = { ports: ['tapw', 'tapl'], agentSocket: '/run/a.sock', monitorSocket: '/run/m.sock', serialLog: '/run/serial.log', firmware: '/usr/share/ovmf/OVMF.fd' };

  test('puts the ports at consecutive PCI slots the guest names enp0s3, enp0s4 …, and never writes the image', () => {
    const args = qemuArgs({ ...base, accel: 'kvm' });
    const devices = args.filter((_, i) => args[i - 1] === '-device');
    expect(devices).toContain('virtio-net-pci,netdev=port0,mac=52:54:00:12:34:10,addr=0x3');
    expect(devices).toContain('virtio-net-pci,netdev=port1,mac=52:54:00:12:34:11,addr=0x4');
    expect([guestPortName(0), guestPortName(1)]).toEqual(['enp0s3', 'enp0s4']);
    expect(args.filter((_, i) => args[i - 1] === '-netdev')).toEqual(['tap,id=port0,ifname=tapw,script=no,downscript=no', 'tap,id=port1,ifname=tapl,script=no,downscript=no']);
    expect(args.find((arg) => arg.startsWith('file='))).toMatch(/snapshot=on/);
    expect(args).toContain('virtserialport,chardev=agent,name=org.qemu.guest_agent.0');
  });

  test('uses KVM with the host CPU, or software emulation', () => {
    const kvm = qemuArgs({ ...base, accel: 'kvm' });
    const tcg = qemuArgs({ ...base, accel: 'tcg' });
    expect(kvm[kvm.indexOf('-machine') + 1]).toBe('q35,accel=kvm');
    expect(kvm[kvm.indexOf('-cpu') + 1]).toBe('host');
    expect(tcg[tcg.indexOf('-machine') + 1]).toBe('q35,accel=tcg');
    expect(tcg[tcg.indexOf('-cpu') + 1]).toBe('max');
  });
});

describe('the accelerator', () => {
  test('is software emulation when the host has no hardware KVM module, even if /dev/kvm is there (a PVM-only host)', () => {
    const modules = mkdtempSync(join(tmpdir(), 'portico-modules-'));
    try {
      mkdirSync(join(modules, 'kvm'));
      mkdirSync(join(modules, 'kvm_pvm'));
      expect(accelerator(modules)).toBe('tcg');
      mkdirSync(join(modules, 'kvm_amd'));
      // With hardware KVM, it is KVM exactly when /dev/kvm opens for reading and writing.
      const opens = (() => {
        try {
          accessSync('/dev/kvm', constants.R_OK | constants.W_OK);
          return true;
        } catch {
          return false;
        }
      })();
      expect(accelerator(modules)).toBe(opens ? 'kvm' : 'tcg');
      process.env.PORTICO_VM_ACCEL = 'tcg';
      expect(accelerator(modules)).toBe('tcg');
    } finally {
      delete process.env.PORTICO_VM_ACCEL;
      rmSync(modules, { recursive: true, force: true });
    }
  });
});
