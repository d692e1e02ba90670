/**
 * The effect interpreter: what each effect a machine declares in its `setup()` does to the
 * cluster. One table per machine, typed from the machine's own declarations
 * (core/sim/runtime/machines.ts), so an effect without a handler fails to compile; each handler
 * names every parameter it is sent in its destructuring, so a parameter the kernel would
 * ignore is caught too: test/effect-params.test.ts reads this file with the TypeScript
 * checker and compares each handler's names with its effect's declared params. (The check
 * was a `...unread` rest element that had to be empty; V8 builds that object at every call,
 * millions of times in a long run, for a check that only the compiler needed.) The work
 * itself is in the subsystems; this file only routes.
 */
import type { Rule } from '../../domain/rules.js';
import { endOffsetFor, epochForOffset, checkpointUpTo, latestEpoch } from '../../domain/leader-epoch-cache.js';
import { logEndOffset } from '../../domain/partition-log.js';
import { nextRetentionRunMs, rlmTaskName } from '../../domain/retention.js';
import { completeAcks, appendAsLeader } from '../world/clients.js';
import type { Sim } from '../state/context.js';
import { tailSynced } from '../world/controller.js';
import { replica, tiered } from '../state/facts.js';
import type { EffectParams, EffectType, MachineName } from '../runtime/machines.js';
import { parkFetch, reply, respond, respondFetch, sendRequest } from '../world/network.js';
import { copyQuotaWaits, followerFetched, followerLagReset, followerThrottleWaits } from '../world/quotas.js';
import { appendAsFollower, followLeaderOffsets, restoreLeaderEpochs, restoreProducers, truncateReplicaFully, truncateReplicaTo, walLogChanged } from '../world/replica-log.js';
import { storeOp } from '../world/store.js';
import { BROKER_KEY, type QuotaWait, replicaStatsOf } from '../state/state.js';
import { abortCopy, deleteLocalSegments, finishCopy, raiseHighestOffsetInRemoteStorage, raiseLogStartOffsetForRetention, raiseLogStartOffsetOnBecomingLeader, rollActiveSegment, setRemoteSegmentState, startCopy, startRemoteDelete } from '../world/tiering.js';
import { restoreChunks, walAppendChunk, walFlush, walPublish } from '../world/wal.js';

type Handlers<N extends MachineName> = { readonly [T in EffectType<N>]: (s: Sim, broker: number, key: string, p: EffectParams<N, T>) => void };

const fetcher: Handlers<'fetcher'> = {
  sendFetch: (s, broker, key, { requestId, fetchOffset, currentLeaderEpoch, lastFetchedEpoch }) => {
    sendFollowerFetch(s, { wait: 'followerFetch', broker, key, requestId, fetchOffset, currentLeaderEpoch, lastFetchedEpoch });
  },
  sendListOffsets: (s, broker, key, { requestId, timestamp, currentLeaderEpoch }) => {
    sendRequest(s, broker, key, 'ListOffsets', requestId, { timestamp, currentLeaderEpoch });
  },
  sendOffsetsForLeaderEpoch: (s, broker, key, { requestId, leaderEpoch, currentLeaderEpoch }) => {
    sendRequest(s, broker, key, 'OffsetsForLeaderEpoch', requestId, { leaderEpoch, currentLeaderEpoch });
  },
  appendRecords: (s, broker, key, { batches, highWatermark, logStartOffset }) => {
    const { bytes } = appendAsFollower(s, broker, key, batches);
    s.state.metrics.bytesFetchedByFollowers += bytes;
    replicaStatsOf(s.state, key, broker).bytesFromLeader += bytes;
    followerFetched(s, broker, key, bytes, highWatermark);
    followLeaderOffsets(s, broker, key, highWatermark, logStartOffset);
    if (bytes > 0) walLogChanged(s, broker, key);
  },
  updateFromLeader: (s, broker, key, { highWatermark, logStartOffset }) => {
    followLeaderOffsets(s, broker, key, highWatermark, logStartOffset);
  },
  truncateTo: (s, broker, key, { offset, rule }) => {
    truncateReplicaTo(s, broker, key, offset, rule);
  },
  truncateFullyAndStartAt: (s, broker, key, { offset, logStartOffset, rule }) => {
    truncateReplicaFully(s, broker, key, offset, logStartOffset, rule);
    followerLagReset(s, broker, key);
  },
  lookupRemoteSegment: (s, broker, key, { requestId, epoch, offset }) => {
    s.schedule(s.state.nowMs, { kind: 'remoteSegmentLookedUp', broker, key, requestId, epoch, offset });
  },
  getRemoteObject: (s, broker, key, { requestId, key: objectKey, purpose }) => {
    storeOp(s, broker, key, { op: 'get', store: 'tiered', key: objectKey }, requestId, { for: 'auxState', object: purpose });
  },
  restoreLeaderEpochs: (s, broker, key, { entries }) => {
    restoreLeaderEpochs(s, broker, key, entries);
  },
  restoreProducerState: (s, broker, key, { entries }) => {
    restoreProducers(s, broker, key, entries);
  },
  startWalWait: (s, broker, key, { timerId }) => {
    s.schedule(s.state.nowMs + s.state.brokerConfig['replica.fetch.wait.max.ms'], { kind: 'machineTimer', machine: 'fetcher', broker, key, timerId });
  },
  startBackoff: (s, broker, key, { timerId, reason }) => {
    const now = s.state.nowMs;
    const part = s.state.partitions[key];
    const delayMs = s.state.brokerConfig['replica.fetch.backoff.ms'];
    s.schedule(now + delayMs, { kind: 'machineTimer', machine: 'fetcher', broker, key, timerId });
    s.emit({ atMs: now, type: 'fetcher', action: 'delayed', broker, topic: part.topic, partition: part.partition, delayMs, reason, retryAtMs: now + delayMs, rule: 'backoff' });
  },
  explain: (s, broker, key, { rule, detail }) => {
    explain(s, 'fetcher', broker, key, rule, detail);
  },
};

