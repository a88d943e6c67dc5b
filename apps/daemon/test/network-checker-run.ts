import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import type { RenderedFile } from '../src/engine/engine-types.js';
import { checkIpBatch, defaultRouteLines, type WanHealthConfig } from '../src/domains/network/network-ip-batch.js';
import type { WanDhcpConfig } from '../src/domains/network/network-wan-dhcp.js';
import type { DialledLinks } from '../src/domains/network/network-dialled-links.js';
import { checkSysctl } from '../src/domains/network/network-sysctl.js';

/** Runs the checker a rendered file names, the real tool where there is one. */

export interface Checked {
  target: string;
  problems: string[];
  /** Why the real checker did not run (the tool is absent). */
  skipped?: string;
}

const available = new Map<string, Promise<boolean>>();

export function checkerAvailable(tool: string): Promise<boolean> {
  let known = available.get(tool);
  if (!known) {
    known = execa('which', [tool], { reject: false }).then((r) => r.exitCode === 0);
    available.set(tool, known);
  }
  return known;
}

let sequence = 0;

export async function checkRendered(file: RenderedFile, dir: string): Promise<Checked> {
  mkdirSync(dir, { recursive: true });
  const path = join(dir, `${++sequence}-${file.target.split('/').pop()}`);
  writeFileSync(path, file.content);
  const target = file.target;
  switch (file.check) {
    case 'nft': {
      if (!(await checkerAvailable('nft'))) return { target, problems: [], skipped: 'nft is not installed' };
      const run = await execa('nft', ['-c', '-f', path], { reject: false });
      return { target, problems: run.exitCode === 0 ? [] : [run.stderr || `exit ${run.exitCode}`] };
    }
    case 'dnsmasq': {
      if (!(await checkerAvailable('dnsmasq'))) return { target, problems: [], skipped: 'dnsmasq is not installed' };
      const run = await execa('dnsmasq', ['--test', `--conf-file=${path}`], { reject: false });
      return { target, problems: run.exitCode === 0 ? [] : [run.stderr || `exit ${run.exitCode}`] };
    }
    case 'ip-batch':
      return { target, problems: checkIpBatch(file.content) };
    case 'sysctl':
      return { target, problems: checkSysctl(file.content) };
    default: {
      // The WAN health monitor's input: the route batches it can write, all up and all down, pass the batch check.
      if (target.endsWith('wan-health.json')) {
        const config = JSON.parse(file.content) as WanHealthConfig;
        const allDown = new Set(config.routes.map((route) => route.name));
        const problems = [new Set<string>(), allDown].flatMap((down) => checkIpBatch(`${defaultRouteLines(config.routes, down).join('\n')}\n`));
        return { target, problems };
      }
      // The DHCP WAN clients: plain device names and numbers only.
      if (target.endsWith('wan-dhcp.json')) {
        const { clients } = JSON.parse(file.content) as WanDhcpConfig;
        const ok = clients.every(
          (c) =>
            /^[a-z0-9][a-z0-9.-]{0,14}$/.test(c.device) &&
            /^[a-z0-9]+$/.test(c.name) &&
            [c.metric, c.table ?? 0, c.rulePriority ?? 0].every(Number.isInteger),
        );
        return { target, problems: ok ? [] : ['not a list of DHCP WAN clients'] };
      }
      // What the dialler starts: plain names, and paths of files the network domain renders.
      if (target.endsWith('dialled-links.json')) {
        const { pppd, l2tp, ipsec } = JSON.parse(file.content) as DialledLinks;
        const name = (value: string) => /^[a-z][a-z0-9]{0,14}$/.test(value);
        const path = (value: string) => /^\/etc\/portico\/[a-z0-9/._-]+$/.test(value) && !value.includes('..');
        const ok =
          pppd.every((link) => name(link.name) && ['pppoe', 'pptp'].includes(link.kind) && path(link.options) && path(link.secret)) &&
          (!l2tp || (path(l2tp.config) && l2tp.lacs.every((lac) => name(lac.name) && lac.files.every(path)))) &&
          // IPsec children are named `vpnc-<client name>` on the one charon.
          (!ipsec || (path(ipsec.config) && ipsec.files.every(path) && ipsec.children.every((child) => /^vpnc-[a-z][a-z0-9]{0,9}$/.test(child))));
        return { target, problems: ok ? [] : ['not a list of dialled links'] };
      }
      // JSON argument vectors (ethtool) must parse as arrays of plain strings.
      if (target.endsWith('.json')) {
        const parsed = JSON.parse(file.content) as unknown;
        const ok =
          Array.isArray(parsed) &&
          parsed.every((c) => Array.isArray(c) && c[0] === '-s' && c.slice(1).every((a) => typeof a === 'string' && /^[A-Za-z0-9][A-Za-z0-9._]*$/.test(a)));
        return { target, problems: ok ? [] : ['not a list of argument vectors'] };
      }
      return { target, problems: [] };
    }
  }
}
