/**
 * Producers and consumers. A produce request is appended by the leader (`appendAsLeader`)
 * and acknowledged by acks (0, 1, or all once the high watermark passes it); a consumer reads
 * a range of offsets with Fetches, from the local log, or below the Local-Log-Start-Offset of
 * a tiered topic with a ranged GET of the remote segment (RemoteLogManager.read). Each Fetch
 * asks for max.partition.fetch.bytes of its partition and fetch.max.bytes in all (the
 * consumer's configs), and reads one segment at most.
 */
import { type ConsumerConfig, RACK_AWARE_REPLICA_SELECTOR, defaultConsumerConfig } from '../../domain/config.js';
import { bugOn } from '../../util/bugs.js';
import type { LeaderPartitionContext } from '../../machines/leader-partition.js';
import { fetchReadLimit } from '../../domain/leader-rules.js';
import { type RecordBatch, appendBatch, logEndOffset, planBatches, readBatches } from '../../domain/partition-log.js';
import { segmentSize } from '../../domain/config.js';
import { batchIndexEntry, batchIndexLength, firstBatchIndexEntryAt } from '../../domain/remote-metadata.js';
import type { Acks } from '../../scenario/types.js';
import type { Sim } from '../state/context.js';
import { countCrossZone } from '../state/costs.js';
import { combinerFacts, leaderFacts, replica, tiered, walEnabled, zoneOf } from '../state/facts.js';
import { hopMs } from './jitter.js';
import { releaseParked, reply } from './network.js';
import { acquireRemoteReader, cancelQueuedRemoteRead, holdsRemoteReader, recordRemoteFetch, releaseRemoteReader, remoteFetchThrottled } from './quotas.js';
import { localLogBytesChanged } from './replica-log.js';
import { storeOp } from './store.js';
import { BROKER_KEY, type ConsumerState, type KernelEventOf, type PendingAck, type RequestOf, type ResponseOf, partitionKey } from '../state/state.js';

/** A produce request reaches the partition's leader (or is refused when there is none). */
export function produce(s: Sim, topic: string, partition: number, records: number, acks: Acks, zone?: string): void {
  const state = s.state;
  const now = state.nowMs;
  const key = partitionKey(topic, partition);
  const part = state.partitions[key];
  s.emit({ atMs: now, type: 'timeline', action: 'produce', topic, partition, records, acks, ...(zone !== undefined ? { zone } : {}) });
  if (part.leader < 0 || !state.brokers[part.leader].alive) {
    s.emit({ atMs: now, type: 'produce', action: 'rejected', topic, partition, error: 'NOT_LEADER_OR_FOLLOWER', rule: 'noLeader' });
    return;
  }
  // The request's records cross zones when the producer is not in the leader's zone (accepted or not).
  countCrossZone(state.metrics.crossZoneBytes, 'produce', zoneOf(state, 'producer', key, zone), zoneOf(state, part.leader, key), records * state.model.recordBytes);
  s.deliver(part.leader, key, 'leader', {
    type: 'produce.received',
    msgId: state.nextMsgId++,
    records,
    acks,
    ...(zone !== undefined ? { zone } : {}),
    ...leaderFacts(state, key, part.leader),
  });
}

