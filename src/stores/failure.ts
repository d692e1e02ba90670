/**
 * A real store's failures (a directory or S3), kept apart from the model's own store faults.
 *
 * The model has store outages of its own (a scenario's `storeDown`, the fault schedules of
 * `explore`): those answer `ServiceUnavailable` and are part of the run. A real store that
 * fails (a full disk, a read-only directory, an S3 endpoint that stops answering or refuses
 * a request) is not part of the scenario: by default the CLI stops at the first one with
 * exit 3 and the cause, since the run no longer matches the run in memory. With
 * `--store-failures fault` the failed request is answered as a failed request instead and
 * the model goes on (it backs off and retries, as Kafka's RemoteLogManager does), and the
 * JSON counts them.
 */
import type { ObjectStoreRequest, ObjectStoreResult } from '../../core/ports/object-store.js';

export interface StoreFailure {
  /** The request that failed: `PUT`, `GET`, `DELETE` or `LIST`, on `tiered` or `wal`, and its key. */
  op: string;
  store: string;
  key: string;
  /** What the store said, one line (an errno code and path, an S3 error name and HTTP status). */
  cause: string;
}

/** What a real store keeps of its failures: the first (what the CLI reports) and how many. */
export class StoreFailures {
  first: StoreFailure | null = null;
  count = 0;

  /** Records a failure of `req` and returns the failed result the model sees. */
  record(req: ObjectStoreRequest, cause: string, error: string): ObjectStoreResult {
    this.count++;
    if (this.first === null) this.first = { op: req.op.toUpperCase(), store: req.store, key: 'key' in req ? req.key : req.prefix, cause: oneLine(cause) };
    return { ok: false, bytes: 0, error };
  }
}

/** A failure as one line: `PUT tiered/orders-0/...: ENOSPC: no space left on device`. */
export function describeFailure(f: StoreFailure): string {
  return `${f.op} ${f.store}/${f.key}: ${f.cause}`;
}

function oneLine(s: string): string {
  const line = s.replace(/\s+/g, ' ').trim();
  return line.length > 500 ? `${line.slice(0, 500)}…` : line;
}
