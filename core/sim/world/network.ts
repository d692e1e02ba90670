/**
 * The simulated network between brokers and clients: typed requests and responses of the
 * Kafka APIs the model uses (Fetch, ListOffsets, OffsetsForLeaderEpoch), per-link latency by
 * zone, crashed and isolated brokers, and the leader's long poll (Fetches parked until data
 * arrives or replica.fetch.wait.max.ms passes). Requests reach the leader machine as events
 * with the facts it decides from; responses reach the follower fetcher.
 */
import { endOffsetFor } from '../../domain/leader-epoch-cache.js';
import { fetchHasEnoughBytes, fetchMinBytes, fetchReadLimit } from '../../domain/leader-rules.js';
import { type PartitionLog, type RecordBatch, activeSegment, fetchPosition, logEndOffset, readBatches } from '../../domain/partition-log.js';
import type { ApiName } from '../../domain/protocol.js';
import type { FollowerFetcherEvent } from '../../machines/follower-fetcher.js';
import { assert, fail } from '../../util/assert.js';
import type { Sim } from '../state/context.js';
import { transmit } from './bandwidth.js';
import { countCrossZone } from '../state/costs.js';
import { leaderFacts, replica, replicaFacts, walFetchEnd, walServes, zoneOf } from '../state/facts.js';
import { hopMs } from './jitter.js';
import { holdsThrottledFetch, leaderThrottle, shouldLeaderThrottle } from './quotas.js';
import type { ParkedFetch, PartitionState, RequestBodies, RequestMessage, RequestOf, ResponseBodies, ResponseMessage } from '../state/state.js';
import type { TraceEntry } from '../state/trace.js';

/** Sends a follower's request to the leader its fetcher follows. */
export function sendRequest<A extends keyof RequestBodies>(s: Sim, broker: number, key: string, api: A, requestId: number, body: RequestBodies[A]): void {
  const state = s.state;
  const part = state.partitions[key];
  const fetcher = s.machineSnapshot(broker, key, 'fetcher');
  const target = (fetcher?.context as { leader: number } | undefined)?.leader ?? part.leader;
  // The API and its body agree by the signature; TypeScript does not carry that into the union.
  const msg = { msgId: state.nextMsgId++, correlationId: state.nextCorrelationId++, api, dir: 'request', source: broker, target, key, requestId, body } as RequestMessage;
  state.metrics.requests[api] = (state.metrics.requests[api] ?? 0) + 1;
  // Built field by field (no spreads of optional parts): the hottest trace entry.
  const e: Record<string, unknown> = { atMs: state.nowMs, type: 'request', api, source: broker, target, topic: part.topic, partition: part.partition, correlationId: msg.correlationId };
  if (msg.api === 'Fetch') {
    e.fetchOffset = msg.body.fetchOffset;
    e.currentLeaderEpoch = msg.body.currentLeaderEpoch;
    e.lastFetchedEpoch = msg.body.lastFetchedEpoch;
  } else if (msg.api === 'ListOffsets') e.timestamp = msg.body.timestamp;
  else e.leaderEpoch = msg.body.leaderEpoch;
  s.emit(e as unknown as TraceEntry);
  s.observe({ kind: 'requestSent', msg });
  s.schedule(state.nowMs + hopMs(state, broker, target, key) + lateBy(s, msg), { kind: 'deliver', msg });
}

/**
 * A message between two brokers may arrive late (a `delay` choice point, core/sim/loop/choices.ts):
 * 0 on a normal run.
 */
function lateBy(s: Sim, msg: RequestMessage | ResponseMessage): number {
  if (typeof msg.source !== 'number' || typeof msg.target !== 'number') return 0;
  return s.choose('delay', () => `${msg.api} ${msg.dir} ${msg.source}→${msg.target} ${msg.key}`);
}

/**
 * A request arrives: false when the connection failed (the requester gets a network error
 * after the round trip) or the request was lost with a crashed sender.
 */
export function admitRequest(s: Sim, msg: RequestMessage): boolean {
  const brokers = s.state.brokers;
  const target = msg.target as number;
  // A crashed broker's connections closed with it: its requests in flight are lost.
  if (typeof msg.source === 'number' && !brokers[msg.source].alive) return false;
  if (!brokers[target]?.alive) {
    // The connection fails; the requester sees a network error after the round trip.
    reply(s, msg, { error: 'NETWORK_EXCEPTION', rule: 'brokerUnreachable' }, target);
    return false;
  }
  if (typeof msg.source === 'number' && (s.state.isolated[String(target)] || s.state.isolated[String(msg.source)])) {
    reply(s, msg, { error: 'NETWORK_EXCEPTION', rule: 'networkPartition' }, target);
    return false;
  }
  return true;
}

