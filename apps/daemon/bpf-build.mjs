// Compiles the eBPF classifier of `ifb-bpf` download shaping (src/domains/qos/qos-ingress-mark.bpf.c)
// into dist/qos-ingress-mark.o with clang's BPF target. `node apps/daemon/bpf-build.mjs` from
// anywhere; build.mjs runs it too. Without clang nothing is built and the daemon shapes download
// with tc's ctinfo action or on the LAN side instead (domains/qos/qos-kernel.ts).
import { execa } from 'execa';
import { existsSync, mkdirSync, renameSync, statSync } from 'node:fs';
import { delimiter, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
export const QOS_INGRESS_SOURCE = join(here, 'src', 'domains', 'qos', 'qos-ingress-mark.bpf.c');
export const QOS_INGRESS_BUILT = join(here, 'dist', 'qos-ingress-mark.o');

/** clang on the PATH, plain or versioned (Debian installs clang-<major>). */
export function findClang(path = process.env.PATH ?? '') {
  const names = ['clang', ...Array.from({ length: 8 }, (_, i) => `clang-${21 - i}`)];
  for (const name of names) for (const dir of path.split(delimiter)) if (dir && existsSync(join(dir, name))) return join(dir, name);
  return null;
}

/**
 * Builds the object unless it is newer than its source. Resolves to its path, or to null when
 * no clang is found. `-g` keeps the BTF that lets libbpf resolve the conntrack kfuncs and the
 * field offset it reads (CO-RE) against the running kernel.
 */
export async function buildQosIngressObject({ out = QOS_INGRESS_BUILT, clang = findClang() } = {}) {
  if (existsSync(out) && statSync(out).mtimeMs >= statSync(QOS_INGRESS_SOURCE).mtimeMs) return out;
  if (!clang) return null;
  // <asm/types.h> lives under the multiarch include directory (Debian's linux-libc-dev).
  const { stdout: multiarch } = await execa(clang, ['-print-multiarch']);
  const includes = multiarch.trim() ? ['-I', join('/usr/include', multiarch.trim())] : [];
  mkdirSync(dirname(out), { recursive: true });
  const partial = `${out}.${process.pid}.tmp`;
  await execa(clang, ['-O2', '-g', '-Wall', '-Werror', '-target', 'bpf', ...includes, '-c', QOS_INGRESS_SOURCE, '-o', partial]);
  renameSync(partial, out);
  return out;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const built = await buildQosIngressObject();
  console.log(built ? `built ${built}` : 'clang not found: the Smart QoS ingress classifier is not built (download shaping uses ctinfo or the LAN side)');
}
