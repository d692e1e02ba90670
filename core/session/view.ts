/**
 * The picture of a run at one moment, as plain data for the browser: per partition the
 * replicas' segments by tier and their offset markers (named as in the JSON output), the
 * remote tier with each segment's metadata state, each broker's machine states, KIP-1176's
 * fast store (the WAL objects that exist now and the chunks inside them), the bytes on
 * their way to or from each replica now (`ReplicaView.inFlight`) and the run's metrics and
 * cost so far (the figures of `metrics` in the JSON output).
 * Leaves out what the page does not draw: batches, producer state, the trace itself.
 */
import { earliestPendingUploadOffset } from '../domain/leader-rules.js';
import { logEndOffset } from '../domain/partition-log.js';
import type { RemoteSegmentState } from '../domain/remote-metadata.js';
import { WAL_METADATA_TOPIC, type WalObjectState } from '../domain/wal.js';
import type { FollowerFetcherContext } from '../machines/follower-fetcher-context.js';
import type { StoreName } from '../ports/object-store.js';
import { bytesLeftAt, interfaceLoad } from '../sim/world/bandwidth.js';
import { type CostUsd, type CrossZoneBytes, costUsd } from '../sim/state/costs.js';
import type { Kernel } from '../sim/loop/kernel.js';
import type { MachineName } from '../sim/runtime/machines.js';
import { BROKER_KEY, type KernelEventOf } from '../sim/state/state.js';
import { getBytesMs } from '../sim/world/store.js';
import { latencySummary, replicaJson, type ReplicaJson } from '../sim/loop/output.js';

export type SegmentTier = 'local' | 'both';

export interface SegmentView {
  baseOffset: number;
  endOffset: number;
  bytes: number;
  /** `both`: also held by a finished remote segment. */
  tier: SegmentTier;
  active: boolean;
}

export interface ReplicaView extends ReplicaJson {
  alive: boolean;
  segments: SegmentView[];
  /** Leader only: ListOffsets -6's answer now. */
  earliestPendingUploadOffset: number | null;
  /**
   * Follower building the remote auxiliary state after `truncateFullyAndStartAt`: the offset
   * it fetches from once TierStateMachine.start returns (the remote segment's end + 1;
   * docs/protocol.md §4.3). Until then its fetch state (`fetcher.fetchOffset`) still holds
   * the offset of the Fetch that sent it down this path (0 for an empty follower), and a
   * failed build backs off with it unchanged. Null otherwise.
   */
  pendingFetchOffset: number | null;
  machines: Record<MachineName, string>;
  /** The partition's bytes on their way to or from this replica's broker at the view's moment. */
  inFlight: ReplicaInFlightView;
}

/**
 * A replica's bytes in flight at the view's moment (`nowMs`), for this partition only. The
 * network's (core/sim/world/bandwidth.ts, docs/protocol.md §10) come from the transfers in
 * flight; the object stores' from the GETs whose answer is queued. Empty (nulls and `[]`)
 * when nothing is on its way, and always on a broker that is down.
 */
export interface ReplicaInFlightView {
  /** Transfers to the replica's broker: Fetch responses from the leader (or, after an election, from the old one). */
  receiving: NetFlowView | null;
  /** Transfers from the replica's broker: a leader's Fetch responses to its followers and to consumers. */
  sending: NetFlowView | null;
  /**
   * The replica's own GETs from an object store, one entry a store (tiered first): the
   * remote auxiliary state (tiered store) and KIP-1176's chunk reads (fast store), the
   * reads `bytesFromStore` counts. A leader's reads for consumers are left out, and so is
   * a GET that fails (its answer carries no bytes).
   */
  fromStore: StoreFlowView[];
}

