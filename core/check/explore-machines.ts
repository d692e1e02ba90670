/**
 * Model-based exploration of each machine on its own (issue: model-based tests, item 1).
 * From the initial state, every event of a small domain (built from the current snapshot:
 * the awaited request or timer and a stale one, every error kind, answers around the
 * follower's offsets, facts on both sides of each guard) is applied, breadth first, over
 * abstract states (the state value and the context facts the guards read). Each step is
 * taken twice: by the kernel's own step function (`fastTransition`, which must also give
 * the effects XState's `transition()` gives) and by an XState actor whose inspection
 * stream says which transitions fired; the two must agree, and per-state
 * checks must hold. The result: shortest event paths to every state reached, and the
 * transitions taken.
 */
import { type AnyMachineSnapshot, type AnyStateMachine, initialTransition } from 'xstate';
import { fastTransition } from '../sim/runtime/fast-transition.js';
import { pureTransition } from '../sim/runtime/pure-transition.js';
import { MachineCoverage, leafPath } from './coverage.js';
import type { ReplicaFacts } from '../machines/follower-fetcher.js';
import type { WalChunkRef } from '../machines/wal-replica.js';

type Ev = { type: string } & Record<string, unknown>;
type Ctx = Record<string, unknown>;

export interface MachineSpec {
  name: string;
  machine: AnyStateMachine;
  input: unknown;
  /** The events to try from a snapshot. */
  domain: (ctx: Ctx, value: unknown) => Ev[];
  /** The abstract state: what the guards can tell apart. */
  key: (ctx: Ctx, value: unknown) => string;
  /** States that wait for nothing (no request or timer outstanding). */
  resting: string[];
}

export interface ExploreResult {
  name: string;
  /** Abstract states explored. */
  explored: number;
  steps: number;
  /** A shortest event path to each leaf state reached. */
  paths: Record<string, Ev[]>;
  failures: string[];
}

const ids = (c: Ctx): number[] => [c.awaiting as number, (c.awaiting as number) + 1000];

function facts(logEndOffset: number, lastTieredOffsetEnabled: boolean, tiered: boolean): ReplicaFacts {
  return { logEndOffset, lastTieredOffsetEnabled, tiered, compacted: false, leaderEpochs: logEndOffset > 0 ? [[0, 0]] : [] };
}

const FETCH_ERRORS = [null, 'OFFSET_OUT_OF_RANGE', 'OFFSET_MOVED_TO_TIERED_STORAGE', 'FENCED_LEADER_EPOCH', 'NOT_LEADER_OR_FOLLOWER'];
const OTHER_ERRORS = [null, 'FENCED_LEADER_EPOCH', 'UNKNOWN_SERVER_ERROR'];

function fetcherDomain(c: Ctx): Ev[] {
  const out: Ev[] = [];
  const replicas = [facts(0, true, true), facts(50, true, true), facts(0, false, true), facts(50, false, false)];
  const fetchOffset = c.fetchOffset as number;
  for (const requestId of ids(c)) {
    for (const error of FETCH_ERRORS) {
      for (const replica of replicas) {
        out.push({ type: 'fetch.responded', requestId, error, batches: [], highWatermark: 100, logStartOffset: 10, divergingEpoch: null, replica });
      }
    }
    const batch = { baseOffset: fetchOffset, lastOffset: fetchOffset + 9, leaderEpoch: 0, producerId: 1, baseSequence: fetchOffset, bytes: 10240, appendedMs: 0 };
    out.push({ type: 'fetch.responded', requestId, error: null, batches: [batch], highWatermark: fetchOffset + 10, logStartOffset: 0, divergingEpoch: null, replica: facts(fetchOffset, false, true) });
    out.push({ type: 'fetch.responded', requestId, error: null, batches: [], highWatermark: 100, logStartOffset: 0, divergingEpoch: { epoch: 0, endOffset: 5 }, replica: facts(50, false, true) });
    for (const leo of [fetchOffset, fetchOffset + 10]) {
      out.push({ type: 'fetch.responded', requestId, error: null, batches: [], highWatermark: 100, logStartOffset: 0, divergingEpoch: null, replica: facts(leo, false, true), wal: true });
    }
    for (const error of OTHER_ERRORS) {
      for (const offset of [-1, 0, 10, 100]) {
        for (const leaderEpoch of [0, 1]) {
          for (const replica of [facts(0, true, true), facts(50, true, true)]) {
            out.push({ type: 'listOffsets.responded', requestId, timestamp: -1, error, offset, leaderEpoch, replica });
          }
        }
      }
      for (const endOffset of [5, 100]) out.push({ type: 'offsetsForLeaderEpoch.responded', requestId, error, leaderEpoch: 0, endOffset });
    }
    out.push({ type: 'remoteSegment.lookedUp', requestId, found: { segmentId: 's', baseOffset: 0, endOffset: 99, keys: { leaderEpochCheckpoint: 'cp', producerSnapshot: 'snap' } }, reason: null });
    out.push({ type: 'remoteSegment.lookedUp', requestId, found: null, reason: 'not found' });
    out.push({ type: 'objectStore.getCompleted', requestId, ok: true, error: null, leaderEpochs: [[0, 0]], producers: [] });
    out.push({ type: 'objectStore.getCompleted', requestId, ok: false, error: 'ServiceUnavailable' });
    out.push({ type: 'backoff.expired', timerId: requestId });
  }
  out.push({ type: 'fetcher.started', leader: 0, leaderEpoch: 0, replica: facts(0, true, true), lastFetchedEpoch: -1 });
  out.push({ type: 'fetcher.started', leader: 0, leaderEpoch: 1, replica: facts(50, false, true), lastFetchedEpoch: 0 });
  out.push({ type: 'fetcher.stopped' });
  out.push({ type: 'wal.appended', logEndOffset: fetchOffset + 10, lastEpoch: 0 });
  return out;
}

