/**
 * Bisection over ordered arrays (segments, batches, chunk ids, step boundaries): the index
 * where a predicate that holds on a prefix stops holding. One place instead of a loop
 * written out at every ordered lookup.
 */

/** The first index in [lo, hi) whose element is not `before` (hi when all are), for an `xs` on which `before` holds on a prefix. */
export function firstNotBefore<T>(xs: readonly T[], before: (x: T) => boolean, lo = 0, hi = xs.length): number {
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (before(xs[mid])) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
