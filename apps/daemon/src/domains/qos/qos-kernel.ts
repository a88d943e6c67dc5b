import { existsSync, readFileSync } from 'node:fs';
import { release } from 'node:os';
import { join } from 'node:path';
import type { QosDownloadSetting } from '../../settings.js';
import type { QosDownloadShaping } from './qos-plan.js';

/**
 * Whether the running kernel can shape download traffic on IFB devices (qos-plan.ts): it needs
 * the `ifb` device and tc's `ctinfo` action, loaded, built in, or installed as modules the
 * kernel loads on first use. Read from files only, so asking changes nothing.
 */
export function kernelShapesIngress(paths: { sysModule?: string; modules?: string } = {}): boolean {
  const sysModule = paths.sysModule ?? '/sys/module';
  const modules = paths.modules ?? join('/lib/modules', release());
  let index: string | undefined;
  // The module lists (modules.dep is hundreds of kB) are read only when /sys does not answer.
  const installed = (name: string) => {
    index ??= ['modules.builtin', 'modules.dep']
      .map((file) => {
        try {
          return readFileSync(join(modules, file), 'utf8').replace(/:.*$/gm, '');
        } catch {
          return '';
        }
      })
      .join('\n');
    return new RegExp(`(?:^|/)${name}\\.ko(?:\\.[a-z]+)?$`, 'm').test(index);
  };
  const has = (name: string) => existsSync(join(sysModule, name)) || installed(name);
  return has('ifb') && has('act_ctinfo');
}

/** The download side a setting names, `auto` resolved on the linux driver by asking the kernel. */
export function qosDownloadShaping(setting: QosDownloadSetting | undefined, driver: string, probe: () => boolean = kernelShapesIngress): QosDownloadShaping {
  if (setting === 'ifb' || setting === 'lan') return setting;
  return driver === 'linux' && probe() ? 'ifb' : 'lan';
}
