import type { ChildProcess } from 'node:child_process';
import { constants, existsSync, rmSync } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as pause } from 'node:timers/promises';
import { SupervisedProcess } from './network-child-process.js';
import type { L2tpLinks } from './network-dialled-links.js';
import type { DialledService } from './network-leftover-processes.js';
import type { DiallerOptions } from './network-pppd-supervisor.js';

/** Where xl2tpd keeps its pid and control FIFO, and where it answers a request (under the install root). */
const RUN_DIR = 'run/portico';
const POLL_MS = 20;
/** How long xl2tpd may take to open its control FIFO, and to answer one request. */
const CONTROL_WAIT_MS = 30_000;

/**
 * Sends one request on xl2tpd's control FIFO and returns its answer (`00 OK`, or a code and a
 * reason), or null when xl2tpd ended meanwhile.
 *
 * xl2tpd handles one request per read of the FIFO: two lines that reach the pipe before it
 * reads are taken as one malformed request. So each request names a result file (`@<file>
 * <request>`, as xl2tpd-control does); xl2tpd writes its answer there and unlinks it, which
 * tells that the request was read before the next one is written. The daemon keeps the result
 * file open, so it still reads the answer after the unlink.
 */
export async function xl2tpdRequest(control: string, resultPath: string, request: string, alive: () => boolean): Promise<string | null> {
  // xl2tpd ends the file name at the first space and the request at the line's end.
  if (!/^\S+$/.test(resultPath) || !/^[a-z] [a-z][a-z0-9]{0,9}$/.test(request)) throw new Error(`xl2tpd request ${JSON.stringify(request)} cannot be sent`);
  const deadline = Date.now() + CONTROL_WAIT_MS;
  const fifo = await openControl(control, alive, deadline);
  if (!fifo) return null;
  const result = await open(resultPath, 'w+', 0o600);
  try {
    try {
      await fifo.write(`@${resultPath} ${request}\n`);
    } finally {
      await fifo.close();
    }
    while (existsSync(resultPath)) {
      if (!alive()) return null;
      if (Date.now() > deadline) throw new Error(`xl2tpd did not answer ${request}`);
      await pause(POLL_MS);
    }
    const answer = Buffer.alloc(256);
    const { bytesRead } = await result.read(answer, 0, answer.length, 0);
    return answer.toString('utf8', 0, bytesRead).trim();
  } finally {
    await result.close();
  }
}

/** The control FIFO opened for writing once xl2tpd reads it (before that, opening fails with ENXIO). */
async function openControl(control: string, alive: () => boolean, deadline: number): Promise<FileHandle | null> {
  for (;;) {
    if (!alive()) return null;
    try {
      const handle = await open(control, constants.O_WRONLY | constants.O_NONBLOCK);
      if ((await handle.stat()).isFIFO()) return handle;
      await handle.close();
      throw new Error(`${control} is not a FIFO`);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== 'ENXIO' && code !== 'ENOENT') throw error;
    }
    if (Date.now() > deadline) throw new Error('xl2tpd did not open its control file');
    await pause(POLL_MS);
  }
}

/**
 * xl2tpd for the L2TP clients: supervised in the foreground (`-D`) with the rendered
 * configuration, whose lac sections never dial by themselves (`autodial = no`); once it reads
 * its control FIFO, each lac is connected with `c <lac>`, after every start, so a restarted
 * xl2tpd dials them again (each lac's own `redial` covers a tunnel that drops meanwhile). A
 * change of its configuration or of a lac's pppd files restarts it; no lac left stops it.
 */
export class Xl2tpdSupervisor {
  private xl2tpd: SupervisedProcess | null = null;
  private links: L2tpLinks | null = null;
  private queue: Promise<void> = Promise.resolve();
  private readonly control: string;
  private readonly pidFile: string;
  private readonly resultFile: string;

  constructor(private readonly options: DiallerOptions) {
    this.control = join(options.root, RUN_DIR, 'xl2tpd.control');
    this.pidFile = join(options.root, RUN_DIR, 'xl2tpd.pid');
    this.resultFile = join(options.root, RUN_DIR, 'xl2tpd.result');
  }

  async configure(links: L2tpLinks | null, changed: ReadonlySet<string>): Promise<void> {
    const previous = this.links;
    this.links = links;
    if (!links) return this.halt();
    if (!this.xl2tpd) return this.launch(links);
    const filesChanged = [links.config, ...links.lacs.flatMap((lac) => lac.files)].some((target) => changed.has(target));
    if (filesChanged || JSON.stringify(previous) !== JSON.stringify(links)) await this.xl2tpd.restart();
  }

  async stop(): Promise<void> {
    this.links = null;
    await this.halt();
  }

  /** The xl2tpd this supervisor runs (with `config`), as an earlier run of the daemon may have left it. */
  service(config: string): DialledService {
    return { pidFile: this.pidFile, argv: this.argvOf(config) };
  }

  private argvOf(config: string): string[] {
    return ['xl2tpd', '-D', '-c', join(this.options.root, config), '-p', this.pidFile, '-C', this.control];
  }

  private async halt(): Promise<void> {
    const xl2tpd = this.xl2tpd;
    this.xl2tpd = null;
    await xl2tpd?.stop();
    await this.queue;
  }

  private launch(links: L2tpLinks): void {
    const { root, spawnPrefix, report, scheduler, backoff } = this.options;
    const xl2tpd = new SupervisedProcess({
      name: 'xl2tpd',
      argv: this.argvOf(links.config),
      spawnPrefix,
      report,
      scheduler,
      backoff,
      // A pid file of an earlier run would make xl2tpd refuse to start if its pid was reused.
      beforeStart: () => {
        for (const path of [this.pidFile, this.control, this.resultFile]) rmSync(path, { force: true });
      },
      started: (child) => this.enqueue(() => this.connect(child)),
    });
    this.xl2tpd = xl2tpd;
    xl2tpd.start();
  }

  private enqueue(task: () => Promise<void>): void {
    this.queue = this.queue.then(task).catch((error: unknown) => this.options.report?.(error));
  }

  /** `c <lac>` for each lac, one at a time, while this xl2tpd is the one running. */
  private async connect(child: ChildProcess): Promise<void> {
    const alive = () => this.xl2tpd?.process === child;
    for (const lac of this.links?.lacs ?? []) {
      const answer = await xl2tpdRequest(this.control, this.resultFile, `c ${lac.name}`, alive);
      if (answer === null) return;
      if (!answer.startsWith('00')) this.options.report?.(new Error(`xl2tpd: connecting ${lac.name}: ${answer}`));
    }
  }
}
