/**
 * Numbers for people, the one set every output uses (CLI tables, the Markdown report, the
 * page): bytes in powers of 2 (as the model counts them), durations in milliseconds, US
 * dollars and counts. The tables, the page and the charts print the same quantity at
 * different precisions (a chart tick needs fewer digits than a table cell), so the
 * differences are options here rather than copies of the formatter.
 */

export const BYTE_UNITS = ['B', 'KiB', 'MiB', 'GiB', 'TiB'] as const;
export type ByteUnit = (typeof BYTE_UNITS)[number];

/** The largest unit at or below `n` bytes, up to `largest`, and its size in bytes. */
export function byteUnit(n: number, largest: ByteUnit = 'TiB'): { unit: ByteUnit; bytes: number } {
  const top = BYTE_UNITS.indexOf(largest);
  let i = 0;
  while (i < top && n >= 1024 ** (i + 1)) i++;
  return { unit: BYTE_UNITS[i], bytes: 1024 ** i };
}

export interface BytesFormat {
  /** Digits after the point; without it, three significant digits at most ("1.5 KiB", "3.59 MiB", "100 KiB"). */
  decimals?: number;
  /** Keep trailing zeros ("1.0 MiB") instead of dropping them ("1 MiB"). */
  keepZeros?: boolean;
  /** The largest unit used (TiB unless given). */
  largest?: ByteUnit;
  /** Always this unit, whatever the size (a chart's ticks share the unit of its axis). */
  unit?: ByteUnit;
}

/** Bytes as B, KiB, MiB, GiB or TiB: whole bytes below 1 KiB unless a unit is forced. */
export function formatBytes(n: number, o: BytesFormat = {}): string {
  const u = o.unit !== undefined ? { unit: o.unit, bytes: 1024 ** BYTE_UNITS.indexOf(o.unit) } : byteUnit(n, o.largest);
  if (o.unit === undefined && u.unit === 'B') return `${n} B`;
  const v = n / u.bytes;
  const decimals = o.decimals ?? (v >= 100 ? 0 : v >= 10 ? 1 : 2);
  const text = v.toFixed(decimals);
  return `${o.keepZeros ? text : String(Number(text))} ${u.unit}`;
}

/** A fixed-point figure without its trailing zeros ("0.00120" to "0.0012", "5.00" to "5"). */
function dropZeros(fixed: string): string {
  return fixed.replace(/(\.\d*?)0+$/, '$1').replace(/\.$/, '');
}

export interface UsdFormat {
  /** Exactly this many digits after the point, trailing zeros dropped (a chart tick: as many as its step needs). */
  decimals?: number;
  /** Below $1, this many significant digits (at least 4 decimals, at most 12) instead of millionths. */
  significant?: number;
  /** Whole dollars from this amount up. */
  wholeFrom?: number;
  /** The figure as given (the JSON output's rounded figure, printed in full). */
  asIs?: boolean;
}

/**
 * Dollars: cents from $1 up; below, the millionths the JSON output keeps (costs of a short
 * run are fractions of a cent) without trailing zeros, or as many significant digits as asked.
 */
export function formatUsd(usd: number, o: UsdFormat = {}): string {
  if (o.asIs) return `$${usd}`;
  if (usd === 0) return '$0';
  if (o.decimals !== undefined) return `$${dropZeros(usd.toFixed(o.decimals))}`;
  if (o.wholeFrom !== undefined && usd >= o.wholeFrom) return `$${usd.toFixed(0)}`;
  if (Math.abs(usd) >= 1) return `$${usd.toFixed(2)}`;
  if (o.significant !== undefined) return `$${usd.toFixed(Math.min(12, Math.max(4, o.significant - 1 - Math.floor(Math.log10(usd)))))}`;
  const s = dropZeros(usd.toFixed(6));
  return s === '0' || s === '-0' ? '< $0.000001' : `$${s}`;
}

export interface MsFormat {
  /** 'ms' (the default): "1500 ms"; 's': "1.5 s"; 'auto': seconds from 1000 ms up. */
  unit?: 'ms' | 's' | 'auto';
}

/** A duration (or a simulated time) in milliseconds; seconds to one decimal, trailing zero dropped. */
export function formatMs(ms: number, o: MsFormat = {}): string {
  const unit = o.unit ?? 'ms';
  if (unit === 's' || (unit === 'auto' && ms >= 1000)) return `${+(ms / 1000).toFixed(1)} s`;
  return `${ms} ms`;
}

export interface CountFormat {
  /** Thousands as "1.5k" (an axis tick), instead of digits grouped by commas ("1,500"). */
  compact?: boolean;
}

export function formatCount(n: number, o: CountFormat = {}): string {
  if (o.compact) return Math.abs(n) >= 1000 ? `${+(n / 1000).toFixed(1)}k` : `${n}`;
  return n.toLocaleString('en-US');
}

/** Bytes per second as people say it: decimal GB/s or MB/s, and the link's Gbit/s. */
export function formatRate(bytesPerSec: number): string {
  const gbit = (bytesPerSec * 8) / 1e9;
  const rate = bytesPerSec >= 1e9 ? `${Number((bytesPerSec / 1e9).toFixed(3))} GB/s` : `${Number((bytesPerSec / 1e6).toFixed(3))} MB/s`;
  return `${rate} (${Number(gbit.toFixed(3))} Gbit/s)`;
}

/** Bytes per second, short, for the page: "1.25 GB/s", "125 MB/s", "62.5 MB/s", "200 kB/s" (decimal units, as links are sold). */
export function formatRateShort(bytesPerSec: number): string {
  if (bytesPerSec >= 1e9) return `${Number((bytesPerSec / 1e9).toFixed(2))} GB/s`;
  if (bytesPerSec >= 1e6) return `${Number((bytesPerSec / 1e6).toFixed(bytesPerSec >= 1e8 ? 0 : 1))} MB/s`;
  if (bytesPerSec >= 1e3) return `${Number((bytesPerSec / 1e3).toFixed(bytesPerSec >= 1e5 ? 0 : 1))} kB/s`;
  return `${Math.round(bytesPerSec)} B/s`;
}