/** The leader appends a produce request's records in batches (Partition.appendRecordsToLeader). */
export function appendAsLeader(s: Sim, broker: number, key: string, msgId: number, records: number, acks: Acks, zone?: string): void {
  const state = s.state;
  const part = state.partitions[key];
  const r = replica(state, key, broker);
  const cfg = state.topicConfigs[part.topic];
  const model = state.model;
  const now = state.nowMs;
  const first = logEndOffset(r.log);
  for (const count of planBatches(records, model.recordBytes, model.producerBatchBytes)) {
    const base = logEndOffset(r.log);
    const batch: RecordBatch = {
      baseOffset: base,
      lastOffset: base + count - 1,
      leaderEpoch: part.leaderEpoch,
      producerId: 1,
      baseSequence: part.nextSequence,
      bytes: count * model.recordBytes,
      appendedMs: now,
    };
    part.nextSequence += count;
    if (appendBatch(r.log, batch, segmentSize(cfg), cfg['segment.ms'], now)) {
      s.emit({ atMs: now, type: 'log', action: 'segmentRolled', broker, topic: part.topic, partition: part.partition, baseOffset: base, rule: 'segmentFull' });
    }
  }
  const last = logEndOffset(r.log) - 1;
  state.metrics.produced.records += records;
  state.metrics.produced.bytes += records * model.recordBytes;
  localLogBytesChanged(s, records * model.recordBytes);
  s.emit({ atMs: now, type: 'produce', action: 'appended', broker, topic: part.topic, partition: part.partition, records, acks, baseOffset: first, lastOffset: last, rule: 'appendAsLeader' });
  // The producer's request and the leader's answer: one round trip from the client's zone
  // (its two hops drawn only when acknowledged: acks=0 waits for none).
  if (acks === 'all') part.pendingAcks.push(zone === undefined ? { msgId, lastOffset: last, sentMs: now, records } : { msgId, lastOffset: last, sentMs: now, records, zone });
  else if (acks === 1) {
    const roundTrip = producerRoundTripMs(s, broker, key, zone);
    state.produceLatencies.acks1.push(roundTrip);
    s.emit({ atMs: now, type: 'produce', action: 'acknowledged', broker, topic: part.topic, partition: part.partition, acks, lastOffset: last, latencyMs: roundTrip });
  } else state.produceLatencies.acks0.push(0);
  // KIP-1176: the combiner puts the new bytes into the next WAL object.
  if (walEnabled(state, key)) s.deliver(broker, BROKER_KEY, 'walCombiner', { type: 'wal.appended', ...combinerFacts(state, broker) });
  // acks=all may complete at once when the leader is the only in-sync replica.
  completeAcks(s, key);
  // New data completes the fetches held in the long poll.
  releaseParked(s, part);
}

/** The producer's request to `broker` and the answer back: two hops, each with its jitter. */
function producerRoundTripMs(s: Sim, broker: number, key: string, zone: string | undefined): number {
  return hopMs(s.state, 'producer', broker, key, zone) + hopMs(s.state, broker, 'producer', key, zone);
}

/** acks=all requests whose last offset is now below the high watermark are acknowledged. */
export function completeAcks(s: Sim, key: string): void {
  const state = s.state;
  const part = state.partitions[key];
  const r = replica(state, key, part.leader);
  const hw = r.log.highWatermark;
  let any = false;
  for (const a of part.pendingAcks) {
    if (a.lastOffset < hw) {
      any = true;
      break;
    }
  }
  if (!any) return;
  // Loops rather than filters: no closure a call (tsx gives each one a name at run time).
  const done: PendingAck[] = [];
  const rest: PendingAck[] = [];
  for (const a of part.pendingAcks) (a.lastOffset < hw ? done : rest).push(a);
  part.pendingAcks = rest;
  for (const a of done) {
    // Whole ms (a transfer's end may fall within a millisecond: core/sim/world/bandwidth.ts).
    const latency = Math.round(state.nowMs - a.sentMs) + producerRoundTripMs(s, part.leader, key, a.zone);
    state.produceLatencies.acksAll.push(latency);
    s.emit({ atMs: state.nowMs, type: 'produce', action: 'acknowledged', broker: part.leader, topic: part.topic, partition: part.partition, acks: 'all', lastOffset: a.lastOffset, latencyMs: latency });
  }
}

/**
 * A consumer starts reading `records` from `fromOffset` at `broker` (the leader by default),
 * with its configs (Kafka's defaults where `config` gives none), from `zone` when it has its own.
 */
