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
  // Sift up: move parents down into the hole until the item's place is found.
  let i = h.length;
  h.push(item);
  while (i > 0) {
    const parent = (i - 1) >> 1;
    const p = h[parent];
    if (!less(item, p)) break;
    h[i] = p;
    i = parent;
  }
  h[i] = item;
}

export function peek<T>(q: EventQueue<T>): Queued<T> | undefined {
  return q.heap[0];
}

export function pop<T>(q: EventQueue<T>): Queued<T> | undefined {
  const h = q.heap;
  if (h.length === 0) return undefined;
  const top = h[0];
  const last = h.pop()!;
  const n = h.length;
  if (n > 0) {
    // Sift down: move the smaller child up into the hole until `last` fits there.
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= n) break;
      const r = l + 1;
      const c = r < n && less(h[r], h[l]) ? r : l;
      if (!less(h[c], last)) break;
      h[i] = h[c];
      i = c;
    }
    h[i] = last;
  }
  return top;
}
