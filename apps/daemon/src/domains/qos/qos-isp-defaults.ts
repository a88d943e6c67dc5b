import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ISP_BUILTIN_GROUPS, parseIspFile, type IspBuiltinGroup } from '@portico/schema';

/**
 * The operator definition files the device ships (spec §2 "operator (ISP) definition file ...
 * use default"): one file per built-in group, `isp/<group>.txt` beside this module in the
 * source tree and beside the bundle in dist/ (build.mjs copies them). isp/README.md says where
 * the networks come from. They are read when a rendering or a download needs them, not kept
 * in memory.
 */
export const ISP_DEFAULTS_DIR = join(dirname(fileURLToPath(import.meta.url)), 'isp');

export type IspDefaultsReader = (group: IspBuiltinGroup) => readonly string[];

export function isBuiltinIspGroup(group: string): group is IspBuiltinGroup {
  return (ISP_BUILTIN_GROUPS as readonly string[]).includes(group);
}

/**
 * The networks of a built-in group's shipped file. A file that is missing or does not parse is
 * an error: the device would otherwise route an operator's traffic by an empty list without
 * anyone knowing.
 */
export function readIspDefaults(group: IspBuiltinGroup, dir: string = ISP_DEFAULTS_DIR): readonly string[] {
  const path = join(dir, `${group}.txt`);
  const networks = parseIspFile(readFileSync(path, 'utf8'));
  if (!networks) throw new Error(`${path} is not an operator definition file`);
  return networks;
}
