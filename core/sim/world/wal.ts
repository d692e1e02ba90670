/**
 * KIP-1176's write-ahead log through the fast object store, executed for the WAL combiner
 * and the replicas' WAL machines: the combiner's flush of every led WAL partition's new
 * batches into one object, the records it publishes to the WAL metadata topic and their
 * delivery to followers, the metadata topic's retention, deleting WAL objects once their
 * chunks are tiered or past local retention, and a follower's ranged read and append of its
 * chunk. The KIP left these internals open: docs/protocol.md says which parts are its words
 * and which are this model's reconstruction.
 */
import type { Rule } from '../../domain/rules.js';
import { effectiveLocalRetentionMs } from '../../domain/config.js';
import { latestEpoch } from '../../domain/leader-epoch-cache.js';
import { type RecordBatch, type Segment, logEndOffset } from '../../domain/partition-log.js';
import { type WalChunk, type WalObject, WAL_METADATA_TOPIC, assembleWalObject, batchPositions, chunkBatches, walObjectKey } from '../../domain/wal.js';
import type { WalChunkRef } from '../../machines/wal-replica.js';
import type { Sim } from '../state/context.js';
import { chunkRef, combinerFacts, replica, tiered, walEnabled } from '../state/facts.js';
import { hopMs, networkJittered } from './jitter.js';
import { appendAsFollower, walLogChanged } from './replica-log.js';
import { storeOp } from './store.js';
import { BROKER_KEY, type KernelEventOf, type KernelState, type WalState } from '../state/state.js';
import { firstNotBefore } from '../../util/bisect.js';

/** The combiner's flush: one object with every led WAL partition's new batches. */
export function walFlush(s: Sim, broker: number, requestId: number, reason: string): void {
  const state = s.state;
  const now = state.nowMs;
  const parts: Array<{ key: string; leaderEpoch: number; batches: RecordBatch[] }> = [];
  for (const key of state.partitionOrder) {
    const part = state.partitions[key];
    if (part.leader !== broker || !walEnabled(state, key)) continue;
    const next = state.wal.next[key] ?? logEndOffset(replica(state, key, broker).log);
    const log = replica(state, key, broker).log;
    const batches = batchesFrom(log.segments, next);
    if (batches.length === 0) continue;
    parts.push({ key, leaderEpoch: part.leaderEpoch, batches });
    state.wal.next[key] = batches[batches.length - 1].lastOffset + 1;
  }
  const { chunks, batches, bytes } = assembleWalObject(parts);
  const objectKey = walObjectKey(broker, state.wal.nextObjectSeq++);
  state.wal.inflight[`${broker}|${requestId}`] = { objectKey, chunks };
  state.wal.objects[objectKey] = { key: objectKey, broker, bytes, createdMs: now, state: 'putting', chunkIds: [] };
  (state.wal.objectOrder[String(broker)] ??= []).push(objectKey);
  s.emit({ atMs: now, type: 'wal', action: 'flush', broker, objectKey, chunks: chunks.length, bytes, reason, rule: 'walCombinerFlush' });
  storeOp(s, broker, BROKER_KEY, { op: 'put', store: 'wal', key: objectKey, object: { bytes, body: { kind: 'segment', batches } } }, requestId, { for: 'walPut' });
}

/**
 * Every batch whose base offset is at or above `next`, in offset order. Segments and their
 * batches are in offset order, so both are found by bisection: the flush costs what it
 * collects, not the length of the log (an active segment that never rolls holds every
 * batch of the run).
 */
function batchesFrom(segments: readonly Segment[], next: number): RecordBatch[] {
  const out: RecordBatch[] = [];
  for (let s = firstNotBefore(segments, (seg) => seg.endOffset < next); s < segments.length; s++) {
    const batches = segments[s].batches;
    for (let i = firstNotBefore(batches, (b) => b.baseOffset < next); i < batches.length; i++) out.push(batches[i]);
  }
  return out;
}