function fetcherKey(c: Ctx, value: unknown): string {
  const lso = c.leaderLogStartOffset as number;
  const epuo = c.earliestPendingUploadOffset as number;
  const llso = c.leaderLocalLogStartOffset as number;
  const start = epuo === -1 ? lso : Math.max(epuo, llso);
  return JSON.stringify([value, c.path, epuo === -1, llso === lso, start === lso, c.auxTargetEpoch === 0, (c.lastFetchedEpoch as number) >= 0]);
}

const VIEW = { tiered: true, logStartOffset: 0, localLogStartOffset: 0, logEndOffset: 100, highWatermark: 50, highestOffsetInRemoteStorage: -1, leaderEpoch: 0 };

function leaderDomain(c: Ctx): Ev[] {
  const out: Ev[] = [];
  const nowMs = 100000;
  const base = { view: VIEW, leaderEpochStartOffset: 0, nowMs, minIsr: 1, lagTimeMaxMs: 30000, isrEligible: [0, 1] };
  out.push({ type: 'leadership.assumed', leaderEpoch: 0, isr: [0], replicas: [0, 1], nowMs: 0, logEndOffset: 100, minIsr: 1 });
  out.push({ type: 'leadership.assumed', leaderEpoch: 0, isr: [0], replicas: [0, 1], nowMs: 0, logEndOffset: 100, minIsr: 2 });
  out.push({ type: 'leadership.assumed', leaderEpoch: 1, isr: [0, 1], replicas: [0, 1], nowMs: 0, logEndOffset: 100, minIsr: 1 });
  out.push({ type: 'leadership.resigned' });
  for (const currentLeaderEpoch of [c.leaderEpoch as number, (c.leaderEpoch as number) + 1, (c.leaderEpoch as number) - 1]) {
    for (const fetchOffset of [-5, 20, 100, 150]) {
      for (const waitExpired of [false, true]) {
        out.push({ type: 'fetch.received', msgId: 1, from: 1, fetchOffset, currentLeaderEpoch, lastFetchedEpoch: -1, lastFetchedEpochEnd: null, waitExpired, ...base });
      }
      out.push({ type: 'fetch.received', msgId: 1, from: 1, fetchOffset, currentLeaderEpoch, lastFetchedEpoch: 0, lastFetchedEpochEnd: { leaderEpoch: 0, endOffset: 10 }, waitExpired: false, ...base });
      // A Fetch held in the long poll, completed by new data or by the end of the wait.
      out.push({ type: 'fetch.received', msgId: 1, from: 1, fetchOffset, currentLeaderEpoch, lastFetchedEpoch: -1, lastFetchedEpochEnd: null, waitExpired: true, fromPurgatory: true, ...base });
      // An epoch the leader's cache cannot place (endOffsetFor answers UNDEFINED).
      out.push({ type: 'fetch.received', msgId: 1, from: 1, fetchOffset, currentLeaderEpoch, lastFetchedEpoch: 3, lastFetchedEpochEnd: { leaderEpoch: -1, endOffset: -1 }, waitExpired: false, ...base });
      out.push({ type: 'fetch.received', msgId: 1, from: 1, fetchOffset, currentLeaderEpoch, lastFetchedEpoch: -1, lastFetchedEpochEnd: null, waitExpired: false, walServes: true, ...base });
      // KIP-73: a throttled read of an out-of-sync follower (docs/protocol.md §3.1).
      out.push({ type: 'fetch.received', msgId: 1, from: 1, fetchOffset, currentLeaderEpoch, lastFetchedEpoch: -1, lastFetchedEpochEnd: null, waitExpired: false, leaderThrottled: true, ...base });
    }
    for (const timestamp of [-1, -2, -4, -5, -6]) out.push({ type: 'listOffsets.received', msgId: 1, from: 1, timestamp, currentLeaderEpoch, ...base });
    out.push({ type: 'offsetsForLeaderEpoch.received', msgId: 1, from: 1, leaderEpoch: 0, currentLeaderEpoch, ...base });
  }
  for (const acks of [1, 'all']) for (const minIsr of [1, 2]) out.push({ type: 'produce.received', msgId: 1, records: 10, acks, ...base, minIsr });
  out.push({ type: 'partition.updated', isr: [0], ...base });
  out.push({ type: 'partition.updated', isr: [0, 1], ...base });
  for (const timerId of [c.isrCheckTimer as number, (c.isrCheckTimer as number) + 1000]) {
    out.push({ type: 'isr.check', timerId, ...base });
    out.push({ type: 'isr.check', timerId, ...base, nowMs: 0 });
  }
  return out;
}

