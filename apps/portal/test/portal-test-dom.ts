/**
 * A minimal DOM for rendering the portal in Node: the node, element, text and event pieces
 * Preact touches, plus the window globals the app reads (location, history, navigator,
 * storage). Enough to render pages, type into fields, click and submit.
 */
export class FakeNode {
  parentNode: FakeNode | null = null;
  childNodes: FakeNode[] = [];
  constructor(readonly nodeType: number) {}

  get firstChild(): FakeNode | null {
    return this.childNodes[0] ?? null;
  }

  get nextSibling(): FakeNode | null {
    if (!this.parentNode) return null;
    const siblings = this.parentNode.childNodes;
    return siblings[siblings.indexOf(this) + 1] ?? null;
  }

  appendChild(child: FakeNode): FakeNode {
    return this.insertBefore(child, null);
  }

  insertBefore(child: FakeNode, reference: FakeNode | null): FakeNode {
    child.parentNode?.removeChild(child);
    const index = reference ? this.childNodes.indexOf(reference) : -1;
    if (index < 0) this.childNodes.push(child);
    else this.childNodes.splice(index, 0, child);
    child.parentNode = this;
    return child;
  }

  removeChild(child: FakeNode): FakeNode {
    const index = this.childNodes.indexOf(child);
    if (index >= 0) this.childNodes.splice(index, 1);
    child.parentNode = null;
    return child;
  }

  remove(): void {
    this.parentNode?.removeChild(this);
  }

  get textContent(): string {
    return this.childNodes.map((c) => c.textContent).join('');
  }
}

export class FakeText extends FakeNode {
  constructor(public data: string) {
    super(3);
  }

  get nodeValue(): string {
    return this.data;
  }

  override get textContent(): string {
    return this.data;
  }
}

export interface FakeEvent {
  type: string;
  target: FakeElement;
  currentTarget: FakeElement | null;
  button: number;
  metaKey: boolean;
  ctrlKey: boolean;
  shiftKey: boolean;
  altKey: boolean;
  defaultPrevented: boolean;
  preventDefault(): void;
  stopPropagation(): void;
}

type Listener = (event: FakeEvent) => void;

export class FakeElement extends FakeNode {
  readonly attributes = new Map<string, string>();
  readonly style = { cssText: '', setProperty: () => undefined };
  private readonly listeners = new Map<string, Set<Listener>>();
  // Properties Preact sets directly (as a browser element has them).
  value = '';
  checked = false;
  disabled = false;
  // Lower-case handler slots make Preact use the DOM event names ("click", not "Click").
  onclick = null;
  oninput = null;
  onchange = null;
  onsubmit = null;

  constructor(
    readonly localName: string,
    readonly namespaceURI = 'http://www.w3.org/1999/xhtml',
  ) {
    super(1);
  }

  get nodeName(): string {
    return this.localName.toUpperCase();
  }

  setAttribute(name: string, value: unknown): void {
    this.attributes.set(name, String(value));
  }

  getAttribute(name: string): string | null {
    return this.attributes.get(name) ?? null;
  }

  hasAttribute(name: string): boolean {
    return this.attributes.has(name);
  }

  removeAttribute(name: string): void {
    this.attributes.delete(name);
  }

  addEventListener(type: string, listener: Listener): void {
    if (!this.listeners.has(type)) this.listeners.set(type, new Set());
    this.listeners.get(type)!.add(listener);
  }

  removeEventListener(type: string, listener: Listener): void {
    this.listeners.get(type)?.delete(listener);
  }

  /** Runs listeners here and on every ancestor (bubbling). */
  dispatch(type: string): FakeEvent {
    let stopped = false;
    const event: FakeEvent = {
      type,
      target: this,
      currentTarget: null,
      button: 0,
      metaKey: false,
      ctrlKey: false,
      shiftKey: false,
      altKey: false,
      defaultPrevented: false,
      preventDefault() {
        this.defaultPrevented = true;
      },
      stopPropagation() {
        stopped = true;
      },
    };
    for (let node: FakeNode | null = this; node && !stopped; node = node.parentNode) {
      if (!(node instanceof FakeElement)) continue;
      event.currentTarget = node;
      for (const listener of node.listeners.get(type) ?? []) listener.call(node, event);
    }
    return event;
  }
}

export class FakeDocument extends FakeNode {
  readonly documentElement = new FakeElement('html');
  readonly body = new FakeElement('body');
  title = '';

  constructor() {
    super(9);
    this.appendChild(this.documentElement);
    this.documentElement.appendChild(this.body);
  }

  createElement(name: string): FakeElement {
    return new FakeElement(name);
  }

  createElementNS(namespace: string, name: string): FakeElement {
    return new FakeElement(name, namespace);
  }

  createTextNode(data: string): FakeText {
    return new FakeText(data);
  }
}

/** Every element below `root` (depth first) that passes `test`. */
export function findAll(root: FakeNode, test: (element: FakeElement) => boolean): FakeElement[] {
  const out: FakeElement[] = [];
  const walk = (node: FakeNode) => {
    if (node instanceof FakeElement && test(node)) out.push(node);
    node.childNodes.forEach(walk);
  };
  walk(root);
  return out;
}

export class FakeLocation {
  private url: URL;
  constructor(href: string) {
    this.url = new URL(href);
  }
  get href() {
    return this.url.href;
  }
  get origin() {
    return this.url.origin;
  }
  get pathname() {
    return this.url.pathname;
  }
  get search() {
    return this.url.search;
  }
  assign(to: string) {
    this.url = new URL(to, this.url);
  }
}

export class FakeStorage {
  readonly items = new Map<string, string>();
  getItem(key: string) {
    return this.items.get(key) ?? null;
  }
  setItem(key: string, value: string) {
    this.items.set(key, String(value));
  }
}

export interface FakeWindow {
  document: FakeDocument;
  location: FakeLocation;
  storage: FakeStorage;
  /** Addresses pushed through history, in order. */
  pushed: string[];
  popstate: Set<() => void>;
}

/** The window globals the portal reads; pass them to vi.stubGlobal. */
export function fakeWindow(href: string, languages: string[]): { window: FakeWindow; globals: Record<string, unknown> } {
  const document = new FakeDocument();
  const location = new FakeLocation(href);
  const storage = new FakeStorage();
  const win: FakeWindow = { document, location, storage, pushed: [], popstate: new Set() };
  const globals: Record<string, unknown> = {
    document,
    location,
    localStorage: storage,
    navigator: { language: languages[0] ?? '', languages },
    history: {
      pushState: (_state: unknown, _title: string, to: string) => {
        location.assign(to);
        win.pushed.push(to);
      },
    },
    addEventListener: (type: string, listener: () => void) => {
      if (type === 'popstate') win.popstate.add(listener);
    },
    removeEventListener: (type: string, listener: () => void) => {
      if (type === 'popstate') win.popstate.delete(listener);
    },
    scrollTo: () => undefined,
  };
  return { window: win, globals };
}