/** One way of a replica's network traffic for its partition, summed over its transfers. */
export interface NetFlowView {
  transfers: number;
  /** The transfers' bytes in full. */
  bytes: number;
  /**
   * Bytes not yet sent at the view's moment: each transfer's `remaining` at its last
   * share-out less `rate x (nowMs - updatedMs)`, at least 0; summed, then rounded.
   */
  bytesLeft: number;
  /** Their rates now, summed: each transfer's max-min fair share of its interfaces, bytes per second (rounded). */
  bytesPerSec: number;
  /** One broker interface's capacity each way (`model.brokerNetworkBytesPerSec`), bytes per second. */
  linkBytesPerSec: number;
  /** The brokers at the other end, ascending. */
  peers: number[];
  /** Transfers whose other end is a client (a consumer). */
  clients: number;
}

/**
 * A replica's GETs in flight from one object store. A GET's modelled time is its first-byte
 * latency (with any jitter and extra latency) and then its range at the store's per-request
 * throughput in whole ms (core/sim/world/store.ts `getBytesMs`): its bytes are taken to arrive
 * evenly over those last ms before its answer, and none before. A whole-object GET (the
 * auxiliary state's checkpoint and snapshot) counts its first byte only: its bytes arrive
 * with the answer. With `latency: measured` a real store's time replaces the model's; the
 * split is then the model's estimate.
 */
export interface StoreFlowView {
  store: StoreName;
  gets: number;
  /** Bytes the GETs return in full. */
  bytes: number;
  /** Bytes not yet arrived at the view's moment. */
  bytesLeft: number;
  /** Bytes per second arriving now, summed (0 while every GET waits for its first byte; rounded). */
  bytesPerSec: number;
  /** The store's per-request GET throughput (`tieredGetBytesPerMs` or `walGetBytesPerMs`), bytes per second. */
  getBytesPerSec: number;
  /** GETs still waiting for their first byte. */
  waiting: number;
}

export interface RemoteSegmentView {
  segmentId: string;
  baseOffset: number;
  endOffset: number;
  state: RemoteSegmentState;
  sizeBytes: number;
}

export interface PartitionView {
  key: string;
  topic: string;
  partition: number;
  leader: number;
  leaderEpoch: number;
  isr: number[];
  tiered: boolean;
  /** KIP-1176: `wal.enable` on the partition's topic. */
  walEnabled: boolean;
  replicas: ReplicaView[];
  remoteSegments: RemoteSegmentView[];
}

/** One partition's bytes inside a WAL object. */
export interface WalChunkView {
  /** Offset of its record in the WAL metadata topic; null while the object is being put (not yet published). */
  id: number | null;
  /** `topic-partition`. */
  key: string;
  topic: string;
  partition: number;
  /** Model bytes of the chunk inside the object, inclusive. */
  range: [number, number];
  baseOffset: number;
  lastOffset: number;
  leaderEpoch: number;
}

/** A WAL object in the fast store (or on its way there, or being deleted). */
export interface WalObjectView {
  key: string;
  /** The object's sequence number in the cluster (the key's last part). */
  seq: number;
  /** The broker whose combiner wrote it. */
  broker: number;
  bytes: number;
  createdMs: number;
  state: Extract<WalObjectState, 'putting' | 'live' | 'deleting'>;
  /** In byte order. Chunks whose metadata record has expired and been forgotten are left out. */
  chunks: WalChunkView[];
}

/** The most WAL objects the view carries (the newest ones); `hiddenObjects` counts the rest. */
export const WAL_OBJECTS_SHOWN = 24;

export interface WalView {
  /** Topics with `wal.enable` on now. */
  topics: string[];
  /** The newest objects that exist now (putting, live or deleting), oldest first. */
  objects: WalObjectView[];
  /** Older objects that exist but are not in `objects`. */
  hiddenObjects: number;
  /** Records a leader holds that are in no WAL object yet (waiting for its combiner, or for a failed PUT's retry). */
  pending: Array<{ key: string; broker: number; baseOffset: number; lastOffset: number }>;
  /** `wal.combine.max.bytes`: the size that flushes an object at once (the lane's byte scale). */
  combineMaxBytes: number;
  /** The WAL metadata topic: records written in the run and retained now (`metrics.wal.metadata`). */
  metadata: { topic: string; records: number; retainedRecords: number; retainedBytes: number; peakRetainedRecords: number };
}

