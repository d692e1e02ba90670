/**
 * The steady-state cost's cross-check (core/study/steady-cost.ts): the same lines, measured
 * in a run.
 */
import { BYTES_PER_GB, MS_PER_MONTH, type Prices } from '../domain/prices.js';
import type { StoreName } from '../ports/object-store.js';
import { type CrossZoneBytes, type StoreCounters, type Usage, gbMonths } from '../sim/state/costs.js';
import { usdRound } from './steady-flows.js';


/**
 * The same lines measured in a run: its counters (core/sim/state/costs.ts) over `endMs` of
 * simulated time, scaled to a month at the same rate (today's extrapolation, line by line),
 * and each store's bytes held averaged over the run. The cross-check of the steady state:
 * lines that a run reaches quickly (traffic, requests) agree once it is long enough; storage
 * lines agree only after the run has reached the retention they hold.
 */
export function measuredMonthByLine(
  m: { crossZoneBytes: CrossZoneBytes; objectStore: Record<StoreName, StoreCounters> },
  u: Usage,
  P: Prices,
  endMs: number,
): Record<string, { usdPerMonth: number; quantity: number }> {
  if (!(endMs > 0)) return {};
  const scale = MS_PER_MONTH / endMs;
  const cz = m.crossZoneBytes;
  const t = m.objectStore.tiered;
  const w = m.objectStore.wal;
  const held = gbMonths(u, endMs);
  const czLine = (bytes: number) => ({ usdPerMonth: (bytes / BYTES_PER_GB) * 2 * P.crossZoneUsdPerGbEachDirection * scale, quantity: bytes * scale });
  const requests = (n: number, per1000: number) => ({ usdPerMonth: ((n * per1000) / 1000) * scale, quantity: n * scale });
  const transfer = (up: number, down: number, upUsd: number, downUsd: number) => ({ usdPerMonth: ((up * upUsd + down * downUsd) / BYTES_PER_GB) * scale, quantity: (up + down) * scale });
  // GB-months over the run, per month of run: the average held.
  const storage = (gbMonths: number, usd: number) => ({ usdPerMonth: gbMonths * usd * scale, quantity: gbMonths * scale * BYTES_PER_GB });
  const out: Record<string, { usdPerMonth: number; quantity: number }> = {
    crossZoneReplication: czLine(cz.replication + cz.walMetadata),
    crossZoneProduce: czLine(cz.produce),
    crossZoneConsume: czLine(cz.consume),
    tieredPut: requests(t.puts + t.lists, P.tieredPutUsdPer1000),
    tieredGet: requests(t.gets, P.tieredGetUsdPer1000),
    tieredDelete: requests(t.deletes, P.tieredDeleteUsdPer1000),
    tieredTransfer: transfer(u.billableBytesPut.tiered, u.billableBytesGot.tiered, P.tieredUploadUsdPerGb, P.tieredRetrievalUsdPerGb),
    walPut: requests(w.puts + w.lists, P.walPutUsdPer1000),
    walGet: requests(w.gets, P.walGetUsdPer1000),
    walDelete: requests(w.deletes, P.walDeleteUsdPer1000),
    walTransfer: transfer(u.billableBytesPut.wal, u.billableBytesGot.wal, P.walUploadUsdPerGb, P.walRetrievalUsdPerGb),
    storageLocal: storage(held.localDisk, P.localDiskUsdPerGbMonth),
    storageTiered: storage(held.tiered, P.tieredStorageUsdPerGbMonth),
    storageWal: storage(held.wal, P.walStorageUsdPerGbMonth),
  };
  for (const v of Object.values(out)) v.usdPerMonth = usdRound(v.usdPerMonth);
  return out;
}
