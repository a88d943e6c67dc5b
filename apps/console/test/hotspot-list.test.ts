import { createElement, type ReactElement } from 'react';
import { renderToString } from 'react-dom/server';
import { MantineProvider } from '@mantine/core';
import { I18nextProvider } from 'react-i18next';
import { MemoryRouter } from 'react-router';
import { describe, expect, test } from 'vitest';
import { allRoutePaths, hotspotBlacklist, hotspotWhitelist, type AnyEntity } from '@portico/schema';
import { i18n } from '../src/i18n/console-i18n.js';
import { onRoute } from './console-routes.js';
import { buildFormModel, initialValues, formPayload } from '../src/pages/entity/entity-form-model.js';
import { validateForm } from '../src/pages/entity/entity-form-errors.js';
import { defaultListState } from '../src/pages/entity/entity-list-query.js';
import {
  addAddressOf,
  editAddressOf,
  formTargetOf,
  hotspotListView,
  listParams,
  lockField,
  typedEntity,
  viewColumns,
} from '../src/pages/hotspot/hotspot-list-model.js';
import { hotspotListPaths } from '../src/pages/hotspot/hotspot-list-routes.js';
import HotspotListPage, { HotspotListTable } from '../src/pages/hotspot/hotspot-list-page.js';
import { HOTSPOT_PAGES } from '../src/pages/hotspot/hotspot-pages.js';
import { CUSTOM_PAGES } from '../src/routes/page-registry.js';
import { ENTITY_ROUTES } from '../src/routes/entity-routes.js';
import { pageFor } from '../src/routes/route-table.js';

const whitelist = hotspotWhitelist as unknown as AnyEntity;
const blacklist = hotspotBlacklist as unknown as AnyEntity;
const HOSTILE = '<img src=x onerror=alert(1)>';

describe('list addresses', () => {
  test('each list and its typed sub-routes (spec §2)', () => {
    expect(hotspotListView('/hotspot/whitelistconfig')).toMatchObject({ listRoute: '/hotspot/whitelistconfig', type: null });
    expect(hotspotListView('/hotspot/whitelistconfig/macedit')?.type).toBe('mac');
    expect(hotspotListView('/hotspot/whitelistconfig/ipedit')?.type).toBe('ip');
    // Domains are stored with type url.
    expect(hotspotListView('/hotspot/blacklistconfig/domainedit/')).toMatchObject({ entity: blacklist, type: 'url' });
    expect(hotspotListView('/hotspot/blacklistconfig/urledit')).toBeNull();
    expect(hotspotListView('/hotspot/localportal')).toBeNull();
  });

  test('every page path is a menu route, so the route table serves it', () => {
    const routes = new Set(allRoutePaths());
    for (const path of Object.keys(HOTSPOT_PAGES)) expect(routes.has(path), path).toBe(true);
    expect(Object.keys(HOTSPOT_PAGES)).toEqual(['/hotspot/localportal', '/hotspot/localuser', '/hotspot/radius', ...hotspotListPaths()]);
    expect(hotspotListPaths()).toHaveLength(8);
  });

  test('registered beside the other custom pages, each path is a hand-written page', () => {
    const catalogue = {
      customPages: new Set([...Object.keys(CUSTOM_PAGES), ...Object.keys(HOTSPOT_PAGES)]),
      entityRoutes: new Set(ENTITY_ROUTES),
    };
    for (const path of Object.keys(HOTSPOT_PAGES)) expect(pageFor(path, catalogue), path).toEqual({ kind: 'custom' });
    // The terms of service page stays the generic singleton form.
    expect(pageFor('/hotspot/localportal/termofservice', catalogue)).toEqual({ kind: 'entityList', entityRoute: '/hotspot/localportal/termofservice' });
  });

  test('the page modules load', async () => {
    expect(typeof (await import('../src/pages/hotspot/portal-page.js')).default).toBe('function');
    expect(typeof (await import('../src/pages/hotspot/hotspot-list-page.js')).default).toBe('function');
  });

  test('add and edit happen on the typed sub-route', () => {
    expect(addAddressOf('/hotspot/whitelistconfig', 'url')).toBe('/hotspot/whitelistconfig/domainedit?add=1');
    expect(editAddressOf('/hotspot/blacklistconfig', 'mac', 'a&b=1')).toBe('/hotspot/blacklistconfig/macedit?id=a%26b%3D1');
    expect(formTargetOf(new URLSearchParams('add=1'))).toEqual({ mode: 'add' });
    expect(formTargetOf(new URLSearchParams('id=7&page=2'))).toEqual({ mode: 'edit', id: '7' });
    expect(formTargetOf(new URLSearchParams('page=2'))).toBeNull();
  });

  test('a typed view asks the daemon for its type only and drops the type column', () => {
    const state = { ...defaultListState(whitelist), q: 'office' };
    expect(listParams(state, 'mac')).toMatchObject({ type: 'mac', q: 'office', page: 1 });
    expect(listParams(state, null)).not.toHaveProperty('type');
    expect(viewColumns(hotspotListView('/hotspot/whitelistconfig')!)).toEqual(['type', 'value', 'comment']);
    expect(viewColumns(hotspotListView('/hotspot/whitelistconfig/ipedit')!)).toEqual(['value', 'comment']);
  });
});

