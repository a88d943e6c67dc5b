import type { ClientAuthState } from '@portico/schema';
import { gaussian, pick, type Random } from './sim-rhythm.js';

/*
 * The clients of the simulated LAN: phones, laptops, TVs and gadgets that come and go with the
 * time of day, sign in at the portal, and move traffic. Host names are what clients announce
 * over DHCP, so some are hostile on purpose: the console must show them as plain text.
 */

export type DeviceKind = 'phone' | 'laptop' | 'tv' | 'console' | 'iot' | 'printer' | 'nas';

interface KindProfile {
  /** Typical download rate while in use, bytes per second. */
  down: number;
  /** Upload as a share of download. */
  upRatio: number;
  /** Typical open connections. */
  conns: number;
  /** Whether it must sign in at the portal (the others are on the MAC white list). */
  portal: boolean;
  /** Share among newly arriving clients. */
  weight: number;
  /** Vendor prefixes; phones use randomised (locally administered) addresses instead. */
  ouis: readonly string[];
}

const PROFILES: Record<DeviceKind, KindProfile> = {
  phone: { down: 40_000, upRatio: 0.15, conns: 8, portal: true, weight: 52, ouis: [] },
  laptop: { down: 110_000, upRatio: 0.2, conns: 18, portal: true, weight: 24, ouis: ['3c:a9:f4', 'f4:5c:89', '8c:85:90', 'dc:a6:32'] },
  tv: { down: 380_000, upRatio: 0.03, conns: 5, portal: false, weight: 6, ouis: ['78:5d:c8', '64:09:80', 'a8:23:fe'] },
  console: { down: 150_000, upRatio: 0.1, conns: 7, portal: true, weight: 5, ouis: ['98:b6:e9', '00:d9:d1'] },
  iot: { down: 1_200, upRatio: 1.2, conns: 2, portal: false, weight: 13, ouis: ['24:0a:c4', '50:ec:50', '7c:49:eb'] },
  printer: { down: 300, upRatio: 0.5, conns: 1, portal: false, weight: 0, ouis: ['3c:52:82'] },
  nas: { down: 30_000, upRatio: 3, conns: 6, portal: false, weight: 0, ouis: ['00:11:32'] },
};

const HOSTNAMES: Record<DeviceKind, readonly string[]> = {
  phone: [
    'iPhone', 'iPhone-15-Pro', 'Galaxy-S23', 'HUAWEI_Mate_60_Pro', 'Xiaomi-14', 'OPPO-Reno11', 'vivo-X100',
    'Pixel-8', 'Redmi-Note-13', '张伟的iPhone', '小明的手机', '王芳的 HUAWEI', 'android-5f3c2a91e0b7d4c8', '',
  ],
  laptop: ['DESKTOP-7KQ2M1A', 'LAPTOP-3HV9TQ0S', 'MacBook-Pro', 'Lis-MacBook-Air', 'ThinkPad-X1', 'ubuntu-dev', 'WIN-FRONTDESK01'],
  tv: ['MiTV-4S', '客厅电视', 'LG-webOS-TV', 'AppleTV'],
  console: ['Nintendo Switch', 'PS5-762', 'XboxSeriesX'],
  iot: ['ESP_3A9F21', 'tasmota-7C2E', 'Ring-Doorbell', 'yeelink-light-color', ''],
  printer: ['EPSON-L3150'],
  nas: ['NAS-Backup'],
};

/**
 * Names a client may announce to break a console that does not escape: markup, script,
 * SQL, template syntax, a right-to-left override that reverses the shown extension, invisible
 * characters, and a name as long as DHCP allows a label to be.
 */
export const HOSTILE_HOSTNAMES: readonly string[] = [
  '<img src=x onerror=alert(1)>',
  '"><script>alert(document.cookie)</script>',
  "Robert'); DROP TABLE clients;--",
  'invoice\u202Efdp.exe',
  "{{constructor.constructor('alert(1)')()}}",
  '${7*7}<b>bold</b>',
  '\u200Badmin\u200B',
  'x'.repeat(63),
];