/**
 * A broker is cut off (`isolate`): its connections to the other brokers are gone. Every
 * Fetch held in a long poll over one of them, at this broker as leader or sent by it, is
 * dropped, and its sender sees the disconnect as a network error; it backs off and fetches
 * again, which fails until `heal`. Without this the held Fetch would be answered across the
 * partition when data arrived, and the leader would count the isolated follower as fetching.
 */
export function dropParkedOnIsolation(s: Sim, broker: number): void {
  for (const key in s.state.partitions) {
    const part = s.state.partitions[key];
    for (const f of part.parked.slice()) {
      if (f.msg.target !== broker && f.msg.source !== broker) continue;
      takeParked(part, f.msgId);
      reply(s, f.msg, { error: 'NETWORK_EXCEPTION', rule: 'networkPartition' }, f.msg.target as number);
    }
  }
}

/**
 * A response between two brokers that arrives while one of them is isolated was lost with
 * the connection: the requester sees a network error instead (the refusals `admitRequest`
 * makes are such errors already).
 */
export function severed(s: Sim, msg: ResponseMessage): ResponseMessage {
  if (typeof msg.source !== 'number' || typeof msg.target !== 'number' || msg.body.error === 'NETWORK_EXCEPTION') return msg;
  if (!s.state.isolated[String(msg.source)] && !s.state.isolated[String(msg.target)]) return msg;
  return { ...msg, body: { error: 'NETWORK_EXCEPTION', rule: 'networkPartition' } } as ResponseMessage;
}

/** A follower's request at a broker: only the leader answers it. */
export function onFollowerRequest(s: Sim, msg: RequestMessage): void {
  const target = msg.target as number;
  const part = s.state.partitions[msg.key];
  if (part.leader !== target) return reply(s, msg, { error: 'NOT_LEADER_OR_FOLLOWER', rule: 'notLeader' }, target);
  onFollowerRequestAtLeader(s, msg, 'request');
}

/**
 * The leader machine takes the request with the facts it decides from: as it arrives, or
 * as a Fetch held in the long poll that new data (`released`) or the end of the wait
 * (`expired`) completes.
 */
export function onFollowerRequestAtLeader(s: Sim, msg: RequestMessage, how: 'request' | 'released' | 'expired'): void {
  const leader = msg.target as number;
  // A parked Fetch from a broker that has since crashed went with its connection.
  if (typeof msg.source === 'number' && !s.state.brokers[msg.source].alive) return;
  const facts = leaderFacts(s.state, msg.key, leader);
  s.answering.push(msg);
  switch (msg.api) {
    case 'Fetch': {
      const b = msg.body;
      const r = replica(s.state, msg.key, leader);
      const lfe = b.lastFetchedEpoch ?? -1;
      s.deliver(leader, msg.key, 'leader', {
        type: 'fetch.received',
        msgId: msg.msgId,
        from: msg.source as number,
        fetchOffset: b.fetchOffset,
        currentLeaderEpoch: b.currentLeaderEpoch ?? -1,
        lastFetchedEpoch: lfe,
        lastFetchedEpochEnd: lfe >= 0 ? endOffsetFor(r.log.leaderEpochs, lfe, logEndOffset(r.log)) : null,
        waitExpired: how === 'expired',
        fromPurgatory: how !== 'request',
        enoughData: how !== 'request' || enoughBytes(s, msg, r.log, undefined),
        walServes: walServes(s, msg.key, leader, b.fetchOffset),
        view: facts.view,
        leaderEpochStartOffset: facts.leaderEpochStartOffset,
        nowMs: facts.nowMs,
        minIsr: facts.minIsr,
        lagTimeMaxMs: facts.lagTimeMaxMs,
        isrEligible: facts.isrEligible,
        // KIP-73 (core/sim/world/quotas.ts): a throttled read waits in the purgatory.
        leaderThrottled: how === 'request' && shouldLeaderThrottle(s, msg.key, leader, msg.source as number),
      });
      break;
    }
    case 'ListOffsets': {
      const b = msg.body;
      s.deliver(leader, msg.key, 'leader', {
        type: 'listOffsets.received',
        msgId: msg.msgId,
        from: msg.source as number,
        timestamp: b.timestamp,
        currentLeaderEpoch: b.currentLeaderEpoch,
        ...facts,
      });
      break;
    }
    case 'OffsetsForLeaderEpoch': {
      const b = msg.body;
      s.deliver(leader, msg.key, 'leader', {
        type: 'offsetsForLeaderEpoch.received',
        msgId: msg.msgId,
        from: msg.source as number,
        leaderEpoch: b.leaderEpoch,
        currentLeaderEpoch: b.currentLeaderEpoch,
        ...facts,
      });
      break;
    }
  }
  const i = s.answering.lastIndexOf(msg);
  if (i >= 0) s.answering.splice(i, 1);
}