function leaderKey(c: Ctx, value: unknown): string {
  const followers = c.followers as Record<string, { logEndOffset: number }>;
  return JSON.stringify([value, c.leaderEpoch, c.isr, Object.entries(followers).map(([b, f]) => [b, f.logEndOffset])]);
}

const RANGE = { baseOffset: 0, endOffset: 49 };
const LATER = { baseOffset: 50, endOffset: 99 };

function rlmDomain(c: Ctx): Ev[] {
  const out: Ev[] = [{ type: 'rlm.started', role: 'leader' }, { type: 'rlm.started', role: 'follower' }, { type: 'rlm.stopped' }];
  for (const id of ids(c)) {
    for (const metadataReady of [true, false]) {
      for (const [highestRemoteOffset, highestOffsetInRemoteStorage] of [[-1, -1], [49, -1], [49, 49]]) {
        out.push({ type: 'rlm.taskDue', timerId: id, metadataReady, highestRemoteOffset, highestOffsetInRemoteStorage, remoteLogStartOffset: 0, tiered: true, copyDisabled: false });
      }
    }
    out.push({ type: 'rlm.taskDue', timerId: id, metadataReady: true, highestRemoteOffset: -1, highestOffsetInRemoteStorage: -1, remoteLogStartOffset: 0, tiered: false, copyDisabled: false });
    out.push({ type: 'rlm.taskDue', timerId: id, metadataReady: true, highestRemoteOffset: 49, highestOffsetInRemoteStorage: -1, remoteLogStartOffset: 0, tiered: true, copyDisabled: true });
    const facts = { tiered: true, copyDisabled: false, metadataReady: true, candidate: null, lastCandidateEnd: -1 };
    out.push({ type: 'rlm.step', requestId: id, ...facts });
    out.push({ type: 'rlm.step', requestId: id, ...facts, candidate: RANGE, lastCandidateEnd: RANGE.endOffset });
    // A segment that became a candidate after the run made its list: left for the next run.
    out.push({ type: 'rlm.step', requestId: id, ...facts, candidate: LATER, lastCandidateEnd: LATER.endOffset });
    out.push({ type: 'rlm.step', requestId: id, ...facts, candidate: RANGE, lastCandidateEnd: RANGE.endOffset, copyDisabled: true });
    out.push({ type: 'rlm.step', requestId: id, ...facts, candidate: RANGE, lastCandidateEnd: RANGE.endOffset, metadataReady: false });
    out.push({ type: 'rlm.step', requestId: id, ...facts, tiered: false, candidate: RANGE, lastCandidateEnd: RANGE.endOffset });
    for (const ok of [true, false]) {
      out.push({ type: 'rlm.copyCompleted', requestId: id, segmentId: String(c.segmentId ?? 's'), ok, error: ok ? null : 'PUT failed' });
      out.push({ type: 'rlm.deleteCompleted', requestId: id, segmentId: String(c.segmentId ?? 's'), ok, error: ok ? null : 'DELETE failed' });
    }
  }
  return out;
}

function rlmKey(c: Ctx, value: unknown): string {
  return JSON.stringify([value, c.role, (c.copyFailures as number) > 0, c.logStartOffsetUpdated, c.copyUpTo === null]);
}

const EXPIRED = [
  { segmentId: 'old', endOffset: 9, rule: 'retentionMs' },
  { segmentId: 'older', endOffset: 19, rule: 'retryDelete' },
];

