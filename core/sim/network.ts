/**
 * The simulated network between brokers and clients: typed requests and responses of the
 * Kafka APIs the model uses (Fetch, ListOffsets, OffsetsForLeaderEpoch), per-link latency by
 * zone, crashed and isolated brokers, and the leader's long poll (Fetches parked until data
 * arrives or replica.fetch.wait.max.ms passes). Requests reach the leader machine as events
 * with the facts it decides from; responses reach the follower fetcher.
 */
import { endOffsetFor } from '../domain/leader-epoch-cache.js';
import { type RecordBatch, logEndOffset, readBatches } from '../domain/partition-log.js';
import type { ApiName, KafkaError, ListOffsetsTimestamp } from '../domain/protocol.js';
import type { FollowerFetcherEvent } from '../machines/follower-fetcher.js';
import { assert } from '../util/assert.js';
import type { Sim } from './context.js';
import { countCrossZone } from './costs.js';
import { latencyMs, leaderFacts, replica, replicaFacts, walServes, zoneOf } from './facts.js';
import type { Message, ParkedFetch, PartitionState } from './state.js';
import type { TraceEntry } from './trace.js';

/** A follower's request body, by API. */
export interface RequestBodies {
  Fetch: { fetchOffset: number; currentLeaderEpoch: number; lastFetchedEpoch: number; maxBytes: number };
  ListOffsets: { timestamp: ListOffsetsTimestamp; currentLeaderEpoch: number };
  OffsetsForLeaderEpoch: { leaderEpoch: number; currentLeaderEpoch: number };
}

/** Sends a follower's request to the leader its fetcher follows. */
export function sendRequest<A extends keyof RequestBodies>(s: Sim, broker: number, key: string, api: A, requestId: number, body: RequestBodies[A]): void {
  const state = s.state;
  const part = state.partitions[key];
  const fetcher = s.machineSnapshot(broker, key, 'fetcher');
  const target = (fetcher?.context as { leader: number } | undefined)?.leader ?? part.leader;
  const msg: Message = {
    msgId: state.nextMsgId++,
    correlationId: state.nextCorrelationId++,
    api,
    dir: 'request',
    source: broker,
    target,
    key,
    requestId,
    body,
  };
  state.metrics.requests[api] = (state.metrics.requests[api] ?? 0) + 1;
  // Built field by field (no spreads of optional parts): the hottest trace entry.
  const e: Record<string, unknown> = { atMs: state.nowMs, type: 'request', api, source: broker, target, topic: part.topic, partition: part.partition, correlationId: msg.correlationId };
  if (api === 'Fetch') {
    const b = body as RequestBodies['Fetch'];
    e.fetchOffset = b.fetchOffset;
    e.currentLeaderEpoch = b.currentLeaderEpoch;
    e.lastFetchedEpoch = b.lastFetchedEpoch;
  } else if (api === 'ListOffsets') e.timestamp = (body as RequestBodies['ListOffsets']).timestamp;
  else if (api === 'OffsetsForLeaderEpoch') e.leaderEpoch = (body as RequestBodies['OffsetsForLeaderEpoch']).leaderEpoch;
  s.emit(e as unknown as TraceEntry);
  s.schedule(state.nowMs + latencyMs(state, broker, target, key), { kind: 'deliver', msg });
}

/**
 * A request arrives: false when the connection failed (the requester gets a network error
 * after the round trip) or the request was lost with a crashed sender.
 */
export function admitRequest(s: Sim, msg: Message): boolean {
  const brokers = s.state.brokers;
  const target = msg.target as number;
  // A crashed broker's connections closed with it: its requests in flight are lost.
  if (typeof msg.source === 'number' && !brokers[msg.source].alive) return false;
  if (!brokers[target]?.alive) {
    // The connection fails; the requester sees a network error after the round trip.
    reply(s, msg, { error: 'NETWORK_EXCEPTION', rule: 'brokerDown' }, target);
    return false;
  }
  if (typeof msg.source === 'number' && (s.state.isolated[String(target)] || s.state.isolated[String(msg.source)])) {
    reply(s, msg, { error: 'NETWORK_EXCEPTION', rule: 'networkPartition' }, target);
    return false;
  }
  return true;
}