/** The request a leader is answering in this step. */
export function answering(s: Sim, msgId: number): RequestMessage | undefined {
  for (const m of s.answering) if (m.msgId === msgId) return m;
  return undefined;
}

/** The leader answers a Fetch now (in this step, or one held in the long poll). */
export function respondFetch(
  s: Sim,
  broker: number,
  key: string,
  p: { msgId: number; error: ResponseBodies['Fetch']['error']; rule: string; fetchOffset: number; divergingEpoch: { epoch: number; endOffset: number } | null; highWatermark: number },
): void {
  const part = s.state.partitions[key];
  const inflight = answering(s, p.msgId);
  const parked = takeParked(part, p.msgId);
  const msg = inflight ?? parked?.msg;
  assert(msg !== undefined && msg.api === 'Fetch', 'a Fetch answered is in flight');
  const r = replica(s.state, key, broker);
  const error = p.error;
  const wal = p.rule === 'walEmptyRecords';
  const limit = fetchReadLimit(msg.body.maxBytes, msg.body.responseMaxBytes, s.state.brokerConfig['fetch.max.bytes']);
  let batches = error === null && p.divergingEpoch === null && !wal ? readBatches(r.log, p.fetchOffset, limit) : [];
  if (batches.length > 0) {
    // KIP-1176: no record the fast store has not accepted goes to a follower by Fetch.
    const end = walFetchEnd(s, key, broker);
    if (batches[batches.length - 1].lastOffset >= end) batches = batches.filter((b) => b.lastOffset < end);
  }
  // KIP-73's leader throttle (core/sim/world/quotas.ts).
  const throttle = p.rule === 'localRecords' ? leaderThrottle(s, key, broker, msg, batches, p.rule) : { batches, rule: p.rule };
  batches = throttle.batches;
  // The HW the read found (the leader machine's view when it decided), not one this very
  // Fetch raised: Kafka's Partition.readRecords answers with its initialHighWatermark.
  const highWatermark = p.highWatermark;
  const body: ResponseBodies['Fetch'] = wal
    ? { error, batches, wal: true, highWatermark, logStartOffset: r.log.logStartOffset, divergingEpoch: p.divergingEpoch, fetchOffset: p.fetchOffset, rule: p.rule }
    : { error, batches, highWatermark, logStartOffset: r.log.logStartOffset, divergingEpoch: p.divergingEpoch, fetchOffset: p.fetchOffset, rule: throttle.rule };
  reply(s, msg, body, broker);
}

/** The leader answers the request it is handling in this step. */
export function respond<A extends ApiName>(s: Sim, broker: number, key: string, msgId: number, api: A, body: ResponseBodies[A]): void {
  const msg = answering(s, msgId);
  if (msg === undefined || msg.key !== key || msg.api !== api) fail(`a ${api} answered is in flight`);
  reply(s, msg as RequestMessage & { api: A }, body, broker);
}

/** The zone of the consumer that sent `request`, when it has its own (a consume's `zone`). */
function consumerZone(state: Sim['state'], request: RequestMessage): string | undefined {
  return request.source === 'consumer' ? state.consumers[String(request.requestId)]?.zone : undefined;
}

/** The answer to a request, sent back over the same link. */
export function reply<A extends ApiName>(s: Sim, request: RequestMessage & { api: A }, body: ResponseBodies[A], from: number): void {
  // The request's fields, in its order, with the response's values. (The API and its body
  // agree by the signature; TypeScript does not carry that into the union.)
  const msg = {
    msgId: s.state.nextMsgId++,
    correlationId: request.correlationId,
    api: request.api,
    dir: 'response',
    source: from,
    target: request.source,
    key: request.key,
    requestId: request.requestId,
    body,
  } as ResponseMessage;
  s.observe({ kind: 'responseSent', msg });
  transmit(s, msg, messageBytes(msg), hopMs(s.state, from, request.source, request.key, consumerZone(s.state, request)) + lateBy(s, msg));
}