const leader: Handlers<'leader'> = {
  respondFetch: (s, broker, key, { msgId, error, rule, fetchOffset, divergingEpoch, highWatermark }) => {
    respondFetch(s, broker, key, { msgId, error, rule, fetchOffset, divergingEpoch, highWatermark });
  },
  parkFetch: (s, _broker, key, { msgId }) => {
    parkFetch(s, key, msgId);
  },
  respondListOffsets: (s, broker, key, { msgId, error, timestamp, offset, rule }) => {
    const r = replica(s.state, key, broker);
    const epoch = offset < 0 ? -1 : timestamp === -1 ? latestEpoch(r.log.leaderEpochs) : epochForOffset(r.log.leaderEpochs, offset);
    respond(s, broker, key, msgId, 'ListOffsets', { error, timestamp, offset, leaderEpoch: epoch, rule });
  },
  respondOffsetsForLeaderEpoch: (s, broker, key, { msgId, error, requestedEpoch }) => {
    const r = replica(s.state, key, broker);
    const e = endOffsetFor(r.log.leaderEpochs, requestedEpoch, logEndOffset(r.log));
    respond(s, broker, key, msgId, 'OffsetsForLeaderEpoch', { error, leaderEpoch: e.leaderEpoch, endOffset: e.endOffset, rule: 'endOffsetForEpoch' });
  },
  appendAsLeader: (s, broker, key, { msgId, records, acks, zone }) => {
    appendAsLeader(s, broker, key, msgId, records, acks, zone);
  },
  rejectProduce: (s, broker, key, { error, rule }) => {
    const part = s.state.partitions[key];
    s.emit({ atMs: s.state.nowMs, type: 'produce', action: 'rejected', broker, topic: part.topic, partition: part.partition, error, rule });
  },
  advanceHighWatermark: (s, broker, key, { highWatermark }) => {
    const state = s.state;
    const part = state.partitions[key];
    const r = replica(state, key, broker);
    const hw = Math.min(highWatermark, logEndOffset(r.log));
    if (hw <= r.log.highWatermark) return;
    r.log.highWatermark = hw;
    s.emit({ atMs: state.nowMs, type: 'highWatermark', broker, topic: part.topic, partition: part.partition, highWatermark: hw });
    const committed = state.watch.committed[key];
    if (committed === undefined || hw > committed.highWatermark) {
      state.watch.committed[key] = { highWatermark: hw, epochs: checkpointUpTo(r.log.leaderEpochs, hw - 1) };
    }
    completeAcks(s, key);
  },
  startIsrCheckTimer: (s, broker, key, { timerId }) => {
    // Kafka's isr-expiration is one task per broker, scheduled by ReplicaManager.startup at a
    // fixed rate of replica.lag.time.max.ms / 2 from the broker's start: a partition's check
    // falls on the broker's next tick, not half a period after its leader was elected.
    const period = Math.max(1, Math.floor(s.state.brokerConfig['replica.lag.time.max.ms'] / 2));
    const start = s.state.brokers[broker].startedAtMs;
    const now = s.state.nowMs;
    s.schedule(start + period * (Math.floor((now - start) / period) + 1), { kind: 'isrCheck', broker, key, timerId });
  },
  isrChanged: (s, broker, key, { isr, added, removed, rule }) => {
    const part = s.state.partitions[key];
    part.isr = [...isr];
    for (const b of added) {
      const st = replicaStatsOf(s.state, key, b);
      if (st.isrJoinedAtMs === null) st.isrJoinedAtMs = s.state.nowMs;
    }
    s.emit({ atMs: s.state.nowMs, type: 'isr', broker, topic: part.topic, partition: part.partition, isr: part.isr, added, removed, rule });
  },
};