export interface LatencyView {
  count: number;
  latencyMsP50: number | null;
  latencyMsP99: number | null;
  latencyMsMax: number | null;
}

/** The run's figures so far, as `metrics` in the JSON output names them. */
export interface MetricsView {
  crossZoneBytes: CrossZoneBytes;
  objectStore: Record<StoreName, { puts: number; gets: number; deletes: number; bytesPut: number; bytesGot: number }>;
  produce: { acks1: LatencyView; acksAll: LatencyView };
  costUsd: CostUsd;
}

/** Each broker's network interface at this moment (core/sim/world/bandwidth.ts): transfers, bytes still to send, bytes per second. */
export interface NetworkView {
  /** The interface's capacity each way, bytes per second (0: no limit). */
  bytesPerSec: number;
  brokers: Array<{ id: number; out: InterfaceView; in: InterfaceView }>;
}

export interface InterfaceView {
  transfers: number;
  bytesLeft: number;
  bytesPerSec: number;
}

export interface RunView {
  nowMs: number;
  network: NetworkView;
  partitions: PartitionView[];
  brokers: Array<{ id: number; zone: string; alive: boolean }>;
  storeAvailable: { tiered: boolean; wal: boolean };
  kip1023Enabled: boolean;
  /** `finding`: the known finding it is (Kafka's behaviour, not a model error). */
  violations: Array<{ atMs: number; invariant: string; message: string; finding?: string }>;
  wal: WalView;
  metrics: MetricsView;
}

export function buildView(k: Kernel): RunView {
  const flows = inFlightByReplica(k);
  const partitions: PartitionView[] = k.state.partitionOrder.map((key) => {
    const part = k.state.partitions[key];
    const finished = part.remoteMetadata.filter((m) => m.state === 'COPY_SEGMENT_FINISHED');
    const inRemote = (base: number, end: number) => finished.some((m) => m.baseOffset <= base && m.endOffset >= end);
    const replicas: ReplicaView[] = part.replicas.map((b) => {
      const r = k.replica(key, b);
      const json = replicaJson(k, key, b);
      const segs = r.log.segments;
      return {
        ...json,
        alive: k.state.brokers[b].alive,
        segments: segs.map((s, i) => ({
          baseOffset: s.baseOffset,
          endOffset: s.endOffset,
          bytes: s.bytes,
          tier: s.endOffset >= s.baseOffset && inRemote(s.baseOffset, s.endOffset) ? 'both' : 'local',
          active: i === segs.length - 1,
        })),
        earliestPendingUploadOffset: part.leader === b && k.state.brokers[b].alive ? earliestPendingUploadOffset(k.leaderView(key, b)).offset : null,
        pendingFetchOffset: json.role === 'follower' ? pendingFetchOffset(k, key, b) : null,
        machines: {
          fetcher: k.machineState(b, key, 'fetcher'),
          leader: k.machineState(b, key, 'leader'),
          rlm: k.machineState(b, key, 'rlm'),
          rlmExpiration: k.machineState(b, key, 'rlmExpiration'),
          logRetention: k.machineState(b, key, 'logRetention'),
          walReplica: k.machineState(b, key, 'walReplica'),
          walCombiner: k.machineState(b, BROKER_KEY, 'walCombiner'),
        },
        inFlight: (k.state.brokers[b].alive ? flows.get(key)?.get(b) : undefined) ?? { receiving: null, sending: null, fromStore: [] },
      };
    });
    return {
      key,
      topic: part.topic,
      partition: part.partition,
      leader: part.leader,
      leaderEpoch: part.leaderEpoch,
      isr: [...part.isr],
      tiered: k.state.topicConfigs[part.topic]['remote.storage.enable'],
      walEnabled: k.state.topicConfigs[part.topic]['wal.enable'],
      replicas,
      remoteSegments: part.remoteMetadata.map((m) => ({ segmentId: m.segmentId, baseOffset: m.baseOffset, endOffset: m.endOffset, state: m.state, sizeBytes: m.sizeBytes })),
    };
  });
  const load = (b: number, way: 'out' | 'in'): InterfaceView => {
    const l = interfaceLoad(k.state.net, b, way, k.state.nowMs);
    return { transfers: l.transfers, bytesLeft: Math.round(l.bytesLeft), bytesPerSec: Math.round(l.bytesPerMs * 1000) };
  };
  return {
    nowMs: k.state.nowMs,
    network: { bytesPerSec: k.state.model.brokerNetworkBytesPerSec, brokers: k.state.brokers.map((b) => ({ id: b.id, out: load(b.id, 'out'), in: load(b.id, 'in') })) },
    partitions,
    brokers: k.state.brokers.map((b) => ({ ...b })),
    storeAvailable: { ...k.state.storeAvailable },
    kip1023Enabled: k.state.brokerConfig['follower.fetch.last.tiered.offset.enable'],
    violations: k.state.violations.map(({ atMs, invariant, message, finding }) => ({ atMs, invariant, message, ...(finding === undefined ? {} : { finding }) })),
    wal: walView(k),
    metrics: metricsView(k),
  };
}