/** The bytes a message carries over the network: a Fetch response's record batches (the rest is too small to count). */
export function messageBytes(msg: ResponseMessage): number {
  if (msg.api !== 'Fetch') return 0;
  const batches = msg.body.batches;
  if (batches === undefined) return 0;
  let bytes = 0;
  for (const b of batches) bytes += b.bytes;
  return bytes;
}

/** A response arrives: traced, its bytes counted by zone; the batches it carries returned. */
export function traceResponse(s: Sim, msg: ResponseMessage): RecordBatch[] {
  const state = s.state;
  const part = state.partitions[msg.key];
  const batches = (msg.api === 'Fetch' ? msg.body.batches : undefined) ?? [];
  let bytes = 0;
  let records = 0;
  for (const x of batches) {
    bytes += x.bytes;
    records += x.lastOffset - x.baseOffset + 1;
  }
  // Built field by field (no spreads of optional parts): with requests, the hottest entry.
  const e: Record<string, unknown> = {
    atMs: state.nowMs,
    type: 'response',
    api: msg.api,
    source: msg.source,
    target: msg.target,
    topic: part.topic,
    partition: part.partition,
    correlationId: msg.correlationId,
    error: msg.body.error ?? null,
  };
  if (msg.api === 'Fetch') {
    const b = msg.body;
    e.records = records;
    e.bytes = bytes;
    e.fetchOffset = b.fetchOffset;
    if (b.highWatermark !== undefined) {
      e.highWatermark = b.highWatermark;
      e.logStartOffset = b.logStartOffset;
    }
    if (b.divergingEpoch) e.divergingEpoch = b.divergingEpoch;
    if (b.servedFrom) e.servedFrom = b.servedFrom;
    if (b.wal === true) e.wal = true;
    if (b.preferredReadReplica !== undefined) e.preferredReadReplica = b.preferredReadReplica;
  } else if (msg.api === 'ListOffsets') {
    e.timestamp = msg.body.timestamp;
    e.offset = msg.body.offset;
    e.leaderEpoch = msg.body.leaderEpoch;
  } else {
    e.leaderEpoch = msg.body.leaderEpoch;
    e.endOffset = msg.body.endOffset;
  }
  if (msg.body.rule) e.rule = msg.body.rule;
  s.emit(e as unknown as TraceEntry);
  if (msg.api === 'Fetch' && typeof msg.source === 'number') {
    const client = msg.target === 'consumer' ? state.consumers[String(msg.requestId)]?.zone : undefined;
    countCrossZone(state.metrics.crossZoneBytes, msg.target === 'consumer' ? 'consume' : 'replication', zoneOf(state, msg.source, msg.key), zoneOf(state, msg.target, msg.key, client), bytes);
  }
  return batches;
}

/** A response reaches the follower fetcher that sent the request. */
export function onFollowerResponse(s: Sim, msg: ResponseMessage, batches: RecordBatch[]): void {
  const broker = msg.target as number;
  if (!s.state.brokers[broker].alive) return;
  const replicaNow = replicaFacts(s.state, msg.key, broker);
  const error = msg.body.error ?? null;
  switch (msg.api) {
    case 'Fetch': {
      const b = msg.body;
      const event: FollowerFetcherEvent = {
        type: 'fetch.responded',
        requestId: msg.requestId,
        error,
        batches,
        highWatermark: b.highWatermark ?? -1,
        logStartOffset: b.logStartOffset ?? -1,
        divergingEpoch: b.divergingEpoch ?? null,
        replica: replicaNow,
      };
      if (b.wal === true) event.wal = true;
      return s.deliver(broker, msg.key, 'fetcher', event);
    }
    case 'ListOffsets': {
      const b = msg.body;
      return s.deliver(broker, msg.key, 'fetcher', {
        type: 'listOffsets.responded',
        requestId: msg.requestId,
        // A refusal carries no timestamp: the fetcher matches the answer by its request id.
        timestamp: b.timestamp as ListOffsetsResponded['timestamp'],
        error,
        offset: b.offset ?? -1,
        leaderEpoch: b.leaderEpoch ?? -1,
        replica: replicaNow,
      });
    }
    case 'OffsetsForLeaderEpoch':
      return s.deliver(broker, msg.key, 'fetcher', {
        type: 'offsetsForLeaderEpoch.responded',
        requestId: msg.requestId,
        error,
        leaderEpoch: msg.body.leaderEpoch ?? -1,
        endOffset: msg.body.endOffset ?? -1,
      });
  }
}

