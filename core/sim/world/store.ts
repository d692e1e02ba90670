/**
 * The simulated object stores (the tiered store and KIP-1176's fast store) behind the
 * ObjectStoreBackend port: a request is executed at once (or, on an asynchronous store,
 * before the next step), billed, traced, and its completion queued after the modelled
 * latency as a `storeDone` event carrying what the request was for (`StoreCompletion`).
 * Simulated time stands still while a real store answers, so a run is the same on memory,
 * a directory or S3.
 */
import type { ModelKnobs } from '../../domain/config.js';
import type { ObjectStoreRequest, ObjectStoreResult, StoreName } from '../../ports/object-store.js';
import type { Sim } from '../state/context.js';
import { countStoreRequest } from '../state/costs.js';
import { storeJitterMs } from './jitter.js';
import { type PartitionState, type StoreCompletion, purposeOf } from '../state/state.js';
import { type TraceEntry, wholeMs } from '../state/trace.js';

/**
 * Modelled latency, from the request alone (a real store's own timing never enters the run),
 * and the store's jitter (`model.jitter.stores`), drawn now: call it once per request.
 */
export function storeLatencyMs(s: Sim, req: ObjectStoreRequest): number {
  const m = s.state.model;
  const wal = req.store === 'wal';
  return s.state.storeExtraLatencyMs[req.store] + modelStoreLatencyMs(req, m, wal) + storeJitterMs(s.state, req.store);
}

/**
 * The part of a ranged GET's modelled latency that carries its bytes: `rangeBytes` at the
 * store's per-request throughput, in whole ms (the rest is the first-byte latency, any
 * jitter and any extra latency before it). 0 for a whole-object GET (`rangeBytes` 0).
 */
export function getBytesMs(m: Pick<ModelKnobs, 'tieredGetBytesPerMs' | 'walGetBytesPerMs'>, store: StoreName, rangeBytes: number): number {
  return Math.floor(rangeBytes / (store === 'wal' ? m.walGetBytesPerMs : m.tieredGetBytesPerMs));
}

function modelStoreLatencyMs(req: ObjectStoreRequest, m: ModelKnobs, wal: boolean): number {
  switch (req.op) {
    case 'put':
      return wal ? m.walPutLatencyMs + Math.floor(req.object.bytes / m.walPutBytesPerMs) : m.tieredPutLatencyMs + Math.floor(req.object.bytes / m.tieredPutBytesPerMs);
    case 'get': {
      // First byte, then the range at the per-request throughput. A whole-object GET (a
      // checkpoint, a producer snapshot, an offset index: small) counts its first byte only.
      const bytes = req.range ? req.range[1] - req.range[0] + 1 : 0;
      return (wal ? m.walGetLatencyMs : m.tieredGetLatencyMs) + getBytesMs(m, req.store, bytes);
    }
    case 'list':
      return wal ? m.walGetLatencyMs : m.tieredGetLatencyMs;
    case 'delete':
      return wal ? m.walDeleteLatencyMs : m.tieredDeleteLatencyMs;
  }
}

/** Issues an object-store request; the completion arrives after the modelled latency. */
export function storeOp(s: Sim, broker: number, key: string, req: ObjectStoreRequest, requestId: number, completion: StoreCompletion): void {
  const up = s.state.storeAvailable[req.store];
  // A `storeFault` choice point (core/sim/loop/choices.ts): the store fails this one request.
  const failed = up && s.choose('storeFault', () => `${req.op.toUpperCase()} ${req.store} ${'key' in req ? req.key : req.prefix}`) === 1;
  const available = up && !failed;
  const measured = s.latencyMode === 'measured' && available;
  const started = measured ? s.clock() : 0;
  let result: ObjectStoreResult;
  let pending: Promise<ObjectStoreResult> | null = null;
  if (failed) result = { ok: false, bytes: 0, error: 'InternalError' };
  else if (!available) result = { ok: false, bytes: 0, error: 'ServiceUnavailable' };
  else if (s.store.executeAsync) {
    result = { ok: false, bytes: 0 };
    pending = s.store.executeAsync(req);
  } else result = s.store.execute(req);
  const index = s.trace.length;
  s.emit(objectStoreEntry(s, broker, key, req, result, completion));
  const issuedMs = s.state.nowMs;
  // A request to an available store is billed once its result is final (now, or once an
  // asynchronous store has answered, before the next step); a refused one is not.
  if (available && pending === null) countStoreOp(s, req, result, issuedMs);
  const done = (latencyMs: number) =>
    s.schedule(issuedMs + latencyMs, {
      kind: 'storeDone',
      broker,
      key,
      requestId,
      completion,
      store: req.store,
      objectKey: 'key' in req ? req.key : req.prefix,
      result,
    });
  const measuredMs = () => Math.max(1, Math.round(s.clock() - started));
  if (pending === null) {
    done(measured ? measuredMs() : storeLatencyMs(s, req));
    return;
  }
  // The model's completion is queued now; a measured one once the store has answered.
  if (!measured) done(storeLatencyMs(s, req));
  // The completion event and the trace entry get the real result before the next step.
  const finish = (r: ObjectStoreResult) => {
    Object.assign(result, r);
    countStoreOp(s, req, result, issuedMs);
    s.trace[index] = { ...objectStoreEntry(s, broker, key, req, result, completion), atMs: wholeMs(issuedMs) };
    if (measured) done(measuredMs());
  };
  s.pendingIo.push(pending.then(finish, (e: unknown) => finish({ ok: false, bytes: 0, error: (e as Error).message })));
}

/** Bills one object-store request with its final result (core/sim/state/costs.ts). */
function countStoreOp(s: Sim, req: ObjectStoreRequest, result: ObjectStoreResult, atMs: number): void {
  const key = 'key' in req ? req.key : req.prefix;
  const objectBytes = req.op === 'put' ? req.object.bytes : undefined;
  countStoreRequest(s.state.metrics.objectStore, s.state.usage, s.state.prices, { op: req.op, store: req.store, key, objectBytes }, result, atMs);
}

function objectStoreEntry(s: Sim, broker: number, key: string, req: ObjectStoreRequest, result: ObjectStoreResult, completion: StoreCompletion): TraceEntry {
  // Per-broker requests (the WAL combiner's) name no partition.
  const part = s.state.partitions[key] as PartitionState | undefined;
  const objectKey = 'key' in req ? req.key : req.prefix;
  return {
    atMs: s.state.nowMs,
    type: 'objectStore',
    op: req.op,
    store: req.store,
    key: objectKey,
    bytes: result.bytes,
    ok: result.ok,
    broker,
    ...(part === undefined ? {} : { topic: part.topic, partition: part.partition }),
    purpose: purposeOf(completion),
    ...(result.error ? { error: result.error } : {}),
    ...(req.op === 'get' && req.range ? { range: req.range } : {}),
  };
}