/** Devices that stay connected all day; three of them carry hostile names so those are always on screen. */
const RESIDENTS: readonly { hostname: string; kind: DeviceKind; host: number }[] = [
  { hostname: 'HP-LaserJet-M404', kind: 'printer', host: 10 },
  { hostname: 'NAS-Backup', kind: 'nas', host: 11 },
  { hostname: HOSTILE_HOSTNAMES[0]!, kind: 'phone', host: 12 },
  { hostname: HOSTILE_HOSTNAMES[3]!, kind: 'laptop', host: 13 },
  { hostname: HOSTILE_HOSTNAMES[1]!, kind: 'iot', host: 14 },
];

export const MIN_ONLINE = 20;
export const MAX_ONLINE = 60;
/** Known clients kept (online and recently seen); bounds memory. */
const KNOWN_MAX = 120;
/** DHCP pool of the LAN: host numbers handed to arriving clients. */
const POOL_FIRST = 100;
const POOL_LAST = 249;
const MEAN_SESSION_S = 45 * 60;
const MEAN_PORTAL_WAIT_S = 40;
const SIGN_IN_VALIDITY_MS = 8 * 3600_000;
const DAY_MS = 86_400_000;

export interface SimClient {
  mac: string;
  ip: string;
  hostname: string;
  kind: DeviceKind;
  resident: boolean;
  online: boolean;
  auth: ClientAuthState;
  username: string;
  /** ms epoch the current session began. */
  since: number;
  lastSeen: number;
  /** ms epoch until which the portal sign-in holds. */
  authUntil: number;
  upRate: number;
  downRate: number;
  upBytes: number;
  downBytes: number;
  conns: number;
  /** How hungry this client is compared with its kind (log-normal around 1). */
  appetite: number;
  /** Current burst factor, decays back to 1. */
  burst: number;
}

const hex2 = (n: number) => n.toString(16).padStart(2, '0');

function makeMac(random: Random, kind: DeviceKind): string {
  const tail = () => hex2(Math.floor(random() * 256));
  const ouis = PROFILES[kind].ouis;
  if (ouis.length === 0) {
    // Phones hide behind a random, locally administered unicast address.
    const first = (Math.floor(random() * 256) & 0xfc) | 0x02;
    return [hex2(first), tail(), tail(), tail(), tail(), tail()].join(':');
  }
  return `${pick(random, ouis)}:${tail()}:${tail()}:${tail()}`;
}

function makeUsername(random: Random): string {
  const digits = (n: number) => Array.from({ length: n }, () => Math.floor(random() * 10)).join('');
  const kind = random();
  if (kind < 0.35) return `1${pick(random, ['3', '5', '7', '8', '9'])}${digits(9)}`;
  if (kind < 0.6) {
    const alphabet = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789';
    return Array.from({ length: 8 }, () => pick(random, [...alphabet])).join('');
  }
  if (kind < 0.8) return `room${pick(random, ['1', '2', '3', '5', '8'])}${digits(2)}`;
  return `${pick(random, ['zhangwei', 'lina', 'wangfang', 'liuyang', 'chenjie', 'guest', 'staff'])}${digits(2)}`;
}

function pickKind(random: Random): DeviceKind {
  const kinds = Object.keys(PROFILES) as DeviceKind[];
  const total = kinds.reduce((sum, k) => sum + PROFILES[k].weight, 0);
  let r = random() * total;
  for (const kind of kinds) {
    r -= PROFILES[kind].weight;
    if (r < 0) return kind;
  }
  return 'phone';
}

/** Online clients and those seen in the last day, with their sessions and traffic. */
export class SimPopulation {
  readonly clients: SimClient[] = [];
  /** Slow wander of the population around its daily level, -1 to 1. */
  private drift = 0;