/**
 * A RemoteLogManager task's next run (the copy or follower task, the expiration task): with
 * fixed delay and no initial delay, so at once, or remote.log.manager.task.interval.ms after
 * the run that just ended.
 */
function scheduleFixedDelay(s: Sim, machine: 'rlm' | 'rlmExpiration', broker: number, key: string, timerId: number, after: 'now' | 'interval'): void {
  const delay = after === 'now' ? 0 : s.state.brokerConfig['remote.log.manager.task.interval.ms'];
  s.schedule(s.state.nowMs + delay, { kind: 'machineTimer', machine, broker, key, timerId });
}

const rlm: Handlers<'rlm'> = {
  scheduleTask: (s, broker, key, { timerId, after }) => scheduleFixedDelay(s, 'rlm', broker, key, timerId, after),
  requestStep: (s, broker, key, { requestId }) => {
    s.schedule(s.state.nowMs, { kind: 'rlmStep', broker, key, requestId, task: 'copy' });
  },
  updateHighestOffsetInRemoteStorage: (s, broker, key, { offset }) => {
    const role = (s.machineSnapshot(broker, key, 'rlm')?.context as { role?: 'leader' | 'follower' } | undefined)?.role ?? 'follower';
    raiseHighestOffsetInRemoteStorage(s, broker, key, offset, 'rlmRefreshHighestOffset', rlmTaskName('copy', role));
  },
  updateLogStartOffsetOnBecomingLeader: (s, broker, key, { offset }) => {
    raiseLogStartOffsetOnBecomingLeader(s, broker, key, offset);
  },
  startCopy: (s, broker, key, { requestId, baseOffset, endOffset }) => {
    startSegmentCopy(s, { wait: 'copy', broker, key, requestId, baseOffset, endOffset });
  },
  finishCopy: (s, broker, key, { segmentId, endOffset }) => {
    finishCopy(s, broker, key, segmentId, endOffset);
  },
  abortCopy: (s, broker, key, { requestId, segmentId, error }) => {
    abortCopy(s, broker, key, requestId, segmentId, error);
  },
  finishRemoteDelete: (s, _broker, key, { segmentId }) => setRemoteSegmentState(s, key, segmentId, 'DELETE_SEGMENT_FINISHED'),
  explain: (s, broker, key, { rule, detail }) => {
    explain(s, 'rlm', broker, key, rule, detail);
  },
};

const rlmExpiration: Handlers<'rlmExpiration'> = {
  scheduleTask: (s, broker, key, { timerId, after }) => scheduleFixedDelay(s, 'rlmExpiration', broker, key, timerId, after),
  requestStep: (s, broker, key, { requestId }) => {
    s.schedule(s.state.nowMs, { kind: 'rlmStep', broker, key, requestId, task: 'expiration' });
  },
  raiseLogStartOffsetForRetention: (s, broker, key, { offset }) => {
    raiseLogStartOffsetForRetention(s, broker, key, offset);
  },
  startRemoteDelete: (s, broker, key, { requestId, segmentId, rule }) => {
    startRemoteDelete(s, broker, key, requestId, segmentId, rule, 'expiration');
  },
  finishRemoteDelete: (s, _broker, key, { segmentId }) => setRemoteSegmentState(s, key, segmentId, 'DELETE_SEGMENT_FINISHED'),
  explain: (s, broker, key, { rule, detail }) => {
    explain(s, 'rlm', broker, key, rule, detail);
  },
};

