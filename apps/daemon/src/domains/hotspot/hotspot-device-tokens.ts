/**
 * One-use tokens an outside sign-in hands a captive device (a cloud portal's nonce, WeChat's
 * `extend`, an OpenID Connect state), each bound to the device it was issued to. Kept in issue
 * order and bounded: issuing drops the expired ones and, past `max`, the oldest.
 */
export class DeviceTokens<T extends { ip: string; mac: string }> {
  private readonly issued = new Map<string, T>();

  constructor(private readonly max: number) {}

  /** Records `token`; `live` tells an entry that has not expired. */
  issue(token: string, entry: T, live: (entry: T) => boolean): void {
    for (const [old, held] of this.issued) {
      if (live(held) && this.issued.size < this.max) break;
      this.issued.delete(old);
    }
    this.issued.set(token, entry);
  }

  /**
   * The entry of `token` when it was issued to this device, spent by this try whatever its
   * outcome; undefined for an unknown token or one of another device (which stays unspent).
   */
  spend(token: string, device: { ip: string; mac: string }): T | undefined {
    const entry = this.issued.get(token);
    if (!entry || entry.ip !== device.ip || entry.mac !== device.mac) return undefined;
    this.issued.delete(token);
    return entry;
  }
}
