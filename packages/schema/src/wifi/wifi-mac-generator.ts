/**
 * MAC address generator (spec §3): a random address whose first octet is 00, never
 * 00:ff:ff:ff:ff:ff. A first octet of 00 makes the address unicast and universally
 * administered. 00:00:00:00:00:00 is refused as well: no interface can carry it.
 */

/** Fills `target` with random bytes, like `crypto.getRandomValues`. */
export type RandomByteSource = (target: Uint8Array) => void;

export const FORBIDDEN_GENERATED_MACS: readonly string[] = Object.freeze(['00:ff:ff:ff:ff:ff', '00:00:00:00:00:00']);

/** A source that keeps returning forbidden addresses is broken; give up instead of spinning. */
export const RANDOM_MAC_MAX_ATTEMPTS = 32;

/** Web Crypto: present in browsers and as `globalThis.crypto` in Node 20. */
const cryptoRandom: RandomByteSource = (target) => {
  globalThis.crypto.getRandomValues(target);
};

/** Lower-case, colon-separated: "00:1a:2b:3c:4d:5e". */
export function formatMac(bytes: Uint8Array): string {
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join(':');
}

export function randomMac(random: RandomByteSource = cryptoRandom): string {
  const tail = new Uint8Array(5);
  for (let attempt = 0; attempt < RANDOM_MAC_MAX_ATTEMPTS; attempt++) {
    random(tail);
    const mac = formatMac(Uint8Array.of(0x00, ...tail));
    if (!FORBIDDEN_GENERATED_MACS.includes(mac)) return mac;
  }
  throw new Error(`random source produced only reserved addresses in ${RANDOM_MAC_MAX_ATTEMPTS} attempts`);
}