function rlmExpirationDomain(c: Ctx): Ev[] {
  const out: Ev[] = [{ type: 'expiration.started', role: 'leader' }, { type: 'expiration.started', role: 'follower' }, { type: 'expiration.stopped' }];
  for (const id of ids(c)) {
    out.push({ type: 'expiration.due', timerId: id });
    for (const remoteExpired of [[], EXPIRED.slice(0, 1), EXPIRED]) out.push({ type: 'expiration.step', requestId: id, remoteExpired });
    for (const ok of [true, false]) {
      out.push({ type: 'expiration.deleteCompleted', requestId: id, segmentId: String(c.segmentId ?? 's'), ok, error: ok ? null : 'DELETE failed' });
    }
  }
  return out;
}

function rlmExpirationKey(c: Ctx, value: unknown): string {
  return JSON.stringify([value, (c.expiring as unknown[]).length > 0]);
}

function logRetentionDomain(c: Ctx): Ev[] {
  const out: Ev[] = [{ type: 'retention.started' }, { type: 'retention.stopped' }];
  for (const id of ids(c)) {
    out.push({ type: 'retention.due', timerId: id });
    const facts = { localDeletable: [], localStoppedBy: null, rollActive: false };
    out.push({ type: 'retention.step', requestId: id, ...facts, localStoppedBy: 'notUploaded' });
    out.push({ type: 'retention.step', requestId: id, ...facts, rollActive: true });
    out.push({ type: 'retention.step', requestId: id, ...facts, localDeletable: [{ ...RANGE, bytes: 100 }] });
  }
  return out;
}

function logRetentionKey(_c: Ctx, value: unknown): string {
  return JSON.stringify([value]);
}

const chunk = (id: number, baseOffset: number, lastOffset: number, leaderEpoch: number): WalChunkRef => ({
  id,
  objectKey: `o${id}`,
  range: [0, 10239],
  baseOffset,
  lastOffset,
  leaderEpoch,
});

function walReplicaDomain(c: Ctx): Ev[] {
  const leo = c.logEndOffset as number;
  const epoch = Math.max(0, c.leaderEpoch as number);
  const out: Ev[] = [
    { type: 'wal.started', leaderEpoch: 1, logEndOffset: 10, chunks: [] },
    { type: 'wal.started', leaderEpoch: 0, logEndOffset: 10, chunks: [chunk(1, 10, 19, 0)] },
    { type: 'wal.stopped' },
    { type: 'wal.chunkPublished', chunk: chunk(2, leo, leo + 9, epoch) },
    { type: 'wal.chunkPublished', chunk: chunk(3, leo + 20, leo + 29, epoch) },
    { type: 'wal.chunkPublished', chunk: chunk(4, 0, Math.max(0, leo - 1), epoch) },
    { type: 'wal.chunkPublished', chunk: chunk(5, leo, leo + 9, epoch - 1) },
    { type: 'wal.leaderEpoch', leaderEpoch: epoch + 1 },
    { type: 'wal.logChanged', logEndOffset: leo + 5 },
    { type: 'wal.syncTail' },
  ];
  for (const requestId of ids(c)) {
    out.push({ type: 'wal.chunkRead', requestId, ok: true, error: null });
    out.push({ type: 'wal.chunkRead', requestId, ok: false, error: 'ServiceUnavailable' });
    out.push({ type: 'wal.retry', timerId: requestId });
  }
  return out;
}

function walReplicaKey(c: Ctx, value: unknown): string {
  const chunks = c.chunks as WalChunkRef[];
  const leo = c.logEndOffset as number;
  return JSON.stringify([value, c.syncing, chunks.some((k) => k.baseOffset <= leo && leo <= k.lastOffset), chunks.length > 0]);
}

function walCombinerDomain(c: Ctx): Ev[] {
  const out: Ev[] = [{ type: 'wal.stopped' }];
  for (const pendingBytes of [0, 1024, 500000]) {
    const f = { pendingBytes, maxBytes: 409600 };
    out.push({ type: 'wal.appended', ...f });
    for (const id of ids(c)) {
      out.push({ type: 'wal.timer', timerId: id, ...f });
      out.push({ type: 'wal.putCompleted', requestId: id, ok: true, error: null, ...f });
      out.push({ type: 'wal.putCompleted', requestId: id, ok: false, error: 'ServiceUnavailable', ...f });
    }
  }
  return out;
}

function walCombinerKey(c: Ctx, value: unknown): string {
  return JSON.stringify([value, (c.failures as number) > 0]);
}

