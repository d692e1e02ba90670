/**
 * The price table of the cost model (docs/protocol.md §8: AWS us-east-1), as editable
 * defaults. A scenario's `prices:` block overrides any of them; `walPriceList` picks one of
 * the two S3 Express One Zone price lists for the `wal` store's defaults, and explicit
 * `wal*` prices then override that list. Every price used in a run is reported in the JSON
 * (`config.prices`).
 *
 * Units: USD; a GB is 2^30 bytes (AWS bills its "GB" in binary gigabytes: its own S3
 * pricing examples divide by 1,048,576 KB); a month is 30 days (2,592,000,000 ms).
 * Leaves out: tiered (volume) discounts, free tiers, minimum object sizes or durations,
 * EBS provisioned size, IOPS and throughput (local disk is priced by the bytes the logs
 * hold), instance and request-level network charges other than cross-zone transfer.
 */

/** Bytes in one billed GB (2^30). */
export const BYTES_PER_GB = 1073741824;
/** Milliseconds in one billed month (30 days). */
export const MS_PER_MONTH = 2_592_000_000;

export type WalPriceList = '2025-04' | 'before-2025-04';
export const WAL_PRICE_LISTS: readonly WalPriceList[] = ['2025-04', 'before-2025-04'];

/** Every price the cost model uses. Units are in the names. */
export interface Prices {
  /** Cross-zone transfer, charged on each side: a byte moved between zones costs twice this. */
  crossZoneUsdPerGbEachDirection: number;
  /** The tiered store (S3 Standard). */
  tieredStorageUsdPerGbMonth: number;
  tieredPutUsdPer1000: number;
  tieredGetUsdPer1000: number;
  tieredDeleteUsdPer1000: number;
  tieredUploadUsdPerGb: number;
  tieredRetrievalUsdPerGb: number;
  /** Bytes of each request that the per-GB upload and retrieval fees do not apply to. */
  tieredFreeTransferPerRequestBytes: number;
  /** Which S3 Express One Zone price list the `wal*` defaults come from. */
  walPriceList: WalPriceList;
  /** The WAL store (S3 Express One Zone). */
  walStorageUsdPerGbMonth: number;
  walPutUsdPer1000: number;
  walGetUsdPer1000: number;
  walDeleteUsdPer1000: number;
  walUploadUsdPerGb: number;
  walRetrievalUsdPerGb: number;
  walFreeTransferPerRequestBytes: number;
  /** Broker disks (EBS gp3), for the bytes held in local logs across all replicas. */
  localDiskUsdPerGbMonth: number;
}

export type PriceKey = keyof Prices;
export type NumericPriceKey = Exclude<PriceKey, 'walPriceList'>;

/** The `wal*` prices a price list sets. */
export type WalPrices = Pick<Prices, Extract<NumericPriceKey, `wal${string}`>>;

/**
 * S3 Express One Zone. Since April 2025 (docs/protocol.md §8): upload and retrieval are
 * charged per GB on every byte. Before (docs/protocol.md §8 for storage and requests; the
 * per-GB fees, $0.008 upload and $0.0015 retrieval, are AWS's launch prices, not in the
 * table): the per-GB fees only apply to the part of a request above 512 KiB.
 */
export const WAL_PRICES: Record<WalPriceList, WalPrices> = {
  '2025-04': {
    walStorageUsdPerGbMonth: 0.11,
    walPutUsdPer1000: 0.00113,
    walGetUsdPer1000: 0.00003,
    walDeleteUsdPer1000: 0,
    walUploadUsdPerGb: 0.0032,
    walRetrievalUsdPerGb: 0.0006,
    walFreeTransferPerRequestBytes: 0,
  },
  'before-2025-04': {
    walStorageUsdPerGbMonth: 0.16,
    walPutUsdPer1000: 0.0025,
    walGetUsdPer1000: 0.0002,
    walDeleteUsdPer1000: 0,
    walUploadUsdPerGb: 0.008,
    walRetrievalUsdPerGb: 0.0015,
    walFreeTransferPerRequestBytes: 524288,
  },
};

/** Documentation of every price (docs/scenario-format.md shows the same table). */
export const PRICE_DOCS: Record<PriceKey, string> = {
  crossZoneUsdPerGbEachDirection: 'Cross-zone transfer, USD per GB on each side (a byte moved between zones is charged twice).',
  tieredStorageUsdPerGbMonth: 'Tiered store (S3 Standard) storage, USD per GB-month.',
  tieredPutUsdPer1000: 'Tiered store PUT (and LIST) requests, USD per 1000.',
  tieredGetUsdPer1000: 'Tiered store GET requests, USD per 1000.',
  tieredDeleteUsdPer1000: 'Tiered store DELETE requests, USD per 1000 (free on S3).',
  tieredUploadUsdPerGb: 'Tiered store upload, USD per GB (same-region transfer is free).',
  tieredRetrievalUsdPerGb: 'Tiered store retrieval, USD per GB (same-region transfer is free).',
  tieredFreeTransferPerRequestBytes: 'Bytes of each tiered store request not charged per GB.',
  walPriceList: "S3 Express One Zone price list for the wal* defaults: '2025-04' or 'before-2025-04'.",
  walStorageUsdPerGbMonth: 'WAL store (S3 Express One Zone) storage, USD per GB-month.',
  walPutUsdPer1000: 'WAL store PUT (and LIST) requests, USD per 1000.',
  walGetUsdPer1000: 'WAL store GET requests, USD per 1000.',
  walDeleteUsdPer1000: 'WAL store DELETE requests, USD per 1000 (free).',
  walUploadUsdPerGb: 'WAL store upload, USD per GB of the part of each PUT above walFreeTransferPerRequestBytes.',
  walRetrievalUsdPerGb: 'WAL store retrieval, USD per GB of the part of each GET above walFreeTransferPerRequestBytes.',
  walFreeTransferPerRequestBytes: 'Bytes of each WAL store request not charged per GB (524288 before 2025-04, else 0).',
  localDiskUsdPerGbMonth: 'Broker disk (EBS gp3), USD per GB-month of bytes held in local logs, all replicas.',
};

export const PRICE_KEYS = Object.keys(PRICE_DOCS) as PriceKey[];

/** Prices a scenario may give: any subset. */
export type PriceOverrides = Partial<Prices>;

/** The prices of a run: the defaults, the chosen WAL price list, then the scenario's overrides. */
export function resolvePrices(overrides: PriceOverrides = {}): Prices {
  const list = overrides.walPriceList ?? '2025-04';
  const out: Prices = {
    crossZoneUsdPerGbEachDirection: 0.01,
    tieredStorageUsdPerGbMonth: 0.023,
    tieredPutUsdPer1000: 0.005,
    tieredGetUsdPer1000: 0.0004,
    tieredDeleteUsdPer1000: 0,
    tieredUploadUsdPerGb: 0,
    tieredRetrievalUsdPerGb: 0,
    tieredFreeTransferPerRequestBytes: 0,
    walPriceList: list,
    ...WAL_PRICES[list],
    localDiskUsdPerGbMonth: 0.08,
  };
  for (const key of PRICE_KEYS) {
    const v = overrides[key];
    if (v !== undefined) (out as unknown as Record<string, unknown>)[key] = v;
  }
  return out;
}

export function isPriceKey(key: string): key is PriceKey {
  return Object.prototype.hasOwnProperty.call(PRICE_DOCS, key);
}
