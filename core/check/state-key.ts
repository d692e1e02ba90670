/**
 * The canonical form of a kernel state for the exhaustive checker's visited set: what
 * decides the run's future, and nothing of its history. Two checkpoints with the same key
 * continue the same way under the same choices, so the checker explores one of them.
 *
 * In the key: the clock; the brokers, links, stores and configs; every partition's
 * replicas, logs, leader epoch, ISR and remote metadata; consumers, producer acks and WAL
 * state; the counters that name future messages, requests and segments; the random
 * generator; what the invariants remember (`watch`); every machine's state and context;
 * the stores' objects (key and size); the quotas' sampled rates, fetcher lags and remote
 * reader pools. The queue is a multiset per instant: events due at
 * one time run in every order the checker allows, so their queue order is left out (the
 * timeline's events excepted, whose order among themselves is the scenario's).
 *
 * Left out (history): the step count, the trace, metrics, usage and costs, produce
 * latencies, each replica's stats (when it joined, what it pulled), the violations already
 * found, the prices and model knobs (fixed for a run), the checkers' cache (`checkCache`: it
 * remembers a function of the state, so equal states reached by different paths stay one).
 * The transfers in flight are in.
 *
 * The key is a 64-bit hash of that form (two 32-bit lanes, integer maths): at a million
 * states the chance that two different states share a key is about 3 in 100,000.
 */
import type { AnyMachineSnapshot } from 'xstate';
import { isTimelineEvent } from '../sim/loop/choices.js';
import type { Queued } from '../sim/state/event-queue.js';
import type { Checkpoint, KernelEvent, KernelState } from '../sim/state/state.js';

export function canonicalForm(cp: Checkpoint): string {
  const s = cp.state;
  const parts: string[] = [];
  parts.push(String(s.nowMs));
  parts.push(JSON.stringify(queueForm(s.queue.heap)));
  const future: Partial<KernelState> = {
    nextMsgId: s.nextMsgId,
    nextCorrelationId: s.nextCorrelationId,
    nextConsumerId: s.nextConsumerId,
    prng: s.prng,
    brokers: s.brokers,
    brokerConfig: s.brokerConfig,
    topicConfigs: s.topicConfigs,
    partitions: s.partitions,
    storeAvailable: s.storeAvailable,
    storeExtraLatencyMs: s.storeExtraLatencyMs,
    isolated: s.isolated,
    consumers: s.consumers,
    storeGroups: s.storeGroups,
    nextSegmentSeq: s.nextSegmentSeq,
    watch: s.watch,
    pendingConsumerReads: s.pendingConsumerReads,
    remoteIndexCache: s.remoteIndexCache,
    quotas: s.quotas,
    wal: s.wal,
    net: s.net,
  };
  parts.push(JSON.stringify(future));
  for (const id of Object.keys(cp.machines).sort()) {
    const m = cp.machines[id] as AnyMachineSnapshot;
    parts.push(id, JSON.stringify(m.value), JSON.stringify(m.context));
  }
  for (const store of Object.keys(cp.store).sort()) {
    const objects = (cp.store as Record<string, Record<string, { bytes: number }>>)[store];
    for (const key of Object.keys(objects).sort()) parts.push(`${store}/${key}:${objects[key].bytes}`);
  }
  return parts.join('\n');
}

/** The queue as data: the timeline's events in their order, then every other event sorted (a multiset per instant). */
function queueForm(heap: readonly Queued<KernelEvent>[]): unknown[] {
  const timeline = heap.filter((q) => isTimelineEvent(q.ev)).sort((a, b) => a.at - b.at || a.seq - b.seq);
  const others = heap
    .filter((q) => !isTimelineEvent(q.ev))
    .map((q) => `${q.at}:${JSON.stringify(q.ev)}`)
    .sort();
  return [timeline.map((q) => [q.at, q.ev]), others];
}

/** A 64-bit hash of a string, as 16 hex digits (two lanes of cyrb53's mixing). */
export function hash64(text: string, seed = 0): string {
  let h1 = 0xdeadbeef ^ seed;
  let h2 = 0x41c6ce57 ^ seed;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ c, 2654435761);
    h2 = Math.imul(h2 ^ c, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507);
  h1 ^= Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507);
  h2 ^= Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return (h2 >>> 0).toString(16).padStart(8, '0') + (h1 >>> 0).toString(16).padStart(8, '0');
}

export function stateKey(cp: Checkpoint): string {
  return hash64(canonicalForm(cp));
}