/**
 * `ReplicaView.inFlight` of every replica with something in flight, by partition key and
 * broker: one pass over the transfers and one over the event queue (for the GETs).
 */
function inFlightByReplica(k: Kernel): Map<string, Map<number, ReplicaInFlightView>> {
  const out = new Map<string, Map<number, ReplicaInFlightView>>();
  const now = k.state.nowMs;
  const of = (key: string, broker: number): ReplicaInFlightView => {
    let byBroker = out.get(key);
    if (byBroker === undefined) out.set(key, (byBroker = new Map()));
    let f = byBroker.get(broker);
    if (f === undefined) byBroker.set(broker, (f = { receiving: null, sending: null, fromStore: [] }));
    return f;
  };
  const link = k.state.model.brokerNetworkBytesPerSec;
  const add = (f: NetFlowView | null, t: (typeof k.state.net.transfers)[number], peer: number | null, left: number): NetFlowView => {
    const v = f ?? { transfers: 0, bytes: 0, bytesLeft: 0, bytesPerSec: 0, linkBytesPerSec: link, peers: [], clients: 0 };
    v.transfers++;
    v.bytes += t.bytes;
    // Sums in bytes and bytes per ms; rounded once every transfer is in (below).
    v.bytesLeft += left;
    v.bytesPerSec += t.rate;
    if (peer === null) v.clients++;
    else if (!v.peers.includes(peer)) v.peers.push(peer);
    return v;
  };
  for (const t of k.state.net.transfers) {
    const key = t.msg.key;
    const left = bytesLeftAt(t, now);
    if (t.to !== null) {
      const f = of(key, t.to);
      f.receiving = add(f.receiving, t, t.from, left);
    }
    if (t.from !== null) {
      const f = of(key, t.from);
      f.sending = add(f.sending, t, t.to, left);
    }
  }
  const m = k.state.model;
  for (const q of k.state.queue.heap) {
    if (q.ev.kind !== 'storeDone') continue;
    const ev = q.ev as KernelEventOf<'storeDone'>;
    if ((ev.completion.for !== 'auxState' && ev.completion.for !== 'walChunk') || !ev.result.ok) continue;
    const bytes = ev.result.bytes;
    // Ranged (a chunk): its bytes arrive over the last `dataMs` before the answer; whole-object: with it.
    const dataMs = ev.completion.for === 'walChunk' ? getBytesMs(m, ev.store, bytes) : 0;
    const dueMs = q.at;
    const flowing = dataMs > 0 && now >= dueMs - dataMs;
    const left = flowing ? Math.max(0, (bytes * (dueMs - now)) / dataMs) : bytes;
    const f = of(ev.key, ev.broker);
    let v = f.fromStore.find((x) => x.store === ev.store);
    if (v === undefined) {
      const perMs = ev.store === 'wal' ? m.walGetBytesPerMs : m.tieredGetBytesPerMs;
      v = { store: ev.store, gets: 0, bytes: 0, bytesLeft: 0, bytesPerSec: 0, getBytesPerSec: perMs * 1000, waiting: 0 };
      f.fromStore.push(v);
      if (f.fromStore.length > 1) f.fromStore.sort((a, b) => (a.store === b.store ? 0 : a.store === 'tiered' ? -1 : 1));
    }
    v.gets++;
    v.bytes += bytes;
    v.bytesLeft += left;
    if (flowing) v.bytesPerSec += bytes / dataMs;
    else v.waiting++;
  }
  for (const byBroker of out.values()) {
    for (const f of byBroker.values()) {
      for (const v of [f.receiving, f.sending, ...f.fromStore]) {
        if (v === null) continue;
        v.bytesLeft = Math.round(v.bytesLeft);
        v.bytesPerSec = Math.round(v.bytesPerSec * 1000);
        if ('peers' in v) v.peers.sort((a, b) => a - b);
      }
    }
  }
  return out;
}

