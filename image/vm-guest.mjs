// Boots the gateway image under QEMU and drives it: KVM where /dev/kvm opens, software
// emulation otherwise; Ethernet ports on host taps the caller moves into its own namespaces;
// the QEMU guest agent for commands inside the guest (argument arrays, like everything else).
import { spawn } from 'node:child_process';
import { accessSync, constants, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
export const IMAGE_FILE = join(here, 'out', 'portico.img');

/** UEFI firmware files Debian's ovmf package installs, newest layout first. */
const FIRMWARE = ['/usr/share/ovmf/OVMF.fd', '/usr/share/OVMF/OVMF.fd', '/usr/share/qemu/OVMF.fd'];

export function firmwareFile() {
  const found = FIRMWARE.find((file) => existsSync(file));
  if (!found) throw new Error('no UEFI firmware: install Debian package ovmf');
  return found;
}

/**
 * KVM when the device opens for reading and writing and the host runs hardware virtualisation
 * (kvm_intel or kvm_amd); software emulation otherwise. A /dev/kvm backed only by kvm_pvm (a
 * nested host without hardware support) runs PVM-built guest kernels alone: the firmware and
 * Debian's kernel stop there with an internal emulation error.
 */
export function accelerator(moduleDir = '/sys/module') {
  if (process.env.PORTICO_VM_ACCEL === 'tcg') return 'tcg';
  if (!['kvm_intel', 'kvm_amd'].some((name) => existsSync(join(moduleDir, name)))) return 'tcg';
  try {
    accessSync('/dev/kvm', constants.R_OK | constants.W_OK);
    return 'kvm';
  } catch {
    return 'tcg';
  }
}

/** First PCI slot of the Ethernet ports: the guest names them enp0s<slot>, in this order. */
export const FIRST_PORT_SLOT = 3;

export function guestPortName(index) {
  return `enp0s${FIRST_PORT_SLOT + index}`;
}

/**
 * QEMU's arguments. `ports` are host tap names, one per Ethernet port, in port order; the guest
 * sees them at consecutive PCI slots. The disk is opened with snapshot=on: nothing a run does
 * reaches the image file.
 */
export function qemuArgs({ image = IMAGE_FILE, ports, memoryMiB = 1024, cpus = 2, accel = accelerator(), agentSocket, monitorSocket, serialLog, macPrefix = '52:54:00:12:34', firmware = firmwareFile(), reboot = false }) {
  const args = [
    '-name', 'portico',
    '-machine', `q35,accel=${accel}`,
    '-cpu', accel === 'kvm' ? 'host' : 'max',
    '-smp', String(cpus),
    '-m', String(memoryMiB),
    '-bios', firmware,
    '-display', 'none',
    '-vga', 'none',
    // A guest reboot ends QEMU, unless the test reboots it on purpose (a firmware upgrade):
    // then it restarts within this process and keeps its writes to the snapshot.
    ...(reboot ? [] : ['-no-reboot']),
    '-serial', `file:${serialLog}`,
    '-drive', `file=${image},format=raw,if=none,id=disk,snapshot=on`,
    '-device', 'virtio-blk-pci,drive=disk,addr=0x10',
    '-chardev', `socket,id=agent,path=${agentSocket},server=on,wait=off`,
    '-device', 'virtio-serial-pci,addr=0x11',
    '-device', 'virtserialport,chardev=agent,name=org.qemu.guest_agent.0',
    '-qmp', `unix:${monitorSocket},server=on,wait=off`,
    '-device', 'virtio-rng-pci,addr=0x12',
  ];
  ports.forEach((tap, index) => {
    const mac = `${macPrefix}:${(0x10 + index).toString(16).padStart(2, '0')}`;
    args.push('-netdev', `tap,id=port${index},ifname=${tap},script=no,downscript=no`);
    args.push('-device', `virtio-net-pci,netdev=port${index},mac=${mac},addr=0x${(FIRST_PORT_SLOT + index).toString(16)}`);
  });
  return args;
}

/** A line-delimited JSON client of a QEMU socket (guest agent or QMP). */
class JsonSocket {
  constructor(path) {
    this.path = path;
    this.buffer = '';
    this.waiters = [];
  }

  async open(timeoutMs) {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      try {
        this.socket = await new Promise((resolve, reject) => {
          const socket = connect(this.path, () => resolve(socket));
          socket.once('error', reject);
        });
        break;
      } catch (error) {
        if (Date.now() > deadline) throw error;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
    this.socket.setEncoding('utf8');
    this.socket.on('data', (chunk) => {
      this.buffer += chunk;
      let newline;
      while ((newline = this.buffer.indexOf('\n')) >= 0) {
        const line = this.buffer.slice(0, newline).trim();
        this.buffer = this.buffer.slice(newline + 1);
        if (line === '') continue;
        let message;
        try {
          message = JSON.parse(line);
        } catch {
          continue;
        }
        this.onMessage(message);
      }
    });
    this.socket.on('error', () => undefined);
  }

  onMessage(message) {
    // QMP's greeting and events answer no request.
    if (message.event !== undefined || message.QMP !== undefined) return;
    this.waiters.shift()?.(message);
  }

  /** One command, one reply; `timeoutMs` bounds a guest that never answers. */
  request(execute, args, timeoutMs = 10_000) {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        const index = this.waiters.indexOf(waiter);
        if (index >= 0) this.waiters.splice(index, 1);
        reject(new Error(`${execute}: no answer in ${timeoutMs} ms`));
      }, timeoutMs);
      const waiter = (message) => {
        clearTimeout(timer);
        if (message.error) reject(new Error(`${execute}: ${message.error.desc ?? message.error.class}`));
        else resolve(message.return);
      };
      this.waiters.push(waiter);
      this.socket.write(`${JSON.stringify(args ? { execute, arguments: args } : { execute })}\n`);
    });
  }

  close() {
    this.socket?.destroy();
  }
}