export function startConsumer(s: Sim, topic: string, partition: number, fromOffset: number, records: number, broker?: number, config?: Partial<ConsumerConfig>, zone?: string): void {
  const state = s.state;
  const key = partitionKey(topic, partition);
  const part = state.partitions[key];
  const at = broker ?? part.leader;
  const id = state.nextConsumerId++;
  const cfg = { ...defaultConsumerConfig(), ...config };
  const rack = cfg['client.rack'];
  // A consumer with a client.rack that names a zone of the scenario is in that zone unless it says otherwise.
  const where = zone ?? (rack !== '' && Object.values(state.brokers).some((b) => b.zone === rack) ? rack : undefined);
  state.consumers[String(id)] = {
    id,
    key,
    broker: at,
    nextOffset: fromOffset,
    remaining: records,
    local: 0,
    remote: 0,
    maxPartitionFetchBytes: cfg['max.partition.fetch.bytes'],
    fetchMaxBytes: cfg['fetch.max.bytes'],
    ...(where !== undefined ? { zone: where } : {}),
    // KIP-392: a rack-aware consumer (without a broker of its own) follows the leader and the replica it names.
    ...(rack !== '' && broker === undefined ? { rack, fetchMaxWaitMs: cfg['fetch.max.wait.ms'], metadataMaxAgeMs: cfg['metadata.max.age.ms'] } : {}),
  };
  s.emit({ atMs: state.nowMs, type: 'timeline', action: 'consume', broker: at, topic, partition, fromOffset, records, ...(where !== undefined ? { zone: where } : {}), ...(rack !== '' ? { clientRack: rack } : {}) });
  sendConsumerFetch(s, id);
}

export function sendConsumerFetch(s: Sim, consumerId: number): void {
  const state = s.state;
  const c = state.consumers[String(consumerId)];
  if (c === undefined) return;
  const part = state.partitions[c.key];
  if (c.rack !== undefined) c.broker = readReplica(s, c);
  const msg: RequestOf<'Fetch'> = {
    msgId: state.nextMsgId++,
    correlationId: state.nextCorrelationId++,
    api: 'Fetch',
    dir: 'request',
    source: 'consumer',
    target: c.broker,
    key: c.key,
    requestId: consumerId,
    // AbstractFetch.prepareFetchRequests: max.partition.fetch.bytes for the partition,
    // fetch.max.bytes for the request.
    body: c.rack === undefined
      ? { fetchOffset: c.nextOffset, maxBytes: c.maxPartitionFetchBytes, responseMaxBytes: c.fetchMaxBytes }
      : { fetchOffset: c.nextOffset, maxBytes: c.maxPartitionFetchBytes, responseMaxBytes: c.fetchMaxBytes, rackId: c.rack },
  };
  s.emit({ atMs: state.nowMs, type: 'request', api: 'Fetch', source: 'consumer', target: c.broker, topic: part.topic, partition: part.partition, correlationId: msg.correlationId, fetchOffset: c.nextOffset });
  s.schedule(state.nowMs + hopMs(state, 'consumer', c.broker, c.key, c.zone), { kind: 'deliver', msg });
}

/**
 * A consumer Fetch: below the local log start of a tiered topic it is read from remote
 * storage. `resumed`: the Fetch again, after its remote read fetched the segment's offset index.
 */
