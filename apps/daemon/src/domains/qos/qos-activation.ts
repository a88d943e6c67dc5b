import { rm, writeFile } from 'node:fs/promises';
import type { DriverEnv, TargetActivation } from '../../config/domain-module.js';
import { ActivationError, activateWith, type RenderedFile } from '../../engine/engine-types.js';
import { loadQosScript } from './qos-load.js';
import { tcDelta } from './qos-tc.js';

/**
 * Smart QoS live on a Debian-style system: the tc script is loaded whole the first time and
 * whenever its trees change; a change of leaf classes only (a rule's rate) goes as a delta, so
 * shaping never stops for it.
 */
export function qosLinuxActivation(env: DriverEnv): TargetActivation {
  // The tc script last made live per file.
  const liveTc = new Map<string, string>();
  async function applyTc(file: RenderedFile, path: string): Promise<void> {
    const previous = liveTc.get(file.target);
    const delta = previous === undefined ? null : tcDelta(previous, file.content);
    liveTc.delete(file.target);
    if (delta) {
      if (delta.length) {
        const deltaPath = `${path}.delta`;
        await writeFile(deltaPath, `${delta.join('\n')}\n`);
        try {
          await activateWith(env.run, file.target, ['tc', '-batch', deltaPath]);
        } finally {
          await rm(deltaPath, { force: true });
        }
      }
    } else {
      const failure = await loadQosScript(env.run, path, file.content);
      if (failure !== null) throw new ActivationError(file.target, failure);
    }
    liveTc.set(file.target, file.content);
  }
  return { activate: { tc: applyTc } };
}

/** On OpenWrt the same script is loaded whole the same way (qos-load.ts). */
export function qosOpenwrtActivation(env: DriverEnv): TargetActivation {
  return {
    activate: {
      tc: async (file, path) => {
        const failure = await loadQosScript(env.run, path, file.content);
        if (failure !== null) throw new ActivationError(file.target, failure);
      },
    },
  };
}
