/**
 * What an Access-Accept or a CoA-Request grants, read from the raw attributes: RADIUS answers
 * are hostile input, so each attribute is taken only with the exact length its type has and a
 * value in range; anything else is ignored (and counted), never passed on. Attributes are read
 * by number; vendor attributes (26) are split into their sub-attributes here.
 */

/** RFC 2865/2866/2869 attribute numbers read from answers. */
export const ATTR = {
  userName: 1,
  framedIp: 8,
  replyMessage: 18,
  state: 24,
  class: 25,
  vendorSpecific: 26,
  sessionTimeout: 27,
  idleTimeout: 28,
  callingStationId: 31,
  nasIdentifier: 32,
  nasIp: 4,
  acctSessionId: 44,
  acctInterimInterval: 85,
  eventTimestamp: 55,
  messageAuthenticator: 80,
} as const;

/** Vendor ids and the sub-attributes read from them. */
export const VENDOR = {
  /** WISPr (Wi-Fi Alliance): bandwidth in bit/s. */
  wispr: { id: 14122, maxUp: 7, maxDown: 8 },
  /** ChilliSpot / CoovaChilli: bandwidth in kbit/s, volume in bytes with gigawords. */
  chillispot: { id: 14559, maxInput: 1, maxOutput: 2, maxTotal: 3, maxUp: 4, maxDown: 5, maxInputGiga: 21, maxOutputGiga: 22, maxTotalGiga: 23 },
  /** MikroTik: Rate-Limit text "rx/tx" (the client's upload first), total volume with gigawords. */
  mikrotik: { id: 14988, rateLimit: 8, totalLimit: 17, totalLimitGiga: 18 },
} as const;

/** Limits an answer sets; an absent field leaves the device's own value. */
export interface RadiusLimits {
  sessionSeconds?: number;
  idleSeconds?: number;
  upKbps?: number;
  downKbps?: number;
  /** Bytes (up + down) the session may use. */
  totalBytes?: number;
  /** Seconds between interim accounting updates the server asks for. */
  interimSeconds?: number;
}

export interface RadiusReply extends RadiusLimits {
  /** Class (RFC 2865 §5.25), echoed unchanged in accounting; hex. */
  classes: string[];
  /** Attributes that were malformed or out of range and so ignored. */
  ignored: number;
}

/** Twenty days: the longest an authentication may last (spec §5, §9). */
export const MAX_SESSION_SECONDS = 20 * 86400;
const MAX_IDLE_SECONDS = 86400;
/** 10 Gbit/s in kbit/s: faster is not a limit. */
const MAX_KBPS = 10_000_000;
const MAX_CLASS_BYTES = 253;
/** Interim updates between 10 s and 300 s (spec §5 accounting interval). */
export const INTERIM_MIN_SECONDS = 10;
export const INTERIM_MAX_SECONDS = 300;

function u32(value: Buffer): number | undefined {
  return value.length === 4 ? value.readUInt32BE(0) : undefined;
}

/** Vendor-Specific attributes: [vendor, type, value] for each well-formed sub-attribute. */
function vendorAttributes(value: Buffer): { list: Array<[number, number, Buffer]>; bad: boolean } {
  if (value.length < 6) return { list: [], bad: true };
  const vendor = value.readUInt32BE(0);
  const list: Array<[number, number, Buffer]> = [];
  let offset = 4;
  while (offset < value.length) {
    if (offset + 2 > value.length) return { list, bad: true };
    const type = value[offset]!;
    const length = value[offset + 1]!;
    if (length < 2 || offset + length > value.length) return { list, bad: true };
    list.push([vendor, type, value.subarray(offset + 2, offset + length)]);
    offset += length;
  }
  return { list, bad: false };
}

/** "512k", "2M", "1000000" → kbit/s; undefined when it is not a rate. */
function mikrotikRate(text: string): number | undefined {
  const match = /^(\d{1,10})([kKmMgG]?)$/.exec(text);
  if (!match) return undefined;
  const n = Number(match[1]);
  const unit = match[2]!.toLowerCase();
  const kbps = unit === 'k' ? n : unit === 'm' ? n * 1000 : unit === 'g' ? n * 1_000_000 : Math.ceil(n / 1000);
  return kbps;
}

/**
 * The limits and Class values of an answer's attributes. Where several attributes set the same
 * limit (WISPr, ChilliSpot, MikroTik), the tightest non-zero one wins.
 */