export function onConsumerFetch(s: Sim, msg: RequestOf<'Fetch'>, resumed = false): void {
  const broker = msg.target as number;
  const part = s.state.partitions[msg.key];
  const r = part.replicaStates[String(broker)];
  if (r === undefined) return reply(s, msg, { error: 'NOT_LEADER_OR_FOLLOWER', rule: 'notReplica' }, broker);
  const offset = msg.body.fetchOffset;
  // KIP-392: the leader may send a rack-aware consumer to another replica, with no records.
  if (msg.body.rackId !== undefined && !resumed) {
    const preferred = preferredReadReplica(s, broker, msg.key, msg.body.rackId, offset);
    if (preferred !== null) return reply(s, msg, { error: null, batches: [], preferredReadReplica: preferred, rule: 'preferredReadReplica', fetchOffset: offset, highWatermark: r.log.highWatermark, logStartOffset: r.log.logStartOffset }, broker);
  }
  // KafkaApis.handleFetchRequest and ReplicaManager.readFromLog: min(max.partition.fetch.bytes,
  // fetch.max.bytes, the broker's fetch.max.bytes); the first batch whole (minOneMessage).
  const maxBytes = fetchReadLimit(msg.body.maxBytes, msg.body.responseMaxBytes, s.state.brokerConfig['fetch.max.bytes']);
  const log = r.log;
  if (offset < log.logStartOffset || offset > logEndOffset(log)) return reply(s, msg, { error: 'OFFSET_OUT_OF_RANGE', batches: [], rule: 'consumerOutOfRange' }, broker);
  if (offset < log.localLogStartOffset && tiered(s.state, msg.key)) {
    // ReplicaManager.handleOffsetOutOfRangeError: KIP-956's fetch quota, then
    // RemoteLogManager.asyncRead on the remote log reader pool (core/sim/world/quotas.ts).
    if (!holdsRemoteReader(s.state, broker, msg.msgId)) {
      if (remoteFetchThrottled(s, broker, msg)) return;
      // Kafka 4.3 ReplicaManager.handleOffsetOutOfRangeError builds a RemoteStorageFetchInfo
      // only when the read may return bytes (adjustedMaxBytes > 0); otherwise no remote read,
      // and the reader pool is not asked.
      if (maxBytes <= 0) return reply(s, msg, { error: null, batches: [], servedFrom: 'remote', rule: 'consumerRemoteRead', fetchOffset: offset }, broker);
      const slot = acquireRemoteReader(s, broker, msg);
      // ReplicaManager.processRemoteFetch: the RejectedExecutionException is the partition's
      // error at once (Errors.forException: UNKNOWN_SERVER_ERROR).
      if (slot === 'rejected') return reply(s, msg, { error: 'UNKNOWN_SERVER_ERROR', batches: [], servedFrom: 'remote', rule: 'remoteReadRejected', fetchOffset: offset }, broker);
      // ReplicaManager.processRemoteFetches: asyncRead hands the read to the reader pool, and
      // the DelayedRemoteFetch that answers the Fetch when the read completes, or after
      // remote.fetch.max.wait.ms, is created at once: the wait runs from now, whether the read
      // has a thread or waits in the queue.
      s.schedule(s.state.nowMs + s.state.brokerConfig['remote.fetch.max.wait.ms'], { kind: 'remoteFetchExpired', broker, key: msg.key, msgId: msg.msgId });
      if (slot === 'queued') return;
    }
    const seg = part.remoteMetadata.find((m) => m.state === 'COPY_SEGMENT_FINISHED' && m.baseOffset <= offset && offset <= m.endOffset);
    if (seg === undefined) return endRemoteRead(s, broker, msg, { error: 'OFFSET_OUT_OF_RANGE', batches: [], rule: 'remoteSegmentMissing' });
    // RemoteIndexCache.getIndexEntry: a broker's first read of a segment fetches its offset
    // index from remote storage (RemoteStorageManager.fetchIndex), then the read goes on.
    if (s.state.remoteIndexCache[String(broker)]?.[seg.segmentId] !== true) {
      s.state.pendingConsumerReads[String(msg.msgId)] = { msg, batchBaseOffsets: [] };
      return storeOp(s, broker, msg.key, { op: 'get', store: 'tiered', key: seg.objectKeys.offsetIndex }, msg.msgId, { for: 'remoteIndex', segmentId: seg.segmentId });
    }
    // RemoteLogManager.read: the first batch's position comes from the segment's offset
    // index (the leader's remote index cache), then RemoteStorageManager.fetchLogSegment(
    // metadata, startPosition) opens this one segment from there to its end; the leader keeps
    // the first batch whole and up to the fetch's max bytes in all (Kafka's buffer may end in
    // a cut batch, which the consumer drops). The read is not bounded by the high watermark:
    // what is in remote storage was below it when copied. One GET from that position to the
    // segment's last byte, all of it counted.
    let start = -1;
    let end = 0;
    const picked: number[] = [];
    for (let i = firstBatchIndexEntryAt(seg, offset), n = batchIndexLength(seg); i < n; i++) {
      const [base, last, pos, bytes] = batchIndexEntry(seg, i);
      if (last < offset) continue;
      if (picked.length > 0 && end - start + bytes > maxBytes) break;
      if (picked.length === 0) start = pos;
      picked.push(base);
      end = pos + bytes;
    }
    if (picked.length === 0) return endRemoteRead(s, broker, msg, { error: null, batches: [], servedFrom: 'remote', rule: 'consumerRemoteRead', fetchOffset: offset });
    s.state.pendingConsumerReads[String(msg.msgId)] = { msg, batchBaseOffsets: picked };
    const range: [number, number] = [start, seg.sizeBytes - 1];
    return storeOp(s, broker, msg.key, { op: 'get', store: 'tiered', key: seg.objectKeys.log, range }, msg.msgId, { for: 'consumerRead' });
  }
  // LocalLog.read with the high watermark as its end (FetchIsolation.HIGH_WATERMARK): one
  // segment, up to maxBytes, nothing at or past the high watermark.
  const pastHw = bugOn('followerServesPastHighWatermark') && broker !== part.leader;
  const batches = readBatches(log, offset, maxBytes).filter((b) => b.lastOffset < log.highWatermark || pastHw);
  reply(s, msg, { error: null, batches, servedFrom: 'local', rule: 'consumerLocalRead', fetchOffset: offset }, broker);
}