describe('typed form', () => {
  test('the type field offers its one value and starts on it', () => {
    const entity = typedEntity(whitelist, 'mac');
    expect(typedEntity(whitelist, 'mac')).toBe(entity);
    expect(entity.route).toBeUndefined();
    const model = buildFormModel(entity, 'add');
    const type = model.fields.find((f) => f.name === 'type')!;
    expect(type.options.map((o) => o.value)).toEqual(['mac']);
    expect(type.labelKey).toBe('hotspotWhitelist.field.type');
    const values = initialValues(entity, model);
    expect(values.type).toBe('mac');
    expect(formPayload(model, { ...values, value: '00:11:22:33:44:55' })).toMatchObject({ type: 'mac', value: '00:11:22:33:44:55' });
  });

  test('the schema accepts that type only, and checks the value against it', () => {
    const entity = typedEntity(blacklist, 'url');
    const model = buildFormModel(entity, 'add');
    expect(validateForm(entity, model, { type: 'url', value: '*.example.com', comment: '' })).toEqual({});
    expect(validateForm(entity, model, { type: 'ip', value: '10.0.0.1', comment: '' })).toHaveProperty('type', 'validation.option');
    expect(validateForm(entity, model, { type: 'url', value: '10.0.0.0/8', comment: '' })).toHaveProperty('value');
    expect(validateForm(entity, model, { type: 'url', value: HOSTILE, comment: '' })).toHaveProperty('value');
  });

  test('locking leaves the declared entity untouched', () => {
    lockField(whitelist, 'type', 'ip');
    expect(whitelist.route).toBe('/hotspot/whitelistconfig');
    const model = buildFormModel(whitelist, 'add');
    expect(model.fields.find((f) => f.name === 'type')!.options.map((o) => o.value)).toEqual(['mac', 'url', 'ip']);
  });
});

function render(page: ReactElement, url: string, lng = 'en-US'): string {
  void i18n.changeLanguage(lng);
  return renderToString(
    createElement(I18nextProvider, { i18n }, createElement(MantineProvider, null, createElement(MemoryRouter, { initialEntries: [url] }, onRoute(url, page)))),
  );
}

describe('list pages', () => {
  test('the list of every type links to the typed sub-routes and adds through them', () => {
    const html = render(createElement(HotspotListPage), '/hotspot/whitelistconfig');
    expect(html).toContain('White list');
    for (const id of ['hotspot-list-tab-all', 'hotspot-list-tab-mac', 'hotspot-list-tab-ip', 'hotspot-list-tab-url']) expect(html).toContain(`data-testid="${id}"`);
    for (const type of ['mac', 'ip', 'url']) expect(html).toContain(`data-testid="hotspot-list-add-${type}"`);
    expect(html).toContain('Add MAC address');
    expect(html).toContain('Add Domain');
  });

  test('a typed sub-route adds its own type only', () => {
    const html = render(createElement(HotspotListPage), '/hotspot/blacklistconfig/domainedit');
    expect(html).toContain('Black list');
    expect(html).toContain('data-testid="hotspot-list-add-url"');
    expect(html).not.toContain('data-testid="hotspot-list-add-mac"');
    expect(html).toMatch(/aria-selected="true"[^>]*data-testid="hotspot-list-tab-url"|data-testid="hotspot-list-tab-url"[^>]*aria-selected="true"/);
  });

  test('?add=1 on a typed sub-route is the add form with the type fixed', () => {
    const html = render(createElement(HotspotListPage), '/hotspot/whitelistconfig/ipedit?add=1');
    expect(html).toContain('data-testid="entity-form"');
    expect(html).toContain('Add: White list');
    expect(html).toMatch(/<input[^>]*data-testid="field-type"[^>]*value="IP address"|<input[^>]*value="IP address"[^>]*data-testid="field-type"/);
  });

  test('Chinese labels on the list', () => {
    const html = render(createElement(HotspotListPage), '/hotspot/whitelistconfig/macedit', 'zh-CN');
    expect(html).toContain('添加MAC 地址');
    expect(html).toContain('全部条目');
    void i18n.changeLanguage('en-US');
  });

  test('hostile values and comments are shown as text', () => {
    const view = hotspotListView('/hotspot/whitelistconfig')!;
    void i18n.changeLanguage('en-US');
    const html = renderToString(
      createElement(
        I18nextProvider,
        { i18n },
        createElement(
          MantineProvider,
          null,
          createElement(HotspotListTable, {
            view,
            items: [
              { id: 'r1', type: 'url', value: HOSTILE, comment: `"><script>alert(2)</script>` },
              { id: 'r2', type: 'mac', value: '00:11:22:33:44:55', comment: '' },
            ],
            loading: false,
            onEdit: () => undefined,
            onDelete: () => undefined,
          }),
        ),
      ),
    );
    expect(html).not.toContain('<img src=x');
    expect(html).not.toContain('<script>');
    expect(html).toContain('&lt;img src=x onerror=alert(1)&gt;');
    expect(html).toContain('&quot;&gt;&lt;script&gt;alert(2)&lt;/script&gt;');
    expect(html).toContain('Domain');
    expect(html).toContain('data-testid="entity-edit-r2"');
  });
});