/** The fetcher states of TierStateMachine.start that come after truncateFullyAndStartAt (core/machines/follower-fetcher.ts). */
const AFTER_AUX_TRUNCATION = new Set(['buildingAuxState.awaitingLeaderEpochCheckpoint', 'buildingAuxState.awaitingProducerSnapshot', 'buildingAuxState.awaitingLatestOffset']);

/** `ReplicaView.pendingFetchOffset`: the remote segment's end + 1 while the aux state is built after the truncation. */
function pendingFetchOffset(k: Kernel, key: string, broker: number): number | null {
  if (!AFTER_AUX_TRUNCATION.has(k.machineState(broker, key, 'fetcher'))) return null;
  const ctx = k.machineSnapshot(broker, key, 'fetcher')?.context as FollowerFetcherContext | undefined;
  return ctx === undefined || ctx.remoteSegmentEndOffset < 0 ? null : ctx.remoteSegmentEndOffset + 1;
}

/** The key's sequence number: `broker-0/00000000000000000012.wal` is 12. */
function walObjectSeq(key: string): number {
  const m = /(\d+)\.wal$/.exec(key);
  return m === null ? 0 : Number(m[1]);
}

/**
 * The fast store now: objects that exist (being put, live, being deleted), the newest
 * `WAL_OBJECTS_SHOWN` of them oldest first, each with its chunks. A chunk being put has
 * no metadata record yet: it comes from the PUT in flight.
 */