/**
 * remote.fetch.max.wait.ms passed while a consumer Fetch waited for its remote read (Kafka
 * 4.3 DelayedRemoteFetch.onExpiration cancels the read task; onComplete answers the
 * partition with its local read result: no records, no error). The read's answer, when it
 * comes, is dropped; the consumer fetches again.
 */
export function onRemoteFetchExpired(s: Sim, ev: KernelEventOf<'remoteFetchExpired'>): void {
  const state = s.state;
  const pending = state.pendingConsumerReads[String(ev.msgId)];
  if (pending === undefined) {
    // A read still in the reader pool's queue: cancelled there, the Fetch answered now.
    const queued = state.brokers[ev.broker].alive ? cancelQueuedRemoteRead(s, ev.broker, ev.msgId) : undefined;
    if (queued !== undefined) reply(s, queued, { error: null, batches: [], servedFrom: 'remote', rule: 'remoteFetchExpired', fetchOffset: queued.body.fetchOffset }, ev.broker);
    return;
  }
  delete state.pendingConsumerReads[String(ev.msgId)];
  if (!state.brokers[ev.broker].alive) return;
  // The cancelled task frees its remote log reader thread for the next queued read (KIP-956's pool).
  endRemoteRead(s, ev.broker, pending.msg, { error: null, batches: [], servedFrom: 'remote', rule: 'remoteFetchExpired', fetchOffset: pending.msg.body.fetchOffset });
}

/**
 * A segment's offset index arrived for the remote index cache: cached, and the consumer's
 * Fetch is served again (the segment's read follows now, as long as the Fetch is still one
 * the broker can serve from remote storage). A failed fetch fails the read.
 */
export function onRemoteIndexRead(s: Sim, ev: KernelEventOf<'storeDone'>): void {
  const state = s.state;
  const pending = state.pendingConsumerReads[String(ev.requestId)];
  if (pending === undefined || ev.completion.for !== 'remoteIndex') return;
  delete state.pendingConsumerReads[String(ev.requestId)];
  if (!ev.result.ok) {
    recordRemoteFetch(s, ev.broker, 0);
    return endRemoteRead(s, ev.broker, pending.msg, { error: 'NETWORK_EXCEPTION', batches: [], servedFrom: 'remote', rule: 'remoteReadFailed' });
  }
  (state.remoteIndexCache[String(ev.broker)] ??= {})[ev.completion.segmentId] = true;
  onConsumerFetch(s, pending.msg, true);
}

/** The remote read of a consumer Fetch completed: the batches it wanted go back to the consumer. */
export function onConsumerRemoteRead(s: Sim, ev: KernelEventOf<'storeDone'>): void {
  const state = s.state;
  const pending = state.pendingConsumerReads[String(ev.requestId)];
  if (pending === undefined) return;
  delete state.pendingConsumerReads[String(ev.requestId)];
  const key = String(ev.broker);
  const m = (state.metrics.remoteReads[key] ??= { count: 0, bytes: 0 });
  m.count++;
  m.bytes += ev.result.bytes;
  if (!ev.result.ok) {
    recordRemoteFetch(s, ev.broker, 0);
    return endRemoteRead(s, ev.broker, pending.msg, { error: 'NETWORK_EXCEPTION', batches: [], servedFrom: 'remote', rule: 'remoteReadFailed' });
  }
  const body = ev.result.object?.body;
  const wanted = new Set(pending.batchBaseOffsets);
  const batches = body?.kind === 'segment' ? body.batches.filter((b) => wanted.has(b.baseOffset)) : [];
  // RemoteLogReader.call: the records read count toward the remote fetch quota (KIP-956).
  let bytes = 0;
  for (const b of batches) bytes += b.bytes;
  recordRemoteFetch(s, ev.broker, bytes);
  endRemoteRead(s, ev.broker, pending.msg, { error: null, batches, servedFrom: 'remote', rule: 'consumerRemoteRead', fetchOffset: pending.msg.body.fetchOffset });
}