/** The combiner's PUT failed: its chunks go back to be flushed again. */
export function restoreChunks(s: Sim, broker: number, requestId: number, error: string | null, failures: number): void {
  const state = s.state;
  const id = `${broker}|${requestId}`;
  const inflight = state.wal.inflight[id];
  delete state.wal.inflight[id];
  state.metrics.wal.putFailures++;
  if (inflight === undefined) return;
  const o = state.wal.objects[inflight.objectKey];
  if (o !== undefined) o.state = 'failed';
  for (const c of inflight.chunks) {
    const part = state.partitions[c.key];
    if (part.leader === broker && part.leaderEpoch === c.leaderEpoch) state.wal.next[c.key] = Math.min(state.wal.next[c.key] ?? c.baseOffset, c.baseOffset);
  }
  s.emit({ atMs: state.nowMs, type: 'wal', action: 'putFailed', broker, objectKey: inflight.objectKey, error, failures, rule: 'walPutFailed' });
}

export function onWalPutDone(s: Sim, ev: KernelEventOf<'storeDone'>): void {
  if (ev.result.ok) {
    s.state.metrics.wal.objectsPut++;
    s.state.metrics.wal.bytesPut += ev.result.bytes;
  }
  s.deliver(ev.broker, BROKER_KEY, 'walCombiner', {
    type: 'wal.putCompleted',
    requestId: ev.requestId,
    ok: ev.result.ok,
    error: ev.result.error ?? null,
    ...combinerFacts(s.state, ev.broker),
  });
}

/**
 * The PUT succeeded: one record per chunk goes to the WAL metadata topic, which followers
 * consume. The record travels writer -> metadata partition leader -> each follower broker.
 */
export function walPublish(s: Sim, broker: number, requestId: number): void {
  const state = s.state;
  const now = state.nowMs;
  const id = `${broker}|${requestId}`;
  const inflight = state.wal.inflight[id];
  delete state.wal.inflight[id];
  if (inflight === undefined) return;
  const wal = state.wal;
  const m = state.metrics.wal;
  const recordBytes = state.model.walMetadataRecordBytes;
  const o = wal.objects[inflight.objectKey];
  o.state = 'live';
  const metaLeader = walMetadataLeader(s);
  const zone = (b: number) => state.brokers[b].zone;
  // The metadata topic is replicated like any internal topic (RF up to 3, lowest ids).
  const metaReplicas = state.brokers.filter((b) => b.alive).slice(0, 3).map((b) => b.id);
  // The writer's hop to the metadata leader: one produce of the object's records, drawn once.
  let toLeaderMs = -1;
  const jittered = networkJittered(state);
  for (const pc of inflight.chunks) {
    const part = state.partitions[pc.key];
    const chunk: WalChunk = {
      id: wal.nextChunkId++,
      key: pc.key,
      topic: part.topic,
      partition: part.partition,
      objectKey: inflight.objectKey,
      range: pc.range,
      baseOffset: pc.baseOffset,
      lastOffset: pc.lastOffset,
      leaderEpoch: pc.leaderEpoch,
      broker,
      atMs: now,
    };
    wal.chunks[String(chunk.id)] = chunk;
    wal.metadata.push(chunk.id);
    (wal.live[pc.key] ??= []).push(chunk.id);
    o.chunkIds.push(chunk.id);
    m.chunksPublished++;
    m.metadata.records++;
    m.metadata.bytes += recordBytes;
    let crossZone = zone(broker) !== zone(metaLeader) ? recordBytes : 0;
    for (const r of metaReplicas) if (r !== metaLeader && zone(r) !== zone(metaLeader)) crossZone += recordBytes;
    s.emit({ atMs: now, type: 'wal', action: 'chunkPublished', broker, topic: part.topic, partition: part.partition, objectKey: chunk.objectKey, range: chunk.range, baseOffset: chunk.baseOffset, lastOffset: chunk.lastOffset, leaderEpoch: chunk.leaderEpoch, metadataOffset: chunk.id, rule: 'walMetadataPublished' });
    for (const f of part.replicas) {
      if (f === broker || !state.brokers[f].alive) continue;
      if (zone(f) !== zone(metaLeader)) crossZone += recordBytes;
      if (toLeaderMs < 0) toLeaderMs = hopMs(state, broker, metaLeader, pc.key);
      let at = now + toLeaderMs + hopMs(state, metaLeader, f, pc.key);
      if (jittered) {
        // A broker reads the metadata topic in offset order: no record overtakes the one before.
        const arrives = (wal.metadataArrivesMs ??= {});
        at = Math.max(at, arrives[String(f)] ?? 0);
        arrives[String(f)] = at;
      }
      s.schedule(at, { kind: 'walChunkDelivered', broker: f, key: pc.key, chunkId: chunk.id });
    }
    m.metadata.crossZoneBytes += crossZone;
    state.metrics.crossZoneBytes.walMetadata += crossZone;
  }
  walMetadataRetention(s);
  walCleanup(s, broker);
}

