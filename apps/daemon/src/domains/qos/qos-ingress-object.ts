import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The compiled eBPF classifier of `ifb-bpf` download shaping (qos-ingress-mark.bpf.c), built by
 * apps/daemon/bpf-build.mjs into dist/ beside the daemon bundle. Run from the sources (tests,
 * the lab), the same file is found under apps/daemon/dist.
 */
export const QOS_INGRESS_OBJECT_NAME = 'qos-ingress-mark.o';
/** The ELF section of the classifier program, as `tc filter … bpf obj <file> sec <section>` names it. */
export const QOS_INGRESS_SECTION = 'classifier';

const here = dirname(fileURLToPath(import.meta.url));

/** Where the object is looked for: beside the bundle, then the build's output seen from src/domains/qos. */
export const QOS_INGRESS_OBJECT_PLACES = [join(here, QOS_INGRESS_OBJECT_NAME), join(here, '..', '..', '..', 'dist', QOS_INGRESS_OBJECT_NAME)];

/** The object's path, or null when it has not been built (clang was missing at build time). */
export function qosIngressObject(places: readonly string[] = QOS_INGRESS_OBJECT_PLACES): string | null {
  return places.find((path) => existsSync(path)) ?? null;
}

/** A tc batch line splits on blanks and ends at a newline: the path goes in only as a plain absolute path. */
export function ingressObjectPath(object: string | null): string {
  if (object === null) throw new Error(`the Smart QoS ingress classifier (${QOS_INGRESS_OBJECT_NAME}) is not built: run node apps/daemon/bpf-build.mjs, or set PORTICO_QOS_DOWNLOAD to ifb or lan`);
  if (!/^\/[A-Za-z0-9._/-]+$/.test(object)) throw new Error(`the Smart QoS ingress classifier's path cannot go into a tc script: ${JSON.stringify(object)}`);
  return object;
}
