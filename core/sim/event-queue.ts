/**
 * The kernel's event queue: a binary heap ordered by (time, sequence). Equal times keep
 * insertion order, so a run never depends on the heap's internal layout. Plain data.
 */
export interface Queued<T> {
  at: number;
  seq: number;
  ev: T;
}

export interface EventQueue<T> {
  heap: Queued<T>[];
  nextSeq: number;
}

export function newQueue<T>(): EventQueue<T> {
  return { heap: [], nextSeq: 0 };
}

function less<T>(a: Queued<T>, b: Queued<T>): boolean {
  return a.at < b.at || (a.at === b.at && a.seq < b.seq);
}

export function push<T>(q: EventQueue<T>, at: number, ev: T): void {
  const item: Queued<T> = { at, seq: q.nextSeq++, ev };
  const h = q.heap;
  h.push(item);
  let i = h.length - 1;
  while (i > 0) {
    const parent = (i - 1) >> 1;
    if (!less(h[i], h[parent])) break;
    [h[i], h[parent]] = [h[parent], h[i]];
    i = parent;
  }
}

export function peek<T>(q: EventQueue<T>): Queued<T> | undefined {
  return q.heap[0];
}

export function pop<T>(q: EventQueue<T>): Queued<T> | undefined {
  const h = q.heap;
  if (h.length === 0) return undefined;
  const top = h[0];
  const last = h.pop()!;
  if (h.length > 0) {
    h[0] = last;
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < h.length && less(h[l], h[m])) m = l;
      if (r < h.length && less(h[r], h[m])) m = r;
      if (m === i) break;
      [h[i], h[m]] = [h[m], h[i]];
      i = m;
    }
  }
  return top;
}