const logRetention: Handlers<'logRetention'> = {
  // LogManager's "kafka-log-retention": a fixed rate from the broker's start, after log.initial.task.delay.ms.
  scheduleTask: (s, broker, key, { timerId, after }) => {
    const cfg = s.state.brokerConfig;
    const at = nextRetentionRunMs(s.state.brokers[broker].startedAtMs, cfg['log.initial.task.delay.ms'], cfg['log.retention.check.interval.ms'], s.state.nowMs, after === 'start');
    s.schedule(at, { kind: 'machineTimer', machine: 'logRetention', broker, key, timerId });
  },
  requestStep: (s, broker, key, { requestId }) => {
    s.schedule(s.state.nowMs, { kind: 'rlmStep', broker, key, requestId, task: 'retention' });
  },
  deleteLocalSegments: (s, broker, key, { segments }) => {
    deleteLocalSegments(s, broker, key, segments);
  },
  rollActiveSegment: (s, broker, key) => rollActiveSegment(s, broker, key),
  explain: (s, broker, key, { rule, detail }) => {
    explain(s, 'rlm', broker, key, rule, detail);
  },
};

const walCombiner: Handlers<'walCombiner'> = {
  startIntervalTimer: (s, broker, _key, { timerId }) => {
    s.schedule(s.state.nowMs + s.state.brokerConfig['wal.combine.interval.ms'], { kind: 'machineTimer', machine: 'walCombiner', broker, key: BROKER_KEY, timerId });
  },
  startRetryTimer: (s, broker, _key, { timerId, failures }) => {
    const delay = Math.min(100 * 2 ** Math.max(0, failures - 1), 1000);
    s.schedule(s.state.nowMs + delay, { kind: 'machineTimer', machine: 'walCombiner', broker, key: BROKER_KEY, timerId });
  },
  flush: (s, broker, _key, { requestId, reason }) => {
    walFlush(s, broker, requestId, reason);
  },
  publishChunks: (s, broker, _key, { requestId }) => {
    walPublish(s, broker, requestId);
  },
  restoreChunks: (s, broker, _key, { requestId, error, failures }) => {
    restoreChunks(s, broker, requestId, error, failures);
  },
};

const walReplica: Handlers<'walReplica'> = {
  getChunk: (s, broker, key, { requestId, chunk }) => {
    storeOp(s, broker, key, { op: 'get', store: 'wal', key: chunk.objectKey, range: chunk.range }, requestId, { for: 'walChunk' });
  },
  appendChunk: (s, broker, key, { requestId, chunk }) => {
    walAppendChunk(s, broker, key, requestId, chunk);
  },
  startRetryTimer: (s, broker, key, { timerId, reason }) => {
    const now = s.state.nowMs;
    const part = s.state.partitions[key];
    const delayMs = s.state.brokerConfig['replica.fetch.backoff.ms'];
    s.schedule(now + delayMs, { kind: 'machineTimer', machine: 'walReplica', broker, key, timerId });
    s.emit({ atMs: now, type: 'wal', action: 'readDelayed', broker, topic: part.topic, partition: part.partition, delayMs, reason, rule: 'walReadBackoff' });
  },
  tailSynced: (s, broker, key, { logEndOffset: end, applied }) => {
    tailSynced(s, broker, key, applied, end);
  },
  explain: (s, broker, key, { rule, detail }) => {
    if (rule === 'walChunkStaleEpoch') s.state.metrics.wal.chunksDroppedStaleEpoch++;
    explain(s, 'wal', broker, key, rule, detail);
  },
};

/** A follower's Fetch goes out, unless KIP-73's follower throttle leaves it out (core/sim/world/quotas.ts). */
function sendFollowerFetch(s: Sim, w: Extract<QuotaWait, { wait: 'followerFetch' }>): void {
  if (followerThrottleWaits(s, w)) return;
  sendRequest(s, w.broker, w.key, 'Fetch', w.requestId, {
    fetchOffset: w.fetchOffset,
    currentLeaderEpoch: w.currentLeaderEpoch,
    lastFetchedEpoch: w.lastFetchedEpoch,
    // RemoteLeaderEndPoint.buildFetch: replica.fetch.max.bytes for the partition,
    // replica.fetch.response.max.bytes for the whole response.
    maxBytes: s.state.brokerConfig['replica.fetch.max.bytes'],
    responseMaxBytes: s.state.brokerConfig['replica.fetch.response.max.bytes'],
    minBytes: s.state.brokerConfig['replica.fetch.min.bytes'],
  });
}