export function readReply(raw: ReadonlyArray<readonly [number, Buffer]>): RadiusReply {
  const reply: RadiusReply = { classes: [], ignored: 0 };
  const tighter = (field: 'upKbps' | 'downKbps' | 'totalBytes', value: number | undefined) => {
    if (value === undefined || value <= 0) return;
    const current = reply[field];
    reply[field] = current === undefined ? value : Math.min(current, value);
  };
  let chilliTotal: number | undefined;
  let chilliTotalGiga = 0;
  let mikrotikTotal: number | undefined;
  let mikrotikTotalGiga = 0;
  for (const [type, value] of raw) {
    switch (type) {
      case ATTR.sessionTimeout: {
        const n = u32(value);
        if (n === undefined || n === 0) reply.ignored++;
        else reply.sessionSeconds = Math.min(n, MAX_SESSION_SECONDS);
        break;
      }
      case ATTR.idleTimeout: {
        const n = u32(value);
        if (n === undefined) reply.ignored++;
        else reply.idleSeconds = Math.min(n, MAX_IDLE_SECONDS);
        break;
      }
      case ATTR.acctInterimInterval: {
        const n = u32(value);
        if (n === undefined || n === 0) reply.ignored++;
        else reply.interimSeconds = Math.min(INTERIM_MAX_SECONDS, Math.max(INTERIM_MIN_SECONDS, n));
        break;
      }
      case ATTR.class:
        if (value.length === 0 || value.length > MAX_CLASS_BYTES || reply.classes.length >= 8) reply.ignored++;
        else reply.classes.push(value.toString('hex'));
        break;
      case ATTR.vendorSpecific: {
        const { list, bad } = vendorAttributes(value);
        if (bad) reply.ignored++;
        for (const [vendor, sub, data] of list) {
          if (vendor === VENDOR.wispr.id && (sub === VENDOR.wispr.maxUp || sub === VENDOR.wispr.maxDown)) {
            const bps = u32(data);
            if (bps === undefined) reply.ignored++;
            else tighter(sub === VENDOR.wispr.maxUp ? 'upKbps' : 'downKbps', Math.min(MAX_KBPS, Math.ceil(bps / 1000)));
          } else if (vendor === VENDOR.chillispot.id) {
            const n = u32(data);
            if (n === undefined) {
              reply.ignored++;
              continue;
            }
            if (sub === VENDOR.chillispot.maxUp) tighter('upKbps', Math.min(MAX_KBPS, n));
            else if (sub === VENDOR.chillispot.maxDown) tighter('downKbps', Math.min(MAX_KBPS, n));
            else if (sub === VENDOR.chillispot.maxTotal) chilliTotal = n;
            else if (sub === VENDOR.chillispot.maxTotalGiga) chilliTotalGiga = n;
          } else if (vendor === VENDOR.mikrotik.id) {
            if (sub === VENDOR.mikrotik.rateLimit) {
              // "rx-rate[/tx-rate] [burst …]": only the first pair is a limit the engine keeps.
              const text = data.toString('latin1');
              const first = /^([0-9]{1,10}[kKmMgG]?)(?:\/([0-9]{1,10}[kKmMgG]?))?(?:\s|$)/.exec(text);
              if (!first) {
                reply.ignored++;
                continue;
              }
              const up = mikrotikRate(first[1]!);
              const down = first[2] ? mikrotikRate(first[2]) : up;
              tighter('upKbps', up === undefined ? undefined : Math.min(MAX_KBPS, up));
              tighter('downKbps', down === undefined ? undefined : Math.min(MAX_KBPS, down));
            } else if (sub === VENDOR.mikrotik.totalLimit || sub === VENDOR.mikrotik.totalLimitGiga) {
              const n = u32(data);
              if (n === undefined) reply.ignored++;
              else if (sub === VENDOR.mikrotik.totalLimit) mikrotikTotal = n;
              else mikrotikTotalGiga = n;
            }
          }
        }
        break;
      }
      default:
        break;
    }
  }
  if (chilliTotal !== undefined || chilliTotalGiga) tighter('totalBytes', chilliTotalGiga * 2 ** 32 + (chilliTotal ?? 0));
  if (mikrotikTotal !== undefined || mikrotikTotalGiga) tighter('totalBytes', mikrotikTotalGiga * 2 ** 32 + (mikrotikTotal ?? 0));
  return reply;
}

/** Octets as RADIUS counts them: the low 32 bits and the number of 2^32 wraps (RFC 2869 §5.1). */
export function octetsAndGigawords(bytes: number): { octets: number; gigawords: number } {
  const whole = Math.max(0, Math.floor(bytes));
  return { octets: whole % 2 ** 32, gigawords: Math.floor(whole / 2 ** 32) };
}
