import { readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ISP_BUILTIN_GROUPS, parseIspFile, type IspBuiltinGroup } from '@portico/schema';

/**
 * The operator definition files the device ships (spec §2 "operator (ISP) definition file ...
 * use default"): one file per built-in group, `isp/<group>.txt` beside this module in the
 * source tree and beside the bundle in dist/ (build.mjs copies them). isp/README.md says where
 * the networks come from. A file is parsed when a rendering or a download first needs it and
 * kept until it changes on disk: one apply renders the Smart QoS part several times (ruleset,
 * OpenWrt includes, dnsmasq sections), and a device that never balances by ISP never loads any.
 */
export const ISP_DEFAULTS_DIR = join(dirname(fileURLToPath(import.meta.url)), 'isp');

export type IspDefaultsReader = (group: IspBuiltinGroup) => readonly string[];

export function isBuiltinIspGroup(group: string): group is IspBuiltinGroup {
  return (ISP_BUILTIN_GROUPS as readonly string[]).includes(group);
}

const parsed = new Map<string, { mtimeMs: number; size: number; networks: readonly string[] }>();

/**
 * The networks of a built-in group's shipped file. A file that is missing or does not parse is
 * an error: the device would otherwise route an operator's traffic by an empty list without
 * anyone knowing.
 */
export function readIspDefaults(group: IspBuiltinGroup, dir: string = ISP_DEFAULTS_DIR): readonly string[] {
  const path = join(dir, `${group}.txt`);
  const { mtimeMs, size } = statSync(path);
  const known = parsed.get(path);
  if (known && known.mtimeMs === mtimeMs && known.size === size) return known.networks;
  const networks = parseIspFile(readFileSync(path, 'utf8'));
  if (!networks) throw new Error(`${path} is not an operator definition file`);
  parsed.set(path, { mtimeMs, size, networks });
  return networks;
}
