/**
 * A run's start from its scenario: the configs, the brokers and partitions, the leader's
 * log at t = 0 (segments local, uploaded or remote only, with their remote metadata and
 * objects), the timeline's events queued, and every machine started.
 */
import {
  type BrokerConfig,
  type ConfigValue,
  type ModelSettings,
  type TopicConfig,
  defaultBrokerConfig,
  defaultModelKnobs,
  defaultTopicConfig,
  isBrokerConfigKey,
  isTopicConfigKey,
} from '../../domain/config.js';
import { type EpochEntry, checkpointUpTo, epochForOffset } from '../../domain/leader-epoch-cache.js';
import { type PartitionLog, type RecordBatch, emptyLog, localBytes, logEndOffset, newSegment } from '../../domain/partition-log.js';
import { resolvePrices } from '../../domain/prices.js';
import { type ProducerEntry, producerEntryOf } from '../../domain/producer-state.js';
import { type RemoteSegmentMetadata, objectKeysFor, segmentLeaderEpochs } from '../../domain/remote-metadata.js';
import { type BatchRun, batchesOfRuns, runBatch, runBatchCount } from '../../domain/batch.js';
import type { ObjectStoreRequest } from '../../ports/object-store.js';
import { brokerZone, type Scenario } from '../../scenario/types.js';
import { assert } from '../../util/assert.js';
import { newNetState } from '../world/bandwidth.js';
import type { Sim } from '../state/context.js';
import { startFetcher } from '../world/controller.js';
import { newCrossZoneBytes, newStoreCounters, newUsage, objectStored } from '../state/costs.js';
import { newQueue } from '../state/event-queue.js';
import { effectiveMinIsr, replica, walEnabled } from '../state/facts.js';
import { PARTITION_MACHINES } from '../runtime/machines.js';
import { newJitterMetrics } from '../world/jitter.js';
import { seedPrng } from '../state/prng.js';
import { localLogBytesChanged } from '../world/replica-log.js';
import { BROKER_KEY, type KernelState, type PartitionState, type ReplicaState, cloneJson, emptyWalMetrics, partitionKey } from '../state/state.js';
import { initialSegmentObjects } from '../world/tiering.js';

/** The state at t = 0 before any partition exists: configs, brokers, empty metrics. */
export function initialState(scenario: Scenario, seed: number): KernelState {
  const brokerConfig: BrokerConfig = defaultBrokerConfig();
  for (const [k, v] of Object.entries(scenario.config)) if (isBrokerConfigKey(k)) (brokerConfig as Record<string, ConfigValue>)[k] = v as ConfigValue;
  const model: ModelSettings = defaultModelKnobs();
  for (const [k, v] of Object.entries(scenario.model)) {
    if (k === 'jitter') model.jitter = cloneJson(scenario.model.jitter);
    else (model as unknown as Record<string, ConfigValue>)[k] = v as ConfigValue;
  }
  const topicConfigs: Record<string, TopicConfig> = {};
  for (const t of scenario.topics) {
    const c = defaultTopicConfig();
    for (const [k, v] of Object.entries(t.config)) if (isTopicConfigKey(k)) (c as Record<string, ConfigValue>)[k] = v as ConfigValue;
    topicConfigs[t.name] = c;
  }
  return {
    nowMs: 0,
    nextMsgId: 1,
    nextCorrelationId: 1,
    nextConsumerId: 1,
    stepCount: 0,
    prng: seedPrng(seed),
    queue: newQueue(),
    brokers: Array.from({ length: scenario.brokers }, (_, id) => ({ id, zone: brokerZone(scenario, id), alive: true, startedAtMs: 0 })),
    brokerConfig,
    topicConfigs,
    model,
    partitions: {},
    partitionOrder: [],
    storeAvailable: { tiered: true, wal: true },
    storeExtraLatencyMs: { tiered: 0, wal: 0 },
    isolated: {},
    consumers: {},
    pendingConsumerReads: {},
    remoteIndexCache: {},
    quotas: { rates: {}, lag: {}, readers: {} },
    storeGroups: {},
    nextSegmentSeq: 1,
    watch: { committed: {}, leaderEpoch: {}, highestOffsetInRemoteStorage: {} },
    checkCache: { remoteVersion: {}, coverage: {} },
    produceLatencies: { acks0: [], acks1: [], acksAll: [] },
    violations: [],
    violationKeys: {},
    metrics: {
      requests: {},
      remoteReads: {},
      bytesFetchedByFollowers: 0,
      produced: { records: 0, bytes: 0 },
      wal: emptyWalMetrics(),
      crossZoneBytes: newCrossZoneBytes(),
      objectStore: newStoreCounters(),
      // Only in a run that may draw latencies (none is counted, and the JSON unchanged, otherwise).
      ...(model.jitter !== undefined ? { jitter: newJitterMetrics() } : {}),
    },
    wal: { nextObjectSeq: 1, nextChunkId: 0, next: {}, live: {}, liveHead: {}, inflight: {}, objects: {}, objectOrder: {}, chunks: {}, metadata: [], reads: {}, tailSync: {} },
    prices: resolvePrices(scenario.prices),
    usage: newUsage(),
    net: newNetState(),
    replicaStats: {},
  };
}

