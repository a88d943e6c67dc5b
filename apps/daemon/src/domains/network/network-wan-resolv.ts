import { chmodSync, mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { isIpv4 } from '@portico/schema';

/**
 * The resolver file dnsmasq reads the DNS servers the WANs learnt from (resolv.wan): the DHCP
 * WANs' leases and the PPPoE WANs' sessions, each source publishing its servers. The file is
 * rewritten whole, by a rename, whenever a source's servers change; it is the only writer.
 */
export class WanResolvFile {
  private readonly sources = new Map<string, readonly string[]>();
  private readonly path: string;

  /** `resolvFile` is the path on the target; the file goes under the install root. */
  constructor(root: string, resolvFile: string) {
    this.path = join(root, resolvFile);
  }

  /** Replaces what `source` contributes and rewrites the file. */
  publish(source: string, servers: readonly string[]): void {
    // Every server was checked by its source; a non-address here would be a line of syntax.
    const bad = servers.find((server) => !isIpv4(server));
    if (bad !== undefined) throw new Error(`DNS server ${JSON.stringify(bad.slice(0, 40))} is not an IPv4 address`);
    this.sources.set(source, [...servers]);
    const merged = [...new Set([...this.sources.values()].flat())];
    mkdirSync(dirname(this.path), { recursive: true });
    // dnsmasq reads this file after dropping to its own user, and the daemon runs with umask
    // 0077: the folder must be searchable and the file readable by others (addresses only).
    chmodSync(dirname(this.path), 0o755);
    writeFileSync(`${this.path}.tmp`, merged.map((server) => `nameserver ${server}\n`).join(''));
    chmodSync(`${this.path}.tmp`, 0o644);
    renameSync(`${this.path}.tmp`, this.path);
  }
}
