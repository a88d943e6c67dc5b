import { h, render } from 'preact';
import { act } from 'preact/test-utils';
import { vi } from 'vitest';
import { PortalApp } from '../src/portal-app.js';
import { fakeWindow, findAll, type FakeElement, type FakeWindow } from './portal-test-dom.js';

export interface SentRequest {
  method: string;
  path: string;
  body: Record<string, unknown> | undefined;
}

/** An answer of the fake /portal-api: an envelope (status 200) or a raw reply. */
export type FakeReply = Record<string, unknown> | { status: number; raw: string };
export type FakeRoute = FakeReply | ((body: Record<string, unknown> | undefined) => FakeReply);

export const ok = (data: unknown = {}) => ({ success: true, data });
export const fail = (msg: string, errors?: Record<string, string>) => ({ success: false, msg, ...(errors ? { errors } : {}) });

export const ZONE = {
  welcome: 'Welcome to Harbour Cafe',
  contact: 'Front desk, ext. 100',
  copyright: '© Harbour Cafe',
  logintext: 'Choose how to sign in.',
  chargetext: 'Vouchers are sold at the counter.',
  tos: 'Be kind. No illegal use.',
  methods: ['voucher', 'local', 'password', 'onekey'],
};

export const stateOf = (zone: Record<string, unknown> = ZONE, extra: Record<string, unknown> = {}) =>
  ok({ authorized: false, zone, ...extra });

export interface MountedPortal {
  window: FakeWindow;
  requests: SentRequest[];
  routes: Record<string, FakeRoute>;
  text(): string;
  byTestId(id: string): FakeElement;
  maybe(id: string): FakeElement | undefined;
  all(test: (element: FakeElement) => boolean): FakeElement[];
  type(testId: string, value: string): Promise<void>;
  check(testId: string, checked: boolean): Promise<void>;
  click(testId: string): Promise<void>;
  submit(testId: string): Promise<void>;
  select(testId: string, value: string): Promise<void>;
  settle(): Promise<void>;
  path(): string;
  unmount(): void;
}

interface MountOptions {
  routes?: Record<string, FakeRoute>;
  languages?: string[];
  /** Globals to override (e.g. a localStorage that throws). */
  globals?: Record<string, unknown>;
}

/**
 * Renders the whole portal app at `href` against a fake /portal-api. Routes are keyed
 * "GET state", "POST login", …; a request nothing answers fails the test loudly.
 */
export async function mountPortal(href: string, options: MountOptions = {}): Promise<MountedPortal> {
  const { window, globals } = fakeWindow(new URL(href, 'http://10.0.0.1:2050').href, options.languages ?? ['en-US']);
  const requests: SentRequest[] = [];
  const routes = { ...(options.routes ?? {}) };
  const fetch = vi.fn(async (url: string, init: RequestInit = {}) => {
    const method = init.method ?? 'GET';
    const path = url.replace(/^\/portal-api\//, '');
    const body = typeof init.body === 'string' ? (JSON.parse(init.body) as Record<string, unknown>) : undefined;
    requests.push({ method, path, body });
    const route = routes[`${method} ${path}`];
    if (!route) throw new Error(`no fake answer for ${method} ${url}`);
    const reply = typeof route === 'function' ? route(body) : route;
    if ('raw' in reply && typeof reply.raw === 'string') return new Response(reply.raw, { status: Number(reply.status) });
    return new Response(JSON.stringify(reply), { status: 200, headers: { 'content-type': 'application/json' } });
  });
  for (const [name, value] of Object.entries({ ...globals, fetch, ...(options.globals ?? {}) })) vi.stubGlobal(name, value);

  const container = window.document.createElement('div');
  window.document.body.appendChild(container);
  // A few rounds: an answer may navigate, and the next page then loads its own data.
  const settle = async () => {
    for (let round = 0; round < 3; round++) {
      await act(async () => {
        for (let i = 0; i < 4; i++) await new Promise((resolve) => setTimeout(resolve, 0));
      });
    }
  };
  await act(() => {
    render(h(PortalApp, null), container as unknown as Element);
  });
  await settle();

  const all = (test: (element: FakeElement) => boolean) => findAll(container, test);
  const maybe = (id: string) => all((e) => e.getAttribute('data-testid') === id)[0];
  const byTestId = (id: string) => {
    const found = maybe(id);
    if (!found) throw new Error(`no element [data-testid=${id}] in: ${container.textContent}`);
    return found;
  };
  const fire = async (element: FakeElement, type: string) => {
    await act(() => {
      element.dispatch(type);
    });
    await settle();
  };
  return {
    window,
    requests,
    routes,
    text: () => container.textContent,
    byTestId,
    maybe,
    all,
    settle,
    type: async (testId, value) => {
      const input = byTestId(testId);
      input.value = value;
      await fire(input, 'input');
    },
    check: async (testId, checked) => {
      const input = byTestId(testId);
      input.checked = checked;
      await fire(input, 'change');
    },
    click: (testId) => fire(byTestId(testId), 'click'),
    submit: (testId) => fire(byTestId(testId), 'submit'),
    select: async (testId, value) => {
      const input = byTestId(testId);
      input.value = value;
      await fire(input, 'change');
    },
    path: () => window.location.pathname + window.location.search,
    unmount: () => {
      render(null, container as unknown as Element);
      vi.unstubAllGlobals();
    },
  };
}
