import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createSocket } from 'node:dgram';
import { join } from 'node:path';

/**
 * Debian's FreeRADIUS for tests: installed when missing (root, apt-get), run in the foreground
 * as a child process with a configuration written to a temporary folder (users file, one
 * client, detail accounting), listening on loopback ports chosen free, or on an address of a
 * namespace the test made. Used by the daemon's RADIUS tests, the RADIUS benchmark and the VM
 * tier's PPP servers.
 */

const FREERADIUS = '/usr/sbin/freeradius';
const RADCLIENT = '/usr/bin/radclient';

/** Installs freeradius and freeradius-utils when missing; returns why it cannot run, or null. */
export function freeradiusPrerequisites(): string | null {
  if (!existsSync(FREERADIUS) || !existsSync(RADCLIENT)) {
    if (process.getuid?.() !== 0 || !existsSync('/usr/bin/apt-get')) return 'FreeRADIUS is not installed and cannot be (needs root and apt-get)';
    const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
    spawnSync('apt-get', ['update', '-qq'], { env, stdio: 'ignore' });
    spawnSync('apt-get', ['install', '-y', '-qq', 'freeradius', 'freeradius-utils'], { env, stdio: 'ignore' });
  }
  return existsSync(FREERADIUS) && existsSync(RADCLIENT) ? null : 'apt-get could not install freeradius and freeradius-utils';
}

/** A UDP port free on loopback now. */
export async function freeUdpPort(): Promise<number> {
  const socket = createSocket('udp4');
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  const { port } = socket.address();
  await new Promise<void>((resolve) => socket.close(() => resolve()));
  return port;
}

export interface FreeRadius {
  authPort: number;
  acctPort: number;
  secret: string;
  dir: string;
  /** Accounting records FreeRADIUS wrote to its detail file, each as attribute → value. */
  detail(): Array<Record<string, string>>;
  stop(): Promise<void>;
}

/** Users file entries: name, password, and reply attribute lines. */
export interface RadiusUser {
  name: string;
  password: string;
  reply?: string[];
}

/**
 * `address`: where it listens (default 127.0.0.1); `clients`: the address or network its one
 * client may ask from (default 127.0.0.1) — together they let a namespace the test made serve a
 * guest behind it.
 */