/** The leader of the WAL metadata topic's partition: the lowest live broker id. */
function walMetadataLeader(s: Sim): number {
  return s.state.brokers.find((b) => b.alive)?.id ?? 0;
}

/** wal.metadata.retention.ms: records older than it leave the metadata topic. */
function walMetadataRetention(s: Sim): void {
  const state = s.state;
  const wal = state.wal;
  const m = state.metrics.wal.metadata;
  const cutoff = state.nowMs - state.brokerConfig['wal.metadata.retention.ms'];
  let drop = 0;
  while (drop < wal.metadata.length && (wal.chunks[String(wal.metadata[drop])]?.atMs ?? -1) < cutoff) drop++;
  if (drop > 0) {
    for (let i = 0; i < drop; i++) {
      const id = wal.metadata[i];
      const c = wal.chunks[String(id)];
      // The chunk is forgotten once neither its record nor its object remains.
      if (c !== undefined && wal.objects[c.objectKey]?.state !== 'live') delete wal.chunks[String(id)];
    }
    // In place: a copy of the retained records (an hour of them by default) at every
    // publish would cost what the retention window holds, not what leaves it.
    wal.metadata.splice(0, drop);
    s.emit({ atMs: state.nowMs, type: 'wal', action: 'metadataRetention', topic: WAL_METADATA_TOPIC, records: drop, rule: 'walMetadataRetention' });
  }
  m.retainedRecords = wal.metadata.length;
  m.retainedBytes = wal.metadata.length * state.model.walMetadataRecordBytes;
  m.peakRetainedRecords = Math.max(m.peakRetainedRecords, m.retainedRecords);
  m.peakRetainedBytes = Math.max(m.peakRetainedBytes, m.retainedBytes);
}

/**
 * A WAL object may go once every chunk in it is covered by a finished KIP-405 copy (at or
 * below Ry), is below the Log-Start-Offset, or is older than the topic's local retention.
 * Oldest objects first; the scan stops at one that must stay.
 */
function walCleanup(s: Sim, broker: number): void {
  const state = s.state;
  const now = state.nowMs;
  const order = state.wal.objectOrder[String(broker)] ?? [];
  let i = 0;
  for (; i < order.length; i++) {
    const o = state.wal.objects[order[i]];
    if (o.state === 'deleting' || o.state === 'deleted' || o.state === 'failed' || o.state === 'orphan') continue;
    if (o.state !== 'live') break;
    const why = walObjectDeletable(s, o);
    if (why === null) break;
    o.state = 'deleting';
    s.emit({ atMs: now, type: 'wal', action: 'deleteObject', broker, objectKey: o.key, rule: why });
    storeOp(s, broker, BROKER_KEY, { op: 'delete', store: 'wal', key: o.key }, 0, { for: 'walDelete' });
  }
  // Objects gone for good leave the order.
  let drop = 0;
  while (drop < order.length && ['deleted', 'failed'].includes(state.wal.objects[order[drop]].state)) drop++;
  if (drop > 0) {
    for (let j = 0; j < drop; j++) delete state.wal.objects[order[j]];
    order.splice(0, drop);
  }
}