/** Every partition of every topic, its first replica the leader, in scenario order. */
export function setUpPartitions(s: Sim): void {
  for (const t of s.scenario.topics) {
    for (let p = 0; p < t.partitions; p++) {
      const key = partitionKey(t.name, p);
      const replicas = [...t.replicas[p]];
      const initial = t.initial.find((i) => i.partition === p);
      const part: PartitionState = {
        key,
        topic: t.name,
        partition: p,
        replicas,
        leader: replicas[0],
        leaderEpoch: initial?.leaderEpoch ?? 0,
        // A new topic starts with every assigned live replica in the ISR
        // (ReplicationControlManager.createTopic); with an `initial` log the others are empty
        // replicas of a partition that has data, and join the ISR once they catch up (unless
        // `followersInSync` gives them the leader's log: buildInitialLog).
        isr: initial === undefined ? replicas.filter((b) => s.state.brokers[b].alive) : [replicas[0]],
        remoteMetadata: [],
        // The scenario's remoteLogMetadataReadyMs is the initial leader's loading time.
        metadataReadyAtMs: { [String(replicas[0])]: initial?.remoteLogMetadataReadyMs ?? 0 },
        replicaStates: {},
        parked: [],
        pendingAcks: [],
        nextSequence: 0,
      };
      for (const b of replicas) part.replicaStates[String(b)] = { broker: b, log: emptyLog(0, 0), highestOffsetInRemoteStorage: -1 };
      const leaderState = part.replicaStates[String(replicas[0])];
      if (initial !== undefined) buildInitialLog(s, part, leaderState, initial);
      else leaderState.log.leaderEpochs = [[part.leaderEpoch, 0]];
      s.state.partitions[key] = part;
      s.state.partitionOrder.push(key);
    }
  }
}

/**
 * The leader's log at t = 0 from the scenario's `initial` segments, and with
 * `followersInSync` its copy on every other replica. The batches are cut from the records
 * by rule (`initialRuns`): the remote metadata and the stored objects of uploaded segments
 * keep the rule, not a list (a terabyte at t = 0 is no batch held); only local segments
 * list their batches.
 */