  constructor(
    private readonly lanPrefix: string,
    /** Seeded: the population a restart brings back looks the same. */
    seeded: Random,
    start: number,
    activityNow: number,
  ) {
    for (const resident of RESIDENTS) {
      const client = this.newClient(seeded, resident.kind, resident.hostname, `${lanPrefix}${resident.host}`, start, true);
      this.connect(client, seeded, start);
      this.clients.push(client);
    }
    // Portal sessions survive a restart (DESIGN §6), so most clients are signed in already.
    const target = this.target(activityNow);
    while (this.onlineCount() < target) {
      const client = this.arriveNew(seeded, start);
      if (client.auth === 'preauth' && seeded() < 0.8) this.signIn(client, seeded, start);
    }
    // Clients that left earlier today still count among those seen.
    for (let i = 0; i < 12; i += 1) {
      const client = this.arriveNew(seeded, start);
      this.disconnect(client, start - Math.floor(seeded() * 20 * 3600_000));
    }
  }

  online(): SimClient[] {
    return this.clients.filter((c) => c.online);
  }

  onlineCount(): number {
    let n = 0;
    for (const c of this.clients) if (c.online) n += 1;
    return n;
  }

  /** Advances every client by one sample period. */
  step(t: number, dtSec: number, level: number, random: Random): void {
    this.drift = Math.max(-1, Math.min(1, this.drift * 0.995 + gaussian(random) * 0.03));
    const target = this.target(level);
    let count = this.onlineCount();

    for (const client of this.clients) {
      if (!client.online || client.resident || count <= MIN_ONLINE) continue;
      const leave = (dtSec / MEAN_SESSION_S) * (count > target ? 4 : 1);
      if (random() < leave) {
        this.disconnect(client, t);
        count -= 1;
      }
    }
    const deficit = target - count;
    const arrive = deficit > 0 ? Math.min(0.8, 0.08 * deficit) : 0.01;
    if (count < MAX_ONLINE && random() < arrive) {
      this.arrive(random, t);
      count += 1;
    }

    for (const client of this.clients) {
      if (!client.online) continue;
      if (client.auth === 'preauth' && random() < dtSec / MEAN_PORTAL_WAIT_S) this.signIn(client, random, t);
      else if (client.auth === 'auth' && t >= client.authUntil) client.auth = 'preauth';
      this.moveTraffic(client, dtSec, level, random);
      client.lastSeen = t;
    }
    this.forget(t);
  }

  /** Brings the traffic of online clients to its usual level without counting bytes. */
  settle(level: number, random: Random): void {
    for (let i = 0; i < 20; i += 1) {
      for (const client of this.clients) if (client.online) this.moveTraffic(client, 0, level, random);
    }
  }

  /** Clients online now or seen in the last 24 hours. */
  seenCount(t: number): number {
    let n = 0;
    for (const c of this.clients) if (c.online || c.lastSeen > t - DAY_MS) n += 1;
    return n;
  }

  private target(level: number): number {
    const raw = Math.round(MIN_ONLINE + (MAX_ONLINE - MIN_ONLINE) * level + 4 * this.drift);
    return Math.max(MIN_ONLINE, Math.min(MAX_ONLINE, raw));
  }

  private moveTraffic(client: SimClient, dtSec: number, level: number, random: Random): void {
    const profile = PROFILES[client.kind];
    if (client.auth === 'preauth') {
      // Only the portal page and its assets get through before sign-in.
      client.downRate = Math.floor(random() * 1500);
      client.upRate = Math.floor(random() * 400);
      client.conns = 1 + Math.floor(random() * 3);
    } else {
      client.burst = 1 + (client.burst - 1) * 0.85;
      if (random() < 0.02) client.burst = 3 + random() * 9;
      const wanted = profile.down * client.appetite * (0.35 + 0.9 * level) * client.burst * Math.exp(0.35 * gaussian(random));
      client.downRate = Math.max(0, Math.round(0.6 * client.downRate + 0.4 * wanted));
      client.upRate = Math.max(0, Math.round(client.downRate * profile.upRatio * (0.7 + 0.6 * random())));
      const conns = profile.conns * (0.5 + level) * Math.sqrt(client.appetite);
      client.conns = Math.max(1, Math.round(0.8 * client.conns + 0.2 * conns + gaussian(random)));
    }
    client.downBytes += client.downRate * dtSec;
    client.upBytes += client.upRate * dtSec;
  }