type ListOffsetsResponded = Extract<FollowerFetcherEvent, { type: 'listOffsets.responded' }>;

/** Holds a Fetch in the long poll (ascending message ids; the same id again replaces it). */
export function parkFetch(s: Sim, key: string, msgId: number): void {
  const msg = answering(s, msgId);
  assert(msg !== undefined, 'a parked fetch is in flight');
  const part = s.state.partitions[key];
  const leaderLog = replica(s.state, key, msg.target as number).log;
  const f: ParkedFetch = { msgId, msg, segmentBaseOffset: msg.api === 'Fetch' ? fetchPosition(leaderLog, msg.body.fetchOffset, 0).segmentBaseOffset : -1 };
  const list = part.parked;
  let i = 0;
  while (i < list.length && list[i].msgId < f.msgId) i++;
  if (i < list.length && list[i].msgId === f.msgId) list[i] = f;
  else {
    // Insert at i by shifting (splice would allocate the array of what it removed).
    list.push(f);
    for (let j = list.length - 1; j > i; j--) list[j] = list[j - 1];
    list[i] = f;
  }
  s.schedule(s.state.nowMs + s.state.brokerConfig['replica.fetch.wait.max.ms'], { kind: 'fetchWaitExpired', key, msgId });
}

/** Removes and returns the Fetch parked under `msgId`, if any. */
export function takeParked(part: PartitionState, msgId: number): ParkedFetch | undefined {
  const list = part.parked;
  for (let i = 0; i < list.length; i++) {
    if (list[i].msgId === msgId) {
      const f = list[i];
      for (let j = i; j < list.length - 1; j++) list[j] = list[j + 1];
      list.pop();
      return f;
    }
  }
  return undefined;
}

/**
 * The long poll's decision for a follower Fetch (leader-rules fetchHasEnoughBytes): enough
 * bytes to answer now, on arrival (`segmentBase` undefined) or held (the fetch position's
 * segment when it was parked).
 */
function enoughBytes(s: Sim, msg: RequestOf<'Fetch'>, log: PartitionLog, segmentBase: number | undefined): boolean {
  const b = msg.body;
  const brokerMax = s.state.brokerConfig['fetch.max.bytes'];
  const min = fetchMinBytes(b.minBytes ?? 1, b.responseMaxBytes, brokerMax);
  const end = logEndOffset(log);
  if (min <= 0) return true;
  // Kafka's default of 1 byte: any record is enough, no walk through the segment needed.
  if (min === 1 && b.maxBytes > 0) return b.fetchOffset < end;
  const pos = fetchPosition(log, b.fetchOffset, min);
  const facts = {
    fetchOffset: b.fetchOffset,
    logEndOffset: end,
    logEndSegmentBaseOffset: activeSegment(log).baseOffset,
    fetchSegmentBaseOffset: segmentBase ?? pos.segmentBaseOffset,
    bytesToSegmentEnd: pos.bytesToSegmentEnd,
    firstBatchBytes: pos.firstBatchBytes,
  };
  return fetchHasEnoughBytes(facts, min, b.maxBytes, fetchReadLimit(b.maxBytes, b.responseMaxBytes, brokerMax), segmentBase === undefined);
}

/**
 * New data at the leader completes the fetches held in the long poll that now have enough
 * of it (DelayedFetch.tryComplete, run by the purgatory's checkAndComplete after an append).
 */
export function releaseParked(s: Sim, part: PartitionState): void {
  for (const parked of part.parked.slice()) {
    if (holdsThrottledFetch(s, parked.msg)) continue; // KIP-73: it waits for its expiry
    const m = parked.msg;
    if (m.api === 'Fetch' && !enoughBytes(s, m, replica(s.state, m.key, m.target as number).log, parked.segmentBaseOffset)) continue;
    takeParked(part, parked.msgId);
    onFollowerRequestAtLeader(s, parked.msg, 'released');
  }
}
