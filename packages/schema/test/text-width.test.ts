import { describe, expect, it } from 'vitest';
import { displayWidth, ELLIPSIS, truncateToWidth } from '../src/index.js';

describe('displayWidth', () => {
  it('counts codes 1-127 as 1 and everything else as 2', () => {
    expect(displayWidth('')).toBe(0);
    expect(displayWidth('abc')).toBe(3);
    expect(displayWidth('接口')).toBe(4);
    expect(displayWidth('WAN口1')).toBe(6);
    expect(displayWidth('é')).toBe(2);
    expect(displayWidth('\u0000')).toBe(2);
    expect(displayWidth('\u007f')).toBe(1);
  });

  it('counts a surrogate pair as one character', () => {
    expect(displayWidth('🙂')).toBe(2);
    expect(displayWidth('a🙂b')).toBe(4);
  });
});

describe('truncateToWidth', () => {
  it('returns text that fits unchanged', () => {
    expect(truncateToWidth('router', 6)).toBe('router');
    expect(truncateToWidth('路由器', 6)).toBe('路由器');
  });

  it('cuts and appends an ellipsis that counts toward the width', () => {
    expect(ELLIPSIS).toBe('…');
    expect(displayWidth(ELLIPSIS)).toBe(2);
    const cut = truncateToWidth('router-gateway', 8);
    expect(cut).toBe('router…');
    expect(displayWidth(cut)).toBeLessThanOrEqual(8);
  });

  it('never splits a wide character across the limit', () => {
    expect(truncateToWidth('企业存储管理', 7)).toBe('企业…');
    expect(truncateToWidth('企业存储管理', 8)).toBe('企业存…');
    expect(truncateToWidth('ab企业存储', 7)).toBe('ab企…');
    expect(truncateToWidth('a🙂🙂🙂', 5)).toBe('a🙂…');
    expect(truncateToWidth('a🙂🙂🙂', 4)).toBe('a…');
  });

  it('drops the ellipsis when even it does not fit', () => {
    expect(truncateToWidth('abc', 2)).toBe('…');
    expect(truncateToWidth('abc', 1)).toBe('a');
    expect(truncateToWidth('abc', 0)).toBe('');
  });
});
