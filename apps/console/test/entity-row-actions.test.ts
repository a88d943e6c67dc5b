import { createElement } from 'react';
import { renderToString } from 'react-dom/server';
import { MantineProvider } from '@mantine/core';
import { I18nextProvider } from 'react-i18next';
import { MemoryRouter } from 'react-router';
import { beforeEach, describe, expect, test, vi } from 'vitest';
import { entityByPath, networkInterface, type AnyEntity } from '@portico/schema';

const apiPost = vi.fn();
vi.mock('../src/api/api-client.js', () => ({ apiPost, apiGet: vi.fn() }));
const { postRowAction, rowActionsOf } = await import('../src/pages/entity/entity-api.js');
const { i18n } = await import('../src/i18n/console-i18n.js');
const { default: EntityListPage } = await import('../src/pages/entity/entity-list-page.js');
const { CurrentRouteContext } = await import('../src/routes/current-route.js');

const iface = networkInterface as unknown as AnyEntity;

beforeEach(() => apiPost.mockReset());

describe('row commands of a list', () => {
  test('a WAN that obtains its address offers reconnect; a static WAN or a LAN does not', () => {
    expect(rowActionsOf(iface, { ifname: 'wan', role: 'wan', proto: 'dhcp' }).map((a) => a.key)).toEqual(['reconnect']);
    expect(rowActionsOf(iface, { ifname: 'wan', role: 'wan', proto: 'pppoe' }).map((a) => a.key)).toEqual(['reconnect']);
    expect(rowActionsOf(iface, { ifname: 'wan', role: 'wan', proto: 'static' })).toEqual([]);
    expect(rowActionsOf(iface, { ifname: 'lan', role: 'lan', proto: 'static' })).toEqual([]);
  });

  test('the command posts the declared parameter from the row to its path', async () => {
    apiPost.mockResolvedValue({ success: true, data: { ifname: 'wan2' } });
    const [action] = rowActionsOf(iface, { ifname: 'wan2', role: 'wan', proto: 'dhcp' });
    await postRowAction(action!, { ifname: 'wan2', role: 'wan', proto: 'dhcp' });
    expect(apiPost).toHaveBeenCalledWith('network/reconnect', { ifname: 'wan2' });
  });

  test('every row command and link has its label in every language', async () => {
    for (const lang of ['en-US', 'zh-CN', 'zh-TW']) {
      expect(i18n.exists('networkInterface.action.reconnect', { lng: lang }), lang).toBe(true);
      expect(i18n.exists('networkInterface.action.reconnectDone', { lng: lang }), lang).toBe(true);
    }
  });

  function renderList(entity: AnyEntity, path: string, subRoutes: string[]): string {
    void i18n.changeLanguage('en-US');
    const route = { path, module: 'm', label: 'menu.connectionlimit', permission: 'modify' as const, menuPath: path, subRoutes, page: { kind: 'entityList' as const, entityRoute: path } };
    return renderToString(
      createElement(
        I18nextProvider,
        { i18n },
        createElement(
          MantineProvider,
          null,
          createElement(
            MemoryRouter,
            { initialEntries: [path] },
            createElement(CurrentRouteContext.Provider, { value: route }, createElement(EntityListPage, { entity })),
          ),
        ),
      ),
    );
  }

  test('links of a list (device-wide settings of the connection limits) render as buttons', () => {
    const entity = entityByPath('sessionlimit/rules');
    expect(entity?.links?.map((l) => l.route)).toEqual(['/firewall/connectionlimit/settings']);
    const html = renderList(entity!, '/firewall/connectionlimit', ['/firewall/connectionlimit/settings']);
    expect(html).toContain('data-testid="entity-link-settings"');
    expect(html).toContain('Limits and timeouts');
  });

  test('a link to a sub-route this menu does not route is not shown (the IPsec log without vlan)', () => {
    const vpn = entityByPath('vpnclient')!;
    const reduced = renderList(vpn, '/netconf/vpnclient', ['/netconf/vpnclient/pptpadd', '/netconf/vpnclient/l2tpadd']);
    expect(reduced).not.toContain('entity-link-ipseclog');
    expect(reduced).toContain('data-testid="entity-add-pptp"');
    expect(reduced).not.toContain('entity-add-ipsec');
    const full = renderList(vpn, '/netconf/vpnclient', ['/netconf/vpnclient/ipsecadd', '/netconf/vpnclient/ipseclog']);
    expect(full).toContain('data-testid="entity-link-ipseclog"');
    expect(full).toContain('Add IPsec');
  });
});
