/** Numbers for people: bytes in powers of 2 (as the model counts them) and US dollars. */

/** Bytes as B, KiB, MiB, GiB or TiB, with three significant digits at most. */
export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  const units = ['KiB', 'MiB', 'GiB', 'TiB'];
  let v = n / 1024;
  let u = 0;
  while (v >= 1024 && u < units.length - 1) {
    v /= 1024;
    u++;
  }
  return `${v >= 100 ? Math.round(v) : Number(v.toFixed(v >= 10 ? 1 : 2))} ${units[u]}`;
}

/**
 * Dollars: cents from $1 up; below, the millionths the JSON output keeps (costs of a
 * short run are fractions of a cent), without trailing zeros.
 */
export function formatUsd(usd: number): string {
  if (usd === 0) return '$0';
  if (Math.abs(usd) >= 1) return `$${usd.toFixed(2)}`;
  const s = usd.toFixed(6).replace(/0+$/, '').replace(/\.$/, '');
  return s === '0' || s === '-0' ? '< $0.000001' : `$${s}`;
}
