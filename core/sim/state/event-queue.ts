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
  /**
   * The sequence of the next event pushed with `pushFirst` (counts up from FIRST_SEQ_BASE;
   * absent until the first). Such events come before every event `push` queued for the
   * same time, as a scenario's timeline events do (they are queued first).
   */
  firstSeq?: number;
}

/** Below every sequence `push` gives (those start at 0). */
const FIRST_SEQ_BASE = -1_000_000_000;

export function newQueue<T>(): EventQueue<T> {
  return { heap: [], nextSeq: 0 };
}

function less<T>(a: Queued<T>, b: Queued<T>): boolean {
  return a.at < b.at || (a.at === b.at && a.seq < b.seq);
}

export function push<T>(q: EventQueue<T>, at: number, ev: T): void {
  insert(q.heap, { at, seq: q.nextSeq++, ev });
}

/**
 * Queues an event before every event `push` queued for the same time (and after those
 * `pushFirst` queued before it): the exhaustive checker's injected faults, which a saved
 * counterexample writes as timeline events (core/check/exhaustive.ts).
 */
export function pushFirst<T>(q: EventQueue<T>, at: number, ev: T): void {
  const seq = q.firstSeq ?? FIRST_SEQ_BASE;
  q.firstSeq = seq + 1;
  insert(q.heap, { at, seq, ev });
}

/** The queued events due at the earliest time, in the order the queue gives them (time, sequence). */
export function dueFirst<T>(q: EventQueue<T>): Queued<T>[] {
  const h = q.heap;
  if (h.length === 0) return [];
  const at = h[0].at;
  const out: Queued<T>[] = [];
  for (const item of h) if (item.at === at) out.push(item);
  return out.sort((a, b) => a.seq - b.seq);
}

/** Takes one queued event out of the queue (any, not only the first). */
export function remove<T>(q: EventQueue<T>, item: Queued<T>): void {
  const h = q.heap;
  const i = h.indexOf(item);
  if (i < 0) throw new Error('remove: the event is not queued');
  const last = h.pop()!;
  if (i === h.length) return;
  h[i] = last;
  siftDown(h, siftUp(h, i));
}

function insert<T>(h: Queued<T>[], item: Queued<T>): void {
  h.push(item);
  siftUp(h, h.length - 1);
}

/** Moves h[i] up to its place; returns where it ended. */
function siftUp<T>(h: Queued<T>[], i: number): number {
  const item = h[i];
  while (i > 0) {
    const parent = (i - 1) >> 1;
    const p = h[parent];
    if (!less(item, p)) break;
    h[i] = p;
    i = parent;
  }
  h[i] = item;
  return i;
}

function siftDown<T>(h: Queued<T>[], i: number): void {
  const item = h[i];
  const n = h.length;
  for (;;) {
    const l = 2 * i + 1;
    if (l >= n) break;
    const r = l + 1;
    const c = r < n && less(h[r], h[l]) ? r : l;
    if (!less(h[c], item)) break;
    h[i] = h[c];
    i = c;
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
  if (h.length > 0) {
    h[0] = last;
    siftDown(h, 0);
  }
  return top;
}
