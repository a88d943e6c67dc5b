import { createElement, type ReactElement } from 'react';
import { renderToString } from 'react-dom/server';
import { MantineProvider } from '@mantine/core';
import { I18nextProvider } from 'react-i18next';
import { MemoryRouter } from 'react-router';
import { describe, expect, test } from 'vitest';
import { i18n } from '../src/i18n/console-i18n.js';
import { RadiusTestView } from '../src/pages/hotspot/radius-test-panel.js';
import { CUSTOM_PAGES, PAGE_CATALOGUE } from '../src/routes/page-registry.js';
import { pageFor } from '../src/routes/route-table.js';

/** The RADIUS page's connectivity test, drawn on the server renderer in each language. */
function render(page: ReactElement, lang = 'en-US'): string {
  void i18n.changeLanguage(lang);
  return renderToString(createElement(I18nextProvider, { i18n }, createElement(MantineProvider, null, createElement(MemoryRouter, { initialEntries: ['/hotspot/radius'] }, page))));
}
const noop = () => undefined;

describe('RADIUS page', () => {
  test('the page is the settings form with the test panel, not a placeholder', () => {
    expect(CUSTOM_PAGES['/hotspot/radius']).toBeDefined();
    expect(pageFor('/hotspot/radius', PAGE_CATALOGUE)).toEqual({ kind: 'custom' });
  });

  test('the test says it uses the saved settings, and what the server answered', () => {
    const before = render(createElement(RadiusTestView, { busy: false, result: null, onTest: noop }));
    expect(before).toContain('The test uses the saved settings: save first.');
    expect(before).not.toContain('data-testid="radius-test-result"');
    const accepted = render(createElement(RadiusTestView, { busy: false, result: { accepted: true, rttMs: 12 }, onTest: noop }));
    expect(accepted).toContain('The server accepted the test account (12 ms).');
    const rejected = render(createElement(RadiusTestView, { busy: false, result: { accepted: false, rttMs: 7 }, onTest: noop }), 'zh-CN');
    expect(rejected).toContain('服务器已应答，拒绝了测试账号 (7 毫秒)。');
    const tw = render(createElement(RadiusTestView, { busy: false, result: null, onTest: noop }), 'zh-TW');
    expect(tw).toContain('測試使用已儲存的參數，請先儲存。');
  });
});
