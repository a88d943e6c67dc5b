import { createElement, type ReactElement } from 'react';
import { renderToString } from 'react-dom/server';
import { MantineProvider } from '@mantine/core';
import { I18nextProvider } from 'react-i18next';
import { MemoryRouter } from 'react-router';
import { beforeEach, describe, expect, test } from 'vitest';
import { i18n } from '../src/i18n/console-i18n.js';
import { ConfirmPageView, type ConfirmPageState } from '../src/pages/system-maintain/confirm-page.js';
import ConfirmPage from '../src/pages/system-maintain/confirm-page.js';
import { ApplyConfirmBanner, ApplyConfirmBarView, ApplyConfirmOutcomeNotice, ApplyConfirmRestoring } from '../src/shell/apply-confirm-bar.js';

/** First render on the server renderer: effects (timers, requests) do not run here. */
function render(element: ReactElement, url = '/dashboard'): string {
  return renderToString(
    createElement(
      I18nextProvider,
      { i18n },
      createElement(MantineProvider, null, createElement(MemoryRouter, { initialEntries: [url] }, element)),
    ),
  );
}

function tagWith(html: string, testId: string): string {
  const match = new RegExp(`<[a-z]+[^>]*data-testid="${testId}"[^>]*>`).exec(html);
  if (!match) throw new Error(`no element with data-testid="${testId}"`);
  return match[0];
}

/** Text content of the element carrying a data-testid (no nested tags expected). */
function textOf(html: string, testId: string): string {
  const match = new RegExp(`data-testid="${testId}"[^>]*>([^<]*)<`).exec(html);
  if (!match) throw new Error(`no text for data-testid="${testId}"`);
  return match[1]!;
}

const noop = () => undefined;

beforeEach(async () => {
  await i18n.changeLanguage('en-US');
});

describe('confirmation bar', () => {
  test('countdown, the two buttons and the way to confirm from the new address', () => {
    const html = render(createElement(ApplyConfirmBarView, { seconds: 87, token: 'tok-42', busy: null, onConfirm: noop, onRevert: noop }));
    expect(html).toContain('data-testid="apply-confirm-bar"');
    expect(textOf(html, 'apply-confirm-seconds')).toBe('87');
    expect(tagWith(html, 'apply-confirm-ok')).toMatch(/^<button/);
    expect(tagWith(html, 'apply-confirm-revert')).toMatch(/^<button/);
    expect(html).toContain('Revert now');
    expect(textOf(html, 'apply-confirm-link')).toBe("Confirm from another address: open /confirm#tok-42 on the device&#x27;s new address.");
  });

  test('while one action runs, neither can be pressed again', () => {
    const html = render(createElement(ApplyConfirmBarView, { seconds: 5, token: 't', busy: 'confirm', onConfirm: noop, onRevert: noop }));
    expect(tagWith(html, 'apply-confirm-ok')).toMatch(/disabled/);
    expect(tagWith(html, 'apply-confirm-revert')).toMatch(/disabled/);
  });

  test('the shell banner is empty until a write asks for confirmation', () => {
    // The server renderer reads stores in their initial state: nothing pending.
    const html = render(createElement(ApplyConfirmBanner));
    expect(html).not.toContain('apply-confirm-');
  });

  test('while the change is put back, and once after the reload', () => {
    let html = render(createElement(ApplyConfirmRestoring, { outcome: 'expired' }));
    expect(html).toContain('data-testid="apply-confirm-restoring"');
    expect(html).toContain('The time to confirm is over');
    html = render(createElement(ApplyConfirmRestoring, { outcome: 'reverted' }));
    expect(html).toContain('The previous configuration is being put back');
    html = render(createElement(ApplyConfirmOutcomeNotice, { outcome: 'reverted', onClose: noop }));
    expect(html).toContain('data-testid="apply-confirm-outcome"');
    expect(html).toContain('The change has been reverted');
    html = render(createElement(ApplyConfirmOutcomeNotice, { outcome: 'expired', onClose: noop }));
    expect(html).toContain('The time to confirm ran out');
    html = render(createElement(ApplyConfirmRestoring, { outcome: 'gone' }));
    expect(html).toContain('The device no longer waits for this confirmation');
    html = render(createElement(ApplyConfirmOutcomeNotice, { outcome: 'gone', onClose: noop }));
    expect(html).toContain('already confirmed or put back elsewhere');
  });

  test('in Chinese', async () => {
    await i18n.changeLanguage('zh-TW');
    const html = render(createElement(ApplyConfirmBarView, { seconds: 3, token: 't', busy: null, onConfirm: noop, onRevert: noop }));
    expect(html).toContain('確認新設定');
    expect(html).toContain('立即還原');
  });
});

describe('public confirm page', () => {
  const view = (state: ConfirmPageState, token = 'tok-1', now = 0) =>
    render(createElement(ConfirmPageView, { token, state, now, busy: null, onConfirm: noop, onRevert: noop }), '/confirm');

  test('the page frame and its buttons before the device has answered', () => {
    const html = render(createElement(ConfirmPage), '/confirm#tok-1');
    expect(html).toContain('data-testid="confirm-page"');
    expect(tagWith(html, 'confirm-ok')).toMatch(/^<button/);
    expect(tagWith(html, 'confirm-revert')).toMatch(/^<button/);
    expect(html).toContain('Confirm a configuration change');
    expect(html).toContain('data-testid="lang-switch"');
  });

  test('a deadline from the device shows the countdown', () => {
    const html = view({ kind: 'waiting', deadline: 45_000 }, 'tok-1', 0);
    expect(textOf(html, 'confirm-seconds')).toBe('45');
    expect(html).toContain('data-testid="confirm-ok"');
  });

  test('device unreachable: just the two buttons', () => {
    const html = view({ kind: 'waiting', deadline: null });
    expect(html).not.toContain('confirm-seconds');
    expect(html).toContain('data-testid="confirm-ok"');
    expect(html).toContain('data-testid="confirm-revert"');
  });

  test('results replace the buttons and point to the sign-in', () => {
    for (const kind of ['none', 'confirmed', 'reverted', 'expired', 'gone'] as const) {
      const html = view({ kind });
      expect(html, kind).toContain(`data-testid="confirm-result-${kind}"`);
      expect(html, kind).not.toContain('data-testid="confirm-ok"');
      expect(tagWith(html, 'confirm-sign-in')).toMatch(/href="\/login"/);
    }
  });

  test('no token in the address: says what to open, no buttons', () => {
    const html = render(createElement(ConfirmPage), '/confirm');
    expect(html).toContain('data-testid="confirm-page"');
    expect(html).toContain('data-testid="confirm-no-token"');
    expect(html).not.toContain('data-testid="confirm-ok"');
  });
});