function buildInitialLog(s: Sim, part: PartitionState, leader: ReplicaState, initial: Scenario['topics'][number]['initial'][number]): void {
  const model = s.state.model;
  const epochs: EpochEntry[] = initial.leaderEpochs.map(([e, start]) => [e, start] as EpochEntry);
  const first = initial.segments[0];
  const log: PartitionLog = {
    logStartOffset: first.baseOffset,
    localLogStartOffset: first.baseOffset,
    highWatermark: 0,
    segments: [],
    leaderEpochs: epochs,
    producers: {},
  };
  const producerId = 1;
  const perBatch = Math.max(1, Math.floor(model.producerBatchBytes / model.recordBytes));
  const remoteMetas: RemoteSegmentMetadata[] = [];
  /** The log's last batch so far. */
  let last: RecordBatch | undefined;
  for (let i = 0; i < initial.segments.length; i++) {
    const seg0 = initial.segments[i];
    const seg = newSegment(seg0.baseOffset, 0);
    // One producer from the log's first offset: its sequence is the offset's distance from there.
    const runs = initialRuns(seg0.baseOffset, seg0.endOffset, epochs, perBatch, model.recordBytes, producerId, seg0.baseOffset - first.baseOffset);
    const lastRun = runs[runs.length - 1];
    const segLast = lastRun === undefined ? undefined : runBatch(lastRun, runBatchCount(lastRun) - 1);
    if (segLast !== undefined) last = segLast;
    seg.endOffset = seg0.endOffset;
    seg.bytes = (seg0.endOffset - seg0.baseOffset + 1) * model.recordBytes;
    seg.rolled = i < initial.segments.length - 1;
    if (seg0.tier === 'remote' || seg0.tier === 'both') {
      const segmentId = `init-${seg0.baseOffset}`;
      const keys = objectKeysFor(part.topic, part.partition, seg0.baseOffset, segmentId);
      const meta: RemoteSegmentMetadata = {
        segmentId,
        topic: part.topic,
        partition: part.partition,
        baseOffset: seg0.baseOffset,
        endOffset: seg0.endOffset,
        state: 'COPY_SEGMENT_FINISHED',
        brokerId: part.leader,
        segmentLeaderEpochs: segmentLeaderEpochs(epochs, seg0.baseOffset, seg0.endOffset),
        sizeBytes: seg.bytes,
        maxTimestampMs: 0,
        objectKeys: keys,
        batchIndex: [],
        batchRuns: runs,
      };
      remoteMetas.push(meta);
      // The producer state at the segment's end: its last batch's (one producer).
      writeSegmentObjects(s, meta, runs, checkpointUpTo(epochs, seg0.endOffset), segLast === undefined ? [] : [producerEntryOf(segLast)]);
    }
    if (seg0.tier === 'both' || seg0.tier === 'local') {
      seg.batches = batchesOfRuns(runs);
      log.segments.push(seg);
    }
  }
  if (last !== undefined) log.producers[String(producerId)] = producerEntryOf(last);
  assert(log.segments.length > 0, 'the active segment is local');
  log.localLogStartOffset = log.segments[0].baseOffset;
  log.highWatermark = logEndOffset(log);
  leader.log = log;
  localLogBytesChanged(s, localBytes(log));
  if (initial.followersInSync === true) {
    // A partition that has been replicating all along: every other replica holds the
    // leader's local log (the same batches; the segments, epochs and producers its own)
    // and is in the ISR. Its highest offset in remote storage is refreshed by its remote
    // log manager's first run, as after any start.
    for (const b of part.replicas) {
      if (b === leader.broker) continue;
      const r = part.replicaStates[String(b)];
      r.log = copyLog(log);
      localLogBytesChanged(s, localBytes(r.log));
    }
    part.isr = part.replicas.filter((b) => s.state.brokers[b].alive);
  }
  part.remoteMetadata = remoteMetas;
  const derived = remoteMetas.length > 0 ? remoteMetas[remoteMetas.length - 1].endOffset : -1;
  leader.highestOffsetInRemoteStorage = initial.highestOffsetInRemoteStorage ?? derived;
  part.nextSequence = last === undefined ? 0 : last.baseSequence + (last.lastOffset - last.baseOffset) + 1;
}

/**
 * The batches of the offsets [baseOffset, endOffset] of the initial log, as runs: cut every
 * `perBatch` records, and where a leader epoch starts (a batch never spans two epochs).
 */