/**
 * A remote read's answer; its reader thread, if it held one, takes the oldest queued read
 * (RemoteStorageThreadPool). A queued read that ends at once frees the thread again.
 */
function endRemoteRead(s: Sim, broker: number, msg: RequestOf<'Fetch'>, body: ResponseOf<'Fetch'>['body']): void {
  reply(s, msg, body, broker);
  let next = releaseRemoteReader(s, broker, msg.msgId);
  while (next !== undefined) {
    onConsumerFetch(s, next);
    if (s.state.pendingConsumerReads[String(next.msgId)] !== undefined) return;
    next = releaseRemoteReader(s, broker, next.msgId);
  }
}

export function onConsumerResponse(s: Sim, msg: ResponseOf<'Fetch'>): void {
  const state = s.state;
  const c = state.consumers[String(msg.requestId)];
  if (c === undefined) return;
  const part = state.partitions[c.key];
  const batches = msg.body.batches ?? [];
  const error = msg.body.error;
  let n = 0;
  for (const b of batches) n += b.lastOffset - Math.max(b.baseOffset, c.nextOffset) + 1;
  // A Fetch may return more than the consumer asked for; it reads only what it wanted.
  n = Math.min(n, c.remaining);
  if (msg.body.servedFrom === 'remote') c.remote += n;
  else c.local += n;
  c.remaining -= n;
  c.nextOffset += n;
  if (c.rack !== undefined && rackAwareAnswer(s, c, msg)) return;
  // An answer cut short by remote.fetch.max.wait.ms carries nothing: the consumer polls again.
  if (msg.body.rule === 'remoteFetchExpired' && c.remaining > 0) return s.schedule(state.nowMs, { kind: 'consumerFetch', consumerId: c.id });
  // An empty answer for KIP-956's remote fetch quota is not the end either.
  if (error !== null || (batches.length === 0 && msg.body.rule !== 'remoteFetchThrottled') || c.remaining <= 0) {
    s.emit({ atMs: state.nowMs, type: 'consume', action: 'finished', broker: c.broker, topic: part.topic, partition: part.partition, recordsLocal: c.local, recordsRemote: c.remote, nextOffset: c.nextOffset, error, rule: c.remote > 0 ? 'consumerReadRemote' : 'consumerReadLocal' });
    delete state.consumers[String(c.id)];
    return;
  }
  s.schedule(state.nowMs, { kind: 'consumerFetch', consumerId: c.id });
}

/**
 * KIP-392, the consumer's side (Kafka 4.3 AbstractFetch.selectReadReplica): the replica the
 * leader named while its lease lasts, else the partition's leader of the moment. A lease past
 * its end (SubscriptionState.preferredReadReplica: now > expiry) is dropped.
 */
function readReplica(s: Sim, c: ConsumerState): number {
  const state = s.state;
  const p = c.preferred;
  if (p !== undefined) {
    if (state.nowMs <= p.untilMs) return p.broker;
    c.preferred = undefined;
    const part = state.partitions[c.key];
    s.emit({ atMs: state.nowMs, type: 'consume', action: 'readReplicaExpired', broker: p.broker, topic: part.topic, partition: part.partition, rule: 'preferredReadReplicaExpired' });
  }
  // No leader now: the Fetch goes where it went (and fails there, as a stale leader's would).
  const leader = state.partitions[c.key].leader;
  return leader >= 0 ? leader : c.broker;
}

