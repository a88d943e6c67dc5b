import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import { apGroup, apMacFilter, linkPair, wirelessSsid } from '@portico/schema';
import { adminClient, CONDITION_WAIT, get, json, post, startDaemon, writeConfirmed, type Client, type Harness } from './daemon-harness.js';
import { wirelessServiceOf } from '../src/domains/wireless/wireless-module.js';
// The AP agent as it runs on an access point, with its radios recorded instead of driven.
import { AgentSession } from '../../ap-agent/src/ap-agent-session.js';
import { FileConfigStore } from '../../ap-agent/src/ap-agent-config-store.js';
import { agentSettings, SERIAL } from '../../ap-agent/test/agent-fixtures.js';
import { FakeClock } from '../../ap-agent/test/fake-clock.js';
import { FakeRadioDriver } from '../../ap-agent/test/fake-radio-driver.js';
import { recordedSystem } from '../../ap-agent/test/session-harness.js';

let h: Harness;
let admin: Client;
let agent: AgentSession;
const clock = new FakeClock();
const driver = new FakeRadioDriver(() => clock.now());

beforeAll(async () => {
  h = await startDaemon();
  admin = await adminClient(h);
});
afterAll(async () => {
  await agent?.stop();
  await h.close();
});

const api = async (path: string, query = '') => json(await get(h.app, admin, `/api/${path}${query}`));

describe('the AP agent and the controller, end to end over one link', () => {
  test('the agent is adopted, runs the SSID the console configured, and its station reaches the station list; a black-listed station is refused at once', async () => {
    const group = await writeConfirmed(h, admin, apGroup, { action: 'add', name: 'Office', channel2g: 6, enabled5g: false, macFilter: 'blacklist', roaming: true });
    await writeConfirmed(h, admin, wirelessSsid, { action: 'add', group, ssid: 'Office 办公', security: 'wpa3sae', key: 'office-passphrase', band: '2g' });
    const service = wirelessServiceOf(h.app.appContext)!;
    const settings = agentSettings();
    agent = new AgentSession({
      identity: { serial: SERIAL, firmware: 'Debian 12 portico-agent', model: 'portico-ap', platform: 'ap' },
      settings,
      driver,
      store: new FileConfigStore(settings.stateDir),
      system: recordedSystem(),
      firmwareKey: null,
      clock,
      random: () => 0.5,
      unit: () => ({ load: [0.1, 0.1, 0.1], uptime: 7200 }),
      connect: async () => {
        const pair = linkPair(SERIAL, '127.0.0.1:50000');
        service.controller.attach(pair.controller);
        return pair.device;
      },
    });
    await agent.start();
    await vi.waitFor(async () => expect((await api('ac/apbind')).data.items.map((r: { serial: string }) => r.serial)).toEqual([SERIAL]), CONDITION_WAIT);
    expect(driver.applied).toHaveLength(0);

    const adopted = json(await post(h.app, admin, '/api/ac/apcmd', { action: 'adopt', serials: [SERIAL], group }));
    expect(adopted.data.done).toEqual([SERIAL]);
    await vi.waitFor(() => expect(driver.applied).toHaveLength(1), CONDITION_WAIT);
    const plan = JSON.stringify(driver.applied[0]);
    expect(plan).toContain('Office 办公');
    expect(plan).toContain('office-passphrase');
    await vi.waitFor(async () => expect((await api('ac/aplist')).data.items[0]).toMatchObject({ status: 'adopted', configOutcome: 'applied', online: true }), CONDITION_WAIT);

    driver.snapshotValue = {
      radios: [{ index: 0, band: '2G', channel: 6, width: 20, txPowerDbm: 20 }],
      bsses: [
        {
          radioIndex: 0,
          ifname: 'wlan0',
          interfaceName: 'lan',
          bssid: '02:aa:bb:cc:dd:00',
          ssid: 'Office 办公',
          mode: 'ap',
          band: '2G',
          channel: 6,
          associations: [{ station: '02:11:22:33:44:01', rssi: -52, rx_bytes: 1200, tx_bytes: 3400, connected: 30, inactive: 0 }],
        },
      ],
    };
    await clock.advance(60_000);
    await vi.waitFor(async () => expect((await api('ac/stalist')).data.items).toMatchObject([{ mac: '02:11:22:33:44:01', rssi: -52, ssid: 'Office 办公' }]), CONDITION_WAIT);

    await writeConfirmed(h, admin, apMacFilter, { action: 'add', list: 'blacklist', mac: '02:11:22:33:44:01', group });
    await vi.waitFor(() => expect(driver.applied).toHaveLength(2), CONDITION_WAIT);
    expect(JSON.stringify(driver.applied[1])).toContain('02:11:22:33:44:01');
    await vi.waitFor(async () => expect((await api('ac/aplist')).data.items[0].configOutcome).toBe('applied'), CONDITION_WAIT);
  });
});