function walObjectDeletable(s: Sim, o: WalObject): Rule | null {
  const state = s.state;
  let rule: Rule = 'walObjectTiered';
  for (const id of o.chunkIds) {
    const c = state.wal.chunks[String(id)];
    if (c === undefined) continue;
    const part = state.partitions[c.key];
    const leader = part.leader >= 0 ? part.replicaStates[String(part.leader)] : undefined;
    if (leader === undefined) return null;
    const cfg = state.topicConfigs[part.topic];
    const localRetentionMs = effectiveLocalRetentionMs(cfg);
    if (tiered(state, c.key) && c.lastOffset <= leader.highestOffsetInRemoteStorage) continue;
    if (c.lastOffset < leader.log.logStartOffset) continue;
    if (localRetentionMs >= 0 && state.nowMs - c.atMs > localRetentionMs) {
      rule = 'walObjectPastLocalRetention';
      continue;
    }
    return null;
  }
  return rule;
}

export function onWalDeleteDone(s: Sim, ev: KernelEventOf<'storeDone'>): void {
  const wal = s.state.wal;
  const o = wal.objects[ev.objectKey];
  if (o === undefined) return;
  if (!ev.result.ok) {
    o.state = 'live';
    return;
  }
  o.state = 'deleted';
  s.state.metrics.wal.objectsDeleted++;
  for (const id of o.chunkIds) {
    const c = wal.chunks[String(id)];
    if (c === undefined) continue;
    dropLive(wal, c.key, id);
    if (!holds(wal.metadata, 0, id)) delete wal.chunks[String(id)];
  }
}

/** Index of `id` in the ascending `ids` from `from` on, or -1 (bisection). */
function indexIn(ids: readonly number[], from: number, id: number): number {
  const i = firstNotBefore(ids, (x) => x < id, from);
  return i < ids.length && ids[i] === id ? i : -1;
}

const holds = (ids: readonly number[], from: number, id: number): boolean => indexIn(ids, from, id) >= 0;

/**
 * A chunk's object is gone: its id leaves the partition's live chunks. Chunk ids grow, so
 * the list is ascending and found by bisection. The oldest (the usual case: objects go
 * oldest first) moves the head; the list is cut once the head passes half of it, so a
 * burst of deletions (a large segment tiered at last frees every WAL object behind it)
 * costs each one a constant, not the length of the list.
 */
function dropLive(wal: WalState, key: string, id: number): void {
  const ids = wal.live[key];
  if (ids === undefined) return;
  let head = wal.liveHead[key] ?? 0;
  const i = indexIn(ids, head, id);
  if (i < 0) return;
  if (i === head) head++;
  else ids.splice(i, 1);
  if (head > 0 && (head === ids.length || (head >= 64 && head * 2 >= ids.length))) {
    wal.live[key] = ids.slice(head);
    head = 0;
  }
  wal.liveHead[key] = head;
}

/** A broker crashed: its combiner's PUTs in flight are lost; their objects may exist without metadata. */
export function walBrokerCrashed(s: Sim, broker: number): void {
  const wal = s.state.wal;
  for (const id of Object.keys(wal.inflight)) {
    if (!id.startsWith(`${broker}|`)) continue;
    // An object whose PUT was in flight may exist without metadata: the restarted broker deletes it.
    const o = wal.objects[wal.inflight[id].objectKey];
    if (o !== undefined) o.state = 'orphan';
    delete wal.inflight[id];
  }
}

/** A restarted broker deletes the WAL objects it was writing when it crashed: nothing else would. */
export function deleteOrphans(s: Sim, broker: number): void {
  const wal = s.state.wal;
  for (const objectKey of wal.objectOrder[String(broker)] ?? []) {
    const o = wal.objects[objectKey];
    if (o.state !== 'orphan') continue;
    o.state = 'deleting';
    s.emit({ atMs: s.state.nowMs, type: 'wal', action: 'deleteObject', broker, objectKey, rule: 'walOrphan' });
    storeOp(s, broker, BROKER_KEY, { op: 'delete', store: 'wal', key: objectKey }, 0, { for: 'walDelete' });
  }
}