/** A follower's request at a broker: only the leader answers it. */
export function onFollowerRequest(s: Sim, msg: Message): void {
  const target = msg.target as number;
  const part = s.state.partitions[msg.key];
  if (part.leader !== target) return reply(s, msg, { error: 'NOT_LEADER_OR_FOLLOWER', rule: 'notLeader' }, target);
  onFollowerRequestAtLeader(s, msg, false);
}

/** The leader machine takes the request with the facts it decides from. */
export function onFollowerRequestAtLeader(s: Sim, msg: Message, waitExpired: boolean): void {
  const leader = msg.target as number;
  // A parked Fetch from a broker that has since crashed went with its connection.
  if (typeof msg.source === 'number' && !s.state.brokers[msg.source].alive) return;
  const facts = leaderFacts(s.state, msg.key, leader);
  s.answering.push(msg);
  switch (msg.api) {
    case 'Fetch': {
      const b = msg.body as RequestBodies['Fetch'];
      const r = replica(s.state, msg.key, leader);
      const lfe = b.lastFetchedEpoch;
      s.deliver(leader, msg.key, 'leader', {
        type: 'fetch.received',
        msgId: msg.msgId,
        from: msg.source as number,
        fetchOffset: b.fetchOffset,
        currentLeaderEpoch: b.currentLeaderEpoch,
        lastFetchedEpoch: lfe,
        lastFetchedEpochEnd: lfe >= 0 ? endOffsetFor(r.log.leaderEpochs, lfe, logEndOffset(r.log)) : null,
        waitExpired,
        walServes: walServes(s, msg.key, leader, b.fetchOffset),
        view: facts.view,
        leaderEpochStartOffset: facts.leaderEpochStartOffset,
        nowMs: facts.nowMs,
      });
      break;
    }
    case 'ListOffsets': {
      const b = msg.body as RequestBodies['ListOffsets'];
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
      const b = msg.body as RequestBodies['OffsetsForLeaderEpoch'];
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
export function answering(s: Sim, msgId: number): Message | undefined {
  for (const m of s.answering) if (m.msgId === msgId) return m;
  return undefined;
}

/** The leader answers a Fetch now (in this step, or one held in the long poll). */
export function respondFetch(
  s: Sim,
  broker: number,
  key: string,
  p: { msgId: number; error: KafkaError | null; rule: string; fetchOffset: number; divergingEpoch: { epoch: number; endOffset: number } | null },
): void {
  const part = s.state.partitions[key];
  const inflight = answering(s, p.msgId);
  const parked = takeParked(part, p.msgId);
  const msg = inflight ?? parked?.msg;
  assert(msg !== undefined, 'a Fetch answered is in flight');
  const r = replica(s.state, key, broker);
  const error = p.error;
  const wal = p.rule === 'walEmptyRecords';
  const batches = error === null && p.divergingEpoch === null && !wal ? readBatches(r.log, p.fetchOffset, (msg.body as RequestBodies['Fetch']).maxBytes) : [];
  const body: Record<string, unknown> = wal
    ? { error, batches, wal: true, highWatermark: r.log.highWatermark, logStartOffset: r.log.logStartOffset, divergingEpoch: p.divergingEpoch, fetchOffset: p.fetchOffset, rule: p.rule }
    : { error, batches, highWatermark: r.log.highWatermark, logStartOffset: r.log.logStartOffset, divergingEpoch: p.divergingEpoch, fetchOffset: p.fetchOffset, rule: p.rule };
  reply(s, msg, body, broker);
}

/** The leader answers the request it is handling in this step. */
export function respond(s: Sim, broker: number, key: string, msgId: number, body: Record<string, unknown>): void {
  const msg = answering(s, msgId);
  assert(msg !== undefined && msg.key === key, 'a request answered is in flight');
  reply(s, msg, body, broker);
}

export function reply(s: Sim, request: Message, body: Record<string, unknown>, from: number): void {
  // The request's fields, in its order, with the response's values.
  const msg: Message = {
    msgId: s.state.nextMsgId++,
    correlationId: request.correlationId,
    api: request.api,
    dir: 'response',
    source: from,
    target: request.source,
    key: request.key,
    requestId: request.requestId,
    body,
  };
  s.schedule(s.state.nowMs + latencyMs(s.state, from, request.source, request.key), { kind: 'deliver', msg });
}

/** A response arrives: traced, its bytes counted by zone; the batches it carries returned. */
export function traceResponse(s: Sim, msg: Message): RecordBatch[] {
  const state = s.state;
  const part = state.partitions[msg.key];
  const b = msg.body;
  const batches = (b.batches as RecordBatch[] | undefined) ?? [];
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
    error: (b.error as KafkaError | null) ?? null,
  };
  if (msg.api === 'Fetch') {
    e.records = records;
    e.bytes = bytes;
    e.fetchOffset = b.fetchOffset ?? msg.body.fetchOffset;
    if (b.highWatermark !== undefined) {
      e.highWatermark = b.highWatermark;
      e.logStartOffset = b.logStartOffset;
    }
    if (b.divergingEpoch) e.divergingEpoch = b.divergingEpoch;
    if (b.servedFrom) e.servedFrom = b.servedFrom;
    if (b.wal === true) e.wal = true;
  } else if (msg.api === 'ListOffsets') {
    e.timestamp = b.timestamp;
    e.offset = b.offset;
    e.leaderEpoch = b.leaderEpoch;
  } else if (msg.api === 'OffsetsForLeaderEpoch') {
    e.leaderEpoch = b.leaderEpoch;
    e.endOffset = b.endOffset;
  }
  if (b.rule) e.rule = b.rule;
  s.emit(e as unknown as TraceEntry);
  if (msg.api === 'Fetch' && typeof msg.source === 'number') {
    countCrossZone(state.metrics.crossZoneBytes, msg.target === 'consumer' ? 'consume' : 'replication', zoneOf(state, msg.source, msg.key), zoneOf(state, msg.target, msg.key), bytes);
  }
  return batches;
}

/** A response reaches the follower fetcher that sent the request. */
export function onFollowerResponse(s: Sim, msg: Message, batches: RecordBatch[]): void {
  const broker = msg.target as number;
  if (!s.state.brokers[broker].alive) return;
  const b = msg.body;
  const replicaNow = replicaFacts(s.state, msg.key, broker);
  const error = (b.error as KafkaError | null) ?? null;
  switch (msg.api as ApiName) {
    case 'Fetch': {
      const event: FollowerFetcherEvent = {
        type: 'fetch.responded',
        requestId: msg.requestId,
        error,
        batches,
        highWatermark: (b.highWatermark as number | undefined) ?? -1,
        logStartOffset: (b.logStartOffset as number | undefined) ?? -1,
        divergingEpoch: (b.divergingEpoch as { epoch: number; endOffset: number } | null | undefined) ?? null,
        replica: replicaNow,
      };
      if (b.wal === true) event.wal = true;
      return s.deliver(broker, msg.key, 'fetcher', event);
    }
    case 'ListOffsets':
      return s.deliver(broker, msg.key, 'fetcher', {
        type: 'listOffsets.responded',
        requestId: msg.requestId,
        timestamp: (msg.body.timestamp ?? b.timestamp) as ListOffsetsTimestamp,
        error,
        offset: (b.offset as number | undefined) ?? -1,
        leaderEpoch: (b.leaderEpoch as number | undefined) ?? -1,
        replica: replicaNow,
      });
    case 'OffsetsForLeaderEpoch':
      return s.deliver(broker, msg.key, 'fetcher', {
        type: 'offsetsForLeaderEpoch.responded',
        requestId: msg.requestId,
        error,
        leaderEpoch: (b.leaderEpoch as number | undefined) ?? -1,
        endOffset: (b.endOffset as number | undefined) ?? -1,
      });
  }
}

/** Holds a Fetch in the long poll (ascending message ids; the same id again replaces it). */
export function parkFetch(s: Sim, key: string, msgId: number): void {
  const msg = answering(s, msgId);
  assert(msg !== undefined, 'a parked fetch is in flight');
  const part = s.state.partitions[key];
  const f: ParkedFetch = { msgId, msg };
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

/** New data at the leader completes the fetches held in the long poll. */
export function releaseParked(s: Sim, part: PartitionState): void {
  for (const parked of part.parked.slice()) {
    takeParked(part, parked.msgId);
    onFollowerRequestAtLeader(s, parked.msg, false);
  }
}
