import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { adminClient, get, post, startDaemon, type Client, type Harness } from './daemon-harness.js';

/*
 * Spec §7 as spelled: every GET and POST path the spec lists (spec-api-calls.json, a copy of
 * the spec's list) answers under /api in each area the daemon has built, even where the area
 * also answers under finer paths of its own. A path that answers 404 in a built area fails.
 */

interface SpecCall {
  path: string;
  area: string;
}
const SPEC = JSON.parse(readFileSync(new URL('./spec-api-calls.json', import.meta.url), 'utf8')) as { get: SpecCall[]; post: SpecCall[] };

/** Areas with paths that answer. */
const BUILT_AREAS = [
  'Session/auth',
  'Dashboard',
  'Network',
  'Status',
  'SmartQoS (flow)',
  'Firewall',
  'System (admin/sysconf/rsa)',
  'Hotspot (auth/portal)',
  'Wireless/CPE (ac)',
  'VPN server (auth/{name})',
];

/** Areas nothing of which is built yet. */
const AREAS_NOT_BUILT = ['Application', 'Cloud/vendor', 'Storage'];

/**
 * Paths of built areas whose functions are not built yet: they answer 404 until they are, and
 * then leave this list (the last test keeps it honest).
 */
const FUNCTIONS_NOT_BUILT: Record<'get' | 'post', readonly string[]> = {
  get: [],
  post: [
    // sysconf/disk's writes (format, mount) belong to storage; its read lists the audit's disks.
    'sysconf/disk',
  ],
};

let h: Harness;
let admin: Client;
beforeAll(async () => {
  h = await startDaemon();
  admin = await adminClient(h);
});
afterAll(async () => {
  await h.close();
});

/** The status a path answers the administrator with; POST sends the spec's default action. */
async function statusOf(method: 'get' | 'post', path: string): Promise<number> {
  const url = `/api/${path}${path.includes('?') ? '&' : '?'}_=${h.clock.ms}`;
  const res = method === 'get' ? await get(h.app, admin, url) : await post(h.app, admin, url, { action: 'get' });
  return res.statusCode;
}

const callsOf = (method: 'get' | 'post', built: boolean) =>
  SPEC[method].filter((call) => BUILT_AREAS.includes(call.area) === built && !FUNCTIONS_NOT_BUILT[method].includes(call.path));

describe('spec §7 calls', () => {
  test('every area of the list is declared built or not built', () => {
    const areas = new Set([...SPEC.get, ...SPEC.post].map((call) => call.area));
    expect([...areas].sort()).toEqual([...BUILT_AREAS, ...AREAS_NOT_BUILT].sort());
  });

  for (const method of ['get', 'post'] as const) {
    test(`every ${method.toUpperCase()} path of a built area answers`, async () => {
      const missing: string[] = [];
      for (const call of callsOf(method, true)) if ((await statusOf(method, call.path)) === 404) missing.push(`${call.area}: ${call.path}`);
      expect(missing).toEqual([]);
    });
  }

  test('the paths listed as not built yet still answer 404, and nothing of an area not built answers', async () => {
    const answering: string[] = [];
    for (const method of ['get', 'post'] as const) {
      const unbuilt = [...FUNCTIONS_NOT_BUILT[method], ...SPEC[method].filter((call) => AREAS_NOT_BUILT.includes(call.area)).map((call) => call.path)];
      for (const path of unbuilt) if ((await statusOf(method, path)) !== 404) answering.push(`${method.toUpperCase()} ${path}`);
    }
    expect(answering).toEqual([]);
  });
});
