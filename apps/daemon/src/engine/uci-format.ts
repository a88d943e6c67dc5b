/**
 * The UCI configuration format of OpenWrt (/etc/config/<package>): sections of a type with an
 * optional name, holding options (one value) and lists (many values). Values are always
 * written single-quoted; a quote inside a value is written as '\'' the way uci itself does.
 */

export interface UciSection {
  type: string;
  /** Named sections are addressed as <package>.<name>; anonymous ones have none. */
  name?: string;
  options: Record<string, string | string[]>;
}

export type UciPackage = UciSection[];

const IDENTIFIER = /^[A-Za-z0-9_]+$/;

export class UciError extends Error {}

/** Section types may also carry `-` (netifd's `bridge-vlan`); uci allows it there, not in names. */
const SECTION_TYPE = /^[A-Za-z0-9_][A-Za-z0-9_-]*$/;

function assertIdentifier(value: string, what: string): void {
  const ok = what === 'section type' ? SECTION_TYPE.test(value) : IDENTIFIER.test(value);
  if (!ok) throw new UciError(`${what} ${JSON.stringify(value)} is not a UCI identifier`);
}

function quote(value: string): string {
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(value)) throw new UciError('UCI values cannot carry control characters');
  return `'${value.replace(/'/g, `'\\''`)}'`;
}

export function serializeUci(pkg: UciPackage): string {
  const out: string[] = [];
  for (const section of pkg) {
    assertIdentifier(section.type, 'section type');
    if (section.name !== undefined) assertIdentifier(section.name, 'section name');
    out.push(section.name === undefined ? `config ${section.type}` : `config ${section.type} ${quote(section.name)}`);
    for (const [key, value] of Object.entries(section.options)) {
      assertIdentifier(key, 'option name');
      if (Array.isArray(value)) for (const item of value) out.push(`\tlist ${key} ${quote(item)}`);
      else out.push(`\toption ${key} ${quote(value)}`);
    }
    out.push('');
  }
  return out.join('\n');
}

/** Splits one line into words, honouring single and double quotes and backslash escapes. */
function words(line: string, lineNo: number): string[] {
  const result: string[] = [];
  let current = '';
  let inWord = false;
  let i = 0;
  while (i < line.length) {
    const ch = line[i]!;
    if (ch === '#' && !inWord) break;
    if (ch === ' ' || ch === '\t') {
      if (inWord) result.push(current);
      current = '';
      inWord = false;
      i++;
      continue;
    }
    inWord = true;
    if (ch === "'") {
      const end = line.indexOf("'", i + 1);
      if (end < 0) throw new UciError(`line ${lineNo}: unterminated quote`);
      current += line.slice(i + 1, end);
      i = end + 1;
    } else if (ch === '"') {
      i++;
      while (i < line.length && line[i] !== '"') {
        if (line[i] === '\\' && i + 1 < line.length) i++;
        current += line[i];
        i++;
      }
      if (i >= line.length) throw new UciError(`line ${lineNo}: unterminated quote`);
      i++;
    } else if (ch === '\\' && i + 1 < line.length) {
      current += line[i + 1];
      i += 2;
    } else {
      current += ch;
      i++;
    }
  }
  if (inWord) result.push(current);
  return result;
}

export function parseUci(text: string): UciPackage {
  const pkg: UciPackage = [];
  let section: UciSection | null = null;
  text.split('\n').forEach((raw, index) => {
    const lineNo = index + 1;
    const parts = words(raw, lineNo);
    if (parts.length === 0) return;
    const [keyword, ...args] = parts;
    if (keyword === 'package') return;
    if (keyword === 'config') {
      const [type, name] = args;
      if (!type || args.length > 2) throw new UciError(`line ${lineNo}: config takes a type and an optional name`);
      assertIdentifier(type, 'section type');
      if (name !== undefined) assertIdentifier(name, 'section name');
      section = { type, ...(name !== undefined ? { name } : {}), options: {} };
      pkg.push(section);
      return;
    }
    if (keyword === 'option' || keyword === 'list') {
      if (!section) throw new UciError(`line ${lineNo}: ${keyword} outside a section`);
      const [key, value] = args;
      if (key === undefined || value === undefined || args.length !== 2) throw new UciError(`line ${lineNo}: ${keyword} takes a name and a value`);
      assertIdentifier(key, 'option name');
      const current: UciSection = section;
      if (keyword === 'option') current.options[key] = value;
      else {
        const existing = current.options[key];
        current.options[key] = Array.isArray(existing) ? [...existing, value] : [value];
      }
      return;
    }
    throw new UciError(`line ${lineNo}: unknown keyword ${JSON.stringify(keyword)}`);
  });
  return pkg;
}
