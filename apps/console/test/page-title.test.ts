import { createElement, Suspense } from 'react';
import { prerenderToNodeStream } from 'react-dom/static';
import { MantineProvider } from '@mantine/core';
import { I18nextProvider } from 'react-i18next';
import { MemoryRouter } from 'react-router';
import { describe, expect, test } from 'vitest';
import { LANGUAGES } from '@portico/i18n/load';
import { childPath, MENU_MAP } from '@portico/schema';
import { i18n } from '../src/i18n/console-i18n.js';
import type { RouteEntry } from '../src/routes/route-table.js';
import { RoutedPage } from '../src/shell/routed-page.js';
import { ROUTE_TABLE } from './console-routes.js';

/**
 * A page's title is the menu label that leads to it. Every page of the route map is rendered
 * as the app routes it (its lazy chunk loaded, its route current) and its heading read, in
 * each language; a page added to the map is covered without touching this file. Effects do
 * not run in this renderer, so no page reaches the API.
 */

const menuPages = ROUTE_TABLE.filter((entry) => entry.path === entry.menuPath);

async function renderRoute(entry: RouteEntry): Promise<string> {
  const page = createElement(Suspense, { fallback: null }, createElement(RoutedPage, { entry }));
  const app = createElement(
    I18nextProvider,
    { i18n },
    createElement(MantineProvider, null, createElement(MemoryRouter, { initialEntries: [entry.path] }, page)),
  );
  // Unlike renderToString, prerendering waits for the page's lazy chunk.
  const { prelude } = await prerenderToNodeStream(app);
  let html = '';
  for await (const chunk of prelude) html += String(chunk);
  return html;
}

/** The page's top-level headings (h1–h3; sections below the title are h4). */
function headings(html: string): Array<{ testId: string | undefined; text: string }> {
  return [...html.matchAll(/<h([1-3])([^>]*)>([\s\S]*?)<\/h\1>/g)].map((m) => ({
    testId: /data-testid="([^"]*)"/.exec(m[2]!)?.[1],
    text: m[3]!.replace(/<[^>]*>/g, ''),
  }));
}

function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#x27;');
}

describe('page titles', () => {
  test('the route table holds every page of the route map', () => {
    const mapPages = MENU_MAP.flatMap((section) => section.children.map((child) => childPath(section, child)));
    expect(menuPages.map((entry) => entry.path).sort()).toEqual([...mapPages].sort());
  });

  test.each(menuPages.map((entry) => [entry.path, entry] as const))('%s is titled with its menu label', async (_path, entry) => {
    for (const lang of LANGUAGES) {
      await i18n.changeLanguage(lang);
      const label = i18n.t(entry.label);
      expect(i18n.exists(entry.label), `${lang}: ${entry.label}`).toBe(true);
      expect(headings(await renderRoute(entry)), lang).toEqual([{ testId: 'page-title', text: escapeHtml(label) }]);
    }
  });
});