/** The partition's chunks in the retained WAL metadata, oldest first. */
export function retainedChunks(state: KernelState, key: string): WalChunkRef[] {
  const chunks: WalChunkRef[] = [];
  for (const id of state.wal.metadata) {
    const c = state.wal.chunks[String(id)];
    if (c !== undefined && c.key === key) chunks.push(chunkRef(c));
  }
  return chunks;
}

/** A follower of a WAL partition starts reading chunks from the retained metadata. */
export function startWalReplica(s: Sim, broker: number, key: string): void {
  const state = s.state;
  if (!walEnabled(state, key)) return;
  const part = state.partitions[key];
  s.deliver(broker, key, 'walReplica', { type: 'wal.started', leaderEpoch: part.leaderEpoch, logEndOffset: logEndOffset(replica(state, key, broker).log), chunks: retainedChunks(state, key) });
}

/** A metadata record reaches a follower broker. */
export function onWalChunkDelivered(s: Sim, ev: KernelEventOf<'walChunkDelivered'>): void {
  const state = s.state;
  const chunk = state.wal.chunks[String(ev.chunkId)];
  const part = state.partitions[ev.key];
  if (chunk === undefined || !state.brokers[ev.broker].alive || !part.replicas.includes(ev.broker)) return;
  // A partitioned broker reads the metadata topic once it can reach it again.
  if (state.isolated[String(ev.broker)]) {
    s.schedule(state.nowMs + 100, ev);
    return;
  }
  s.deliver(ev.broker, ev.key, 'walReplica', { type: 'wal.chunkPublished', chunk: chunkRef(chunk) });
}

/** A follower's ranged GET of its chunk completed: the chunk's batches wait for the append. */
export function onWalChunkRead(s: Sim, ev: KernelEventOf<'storeDone'>): void {
  const body = ev.result.object?.body;
  if (ev.result.ok && body?.kind === 'segment') {
    // The chunk being read is the one the replica's machine holds (no scan of every chunk).
    const current = (s.machineSnapshot(ev.broker, ev.key, 'walReplica')?.context as { current?: WalChunkRef | null } | undefined)?.current;
    const chunk = current?.objectKey === ev.objectKey ? current : undefined;
    const start = ev.result.objectStart ?? 0;
    const picked = chunk === undefined ? [] : chunkBatches(body.batches, chunk, batchPositions(body.batches).map((p) => p + start));
    s.state.wal.reads[`${ev.broker}|${ev.key}|${ev.requestId}`] = picked;
  }
  s.deliver(ev.broker, ev.key, 'walReplica', { type: 'wal.chunkRead', requestId: ev.requestId, ok: ev.result.ok, error: ev.result.error ?? null });
}

/** A chunk read from the fast store is appended as follower (what the follower lacks of it). */
export function walAppendChunk(s: Sim, broker: number, key: string, requestId: number, chunk: WalChunkRef): void {
  const state = s.state;
  const now = state.nowMs;
  const part = state.partitions[key];
  const r = replica(state, key, broker);
  const id = `${broker}|${key}|${requestId}`;
  const batches = state.wal.reads[id] ?? [];
  delete state.wal.reads[id];
  const first = logEndOffset(r.log);
  const { records, bytes } = appendAsFollower(s, broker, key, batches);
  const m = state.metrics.wal;
  m.chunksApplied++;
  m.bytesApplied += bytes;
  s.emit({ atMs: now, type: 'log', action: 'walChunkAppended', broker, topic: part.topic, partition: part.partition, objectKey: chunk.objectKey, baseOffset: first, lastOffset: logEndOffset(r.log) - 1, records, leaderEpoch: chunk.leaderEpoch, rule: 'walChunkAppended' });
  if (logEndOffset(r.log) !== chunk.lastOffset + 1) walLogChanged(s, broker, key);
  if (records > 0) s.deliver(broker, key, 'fetcher', { type: 'wal.appended', logEndOffset: logEndOffset(r.log), lastEpoch: latestEpoch(r.log.leaderEpochs) });
}