/**
 * A rack-aware consumer's answer, before the ordinary handling; true when handled here.
 * - the leader named a replica (FetchCollector.updatePartitionState): kept for
 *   metadata.max.age.ms, and the next Fetch goes there at once;
 * - an error while reading from the named replica (FetchCollector.handleInitializeErrors:
 *   OFFSET_OUT_OF_RANGE clears it and does not reset the position; the others ask for new
 *   metadata, FetchUtils.requestMetadataUpdate, which clears it too; a failed connection,
 *   AbstractFetch.handleFetchFailure, likewise): dropped, and the next Fetch goes to the leader;
 * - nothing yet from the named replica (its high watermark not past the offset): the follower
 *   would hold the Fetch up to fetch.max.wait.ms (DelayedFetch); the model asks again then.
 */
function rackAwareAnswer(s: Sim, c: ConsumerState, msg: ResponseOf<'Fetch'>): boolean {
  const state = s.state;
  const part = state.partitions[c.key];
  const body = msg.body;
  if (body.preferredReadReplica !== undefined) {
    c.preferred = { broker: body.preferredReadReplica, untilMs: state.nowMs + (c.metadataMaxAgeMs ?? 0) };
    s.emit({ atMs: state.nowMs, type: 'consume', action: 'readReplicaChosen', broker: body.preferredReadReplica, leader: msg.source, topic: part.topic, partition: part.partition, clientRack: c.rack, untilMs: c.preferred.untilMs, rule: 'preferredReadReplica' });
    s.schedule(state.nowMs, { kind: 'consumerFetch', consumerId: c.id });
    return true;
  }
  if (c.preferred === undefined || msg.source !== c.preferred.broker || c.remaining <= 0) return false;
  if (body.error !== null) {
    s.emit({ atMs: state.nowMs, type: 'consume', action: 'readReplicaCleared', broker: c.preferred.broker, topic: part.topic, partition: part.partition, error: body.error, rule: 'preferredReadReplicaCleared' });
    c.preferred = undefined;
    s.schedule(state.nowMs, { kind: 'consumerFetch', consumerId: c.id });
    return true;
  }
  if ((body.batches ?? []).length === 0) {
    s.schedule(state.nowMs + (c.fetchMaxWaitMs ?? 0), { kind: 'consumerFetch', consumerId: c.id });
    return true;
  }
  return false;
}

/**
 * KIP-392, the leader's side (Kafka 4.3 ReplicaManager.findPreferredReadReplica with
 * RackAwareReplicaSelector.select): on the partition's leader, with replica.selector.class
 * RackAwareReplicaSelector and the Fetch's rackId set, the candidates are the leader and the
 * in-sync followers whose log end offset (as the leader last saw it) is at or past the fetch
 * offset and whose log start offset is at or below it. Among those in the consumer's rack
 * (a broker's rack is its zone): none, or the leader among them, gives the leader (null:
 * read here); else the most caught-up (ReplicaView.comparator: highest log end offset, then
 * the shortest time since it was last caught up, then the highest broker id).
 */
function preferredReadReplica(s: Sim, broker: number, key: string, rack: string, fetchOffset: number): number | null {
  const state = s.state;
  if (state.brokerConfig['replica.selector.class'] !== RACK_AWARE_REPLICA_SELECTOR || rack === '') return null;
  const part = state.partitions[key];
  if (part.leader !== broker) return null;
  const ctx = s.machineSnapshot(broker, key, 'leader')?.context as LeaderPartitionContext | undefined;
  if (ctx === undefined || state.brokers[broker].zone === rack) return null;
  let best: { id: number; leo: number; since: number } | null = null;
  for (const id of ctx.isr) {
    if (id === broker || state.brokers[id]?.zone !== rack) continue;
    const f = ctx.followers[String(id)];
    const r = part.replicaStates[String(id)];
    // The follower's log start offset: the model reads the follower's own (Kafka's leader keeps the one its last Fetch sent).
    if (f === undefined || r === undefined || f.logEndOffset < fetchOffset || r.log.logStartOffset > fetchOffset) continue;
    const view = { id, leo: f.logEndOffset, since: state.nowMs - f.lastCaughtUpMs };
    if (best === null || view.leo > best.leo || (view.leo === best.leo && (view.since < best.since || (view.since === best.since && view.id > best.id)))) best = view;
  }
  return best === null ? null : best.id;
}
