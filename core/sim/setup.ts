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
} from '../domain/config.js';
import { type EpochEntry, checkpointUpTo, epochForOffset } from '../domain/leader-epoch-cache.js';
import { type PartitionLog, type RecordBatch, emptyLog, localBytes, logEndOffset, newSegment } from '../domain/partition-log.js';
import { resolvePrices } from '../domain/prices.js';
import { type ProducerEntry, producerEntryOf, snapshotProducerState } from '../domain/producer-state.js';
import { type RemoteSegmentMetadata, batchIndexOf, objectKeysFor, segmentLeaderEpochs } from '../domain/remote-metadata.js';
import type { ObjectStoreRequest } from '../ports/object-store.js';
import { brokerZone, type Scenario } from '../scenario/types.js';
import { assert } from '../util/assert.js';
import { newNetState } from './bandwidth.js';
import type { Sim } from './context.js';
import { startFetcher } from './controller.js';
import { newCrossZoneBytes, newStoreCounters, newUsage, objectStored } from './costs.js';
import { newQueue } from './event-queue.js';
import { effectiveMinIsr, replica, walEnabled } from './facts.js';
import { PARTITION_MACHINES } from './machines.js';
import { newJitterMetrics } from './jitter.js';
import { seedPrng } from './prng.js';
import { localLogBytesChanged } from './replica-log.js';
import { BROKER_KEY, type KernelState, type PartitionState, type ReplicaState, cloneJson, emptyWalMetrics, partitionKey } from './state.js';
import { segmentObjects } from './tiering.js';

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
    brokers: Array.from({ length: scenario.brokers }, (_, id) => ({ id, zone: brokerZone(scenario, id), alive: true })),
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
        // replicas of a partition that has data, and join the ISR once they catch up.
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

/** The leader's log at t = 0 from the scenario's `initial` segments. */
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
  let sequence = 0;
  const remoteMetas: RemoteSegmentMetadata[] = [];
  for (let i = 0; i < initial.segments.length; i++) {
    const seg0 = initial.segments[i];
    const seg = newSegment(seg0.baseOffset, 0);
    const batches: RecordBatch[] = [];
    for (let offset = seg0.baseOffset; offset <= seg0.endOffset; ) {
      const epoch = epochForOffset(epochs, offset);
      const next = epochs.find(([, start]) => start > offset);
      const perBatch = Math.max(1, Math.floor(model.producerBatchBytes / model.recordBytes));
      const last = Math.min(seg0.endOffset, offset + perBatch - 1, next === undefined ? Number.MAX_SAFE_INTEGER : next[1] - 1);
      const count = last - offset + 1;
      batches.push({
        baseOffset: offset,
        lastOffset: last,
        leaderEpoch: epoch,
        producerId,
        baseSequence: sequence,
        bytes: count * model.recordBytes,
        appendedMs: 0,
      });
      sequence += count;
      offset = last + 1;
    }
    seg.batches = batches;
    seg.endOffset = seg0.endOffset;
    seg.bytes = batches.reduce((n, b) => n + b.bytes, 0);
    seg.rolled = i < initial.segments.length - 1;
    for (const b of batches) {
      log.producers[String(producerId)] = producerEntryOf(b);
    }
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
        batchIndex: batchIndexOf(batches),
      };
      remoteMetas.push(meta);
      writeSegmentObjects(s, meta, batches, checkpointUpTo(epochs, seg0.endOffset), snapshotProducerState(log.producers, seg0.endOffset + 1));
    }
    if (seg0.tier === 'both' || seg0.tier === 'local') log.segments.push(seg);
  }
  assert(log.segments.length > 0, 'the active segment is local');
  log.localLogStartOffset = log.segments[0].baseOffset;
  log.highWatermark = logEndOffset(log);
  leader.log = log;
  localLogBytesChanged(s, localBytes(log));
  part.remoteMetadata = remoteMetas;
  const derived = remoteMetas.length > 0 ? remoteMetas[remoteMetas.length - 1].endOffset : -1;
  leader.highestOffsetInRemoteStorage = initial.highestOffsetInRemoteStorage ?? derived;
  part.nextSequence = sequence;
}

/** Objects of an uploaded segment, written straight to the store (initial state only). */
function writeSegmentObjects(s: Sim, meta: RemoteSegmentMetadata, batches: RecordBatch[], epochs: EpochEntry[], producers: ProducerEntry[]): void {
  for (const [key, object] of segmentObjects(meta, batches, epochs, producers)) {
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
