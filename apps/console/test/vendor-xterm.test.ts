import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';

/**
 * The vendored xterm.js (src/vendor/xterm): its one change to upstream's code, the joined cell's
 * `setFromCharData`, run from the shipped file's own text, and nothing left that throws "not
 * implemented".
 */
const bundle = readFileSync(join(import.meta.dirname, '../src/vendor/xterm/xterm.js'), 'utf8');

interface JoinedCell {
  fg: number;
  bg: number;
  setFromCharData(value: [number, string, number, number]): void;
  getAsCharData(): [number, string, number, number];
  getChars(): string;
  getWidth(): number;
}

/** The JoinedCellData class as the bundle defines it, over a stand-in for its AttributeData base. */
function joinedCellClass(): new (cell: { fg: number; bg: number }, chars: string, width: number) => JoinedCell {
  const start = bundle.indexOf('class l extends a.AttributeData{');
  const end = bundle.indexOf('t.JoinedCellData=l;', start);
  expect(start).toBeGreaterThan(0);
  expect(end).toBeGreaterThan(start);
  const source = bundle.slice(start, end);
  return new Function('a', `${source}return l;`)({ AttributeData: class {} });
}

describe('vendored xterm.js', () => {
  test('nothing in it throws "not implemented"', () => {
    expect(bundle).not.toMatch(/not implemented/i);
  });

  test('a joined cell set from char data reads back the same char data', () => {
    const JoinedCellData = joinedCellClass();
    const cell = new JoinedCellData({ fg: 7, bg: 3 }, '=>', 2);
    expect(cell.getAsCharData()).toEqual([7, '=>', 2, 2097151]);
    cell.setFromCharData([9, '!==', 3, 2097151]);
    expect(cell.getAsCharData()).toEqual([9, '!==', 3, 2097151]);
    expect([cell.getChars(), cell.getWidth(), cell.bg]).toEqual(['!==', 3, 3]);
  });
});
