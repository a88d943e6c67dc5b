import { closeSync, existsSync, openSync, readFileSync, readSync } from 'node:fs';
import { release } from 'node:os';
import { join } from 'node:path';
import type { QosDownloadSetting } from '../../settings.js';
import { qosIngressObject } from './qos-ingress-object.js';
import type { QosDownloadShaping } from './qos-plan.js';

/** How a WAN's ingress filter copies a connection's download code to its packets (qos-plan.ts). */
export type QosIngressMark = 'ctinfo' | 'bpf';

export interface KernelPaths {
  sysModule?: string;
  modules?: string;
  kallsyms?: string;
  btf?: string;
}

/** Each kernel part by its module name and a function it always has (found when built in). */
const PARTS = {
  ifb: ['ifb', 'ifb_xmit'],
  ctinfo: ['act_ctinfo', 'tcf_ctinfo_act'],
  clsBpf: ['cls_bpf', 'cls_bpf_classify'],
} as const;
/** The conntrack kfuncs the eBPF classifier calls (Linux 6.0+). */
const CT_KFUNCS = ['bpf_skb_ct_lookup', 'bpf_ct_release'];

/**
 * Whether, and how, the running kernel can shape download traffic on IFB devices: it needs the
 * `ifb` device, and either tc's `ctinfo` action or (`bpf`) the bpf classifier with BTF and the
 * conntrack kfuncs, for which the daemon's classifier object must be built too. A part counts
 * when it is loaded, listed as a module the kernel loads on first use, or built in (its
 * function is in kallsyms: a built-in part without parameters has no /sys/module entry). Read
 * from files only, so asking changes nothing; the larger lists are read only when needed.
 */
export function kernelIngressMark(paths: KernelPaths = {}, object: () => string | null = qosIngressObject): QosIngressMark | null {
  const sysModule = paths.sysModule ?? '/sys/module';
  const modules = paths.modules ?? join('/lib/modules', release());
  const read = (path: string) => {
    try {
      return readFileSync(path, 'utf8');
    } catch {
      return '';
    }
  };
  let index: string | undefined;
  let symbols: Set<string> | undefined;
  const wanted = [...Object.values(PARTS).map(([, fn]) => fn), ...CT_KFUNCS];
  const installed = (name: string) => {
    index ??= ['modules.builtin', 'modules.dep'].map((file) => read(join(modules, file)).replace(/:.*$/gm, '')).join('\n');
    return new RegExp(`(?:^|/)${name}\\.ko(?:\\.[a-z]+)?$`, 'm').test(index);
  };
  const symbol = (name: string) => {
    symbols ??= kernelSymbols(paths.kallsyms ?? '/proc/kallsyms', wanted);
    return symbols.has(name);
  };
  const has = ([module, fn]: readonly [string, string]) => existsSync(join(sysModule, module)) || installed(module) || symbol(fn);
  if (!has(PARTS.ifb)) return null;
  if (has(PARTS.ctinfo)) return 'ctinfo';
  const bpf = existsSync(paths.btf ?? '/sys/kernel/btf/vmlinux') && has(PARTS.clsBpf) && CT_KFUNCS.every(symbol) && object() !== null;
  return bpf ? 'bpf' : null;
}

/**
 * Which of `names` the kernel's symbol list holds. The list is megabytes: it is scanned in
 * chunks, never held whole. Lines are "<address> <type> <name>[\t[module]]".
 */
function kernelSymbols(path: string, names: readonly string[]): Set<string> {
  const found = new Set<string>();
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch {
    return found;
  }
  try {
    const buffer = Buffer.alloc(1 << 16);
    let carry = '\n';
    for (let size = readSync(fd, buffer); size > 0 && found.size < names.length; size = readSync(fd, buffer)) {
      const text = carry + buffer.toString('latin1', 0, size);
      for (const name of names) if (!found.has(name) && (text.includes(` ${name}\n`) || text.includes(` ${name}\t`))) found.add(name);
      // A line cut by the chunk's end is searched again with the next chunk.
      carry = text.slice(text.lastIndexOf('\n'));
    }
  } finally {
    closeSync(fd);
  }
  return found;
}

/** The download side a setting names, `auto` resolved on the linux driver by asking the kernel. */
export function qosDownloadShaping(setting: QosDownloadSetting | undefined, driver: string, probe: () => QosIngressMark | null = kernelIngressMark): QosDownloadShaping {
  if (setting !== undefined && setting !== 'auto') return setting;
  if (driver !== 'linux') return 'lan';
  const mark = probe();
  return mark === 'ctinfo' ? 'ifb' : mark === 'bpf' ? 'ifb-bpf' : 'lan';
}