/** A segment copy starts, unless KIP-956's copy quota makes the task wait (core/sim/world/quotas.ts). */
function startSegmentCopy(s: Sim, w: Extract<QuotaWait, { wait: 'copy' }>): void {
  const seg = replica(s.state, w.key, w.broker).log.segments.find((x) => x.baseOffset === w.baseOffset && x.endOffset === w.endOffset);
  if (copyQuotaWaits(s, w, seg?.bytes ?? 0)) return;
  startCopy(s, w.broker, w.key, w.requestId, w.baseOffset, w.endOffset);
}

/** The machine still waits for the answer of request `requestId` (nothing else happened to it meanwhile). */
function stillAwaiting(s: Sim, broker: number, key: string, machine: 'fetcher' | 'rlm', requestId: number): boolean {
  if (!s.state.brokers[broker].alive) return false;
  return (s.machineSnapshot(broker, key, machine)?.context as { awaiting?: number } | undefined)?.awaiting === requestId;
}

/**
 * A quota wait is over (the kernel's `quotaWait` event): the follower builds its Fetch
 * again, the copy task checks the quota again, or the consumer's Fetch held for its max
 * wait is answered with no records. A wait whose requester moved on (a crash, a new
 * leader, another request) ends with nothing.
 */
export function resumeQuotaWait(s: Sim, w: QuotaWait): void {
  switch (w.wait) {
    case 'followerFetch':
      if (stillAwaiting(s, w.broker, w.key, 'fetcher', w.requestId)) sendFollowerFetch(s, w);
      return;
    case 'copy': {
      if (!stillAwaiting(s, w.broker, w.key, 'rlm', w.requestId) || s.state.partitions[w.key].leader !== w.broker) return;
      const part = s.state.partitions[w.key];
      const seg = replica(s.state, w.key, w.broker).log.segments.find((x) => x.baseOffset === w.baseOffset && x.endOffset === w.endOffset);
      // Tiering or copying turned off during the wait (Kafka cancels the copy task), or the
      // segment is gone: this run ends and the task starts again.
      if (seg === undefined || !tiered(s.state, w.key) || s.state.topicConfigs[part.topic]['remote.log.copy.disable']) return s.deliver(w.broker, w.key, 'rlm', { type: 'rlm.started', role: 'leader' });
      startSegmentCopy(s, w);
      return;
    }
    case 'remoteFetch':
      if (!s.state.brokers[w.broker].alive) return;
      reply(s, w.msg, { error: null, batches: [], servedFrom: 'remote', rule: 'remoteFetchThrottled', fetchOffset: w.msg.body.fetchOffset }, w.broker);
      return;
  }
}

/** A machine's explanation of a step and the rule behind it, for the trace and narration. */
function explain(s: Sim, type: 'fetcher' | 'rlm' | 'wal', broker: number, key: string, rule: Rule, detail: Record<string, number | string | null> | undefined): void {
  const part = s.state.partitions[key];
  s.emit({ atMs: s.state.nowMs, type, action: 'explain', broker, topic: part.topic, partition: part.partition, rule, ...(detail ?? {}) });
}

export const EFFECTS: { readonly [N in MachineName]: Handlers<N> } = { fetcher, leader, rlm, rlmExpiration, logRetention, walCombiner, walReplica };

/**
 * Effects that change nothing the invariants read (logs, offsets, Ry, ISR, leadership,
 * remote metadata, the watch): a step whose effects are all of these leaves its
 * partition's invariants as they were. Any other effect marks the partition for checking.
 */
export const READ_ONLY_EFFECTS: { readonly [N in MachineName]: ReadonlySet<EffectType<N>> } = {
  fetcher: new Set(['sendFetch', 'sendListOffsets', 'sendOffsetsForLeaderEpoch', 'startWalWait', 'lookupRemoteSegment', 'getRemoteObject', 'startBackoff', 'explain']),
  leader: new Set(['respondFetch', 'parkFetch', 'respondListOffsets', 'respondOffsetsForLeaderEpoch', 'rejectProduce', 'startIsrCheckTimer']),
  rlm: new Set(['scheduleTask', 'requestStep', 'explain']),
  rlmExpiration: new Set(['scheduleTask', 'requestStep', 'explain']),
  logRetention: new Set(['scheduleTask', 'requestStep', 'explain']),
  walCombiner: new Set([]),
  walReplica: new Set(['explain']),
};