export function walView(k: Kernel): WalView {
  const wal = k.state.wal;
  const pending: Record<string, WalChunkView[]> = {};
  for (const f of Object.values(wal.inflight)) {
    pending[f.objectKey] = f.chunks.map((c) => {
      const part = k.state.partitions[c.key];
      return { id: null, key: c.key, topic: part.topic, partition: part.partition, range: [c.range[0], c.range[1]], baseOffset: c.baseOffset, lastOffset: c.lastOffset, leaderEpoch: c.leaderEpoch };
    });
  }
  const existing = Object.values(wal.objects)
    .filter((o) => o.state === 'putting' || o.state === 'live' || o.state === 'deleting')
    .map((o) => ({ o, seq: walObjectSeq(o.key) }))
    .sort((a, b) => a.seq - b.seq || (a.o.key < b.o.key ? -1 : a.o.key > b.o.key ? 1 : 0));
  const shown = existing.slice(-WAL_OBJECTS_SHOWN);
  const objects: WalObjectView[] = shown.map(({ o, seq }) => {
    let chunks: WalChunkView[];
    if (o.state === 'putting') chunks = pending[o.key] ?? [];
    else {
      chunks = [];
      for (const id of o.chunkIds) {
        const c = wal.chunks[String(id)];
        if (c === undefined) continue;
        chunks.push({ id: c.id, key: c.key, topic: c.topic, partition: c.partition, range: [c.range[0], c.range[1]], baseOffset: c.baseOffset, lastOffset: c.lastOffset, leaderEpoch: c.leaderEpoch });
      }
    }
    chunks.sort((a, b) => a.range[0] - b.range[0]);
    return { key: o.key, seq, broker: o.broker, bytes: o.bytes, createdMs: o.createdMs, state: o.state as WalObjectView['state'], chunks };
  });
  const pendingRecords: WalView['pending'] = [];
  for (const key of k.state.partitionOrder) {
    const part = k.state.partitions[key];
    const next = wal.next[key];
    if (next === undefined || !k.state.topicConfigs[part.topic]['wal.enable'] || part.leader < 0 || !k.state.brokers[part.leader].alive) continue;
    const end = logEndOffset(k.replica(key, part.leader).log);
    if (end > next) pendingRecords.push({ key, broker: part.leader, baseOffset: next, lastOffset: end - 1 });
  }
  const m = k.state.metrics.wal.metadata;
  return {
    topics: Object.keys(k.state.topicConfigs).filter((t) => k.state.topicConfigs[t]['wal.enable']),
    objects,
    hiddenObjects: existing.length - shown.length,
    pending: pendingRecords,
    combineMaxBytes: k.state.brokerConfig['wal.combine.max.bytes'],
    metadata: { topic: WAL_METADATA_TOPIC, records: m.records, retainedRecords: wal.metadata.length, retainedBytes: m.retainedBytes, peakRetainedRecords: m.peakRetainedRecords },
  };
}

/** `metrics` of the JSON output so far (crossZoneBytes, objectStore, produce by acks, costUsd), without the trace scans. */
export function metricsView(k: Kernel): MetricsView {
  const m = k.state.metrics;
  const store = (s: StoreName) => {
    const c = m.objectStore[s];
    return { puts: c.puts, gets: c.gets, deletes: c.deletes, bytesPut: c.bytesPut, bytesGot: c.bytesGot };
  };
  return {
    crossZoneBytes: { ...m.crossZoneBytes },
    objectStore: { tiered: store('tiered'), wal: store('wal') },
    produce: { acks1: latency(k.state.produceLatencies.acks1), acksAll: latency(k.state.produceLatencies.acksAll) },
    costUsd: costUsd(m.crossZoneBytes, m.objectStore, k.state.usage, k.state.prices, k.state.nowMs),
  };
}

/**
 * Percentiles of produce latencies, remembered per list while it only grows: a frame
 * while playing sorts a list only when a produce has completed since the last one.
 */
const latencyMemo = new WeakMap<readonly number[], { count: number; summary: LatencyView }>();
function latency(values: readonly number[]): LatencyView {
  const memo = latencyMemo.get(values);
  if (memo !== undefined && memo.count === values.length) return memo.summary;
  const summary = latencySummary(values);
  latencyMemo.set(values, { count: values.length, summary });
  return summary;
}

/** The largest offset to draw for a partition (for the x scale). */
export function offsetExtent(p: PartitionView): [number, number] {
  let lo = Number.POSITIVE_INFINITY;
  let hi = 0;
  for (const r of p.replicas) {
    lo = Math.min(lo, r.logStartOffset);
    hi = Math.max(hi, r.logEndOffset);
  }
  for (const s of p.remoteSegments) {
    if (s.state === 'DELETE_SEGMENT_FINISHED') continue;
    lo = Math.min(lo, s.baseOffset);
    hi = Math.max(hi, s.endOffset + 1);
  }
  if (!Number.isFinite(lo)) lo = 0;
  return [lo, Math.max(hi, lo + 1)];
}


