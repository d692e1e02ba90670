/**
 * The picture of a run at one moment, as plain data for the browser: per partition the
 * replicas' segments by tier and their offset markers (named as in the JSON output), the
 * remote tier with each segment's metadata state, and each broker's machine states.
 */
import { earliestPendingUploadOffset } from '../domain/leader-rules.js';
import type { RemoteSegmentState } from '../domain/remote-metadata.js';
import { BROKER_KEY, type Kernel, type MachineName } from '../sim/kernel.js';
import { replicaJson, type ReplicaJson } from '../sim/output.js';

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
  machines: Record<MachineName, string>;
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
  replicas: ReplicaView[];
  remoteSegments: RemoteSegmentView[];
}

export interface RunView {
  nowMs: number;
  partitions: PartitionView[];
  brokers: Array<{ id: number; zone: string; alive: boolean }>;
  storeAvailable: { tiered: boolean; wal: boolean };
  kip1023Enabled: boolean;
  violations: Array<{ atMs: number; invariant: string; message: string }>;
}

export function buildView(k: Kernel): RunView {
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
        machines: {
          fetcher: k.machineState(b, key, 'fetcher'),
          leader: k.machineState(b, key, 'leader'),
          rlm: k.machineState(b, key, 'rlm'),
          walReplica: k.machineState(b, key, 'walReplica'),
          walCombiner: k.machineState(b, BROKER_KEY, 'walCombiner'),
        },
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
      replicas,
      remoteSegments: part.remoteMetadata.map((m) => ({ segmentId: m.segmentId, baseOffset: m.baseOffset, endOffset: m.endOffset, state: m.state, sizeBytes: m.sizeBytes })),
    };
  });
  return {
    nowMs: k.state.nowMs,
    partitions,
    brokers: k.state.brokers.map((b) => ({ ...b })),
    storeAvailable: { ...k.state.storeAvailable },
    kip1023Enabled: k.state.brokerConfig['follower.fetch.last.tiered.offset.enable'],
    violations: k.state.violations.map(({ atMs, invariant, message }) => ({ atMs, invariant, message })),
  };
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


