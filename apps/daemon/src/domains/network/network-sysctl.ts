import { constants } from 'node:fs';
import { access, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { CommandRunner } from '../../engine/command-runner.js';
import { ActivationError } from '../../engine/engine-types.js';
import type { NetworkPlan } from './network-plan.js';
import { device } from './network-syntax.js';

/**
 * Kernel settings (sysctl.d syntax). Forwarding on; reverse-path filtering strict on LAN-side
 * devices (no spoofed sources) and loose on WANs, where multi-WAN makes replies arrive on a
 * link other than the one the default route names; `arp_filter` so each WAN answers ARP only
 * for its own addresses. Per-device keys use the slash form, which allows dots in names
 * (`eth1.35`).
 */
export function renderSysctl(plan: NetworkPlan): string {
  const lines = [
    '# Portico kernel network settings. Generated; changes are overwritten.',
    'net.ipv4.ip_forward = 1',
    'net.ipv4.conf.all.rp_filter = 0',
    'net.ipv4.conf.default.rp_filter = 1',
    'net.ipv4.conf.all.arp_filter = 1',
    // A WAN whose link drops stops carrying its routes at once: multi-WAN fails over on carrier
    // loss without waiting for a probe.
    'net.ipv4.conf.all.ignore_routes_with_linkdown = 1',
    'net.ipv4.conf.default.ignore_routes_with_linkdown = 1',
  ];
  if (plan.ipv6) lines.push('net.ipv6.conf.all.forwarding = 1');
  const key = (dev: string, family: 'ipv4' | 'ipv6', name: string) => `net/${family}/conf/${device(dev)}/${name}`;
  for (const lan of plan.lans) lines.push(`${key(lan.l3, 'ipv4', 'rp_filter')} = 1`);
  for (const sub of plan.subInterfaces) lines.push(`${key(sub.device, 'ipv4', 'rp_filter')} = 1`);
  for (const wan of plan.wans) {
    // A PPP device exists only once its client has dialled; its settings come from defaults.
    if (wan.row.proto === 'pppoe') continue;
    lines.push(`${key(wan.l3, 'ipv4', 'rp_filter')} = 2`);
    // With forwarding on, router advertisements are taken only with accept_ra = 2.
    if (wan.row.ipv6 === 'slaac' || wan.row.ipv6 === 'dhcpv6') lines.push(`${key(wan.l3, 'ipv6', 'accept_ra')} = 2`);
  }
  return `${lines.join('\n')}\n`;
}

const SYSCTL_LINE = /^(?:[a-z0-9_]+(?:\.[a-z0-9_]+)+|net\/ipv[46]\/conf\/[A-Za-z0-9][A-Za-z0-9._-]{0,14}\/[a-z0-9_]+) = -?\d+$/;

/** Syntax check of a rendered sysctl file: comments or `key = integer` lines only. */
export function checkSysctl(content: string): string[] {
  const problems: string[] = [];
  const lines = content.split('\n');
  if (lines.pop() !== '') problems.push('file does not end with a newline');
  lines.forEach((line, index) => {
    if (line === '' || (line.startsWith('#') && /^[\x20-\x7e]*$/.test(line))) return;
    if (!SYSCTL_LINE.test(line)) problems.push(`line ${index + 1}: not a key = integer line`);
  });
  return problems;
}

/** The `key = value` settings of a sysctl file that passed checkSysctl. */
export function sysctlSettings(content: string): Array<{ key: string; value: string }> {
  return content
    .split('\n')
    .filter((line) => line !== '' && !line.startsWith('#'))
    .map((line) => {
      const [key = '', value = ''] = line.split(' = ');
      return { key, value };
    });
}

const SYSCTL_SEGMENT = /^[A-Za-z0-9_@-][A-Za-z0-9_.@-]*$/;
const SYSCTL_VALUE = /^[0-9a-z]+(?: [0-9a-z]+)*$/;

/** A key's file under /proc/sys: dots separate levels, unless the key is in the slash form. */
export function procSysPath(key: string): string {
  return key.includes('/') ? key : key.replaceAll('.', '/');
}

/**
 * Makes a checked sysctl file live, writing only what differs: each key is read first from
 * /proc/sys under the install root, and only a key whose value is not already the rendered
 * one (or cannot be read) is set, with `sysctl -w`. In a container /proc/sys is read-only;
 * there a file whose settings already hold applies without writing anything, and a setting
 * that would need a write fails with an error naming the key.
 */
export async function applySysctl(env: { root: string; run: CommandRunner }, target: string, content: string): Promise<void> {
  const problems: string[] = [];
  for (const { key, value } of sysctlSettings(content)) {
    // The format's check let the line through; a key must also stay inside /proc/sys.
    const segments = procSysPath(key).split('/');
    if (segments.length < 2 || !segments.every((s) => SYSCTL_SEGMENT.test(s)) || !SYSCTL_VALUE.test(value)) {
      throw new ActivationError(target, `not a sysctl setting: ${JSON.stringify(`${key} = ${value}`.slice(0, 80))}`);
    }
    const path = join(env.root, 'proc/sys', ...segments);
    // The kernel separates the words of a multi-valued key with tabs.
    const current = await readFile(path, 'utf8').then((text) => text.trim().split(/\s+/).join(' '), () => null);
    if (current === value) continue;
    const result = await env.run(['sysctl', '-q', '-w', `${key}=${value}`]);
    if (result.exitCode === 0) continue;
    const detail = (result.stderr || result.stdout).trim().slice(0, 300);
    problems.push(
      (await readOnly(path, detail))
        ? `${key}: the file system of /proc/sys is read-only, so it cannot be set to ${value} (it is ${current ?? 'unreadable'})`
        : `${key}: cannot be set to ${value}: ${detail}`,
    );
  }
  if (problems.length) throw new ActivationError(target, problems.join('; '));
}

/** Whether a failed write met a read-only file system: as sysctl said it, or as access() tells. */
async function readOnly(path: string, detail: string): Promise<boolean> {
  if (/read-only file system/i.test(detail)) return true;
  return access(path, constants.W_OK).then(
    () => false,
    (error: NodeJS.ErrnoException) => error.code === 'EROFS',
  );
}