export function initialRuns(baseOffset: number, endOffset: number, epochs: readonly EpochEntry[], perBatch: number, recordBytes: number, producerId: number, firstSequence: number): BatchRun[] {
  const runs: BatchRun[] = [];
  let position = 0;
  for (let offset = baseOffset; offset <= endOffset; ) {
    const next = epochs.find(([, start]) => start > offset);
    const lastOffset = Math.min(endOffset, next === undefined ? Number.MAX_SAFE_INTEGER : next[1] - 1);
    runs.push({ firstOffset: offset, lastOffset, recordsPerBatch: perBatch, recordBytes, position, leaderEpoch: epochForOffset(epochs, offset), producerId, firstSequence: firstSequence + (offset - baseOffset), appendedMs: 0 });
    position += (lastOffset - offset + 1) * recordBytes;
    offset = lastOffset + 1;
  }
  return runs;
}

/** A replica's copy of a log: its own segments (a rolled segment's batch list shared, as checkpoints share it), epochs and producers. */
function copyLog(log: PartitionLog): PartitionLog {
  return {
    ...log,
    segments: log.segments.map((g) => ({ ...g, batches: g.rolled ? g.batches : g.batches.slice() })),
    leaderEpochs: log.leaderEpochs.map(([e, start]) => [e, start] as EpochEntry),
    producers: Object.fromEntries(Object.entries(log.producers).map(([k, v]) => [k, { ...v }])),
  };
}

/** Objects of an uploaded segment, written straight to the store (initial state only). */
function writeSegmentObjects(s: Sim, meta: RemoteSegmentMetadata, runs: readonly BatchRun[], epochs: EpochEntry[], producers: ProducerEntry[]): void {
  for (const [key, object] of initialSegmentObjects(meta, runs, epochs, producers)) {
    const req: ObjectStoreRequest = { op: 'put', store: 'tiered', key, object };
    // Held from t = 0 (stored, not billed as a request of this run).
    objectStored(s.state.usage, 'tiered', key, object.bytes, 0);
    if (s.store.executeAsync) {
      s.pendingIo.push(
        s.store.executeAsync(req).then((r) => {
          if (!r.ok) throw new Error(`writing the initial segment object ${key} failed: ${r.error ?? 'error'}`);
        }),
      );
    } else s.store.execute(req);
  }
}

/** Every machine created and started: leaders lead, remote log managers run, followers fetch. */
export function startCluster(s: Sim): void {
  const state = s.state;
  for (const b of state.brokers) s.createMachine(b.id, BROKER_KEY, 'walCombiner');
  for (const key of state.partitionOrder) {
    const part = state.partitions[key];
    if (walEnabled(state, key)) state.wal.next[key] = logEndOffset(replica(state, key, part.leader).log);
    for (const b of part.replicas) {
      for (const name of PARTITION_MACHINES) s.createMachine(b, key, name);
    }
    s.deliver(part.leader, key, 'leader', {
      type: 'leadership.assumed',
      leaderEpoch: part.leaderEpoch,
      isr: part.isr,
      replicas: part.replicas,
      nowMs: 0,
      logEndOffset: logEndOffset(replica(state, key, part.leader).log),
      minIsr: effectiveMinIsr(state, key),
    });
    s.emit({ atMs: 0, type: 'leader', topic: part.topic, partition: part.partition, broker: part.leader, leaderEpoch: part.leaderEpoch, rule: 'initialLeader' });
  }
  for (const key of state.partitionOrder) {
    const part = state.partitions[key];
    for (const b of part.replicas) s.deliver(b, key, 'rlm', { type: 'rlm.started', role: b === part.leader ? 'leader' : 'follower' });
  }
  for (const key of state.partitionOrder) {
    const part = state.partitions[key];
    for (const b of part.replicas) if (b !== part.leader) startFetcher(s, b, key);
  }
}
