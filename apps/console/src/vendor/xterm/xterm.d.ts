// The part of xterm.js's API the console uses (the full typings come with @xterm/xterm).

export interface IDisposable {
  dispose(): void;
}

export interface ITheme {
  background?: string;
  foreground?: string;
  cursor?: string;
}

export interface ITerminalOptions {
  cursorBlink?: boolean;
  fontFamily?: string;
  fontSize?: number;
  scrollback?: number;
  theme?: ITheme;
}

export interface ITerminalAddon extends IDisposable {
  activate(terminal: Terminal): void;
}

export class Terminal implements IDisposable {
  constructor(options?: ITerminalOptions);
  readonly rows: number;
  readonly cols: number;
  readonly element: HTMLElement | undefined;
  open(parent: HTMLElement): void;
  write(data: string | Uint8Array, callback?: () => void): void;
  focus(): void;
  loadAddon(addon: ITerminalAddon): void;
  onData(listener: (data: string) => void): IDisposable;
  onBinary(listener: (data: string) => void): IDisposable;
  onResize(listener: (size: { rows: number; cols: number }) => void): IDisposable;
  dispose(): void;
}

export class FitAddon implements ITerminalAddon {
  activate(terminal: Terminal): void;
  fit(): void;
  proposeDimensions(): { rows: number; cols: number } | undefined;
  dispose(): void;
}