/** The seven machines with their event domains. */
export function machineSpecs(machines: Record<string, AnyStateMachine>): MachineSpec[] {
  const p = { broker: 1, topic: 'orders', partition: 0 };
  return [
    { name: 'fetcher', machine: machines.fetcher, input: p, domain: fetcherDomain, key: fetcherKey, resting: ['idle', 'failed', 'truncating'] },
    { name: 'leader', machine: machines.leader, input: { broker: 0, topic: 'orders', partition: 0 }, domain: leaderDomain, key: leaderKey, resting: ['follower', 'leader'] },
    { name: 'rlm', machine: machines.rlm, input: p, domain: rlmDomain, key: rlmKey, resting: ['inactive'] },
    { name: 'rlmExpiration', machine: machines.rlmExpiration, input: p, domain: rlmExpirationDomain, key: rlmExpirationKey, resting: ['inactive'] },
    { name: 'logRetention', machine: machines.logRetention, input: p, domain: logRetentionDomain, key: logRetentionKey, resting: ['inactive'] },
    { name: 'walReplica', machine: machines.walReplica, input: p, domain: walReplicaDomain, key: walReplicaKey, resting: ['inactive', 'following'] },
    { name: 'walCombiner', machine: machines.walCombiner, input: { broker: 0 }, domain: walCombinerDomain, key: walCombinerKey, resting: ['idle'] },
  ];
}

function idsOf(actions: unknown[]): number[] {
  const out: number[] = [];
  for (const a of actions as Array<{ params?: Record<string, unknown> }>) {
    const p = a.params ?? {};
    if (typeof p.requestId === 'number') out.push(p.requestId);
    if (typeof p.timerId === 'number') out.push(p.timerId);
  }
  return out;
}

/**
 * Breadth-first exploration of one machine; transitions go to `cov`. Per-state checks:
 * the kernel's step and XState's actor agree on the next state and context, and a machine
 * in a waiting state waits for a request or timer it has actually asked for.
 */
export function exploreMachine(spec: MachineSpec, cov: MachineCoverage, maxStates = 2000): ExploreResult {
  const [s0, a0] = initialTransition(spec.machine, spec.input as never);
  const start = s0 as AnyMachineSnapshot;
  cov.recordInitial(start);
  const seen = new Set<string>([spec.key(start.context as Ctx, start.value)]);
  const queue: Array<{ snap: AnyMachineSnapshot; path: Ev[]; issued: Set<number> }> = [{ snap: start, path: [], issued: new Set(idsOf(a0)) }];
  const paths: Record<string, Ev[]> = { [leafPath(start.value)]: [] };
  const failures: string[] = [];
  let steps = 0;
  while (queue.length > 0 && seen.size <= maxStates) {
    const { snap, path, issued } = queue.shift()!;
    for (const event of spec.domain(snap.context as Ctx, snap.value)) {
      steps++;
      const viaActor = cov.record(snap, event);
      const [viaKernel, actions] = fastTransition(spec.machine, snap, event);
      const kernelView = JSON.stringify([viaKernel.value, viaKernel.context]);
      if (kernelView !== JSON.stringify([viaActor.value, viaActor.context])) {
        failures.push(`${spec.name}: the kernel's step and XState disagree after ${JSON.stringify([...path.map((e) => e.type), event.type])}`);
        continue;
      }
      const [, xstateActions] = pureTransition(spec.machine, snap as never, event);
      const effects = (list: unknown[]) => JSON.stringify((list as Array<{ type: string; params?: unknown }>).map((a) => [a.type, a.params]));
      if (effects(actions) !== effects(xstateActions)) {
        failures.push(`${spec.name}: the kernel's step and XState's transition() ask for different effects after ${JSON.stringify([...path.map((e) => e.type), event.type])}`);
        continue;
      }
      const nextIssued = new Set([...issued, ...idsOf(actions)]);
      const leaf = leafPath(viaKernel.value);
      const ctx = viaKernel.context as Ctx;
      if (!spec.resting.includes(leaf) && typeof ctx.awaiting === 'number' && !nextIssued.has(ctx.awaiting)) {
        failures.push(`${spec.name}: in ${leaf} waiting for ${ctx.awaiting}, which it never asked for (after ${[...path.map((e) => e.type), event.type].join(', ')})`);
      }
      const k = spec.key(ctx, viaKernel.value);
      if (seen.has(k)) continue;
      seen.add(k);
      const nextPath = [...path, event];
      paths[leaf] ??= nextPath;
      queue.push({ snap: viaKernel as AnyMachineSnapshot, path: nextPath, issued: nextIssued });
    }
  }
  return { name: spec.name, explored: seen.size, steps, paths, failures };
}
