/**
 * Sizes and rates as `whatif` reads them (core/util/size.ts): units as written, decimal and
 * binary, whole bytes only, and one clear reason for anything else.
 */
import { describe, expect, test } from 'vitest';
import { parseRate, parseSize, sizeFlagText } from '../core/util/size.js';

const ok = (text: string) => {
  const r = parseSize(text);
  if (!r.ok) throw new Error(r.why);
  return r.value;
};
const why = (r: ReturnType<typeof parseSize>) => (r.ok ? `ok ${r.value}` : r.why);

describe('parseSize', () => {
  test.each([
    ['0', 0],
    ['4096', 4096],
    ['4096B', 4096],
    ['1kB', 1000],
    ['1KB', 1000],
    ['1MB', 1_000_000],
    ['1GB', 1_000_000_000],
    ['1TB', 1_000_000_000_000],
    ['1KiB', 1024],
    ['512MiB', 512 * 1024 ** 2],
    ['50GiB', 50 * 1024 ** 3],
    ['1TiB', 1024 ** 4],
    ['1.5GiB', 1.5 * 1024 ** 3],
    ['.5KiB', 512],
    ['64 KiB', 65536],
    [' 10MB ', 10_000_000],
  ])('%s is %d bytes', (text, bytes) => {
    expect(ok(text)).toBe(bytes);
  });

  test('decimal and binary units differ as written: 1TB is 10^12 bytes, 1TiB 2^40', () => {
    expect(ok('1TiB') - ok('1TB')).toBe(1024 ** 4 - 1e12);
  });

  test.each([
    ['', /empty value/],
    ['-5', /cannot be negative/],
    ['abc', /is not a size: expected a number and a unit/],
    ['1XB', /unknown unit "XB"; the units are B, kB, MB/],
    ['10Mb', /Mb is bits; sizes here are in bytes \(write MB/],
    ['1tib', /did you mean TiB\?/],
    ['1PB', /the largest unit is TB or TiB/],
    ['0.1KiB', /not a whole number of bytes/],
    ['9999999TiB', /more than 9007199254740991 bytes/],
    ['1e6', /"1e6" is not a size/],
  ])('%j is refused: %s', (text, reason) => {
    const r = parseSize(text);
    expect(r.ok).toBe(false);
    expect(why(r)).toMatch(reason);
    // One line, naming what was given.
    expect(why(r)).not.toContain('\n');
  });
});

describe('parseRate', () => {
  test.each([
    ['10MB/s', 10_000_000],
    ['512KiB/s', 524288],
    ['1000B/s', 1000],
    ['1000/s', 1000],
    ['10 MB / s', 10_000_000],
    ['0', 0],
    ['0B/s', 0],
  ])('%s is %d bytes a second', (text, bytes) => {
    const r = parseRate(text);
    expect(r).toEqual({ ok: true, value: bytes });
  });

  test.each([
    ['10MB', /is a size, not a rate: add \/s \(e.g. 10MB\/s\)/],
    ['10MB/min', /a rate is per second, written \/s/],
    ['x/s', /"x\/s" is not a rate: .*e.g. 10MB\/s/],
    ['10Mb/s', /"10Mb\/s": unknown unit "Mb": Mb is bits/],
    ['fast', /is not a rate: expected a size per second/],
  ])('%j is refused: %s', (text, reason) => {
    const r = parseRate(text);
    expect(r.ok).toBe(false);
    expect(why(r)).toMatch(reason);
  });
});

test('sizeFlagText writes a size as an option takes it back, in the largest unit that is whole', () => {
  expect([1024 ** 4, 1e12, 50 * 1024 ** 3, 1e6, 1024, 1000, 1536, 7].map(sizeFlagText)).toEqual(['1TiB', '1TB', '50GiB', '1MB', '1KiB', '1kB', '1536', '7']);
  for (const n of [1024 ** 4, 3e9, 1536, 10 * 1024 ** 2]) expect(ok(sizeFlagText(n))).toBe(n);
});
