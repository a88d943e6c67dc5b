import { IPSEC_SA_STATES, type IpsecRefusal, type IpsecSa } from '@portico/schema';

/**
 * Reading charon's text: `swanctl --list-sas` (the SAs) and its log (refused peers). Both are
 * treated as hostile: a peer chooses the identity it sends, so every field is taken only when
 * it matches its expected shape, lengths are capped, and a line that does not fit is skipped.
 */

const MAX_TEXT = 128;
/** `name: #12, ESTABLISHED, IKEv2, <spi>_i <spi>_r*` */
const IKE_HEAD = /^([A-Za-z0-9_-]{1,64}): #(\d{1,10}), ([A-Z_]{1,20}), (IKEv[12]), /;
/** `  remote 'id' @ 198.51.100.2[500]` (the id may hold anything but a newline; it is capped) */
const REMOTE = /^ {2}remote '(.{0,255})' @ ([0-9A-Fa-f:.]{1,45})\[\d{1,5}\]/;
const ESTABLISHED = /^ {2}established (\d{1,10})s ago/;
/** A child SA's header, two spaces in: `  name: #3, reqid 1, INSTALLED, TUNNEL, …` */
const CHILD_HEAD = /^ {2}[A-Za-z0-9_-]{1,64}: #\d{1,10}, reqid \d{1,10}, /;
const BYTES = /^ {4}(in|out) +[0-9a-f]{8}(?:_i|_o)?(?: \([-0-9x]+\))?, +(\d{1,18}) bytes,/;

function clean(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/[\u0000-\u001f\u007f-\u009f\u2028-\u202e\u2066-\u2069]/g, '?').slice(0, MAX_TEXT);
}

function state(word: string): IpsecSa['state'] {
  const lower = word.toLowerCase();
  return (IPSEC_SA_STATES as readonly string[]).includes(lower) ? (lower as IpsecSa['state']) : 'other';
}

/** The IKE SAs of `swanctl --list-sas` output; `now` dates "established Ns ago". */
export function parseListSas(output: string, now: number): IpsecSa[] {
  const sas: IpsecSa[] = [];
  let current: IpsecSa | null = null;
  for (const line of output.split('\n').slice(0, 200_000)) {
    const head = IKE_HEAD.exec(line);
    if (head) {
      current = { name: head[1]!, uniqueId: head[2]!, state: state(head[3]!), version: head[4]!, peer: '', address: '', since: null, rx: 0, tx: 0, children: 0 };
      sas.push(current);
      continue;
    }
    if (!current) continue;
    const remote = REMOTE.exec(line);
    if (remote) {
      current.peer = clean(remote[1]!);
      current.address = remote[2]!;
      continue;
    }
    const established = ESTABLISHED.exec(line);
    if (established) {
      current.since = now - Number(established[1]) * 1000;
      continue;
    }
    if (CHILD_HEAD.test(line)) {
      current.children += 1;
      continue;
    }
    const bytes = BYTES.exec(line);
    if (bytes) {
      const count = Number(bytes[2]);
      if (Number.isSafeInteger(count)) {
        if (bytes[1] === 'in') current.rx += count;
        else current.tx += count;
      }
    }
  }
  return sas;
}

/**
 * Refusals in charon's log (level 1 lines), by the peer's address: a pre-shared key that does
 * not match ("MAC mismatched", "integrity check failed" in IKEv1), no key for the identity, or
 * no connection for the identity the peer showed. `names` maps a peer address to its peer.
 */
const REFUSED = [
  /tried \d+ shared keys? for '.{0,255}' - '.{0,255}', but MAC mismatched/,
  /no shared key found for '.{0,255}' - '.{0,255}'/,
  /no matching peer config found/,
  /received AUTHENTICATION_FAILED notify error/,
  /integrity check failed/,
  /found \d+ matching configs?, but none allows pre-shared key authentication/,
  /looking for pre-shared key peer configs matching .{0,300}found 0 matching config/,
];
const LOG_PEER = /<([A-Za-z0-9_-]{1,64})\|\d{1,10}>/;
// `<4> 198.51.100.1 is initiating an IKE_SA` (or `a Main Mode IKE_SA`): where an attempt comes from.
const LOG_ADDRESS = /> ((?:\d{1,3}\.){3}\d{1,3}) is initiating an? [A-Za-z ]{0,20}IKE_SA/;

export interface LogRefusalReader {
  /** Feeds one log line; remembers the address a connection attempt came from. */
  line(text: string, at: number): void;
  refusals(): IpsecRefusal[];
}

export function refusalReader(message: string, max = 64): LogRefusalReader {
  const addressOfSa = new Map<string, string>();
  const latest = new Map<string, IpsecRefusal>();
  return {
    line(text, at) {
      // `<name|id>` once the SA has its connection, `<id>` before: the unique id ties them.
      const key = /\[[A-Z]{3}\] <(?:[A-Za-z0-9_-]{1,64}\|)?(\d{1,10})>/.exec(text)?.[1] ?? '';
      const address = LOG_ADDRESS.exec(text)?.[1];
      if (address && key) {
        addressOfSa.set(key, address);
        if (addressOfSa.size > 4096) addressOfSa.delete(addressOfSa.keys().next().value!);
      }
      if (!REFUSED.some((pattern) => pattern.test(text))) return;
      const name = LOG_PEER.exec(text)?.[1] ?? '';
      const from = (key && addressOfSa.get(key)) || address || '';
      const id = `${name}|${from}`;
      latest.delete(id);
      latest.set(id, { name: clean(name), address: from, at, msg: message });
      if (latest.size > max) latest.delete(latest.keys().next().value!);
    },
    refusals: () => [...latest.values()].reverse(),
  };
}
