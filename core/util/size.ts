/**
 * Sizes and rates as people write them on a command line (`whatif --tiered 1TiB --produce
 * 10MB/s`): a number and a unit, read exactly as written. Decimal units are powers of 1000
 * (kB, MB, GB, TB), binary ones powers of 1024 (KiB, MiB, GiB, TiB), as IEC 80000-13 and
 * Kafka's own docs use them (`segment.bytes` 1073741824 is 1 GiB); a plain number is bytes.
 * A rate is a size per second (`10MB/s`). Pure: no I/O, nothing thrown; the caller names the
 * flag. Printing goes through core/util/format.ts (formatBytes) and core/sim/world/bandwidth.ts
 * (formatRate), the formatters every output uses.
 */

/** Each unit a size may be written in, and its bytes. `K` and `k` both mean 1000 (kB is the SI spelling). */
const UNITS: Readonly<Record<string, number>> = {
  B: 1,
  kB: 1e3,
  KB: 1e3,
  MB: 1e6,
  GB: 1e9,
  TB: 1e12,
  KiB: 1024,
  MiB: 1024 ** 2,
  GiB: 1024 ** 3,
  TiB: 1024 ** 4,
};

/** The units, as a help text or a message lists them. */
export const SIZE_UNITS = 'B, kB, MB, GB, TB (powers of 1000) or KiB, MiB, GiB, TiB (powers of 1024)';

export type Parsed = { ok: true; value: number } | { ok: false; why: string };

const NUMBER_AND_UNIT = /^(\d+(?:\.\d+)?|\.\d+)\s*([A-Za-z]*)$/;

/** What a unit that is not one of ours probably meant, or null. */
function unitHint(unit: string): string | null {
  // Bits: Mb, Gbit, ... (a network's rate is often given in bits).
  if (/^[kKMGT]?(b|bit|bits)$/.test(unit)) return `${unit} is bits; sizes here are in bytes (write ${unit.replace(/b(it|its)?$/, 'B')} for bytes, or divide a bit count by 8)`;
  const lower = unit.toLowerCase();
  for (const u of Object.keys(UNITS)) if (u.toLowerCase() === lower) return `did you mean ${u}? Units are written as given: ${SIZE_UNITS}`;
  if (/^[pPeE]i?B$/.test(unit)) return `${unit} is more than any partition here (the largest unit is TB or TiB)`;
  return null;
}

/**
 * A size in bytes: `1TiB`, `50GiB`, `1GB`, `512MiB`, `1.5GiB`, `4096`, `64 KiB`. The
 * result must be a whole number of bytes, at most 2^53 - 1.
 */
export function parseSize(text: string): Parsed {
  const s = text.trim();
  if (s === '') return { ok: false, why: `expected a size such as 1TiB, 50GiB or 1048576 (bytes), got an empty value` };
  if (s.startsWith('-')) return { ok: false, why: `a size cannot be negative, got "${text}"` };
  const m = NUMBER_AND_UNIT.exec(s);
  if (m === null) return { ok: false, why: `"${text}" is not a size: expected a number and a unit (${SIZE_UNITS}), e.g. 1TiB, 50GiB or 1048576 for bytes` };
  const unit = m[2] === '' ? 'B' : m[2];
  const scale = Object.hasOwn(UNITS, unit) ? UNITS[unit] : undefined;
  if (scale === undefined) {
    const hint = unitHint(unit);
    return { ok: false, why: `"${text}": unknown unit "${unit}"${hint !== null ? `: ${hint}` : `; the units are ${SIZE_UNITS}`}` };
  }
  const bytes = exactProduct(m[1], scale);
  if (bytes === null) return { ok: false, why: `"${text}" is not a whole number of bytes (${m[1]} x ${scale})` };
  if (!Number.isSafeInteger(bytes)) return { ok: false, why: `"${text}" is more than ${Number.MAX_SAFE_INTEGER} bytes (2^53 - 1), the most this model counts` };
  return { ok: true, value: bytes };
}

/**
 * A rate in bytes per second: a size and `/s` (`10MB/s`, `512KiB/s`, `1000B/s`); `0` alone
 * is no load. Whole bytes per second.
 */
export function parseRate(text: string): Parsed {
  const s = text.trim();
  if (/^0+(\.0*)?$/.test(s)) return { ok: true, value: 0 };
  const m = /^(.*?)\s*\/\s*(s|sec|second)$/.exec(s);
  if (m === null) {
    const asSize = parseSize(s);
    if (asSize.ok) return { ok: false, why: `"${text}" is a size, not a rate: add /s (e.g. ${s}/s)` };
    if (/\/\s*\w+$/.test(s)) return { ok: false, why: `"${text}": a rate is per second, written /s (e.g. 10MB/s)` };
    return { ok: false, why: `"${text}" is not a rate: expected a size per second such as 10MB/s or 512KiB/s (${SIZE_UNITS})` };
  }
  const size = parseSize(m[1]);
  if (!size.ok) {
    const why = size.why.replace(/"[^"]*"/, `"${text}"`).replace('is not a size', 'is not a rate').replace('e.g. 1TiB, 50GiB or 1048576 for bytes', 'e.g. 10MB/s or 512KiB/s');
    return { ok: false, why };
  }
  return size;
}

/**
 * `digits` (a decimal numeral, perhaps with a fraction) times `scale`, computed exactly in
 * integers: null when the product is not a whole number.
 */
function exactProduct(digits: string, scale: number): number | null {
  const [whole, frac = ''] = digits.split('.');
  const den = 10n ** BigInt(frac.length);
  const num = BigInt((whole === '' ? '0' : whole) + frac) * BigInt(scale);
  if (num % den !== 0n) return null;
  const v = num / den;
  return v > BigInt(Number.MAX_SAFE_INTEGER) ? Number.MAX_SAFE_INTEGER + 1 : Number(v);
}

/**
 * Bytes as a size a flag takes back, in the largest unit that writes them whole (1TiB,
 * 50GiB, 1MB, 1000): what a command line would say. For reading, core/util/format.ts.
 */
export function sizeFlagText(n: number): string {
  for (const unit of ['TiB', 'TB', 'GiB', 'GB', 'MiB', 'MB', 'KiB', 'kB'] as const) {
    const size = UNITS[unit];
    if (n >= size && n % size === 0) return `${n / size}${unit}`;
  }
  return String(n);
}
