/**
 * The trace: the single record of what happened in a run. The CLI narration, the JSON
 * output and the browser all render it. Entries are plain JSON objects; field names are
 * the public contract of docs/json-output.md (extend, never rename).
 */
import type { ApiName, KafkaError, ListOffsetsTimestamp } from '../../domain/protocol.js';
import type { Rule } from '../../domain/rules.js';

export type Endpoint = number | 'consumer' | 'producer';

interface Base {
  atMs: number;
  topic?: string;
  partition?: number;
  /** The rule that decided this step (narration key, core/domain/rules.ts). */
  rule?: Rule;
}

export interface RequestEntry extends Base {
  type: 'request';
  api: ApiName;
  source: Endpoint;
  target: number;
  correlationId: number;
  fetchOffset?: number;
  currentLeaderEpoch?: number;
  lastFetchedEpoch?: number;
  timestamp?: ListOffsetsTimestamp;
  leaderEpoch?: number;
}

export interface ResponseEntry extends Base {
  type: 'response';
  api: ApiName;
  source: number;
  target: Endpoint;
  correlationId: number;
  error: KafkaError | null;
  records?: number;
  bytes?: number;
  fetchOffset?: number;
  highWatermark?: number;
  logStartOffset?: number;
  servedFrom?: 'local' | 'remote';
  /** KIP-392: the leader sends the consumer to read from this replica (no records). */
  preferredReadReplica?: number;
  divergingEpoch?: { epoch: number; endOffset: number };
  timestamp?: ListOffsetsTimestamp;
  offset?: number;
  leaderEpoch?: number;
  endOffset?: number;
}

export interface ObjectStoreEntry extends Base {
  type: 'objectStore';
  op: 'put' | 'get' | 'delete' | 'list';
  store: 'tiered' | 'wal';
  key: string;
  bytes: number;
  ok: boolean;
  broker: number;
  purpose?: string;
  error?: string;
  range?: [number, number];
}

export interface StepEntry extends Base {
  /** fetcher, log, rlm, produce, consume, config, isr, leader, broker, highWatermark ... */
  type: string;
  broker?: number;
  [field: string]: unknown;
}

export type TraceEntry = RequestEntry | ResponseEntry | ObjectStoreEntry | StepEntry;

/**
 * A simulated time as the trace and every output give it: whole milliseconds, rounded down.
 * The clock itself may stand within a millisecond (a transfer ends at a whole microsecond:
 * core/sim/world/bandwidth.ts), so entries of one millisecond keep their order.
 */
export function wholeMs(t: number): number {
  return Math.floor(t);
}
