import { checkUci } from './uci-check.js';

/**
 * A file format a domain renders (nftables, dnsmasq, tc, pppd options …). The domain that
 * brings a format registers it with its checkers; the engine knows only the two below. A
 * rendered file names its format in `check`, and an unknown name fails the install.
 */
export interface FileFormat {
  name: string;
  /**
   * The format's own tool run on the candidate file where it is installed (the linux
   * driver), e.g. `nft -c -f`. Absent: `builtin` is the only check.
   */
  command?: (path: string) => readonly string[];
  /**
   * A strict structural check of our own: every line plain syntax, no NUL. The sim driver runs
   * only this; the linux driver runs it too, before `command`. Returns the problem or null.
   */
  builtin?: (content: string) => string | null;
  /** A change to any file of this format makes every file of it live again, in render order. */
  replayTogether?: boolean;
}

const noNul = (content: string): string | null => (content.includes('\0') ? 'NUL byte' : null);

/** Formats of the engine itself: files a service of the daemon reads, and UCI packages. */
export const ENGINE_FORMATS: readonly FileFormat[] = [
  { name: 'none' },
  { name: 'uci', builtin: checkUci },
];

export class UnknownFormatError extends Error {}

/** Every format the domains brought, by name; a format declared twice is a programming error. */
export class FormatRegistry {
  private readonly byName = new Map<string, FileFormat>();

  constructor(formats: readonly FileFormat[]) {
    for (const format of [...ENGINE_FORMATS, ...formats]) {
      if (this.byName.has(format.name)) throw new Error(`file format ${format.name} is declared twice`);
      this.byName.set(format.name, format);
    }
  }

  get(name: string): FileFormat {
    const format = this.byName.get(name);
    if (!format) throw new UnknownFormatError(`no domain brings the file format ${JSON.stringify(name)}`);
    return format;
  }

  /** The builtin check of a format; a NUL byte fails every format. */
  builtinCheck(name: string, content: string): string | null {
    return noNul(content) ?? this.get(name).builtin?.(content) ?? null;
  }
}