/**
 * The guest agent. Its socket accepts connections before the guest runs the agent, and the
 * agent may see bytes of an earlier client: guest-sync with a fresh id discards them.
 */
export class GuestAgent extends JsonSocket {
  async ready(timeoutMs) {
    await this.open(timeoutMs);
    await this.sync(timeoutMs);
  }

  /**
   * Waits until the agent answers on the open socket: after `ready`, again after a guest reboot
   * (QEMU keeps the socket; the new agent finds the old bytes).
   */
  async sync(timeoutMs) {
    const deadline = Date.now() + timeoutMs;
    for (let id = (this.lastSync ?? 0) + 1; ; id += 1) {
      this.lastSync = id;
      try {
        // A sync answered with its own id means the agent runs and the stream is clean.
        const answer = await this.request('guest-sync', { id }, 2000);
        if (answer === id) return;
      } catch (error) {
        if (Date.now() > deadline) throw new Error(`the guest agent did not answer in ${timeoutMs} ms (${error.message})`);
      }
      // Replies of syncs that timed out may still come: they would answer the wrong request.
      this.waiters = [];
    }
  }

  /** Runs argv in the guest; resolves { code, stdout, stderr } once it exits. */
  async exec(argv, { input, timeoutMs = 60_000 } = {}) {
    const started = await this.request('guest-exec', {
      path: argv[0],
      arg: argv.slice(1),
      'capture-output': true,
      ...(input !== undefined ? { 'input-data': Buffer.from(input).toString('base64') } : {}),
    });
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const status = await this.request('guest-exec-status', { pid: started.pid });
      if (status.exited) {
        return {
          code: status.exitcode ?? (status.signal ? 128 + status.signal : 1),
          stdout: Buffer.from(status['out-data'] ?? '', 'base64').toString('utf8'),
          stderr: Buffer.from(status['err-data'] ?? '', 'base64').toString('utf8'),
        };
      }
      if (Date.now() > deadline) throw new Error(`${argv.join(' ')}: still running after ${timeoutMs} ms`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  /** Runs argv and answers its stdout; throws with stderr when it fails. */
  async run(argv, options) {
    const result = await this.exec(argv, options);
    if (result.code !== 0) throw new Error(`${argv.join(' ')} exited ${result.code}: ${result.stderr.trim() || result.stdout.trim()}`);
    return result.stdout;
  }

  async readFile(path) {
    return this.run(['/bin/cat', path]);
  }
}

/**
 * A booted guest. `ports` are tap names created by QEMU in the host's namespace; the caller
 * moves them where it wants (`ip link set <tap> netns <ns>`) once `start` resolves.
 */
export class GatewayVm {
  constructor(options) {
    this.options = options;
    this.dir = mkdtempSync(join(tmpdir(), 'portico-vm-'));
    this.serialLog = join(this.dir, 'serial.log');
    this.agent = new GuestAgent(join(this.dir, 'agent.sock'));
    this.monitor = new JsonSocket(join(this.dir, 'monitor.sock'));
    this.accel = options.accel ?? accelerator();
  }

  /** Starts QEMU; resolves once its sockets are up (the guest is still booting). */
  async start() {
    const args = qemuArgs({ ...this.options, accel: this.accel, agentSocket: this.agent.path, monitorSocket: this.monitor.path, serialLog: this.serialLog });
    this.startedAt = process.hrtime.bigint();
    this.process = spawn('qemu-system-x86_64', args, { stdio: ['ignore', 'ignore', 'pipe'] });
    this.stderr = '';
    this.process.stderr.on('data', (chunk) => (this.stderr += chunk));
    this.exited = new Promise((resolve) => this.process.once('exit', (code, signal) => resolve({ code, signal })));
    const failed = this.exited.then(({ code }) => {
      throw new Error(`qemu exited ${code}: ${this.stderr.trim()}`);
    });
    await Promise.race([this.monitor.open(30_000), failed]);
    await this.monitor.request('qmp_capabilities');
    failed.catch(() => undefined);
  }

  /** A hardware reset of the guest, as a power cut would be (the disk keeps what reached it). */
  async reset() {
    await this.monitor.request('system_reset');
  }

  /** Seconds since QEMU started. */
  elapsed() {
    return Number(process.hrtime.bigint() - this.startedAt) / 1e9;
  }

  /** Waits for the guest agent: the guest has booted far enough to run services. */
  async booted(timeoutMs) {
    await this.agent.ready(timeoutMs);
  }

  serial() {
    return existsSync(this.serialLog) ? readFileSync(this.serialLog, 'utf8') : '';
  }

  async stop() {
    this.agent.close();
    if (this.process && this.process.exitCode === null) {
      try {
        await this.monitor.request('quit', undefined, 5000);
      } catch {
        this.process.kill('SIGKILL');
      }
      await this.exited;
    }
    this.monitor.close();
    rmSync(this.dir, { recursive: true, force: true });
  }
}
