import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { apGroup, apMacFilter, SSIDS_PER_GROUP_MAX, wirelessSsid } from '@portico/schema';
import { adminClient, get, json, post, startDaemon, writeConfirmed, type Client, type Harness } from './daemon-harness.js';

let h: Harness;
let admin: Client;
beforeAll(async () => {
  h = await startDaemon();
  admin = await adminClient(h);
});
afterAll(async () => {
  await h.close();
});

const write = async (path: string, body: Record<string, unknown>) => json(await post(h.app, admin, `/api/${path}`, body));

describe('AP groups, their SSIDs and the MAC filter through the API', () => {
  test('an SSID names an existing group; a group takes at most its maximum of SSIDs', async () => {
    const group = await writeConfirmed(h, admin, apGroup, { action: 'add', name: 'Lobby', channel2g: 6 });
    const orphan = await write(wirelessSsid.path, { action: 'add', group: '00000000-0000-0000-0000-000000000000', ssid: 'Nowhere', key: 'nowhere-pass' });
    expect(orphan).toMatchObject({ success: false, errors: { group: 'validation.wireless.unknownGroup' } });
    for (let i = 0; i < SSIDS_PER_GROUP_MAX; i++) {
      await writeConfirmed(h, admin, wirelessSsid, { action: 'add', group, ssid: `Lobby ${i}`, key: `lobby-pass-${i}` });
    }
    const over = await write(wirelessSsid.path, { action: 'add', group, ssid: 'One too many', key: 'too-many-pass' });
    expect(over).toMatchObject({ success: false, msg: 'msg.ssidMax' });
    // Reads never carry the passphrase.
    const listed = json(await get(h.app, admin, `/api/${wirelessSsid.path}`));
    expect(JSON.stringify(listed)).not.toContain('lobby-pass-0');
  });

  test('a group named by SSIDs or filter entries is not deleted; an empty one is', async () => {
    const used = await writeConfirmed(h, admin, apGroup, { action: 'add', name: 'Used' });
    await writeConfirmed(h, admin, apMacFilter, { action: 'add', list: 'blacklist', mac: '02:00:00:00:00:09', group: used });
    expect(await write(apGroup.path, { action: 'delete', ids: [used] })).toMatchObject({ success: false, msg: 'msg.wirelessGroupInUse' });
    const empty = await writeConfirmed(h, admin, apGroup, { action: 'add', name: 'Empty' });
    expect(await write(apGroup.path, { action: 'delete', ids: [empty] })).toMatchObject({ success: true });
  });

  test('field rules land on their fields: channel for the country, roaming range, SSID length', async () => {
    const group = await write(apGroup.path, { action: 'add', name: 'US', country: 'US', channel2g: 13, roamingThreshold: -60 });
    expect(group).toMatchObject({ success: false, errors: { channel2g: 'validation.wifi.channel', roamingThreshold: 'validation.wifi.roamingThreshold' } });
    const ssid = await write(wirelessSsid.path, { action: 'add', group: 'x', ssid: 'S'.repeat(33), key: 'k' });
    expect(ssid).toMatchObject({ success: false, errors: { ssid: 'validation.ssid.length', key: 'validation.wpaKey.length' } });
    const filter = await write(apMacFilter.path, { action: 'add', mac: '02:00:00:00:00:0a', group: 'no such group' });
    expect(filter.success).toBe(false);
  });
});