export async function startFreeRadius(
  users: RadiusUser[],
  options: { secret?: string; extraUsers?: string; netns?: string; address?: string; clients?: string } = {},
): Promise<FreeRadius> {
  const address = options.address ?? '127.0.0.1';
  const dir = mkdtempSync(join(tmpdir(), 'portico-freeradius-'));
  const secret = options.secret ?? 'Radius-Secret-2025';
  const authPort = await freeUdpPort();
  let acctPort = await freeUdpPort();
  while (acctPort === authPort) acctPort = await freeUdpPort();
  for (const sub of ['log', 'run', 'radacct']) mkdirSync(join(dir, sub));
  const quote = (s: string) => `"${s.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
  const usersText =
    users
      .map((u) => `${u.name} Cleartext-Password := ${quote(u.password)}\n${(u.reply ?? []).map((line) => `\t${line}`).join(',\n')}\n`)
      .join('\n') + (options.extraUsers ?? '');
  writeFileSync(join(dir, 'users'), usersText);
  writeFileSync(
    join(dir, 'radiusd.conf'),
    `prefix = /usr
exec_prefix = /usr
sysconfdir = /etc
localstatedir = /var
sbindir = /usr/sbin
datarootdir = /usr/share
dictdir = \${datarootdir}/freeradius
logdir = ${dir}/log
raddbdir = ${dir}
radacctdir = ${dir}/radacct
name = freeradius
confdir = ${dir}
modconfdir = ${dir}
run_dir = ${dir}/run
db_dir = ${dir}
libdir = /usr/lib/freeradius
pidfile = ${dir}/run/freeradius.pid
max_request_time = 30
cleanup_delay = 5
max_requests = 65536
hostname_lookups = no
log {
  destination = files
  file = ${dir}/log/radius.log
  auth = no
}
security {
  allow_core_dumps = no
  max_attributes = 200
  reject_delay = 0
  status_server = yes
}
thread pool {
  start_servers = 4
  max_servers = 16
  min_spare_servers = 2
  max_spare_servers = 8
  max_queue_size = 65536
  max_requests_per_server = 0
}
client portico {
  ipaddr = ${options.clients ?? '127.0.0.1'}
  secret = ${quote(secret)}
  require_message_authenticator = no
}
modules {
  pap {
    normalise = yes
  }
  chap {
  }
  # MS-CHAPv2 against the users file's Cleartext-Password (PPP servers dialled with it).
  mschap {
  }
  files {
    filename = ${dir}/users
  }
  detail {
    filename = ${dir}/radacct/detail
    escape_filenames = no
    permissions = 0600
    header = "%t"
  }
}
server default {
  listen {
    type = auth
    ipaddr = ${address}
    port = ${authPort}
  }
  listen {
    type = acct
    ipaddr = ${address}
    port = ${acctPort}
  }
  authorize {
    chap
    mschap
    files
    pap
  }
  authenticate {
    Auth-Type PAP {
      pap
    }
    Auth-Type CHAP {
      chap
    }
    Auth-Type MS-CHAP {
      mschap
    }
  }
  preacct {
  }
  accounting {
    detail
  }
  post-auth {
  }
}
`,
  );
  const check = spawnSync(FREERADIUS, ['-C', '-d', dir], { encoding: 'utf8' });
  if (check.status !== 0) throw new Error(`FreeRADIUS refused its configuration:\n${check.stdout}\n${check.stderr}\n${safeRead(join(dir, 'log/radius.log'))}`);
  // In a namespace the test made (the lab's gateway), its loopback is that namespace's own.
  const argv = [...(options.netns ? ['ip', 'netns', 'exec', options.netns] : []), FREERADIUS, '-f', '-d', dir];
  const child: ChildProcess = spawn(argv[0]!, argv.slice(1), { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr?.on('data', (chunk) => (stderr += String(chunk)));
  // Ready once its log says so.
  const started = Date.now();
  while (!/Ready to process requests/.test(safeRead(join(dir, 'log/radius.log')))) {
    if (child.exitCode !== null) throw new Error(`FreeRADIUS exited: ${stderr}\n${safeRead(join(dir, 'log/radius.log'))}`);
    if (Date.now() - started > 30_000) throw new Error('FreeRADIUS did not start');
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    authPort,
    acctPort,
    secret,
    dir,
    detail: () => parseDetail(safeRead(join(dir, 'radacct/detail'))),
    stop: async () => {
      if (child.exitCode === null) {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGTERM');
        await exited;
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

function safeRead(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return '';
  }
}

/** FreeRADIUS detail records: a header line, then `\tName = value` lines, a blank line between. */
export function parseDetail(text: string): Array<Record<string, string>> {
  return text
    .split(/\n\n+/)
    .map((block) => block.split('\n').filter((line) => line.startsWith('\t')))
    .filter((lines) => lines.length > 0)
    .map((lines) =>
      Object.fromEntries(
        lines.map((line) => {
          const at = line.indexOf(' = ');
          return [line.slice(1, at), line.slice(at + 3).replace(/^"(.*)"$/, '$1')];
        }),
      ),
    );
}

/**
 * radclient: sends one request of `code` (auth, acct, disconnect, coa) to `host` (loopback
 * unless given) and returns its output; from inside `netns` when given.
 */
export async function radclient(port: number, code: string, secret: string, attributes: string, netns?: string, host = '127.0.0.1'): Promise<{ status: number; output: string }> {
  return new Promise((resolve) => {
    const argv = [...(netns ? ['ip', 'netns', 'exec', netns] : []), RADCLIENT, '-x', '-r', '1', '-t', '3', `${host}:${port}`, code, secret];
    const child = spawn(argv[0]!, argv.slice(1), { stdio: ['pipe', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (c) => (output += String(c)));
    child.stderr.on('data', (c) => (output += String(c)));
    child.on('exit', (status) => resolve({ status: status ?? -1, output }));
    child.stdin.end(`${attributes}\n`);
  });
}