  private arrive(random: Random, t: number): SimClient {
    const returning = this.clients.filter((c) => !c.online && !c.resident);
    if (returning.length > 0 && (random() < 0.55 || this.clients.length >= KNOWN_MAX)) {
      const client = pick(random, returning);
      this.connect(client, random, t);
      return client;
    }
    return this.arriveNew(random, t);
  }

  private arriveNew(random: Random, t: number): SimClient {
    const kind = pickKind(random);
    const hostname = random() < 0.06 ? pick(random, HOSTILE_HOSTNAMES) : pick(random, HOSTNAMES[kind]);
    const client = this.newClient(random, kind, hostname, this.freeAddress(random), t, false);
    this.connect(client, random, t);
    this.clients.push(client);
    return client;
  }

  private newClient(random: Random, kind: DeviceKind, hostname: string, ip: string, t: number, resident: boolean): SimClient {
    return {
      mac: makeMac(random, kind),
      ip,
      hostname,
      kind,
      resident,
      online: false,
      auth: 'none',
      username: '',
      since: t,
      lastSeen: t,
      authUntil: 0,
      upRate: 0,
      downRate: 0,
      upBytes: 0,
      downBytes: 0,
      conns: 0,
      appetite: Math.exp(0.6 * gaussian(random)),
      burst: 1,
    };
  }

  private connect(client: SimClient, random: Random, t: number): void {
    client.online = true;
    client.since = t;
    client.lastSeen = t;
    client.upBytes = 0;
    client.downBytes = 0;
    client.upRate = 0;
    client.downRate = 0;
    client.conns = 1 + Math.floor(random() * 3);
    client.auth = !PROFILES[client.kind].portal ? 'none' : client.authUntil > t ? 'auth' : 'preauth';
  }

  private signIn(client: SimClient, random: Random, t: number): void {
    client.auth = 'auth';
    if (client.username === '') client.username = makeUsername(random);
    client.authUntil = t + SIGN_IN_VALIDITY_MS;
  }

  private disconnect(client: SimClient, t: number): void {
    client.online = false;
    client.lastSeen = t;
    client.upRate = 0;
    client.downRate = 0;
    client.conns = 0;
  }

  private freeAddress(random: Random): string {
    const used = new Set(this.clients.map((c) => c.ip));
    const size = POOL_LAST - POOL_FIRST + 1;
    const offset = Math.floor(random() * size);
    for (let i = 0; i < size; i += 1) {
      const ip = `${this.lanPrefix}${POOL_FIRST + ((offset + i) % size)}`;
      if (!used.has(ip)) return ip;
    }
    // KNOWN_MAX is below the pool size, so a free address always exists.
    throw new Error('LAN address pool exhausted');
  }

  /** Drops clients not seen for a day, then the longest-gone ones above the bound. */
  private forget(t: number): void {
    for (let i = this.clients.length - 1; i >= 0; i -= 1) {
      const c = this.clients[i]!;
      if (!c.online && c.lastSeen <= t - DAY_MS) this.clients.splice(i, 1);
    }
    while (this.clients.length > KNOWN_MAX) {
      let oldest = -1;
      for (let i = 0; i < this.clients.length; i += 1) {
        const c = this.clients[i]!;
        if (!c.online && (oldest < 0 || c.lastSeen < this.clients[oldest]!.lastSeen)) oldest = i;
      }
      if (oldest < 0) break;
      this.clients.splice(oldest, 1);
    }
  }
}
