/**
 * The month's cost at steady state (issue 29, part 3; docs/protocol.md §8.1): priced from the
 * RATES a scenario runs at once every transient is over, not from a short run scaled up.
 * The scenario's repeating produces (`produce` with `everyMs`) run for ever; segments roll,
 * are uploaded and expire; every replica holds its local retention, the tiered store its
 * retention, the fast store what the WAL keeps until cleanup. The result is a list of lines,
 * each with its formula, its numbers and the inputs they came from (a scenario field, a Kafka
 * config default, a model default, the price table), and the lines add up to the month.
 *
 * Pure and isomorphic: a function of the scenario (already set to its design: compare.ts
 * scenarioForMode). Where the model's rule is a process (how the producer's batches fill a
 * segment, when the WAL combiner flushes an object), that rule is replayed on the
 * scenario's produce cadence for a window of simulated time, in plain arithmetic (no kernel).
 * What it leaves out is in docs/protocol.md §8.1 and in each result's `assumptions`.
 */
import { effectiveLocalRetentionBytes, effectiveLocalRetentionMs } from '../domain/config.js';
import { formatCheckpoint } from '../domain/leader-epoch-cache.js';
import { BYTES_PER_GB, MS_PER_MONTH } from '../domain/prices.js';
import { producerSnapshotBytes } from '../domain/producer-state.js';
import { brokerZone, type Scenario } from '../scenario/types.js';
import { clientLines } from './steady-clients.js';
import { type CombinerResult, replayTiering, retainedLimit, type TieringResult } from './steady-replay.js';
import { Resolved, type CostInput, type CostLine, GIB, MONTH_S, NO_STEADY_STATE, OBJECTS_PER_SEGMENT, type PartFlow, type SteadyFacts, type SteadyMode, type SteadyOptions, type SteadyStateCost, combinerResults, describePlacement, fmtNum, fmtUsd, localRetentionWords, maxOrNull, partitionsOf, segmentSizeInput, timeToReach, usdRound, walHold } from './steady-flows.js';

export { type SteadyMode, type InputSource, type CostInput, type CostLine, type SteadyStateCost, type SteadyFacts, type SteadyOptions, NO_STEADY_STATE, OBJECTS_PER_SEGMENT, fmtNum } from './steady-flows.js';

// ------------------------------------------------------------------ the lines

const sum = (xs: readonly number[]): number => xs.reduce((n, x) => n + x, 0);

/** One input for a value that differs by topic: one entry per topic, or one when they agree. */
function perTopic(parts: readonly PartFlow[], f: (p: PartFlow) => CostInput): CostInput[] {
  const seen = new Map<string, CostInput>();
  for (const p of parts) {
    const x = f(p);
    const id = `${x.value}|${x.source}|${x.from}`;
    if (!seen.has(id)) seen.set(id, x);
  }
  const list = [...seen.values()];
  if (list.length <= 1) return list;
  return parts
    .filter((p, i, all) => all.findIndex((q) => q.topic === p.topic) === i)
    .map((p) => ({ ...f(p), name: `${f(p).name} (${p.topic})` }));
}

/** The month's cost at steady state of `s` (already set to `mode`'s switches). */
export function steadyStateCost(s: Scenario, mode: SteadyMode, opts: SteadyOptions = {}): SteadyStateCost {
  return steadyState(s, mode, opts).cost;
}

export function steadyState(s: Scenario, mode: SteadyMode, opts: SteadyOptions = {}): { cost: SteadyStateCost; facts: SteadyFacts } {
  const r = new Resolved(s);
  const parts = partitionsOf(r, opts);
  const P = r.prices;
  const M = r.model;
  const zone = (b: number) => brokerZone(s, b);
  const lines: CostLine[] = [];
  const assumptions: string[] = [];
  const warnings: string[] = [];
  const quantities: Record<string, number> = {};
  const producing = parts.filter((p) => p.rate > 0);
  const totalRate = sum(producing.map((p) => p.rate));
  const brokerCount = s.brokers + s.timeline.filter((e) => e.action.kind === 'addBroker').length;
  const zones = [...new Set(Array.from({ length: brokerCount }, (_, b) => zone(b)))];

  const monthInput: CostInput = { name: 'seconds in a month', value: MONTH_S, unit: 's', source: 'model default', from: 'core/domain/prices.ts MS_PER_MONTH (30 days)' };
  const gbInput: CostInput = { name: 'bytes in a GB', value: BYTES_PER_GB, unit: 'B', source: 'model default', from: 'core/domain/prices.ts BYTES_PER_GB (AWS bills binary GB)' };
  const rateInputs = (ps: readonly PartFlow[]): CostInput[] => {
    const streams = ps.flatMap((p) => p.streams.map((x) => ({ p, x })));
    if (streams.length === 0) return [{ name: 'produce rate', value: 0, unit: 'B/s', source: 'scenario', from: 'timeline: no repeating produce' }];
    const detail = streams
      .slice(0, 4)
      .map(({ p, x }) => `timeline[${x.index}] ${p.key}: ${x.records} records every ${x.everyMs} ms`)
      .join('; ');
    const more = streams.length > 4 ? `; and ${streams.length - 4} more` : '';
    return [
      { name: 'produce rate', value: sum(ps.map((p) => p.rate)), unit: 'B/s', source: 'scenario', from: `${detail}${more}, × model.recordBytes` },
      r.modelInput('recordBytes', 'B'),
    ];
  };
  const czPrice = r.priceInput('crossZoneUsdPerGbEachDirection', 'USD/GB each direction');
  const crossZoneUsd = (bytes: number) => (bytes / BYTES_PER_GB) * 2 * P.crossZoneUsdPerGbEachDirection;
  const add = (line: Omit<CostLine, 'usdPerMonth' | 'calculation'> & { usd: number; calc: string }, quantity: number) => {
    const usd = usdRound(line.usd);
    lines.push({ id: line.id, name: line.name, formula: line.formula, calculation: `${line.calc} = ${fmtUsd(usd)}`, inputs: line.inputs, usdPerMonth: usd });
    quantities[line.id] = quantity;
  };

  if (producing.length === 0) {
    warnings.push(
      `${NO_STEADY_STATE} the scenario has no repeating produce (a produce with everyMs that runs to the end), so nothing is produced at steady state; ` +
        `every traffic line is $0 and the data present at t = 0 is not priced. The run-measured month is all there is.`,
    );
  }

  // ---- cross-zone: replication
  const classicParts = producing.filter((p) => !(mode === 'wal' && p.wal));
  const walParts = producing.filter((p) => mode === 'wal' && p.wal);
  const combiners = walParts.length > 0 ? combinerResults(r, walParts) : new Map<number, CombinerResult>();
  {
    const crossing = (p: PartFlow) => p.followers.filter((f) => zone(f) !== zone(p.leader)).length;
    const fetchBytes = sum(classicParts.map((p) => p.rate * MONTH_S * crossing(p)));
    const copies = classicParts.length === 0 ? 0 : sum(classicParts.map((p) => p.rate * crossing(p))) / sum(classicParts.map((p) => p.rate));
    const placement = describePlacement(classicParts.length > 0 ? classicParts : parts, zone);
    // KIP-1176: the WAL metadata records (core/sim/world/wal.ts walPublish), one per chunk: writer ->
    // metadata leader (the lowest live broker id), the leader -> its other replicas (the
    // lowest ids, RF up to 3), the leader -> each follower of the chunk's partition.
    const metaLeader = 0;
    const metaReplicas = Array.from({ length: Math.min(3, brokerCount) }, (_, b) => b);
    const hops = (p: PartFlow) =>
      (zone(p.leader) !== zone(metaLeader) ? 1 : 0) +
      metaReplicas.filter((b) => b !== metaLeader && zone(b) !== zone(metaLeader)).length +
      p.followers.filter((f) => zone(f) !== zone(metaLeader)).length;
    const chunksOf = (p: PartFlow) => combiners.get(p.leader)?.chunks[p.key]?.count ?? 0;
    const walBytes = sum(walParts.map((p) => chunksOf(p) * M.walMetadataRecordBytes * hops(p)));
    const bytes = fetchBytes + walBytes;
    if (mode === 'wal' && walParts.length > 0) {
      const chunks = sum(walParts.map(chunksOf));
      const hopsAvg = chunks > 0 ? walBytes / (chunks * M.walMetadataRecordBytes) : 0;
      const classicPart = classicParts.length > 0 ? ` + Fetch copies of the partitions without the WAL (${fmtNum(fetchBytes)} B)` : '';
      add(
        {
          id: 'crossZoneReplication',
          name: 'cross-zone replication',
          formula:
            'WAL metadata records a month × record bytes × hops across zones per record (writer → metadata leader, leader → its replicas, leader → each follower) × 2 × cross-zone price ÷ bytes in a GB (followers read records from the fast store: no record crosses zones by Fetch)',
          calc: `${fmtNum(chunks)} records × ${M.walMetadataRecordBytes} B × ${fmtNum(hopsAvg)} hops${classicPart} × 2 × $${P.crossZoneUsdPerGbEachDirection} ÷ ${GIB}`,
          inputs: [
            { name: 'WAL metadata records a month (one per chunk)', value: chunks, unit: 'records', source: 'derived', from: "the combiner's rule replayed (see the fast store PUT line)" },
            r.modelInput('walMetadataRecordBytes', 'B'),
            { name: 'hops across zones per record', value: hopsAvg, unit: 'hops', source: 'derived', from: `${placement}; __remote_wal_log_metadata led by broker ${metaLeader} (zone ${zone(metaLeader)}), replicas ${metaReplicas.join(', ')} (core/sim/world/wal.ts)` },
            czPrice,
            gbInput,
          ],
          usd: crossZoneUsd(bytes),
        },
        bytes,
      );
    } else {
      add(
        {
          id: 'crossZoneReplication',
          name: 'cross-zone replication',
          formula: 'produce rate × seconds in a month × follower copies that cross zones × 2 × cross-zone price ÷ bytes in a GB (each follower fetches every byte from its leader)',
          calc: `${fmtNum(totalRate)} B/s × ${fmtNum(MONTH_S)} s × ${fmtNum(copies)} copies × 2 × $${P.crossZoneUsdPerGbEachDirection} ÷ ${GIB}`,
          inputs: [
            ...rateInputs(producing),
            monthInput,
            { name: 'follower copies that cross zones', value: copies, unit: 'per produced byte', source: 'derived', from: placement },
            czPrice,
            gbInput,
          ],
          usd: crossZoneUsd(bytes),
        },
        bytes,
      );
    }
  }

  // ---- cross-zone: clients (core/study/steady-clients.ts)
  clientLines({ r, producing, zones, zone, monthInput, gbInput, czPrice, rateInputs, crossZoneUsd, add, assumptions, readFanout: opts.readFanout });

  // ---- the tiered store
  const tieredParts = parts.filter((p) => p.tiered);
  const uploading = producing.filter((p) => p.uploads);
  const I = r.broker['remote.log.manager.task.interval.ms'];
  const copyMs = (p: PartFlow) => M.tieredPutLatencyMs + Math.floor(p.seg.bytes / M.tieredPutBytesPerMs);
  // The remote log manager's rule replayed per partition: the upload delay and the bytes each replica holds.
  const tiering = new Map<string, TieringResult | null>();
  for (const p of producing) {
    tiering.set(
      p.key,
      replayTiering({
        fillMs: p.seg.fillMs,
        segBytes: p.seg.bytes,
        rate: p.rate,
        intervalMs: I,
        retentionCheckMs: r.broker['log.retention.check.interval.ms'],
        retentionInitialDelayMs: r.broker['log.initial.task.delay.ms'],
        copyMs: copyMs(p),
        deleteMs: M.tieredDeleteLatencyMs,
        remoteRetentionMs: p.cfg['retention.ms'],
        remoteRetentionBytes: p.cfg['retention.bytes'],
        retentionMs: p.uploads ? effectiveLocalRetentionMs(p.cfg) : p.cfg['retention.ms'],
        retentionBytes: p.uploads ? effectiveLocalRetentionBytes(p.cfg) : p.cfg['retention.bytes'],
        uploads: p.uploads,
      }),
    );
  }
  // From a roll until the copy has finished and Ry covers the segment (without a retention limit: half an interval and a copy).
  const uploadDelayMs = (p: PartFlow) => tiering.get(p.key)?.uploadDelayMs ?? I / 2 + copyMs(p);
  const remoteRetained = (p: PartFlow) => retainedLimit(p.rate, p.cfg['retention.ms'], p.cfg['retention.bytes']);
  if (tieredParts.length > 0) {
    const segs = sum(uploading.map((p) => (p.rate * MONTH_S) / p.seg.bytes));
    const segInputs = perTopic(uploading.length > 0 ? uploading : tieredParts, (p) => segmentSizeInput(r, p));
    const fillInputs: CostInput[] = uploading.map((p) => ({
      name: uploading.length > 1 ? `bytes in one rolled segment (${p.key})` : 'bytes in one rolled segment',
      value: p.seg.bytes,
      unit: 'B',
      source: 'derived',
      from:
        p.seg.how === 'packed'
          ? `the producer's batches (${fmtNum(p.seg.batches)} a segment, model.producerBatchBytes ${M.producerBatchBytes}) packed as appendBatch rolls (${p.seg.rollBy})`
          : `min(segment size, produce rate × segment.ms) (${p.seg.rollBy})`,
    }));
    const putPrice = r.priceInput('tieredPutUsdPer1000', 'USD per 1000');
    add(
      {
        id: 'tieredPut',
        name: 'tiered store PUT',
        formula: `segments uploaded a month (produce rate × seconds in a month ÷ bytes in one rolled segment) × ${OBJECTS_PER_SEGMENT} objects each (.log, .index, leader-epoch checkpoint, producer snapshot) × PUT price ÷ 1000`,
        calc: `${fmtNum(segs)} segments × ${OBJECTS_PER_SEGMENT} × $${P.tieredPutUsdPer1000} ÷ 1000`,
        inputs: [...rateInputs(uploading), monthInput, ...segInputs, ...fillInputs, { name: 'objects a segment upload writes', value: OBJECTS_PER_SEGMENT, unit: 'objects', source: 'model default', from: 'core/sim/world/tiering.ts segmentObjects (RLMCopyTask.copyLogSegment)' }, putPrice],
        usd: (segs * OBJECTS_PER_SEGMENT * P.tieredPutUsdPer1000) / 1000,
      },
      segs * OBJECTS_PER_SEGMENT,
    );
    add(
      {
        id: 'tieredGet',
        name: 'tiered store GET',
        formula: 'GETs a month × GET price ÷ 1000; at steady state no one reads the tiered store (followers fetch from the leader, consumers read at the tail)',
        calc: `0 GETs × $${P.tieredGetUsdPer1000} ÷ 1000`,
        inputs: [r.priceInput('tieredGetUsdPer1000', 'USD per 1000')],
        usd: 0,
      },
      0,
    );
    const expiring = uploading.filter((p) => remoteRetained(p) !== null);
    const deletes = sum(expiring.map((p) => (p.rate * MONTH_S) / p.seg.bytes)) * OBJECTS_PER_SEGMENT;
    add(
      {
        id: 'tieredDelete',
        name: 'tiered store DELETE',
        formula: `segments expired a month (as many as are uploaded, once remote retention is reached) × ${OBJECTS_PER_SEGMENT} objects × DELETE price ÷ 1000`,
        calc: `${fmtNum(deletes / OBJECTS_PER_SEGMENT)} segments × ${OBJECTS_PER_SEGMENT} × $${P.tieredDeleteUsdPer1000} ÷ 1000`,
        inputs: [...perTopic(tieredParts, (p) => r.topicInput(p.topic, 'retention.ms', 'ms')), ...perTopic(tieredParts, (p) => r.topicInput(p.topic, 'retention.bytes', 'B')), r.priceInput('tieredDeleteUsdPer1000', 'USD per 1000')],
        usd: (deletes * P.tieredDeleteUsdPer1000) / 1000,
      },
      deletes,
    );
    // Upload bytes: the four objects of each segment, each billed above the store's free part.
    const free = P.tieredFreeTransferPerRequestBytes;
    const cpBytes = formatCheckpoint([[0, 0]]).length;
    const snapBytes = producerSnapshotBytes([{ producerId: 1, producerEpoch: 0, lastSequence: 0, lastOffset: 0, offsetDelta: 0, timestamp: 0, coordinatorEpoch: -1, currentTxnFirstOffset: -1 }]);
    const perSeg = (p: PartFlow) => [p.seg.bytes, 8 * p.seg.batches, cpBytes, snapBytes];
    const upBytes = sum(uploading.map((p) => ((p.rate * MONTH_S) / p.seg.bytes) * sum(perSeg(p).map((b) => Math.max(0, b - free)))));
    const avgObjects = uploading.length > 0 ? perSeg(uploading[0]) : [0, 0, cpBytes, snapBytes];
    add(
      {
        id: 'tieredTransfer',
        name: 'tiered store upload and retrieval',
        formula: 'segments uploaded a month × bytes of its objects above the free part of a request × upload price ÷ bytes in a GB + bytes retrieved (none) × retrieval price',
        calc: `${fmtNum(segs)} segments × (${avgObjects.map((b) => fmtNum(Math.max(0, b - free))).join(' + ')}) B × $${P.tieredUploadUsdPerGb} ÷ ${GIB} + 0 B × $${P.tieredRetrievalUsdPerGb}`,
        inputs: [
          { name: 'objects of one segment', value: avgObjects.map((b) => fmtNum(b)).join(' + '), unit: 'B', source: 'derived', from: '.log (the segment), .index (8 B a batch), leader-epoch checkpoint, producer snapshot (one producer): core/sim/world/tiering.ts' },
          r.priceInput('tieredFreeTransferPerRequestBytes', 'B'),
          r.priceInput('tieredUploadUsdPerGb', 'USD/GB'),
          r.priceInput('tieredRetrievalUsdPerGb', 'USD/GB'),
        ],
        usd: (upBytes / BYTES_PER_GB) * P.tieredUploadUsdPerGb,
      },
      upBytes,
    );
  }

  // ---- the fast store (KIP-1176)
  let walHeldBytes = 0;
  let walHoldMs: number | null = null;
  if (walParts.length > 0) {
    const all = [...combiners.values()];
    const objects = sum(all.map((c) => c.objects));
    const objectBytes = sum(all.map((c) => c.objectBytes));
    const billablePut = sum(all.map((c) => c.billablePutBytes));
    const gets = sum(walParts.map((p) => (combiners.get(p.leader)?.chunks[p.key]?.count ?? 0) * p.followers.length));
    const getBytes = sum(walParts.map((p) => (combiners.get(p.leader)?.chunks[p.key]?.bytes ?? 0) * p.followers.length));
    const billableGet = sum(walParts.map((p) => (combiners.get(p.leader)?.chunks[p.key]?.billableBytes ?? 0) * p.followers.length));
    const interval = r.brokerInput('wal.combine.interval.ms', 'ms');
    const maxBytes = r.brokerInput('wal.combine.max.bytes', 'B');
    const objectsPerSec = objects / MONTH_S;
    const avgObject = objects > 0 ? objectBytes / objects : 0;
    const perObject = all.length > 0 ? sum(all.map((c) => c.requestsPerObject * c.objects)) / Math.max(1, objects) : 0;
    const byMax = sum(all.map((c) => c.byReason.maxBytes));
    const byInterval = sum(all.map((c) => c.byReason.interval));
    const rule: CostInput = {
      name: 'WAL objects a month',
      value: objects,
      unit: 'objects',
      source: 'derived',
      from: `the combiner's rule (core/machines/wal-combiner.ts) replayed on the produce cadence for ${fmtNum(all[0]?.windowMs ?? 0)} ms: ${fmtNum(objectsPerSec)} objects/s, ${fmtNum(avgObject)} B each, ${fmtNum(perObject)} produce request${perObject === 1 ? '' : 's'} each`,
    };
    add(
      {
        id: 'walPut',
        name: 'fast store PUT',
        formula: 'WAL objects a month (one per combiner flush, every broker) × PUT price ÷ 1000',
        calc: `${fmtNum(objects)} objects × $${P.walPutUsdPer1000} ÷ 1000`,
        inputs: [rule, ...rateInputs(walParts), interval, maxBytes, r.modelInput('walPutLatencyMs', 'ms'), r.modelInput('walPutBytesPerMs', 'B/ms'), r.priceInput('walPutUsdPer1000', 'USD per 1000')],
        usd: (objects * P.walPutUsdPer1000) / 1000,
      },
      objects,
    );
    const followers = gets > 0 && objects > 0 ? gets / sum(walParts.map((p) => combiners.get(p.leader)?.chunks[p.key]?.count ?? 0)) : 0;
    add(
      {
        id: 'walGet',
        name: 'fast store GET',
        formula: "chunks a month (one per partition in each object) × followers (each reads its chunk's byte range with one ranged GET) × GET price ÷ 1000",
        calc: `${fmtNum(gets / Math.max(followers, 1))} chunks × ${fmtNum(followers)} followers × $${P.walGetUsdPer1000} ÷ 1000`,
        inputs: [rule, { name: 'followers per partition', value: followers, unit: 'replicas', source: 'derived', from: describePlacement(walParts, zone) }, r.priceInput('walGetUsdPer1000', 'USD per 1000')],
        usd: (gets * P.walGetUsdPer1000) / 1000,
      },
      gets,
    );
    add(
      {
        id: 'walDelete',
        name: 'fast store DELETE',
        formula: 'WAL objects deleted a month (each object once its chunks are tiered or past local retention: as many as are written) × DELETE price ÷ 1000',
        calc: `${fmtNum(objects)} objects × $${P.walDeleteUsdPer1000} ÷ 1000`,
        inputs: [rule, r.priceInput('walDeleteUsdPer1000', 'USD per 1000')],
        usd: (objects * P.walDeleteUsdPer1000) / 1000,
      },
      objects,
    );
    add(
      {
        id: 'walTransfer',
        name: 'fast store upload and retrieval',
        formula: "bytes PUT a month above the free part of each request × upload price ÷ bytes in a GB + bytes of the followers' ranged GETs above the free part × retrieval price ÷ bytes in a GB",
        calc: `${fmtNum(billablePut)} B × $${P.walUploadUsdPerGb} ÷ ${GIB} + ${fmtNum(billableGet)} B × $${P.walRetrievalUsdPerGb} ÷ ${GIB}`,
        inputs: [
          { name: 'bytes PUT a month', value: objectBytes, unit: 'B', source: 'derived', from: 'every produced byte of a WAL partition, once' },
          { name: "bytes of the followers' GETs a month", value: getBytes, unit: 'B', source: 'derived', from: 'every produced byte, once per follower' },
          r.priceInput('walFreeTransferPerRequestBytes', 'B'),
          r.priceInput('walUploadUsdPerGb', 'USD/GB'),
          r.priceInput('walRetrievalUsdPerGb', 'USD/GB'),
        ],
        usd: (billablePut / BYTES_PER_GB) * P.walUploadUsdPerGb + (billableGet / BYTES_PER_GB) * P.walRetrievalUsdPerGb,
      },
      billablePut + billableGet,
    );
    // What the WAL holds: a chunk's object stays until the chunk's segment is tiered (it
    // fills for F / 2 on average, then the upload delay) or the chunk is past local
    // retention, or, on a topic that is not tiered, below the log start offset.
    let holdAll = 0;
    for (const p of walParts) {
      const c = combiners.get(p.leader);
      const publishEveryMs = c !== undefined && c.objects > 0 ? MS_PER_MONTH / c.objects : 0;
      const hold = walHold(p, uploadDelayMs(p), publishEveryMs);
      if (hold === null) {
        warnings.push(`The fast store grows without bound on ${p.key}: its WAL objects are never tiered and no retention removes them (local.retention.ms and retention.* are -1); priced at half a month of production.`);
        walHeldBytes += (p.rate * MONTH_S) / 2;
        continue;
      }
      walHeldBytes += (p.rate * hold) / 1000;
      holdAll = Math.max(holdAll, hold);
    }
    walHoldMs = holdAll;
    const bySize = byMax > 0 && byInterval === 0;
    assumptions.push(
      `KIP-1176 batching: the producer sends ${walParts
        .flatMap((p) => p.streams.map((x) => `${x.records} records (${fmtNum(x.bytes)} B) every ${x.everyMs} ms to ${p.key}`))
        .slice(0, 3)
        .join(', ')} (the timeline's produce cadence stands in for the producer's linger.ms; model.producerBatchBytes ${M.producerBatchBytes}, Kafka's batch.size, cuts each request into batches). ` +
        `The combiner flushes an object wal.combine.interval.ms (${r.broker['wal.combine.interval.ms']} ms) after bytes arrive, or at once when wal.combine.max.bytes (${r.broker['wal.combine.max.bytes']} B) are pending, one PUT at a time: ` +
        `${fmtNum(objectsPerSec)} objects a second, ${fmtNum(avgObject)} B on average, ${fmtNum(perObject)} produce request${perObject === 1 ? '' : 's'} each (${bySize ? 'every flush by size' : byMax === 0 ? 'every flush by the interval' : `${byMax} by size, ${byInterval} by the interval in the window`}). ` +
        `Why the cost depends on it: the fast store bills each PUT and each follower's GET, and one object (one chunk per partition) is written per flush whatever its size, so the same bytes cost ${bySize ? 'more if sent in requests below wal.combine.max.bytes (each waits up to the interval and flushes alone or with a few others)' : 'less if sent in fewer, larger requests (at or above wal.combine.max.bytes each flushes at once in one object)'}; the per-GB fees do not change with the batching${P.walFreeTransferPerRequestBytes > 0 ? ', except for the free part of each request' : ''}.`,
    );
  }

  // ---- storage
  const months = (bytes: number) => bytes / BYTES_PER_GB;
  {
    let held = 0;
    const replicas = sum(producing.map((p) => p.replicas.length)) / Math.max(1, producing.length);
    for (const p of producing) {
      const h = tiering.get(p.key) ?? null;
      if (h === null) {
        warnings.push(`Local disks grow without bound on ${p.key}: retention.ms and retention.bytes are -1 (and so local retention); priced at half a month of production.`);
        held += ((p.rate * MONTH_S) / 2) * p.replicas.length;
      } else held += h.leaderHeld + h.followerHeld * p.followers.length;
    }
    const retentionInputs = [
      ...perTopic(producing, (p) => (p.uploads ? r.topicInput(p.topic, 'local.retention.ms', 'ms') : r.topicInput(p.topic, 'retention.ms', 'ms'))),
      ...perTopic(producing, (p) => (p.uploads ? r.topicInput(p.topic, 'local.retention.bytes', 'B') : r.topicInput(p.topic, 'retention.bytes', 'B'))),
      ...(producing.some((p) => p.uploads && (p.cfg['local.retention.ms'] === -2 || p.cfg['local.retention.bytes'] === -2))
        ? [...perTopic(producing, (p) => r.topicInput(p.topic, 'retention.ms', 'ms')), ...perTopic(producing, (p) => r.topicInput(p.topic, 'retention.bytes', 'B'))]
        : []),
    ];
    const perReplica = producing.length > 0 ? held / sum(producing.map((p) => p.replicas.length)) : 0;
    add(
      {
        id: 'storageLocal',
        name: 'storage: local disks',
        formula:
          'replicas × bytes each holds (min(rate × local retention ms, local retention bytes) + half a segment (the oldest is kept whole, the active one fills) + rate × half a log.retention.check.interval.ms (local retention runs with the broker\'s log retention task); at least the active half segment and what waits for its upload and then for the next retention check) × disk price ÷ bytes in a GB',
        calc: `${fmtNum(replicas)} replicas × ${fmtNum(perReplica)} B × $${P.localDiskUsdPerGbMonth} ÷ ${GIB}`,
        inputs: [
          ...rateInputs(producing),
          { name: 'replicas per partition', value: replicas, unit: 'replicas', source: 'scenario', from: 'topics[].replicas (and addReplica)' },
          ...retentionInputs,
          ...perTopic(producing, (p) => segmentSizeInput(r, p)),
          r.brokerInput('log.retention.check.interval.ms', 'ms'),
          r.brokerInput('remote.log.manager.task.interval.ms', 'ms'),
          { name: 'bytes one replica holds', value: perReplica, unit: 'B', source: 'derived', from: 'the formula' },
          r.priceInput('localDiskUsdPerGbMonth', 'USD per GB-month'),
        ],
        usd: months(held) * P.localDiskUsdPerGbMonth,
      },
      held,
    );
  }
  if (tieredParts.length > 0) {
    let held = 0;
    for (const p of uploading) {
      const limit = remoteRetained(p);
      if (limit === null) {
        warnings.push(`The tiered store grows without bound on ${p.key}: retention.ms and retention.bytes are -1; priced at half a month of production, and it grows by ${fmtNum(p.rate * MONTH_S)} B every month.`);
        held += (p.rate * MONTH_S) / 2;
      } else {
        const t = tiering.get(p.key) ?? null;
        held += t?.remoteHeld ?? Math.max(0, limit + (p.rate * ((t?.cycleMs ?? I) / 2 - uploadDelayMs(p))) / 1000);
      }
    }
    add(
      {
        id: 'storageTiered',
        name: 'storage: tiered store',
        formula: 'min(rate × retention.ms, retention.bytes) per partition (what remote retention keeps, less what is not uploaded yet, plus what waits for the next expiry run) × storage price ÷ bytes in a GB',
        calc: `${fmtNum(held)} B × $${P.tieredStorageUsdPerGbMonth} ÷ ${GIB}`,
        inputs: [
          ...rateInputs(uploading),
          ...perTopic(tieredParts, (p) => r.topicInput(p.topic, 'retention.ms', 'ms')),
          ...perTopic(tieredParts, (p) => r.topicInput(p.topic, 'retention.bytes', 'B')),
          r.brokerInput('remote.log.manager.task.interval.ms', 'ms'),
          r.priceInput('tieredStorageUsdPerGbMonth', 'USD per GB-month'),
        ],
        usd: months(held) * P.tieredStorageUsdPerGbMonth,
      },
      held,
    );
  }
  if (walParts.length > 0) {
    add(
      {
        id: 'storageWal',
        name: 'storage: fast store',
        formula:
          "rate × how long a WAL object stays (until its chunk's segment is tiered: half a segment's fill time plus the upload delay, or the chunk is past local retention) × storage price ÷ bytes in a GB",
        calc: `${fmtNum(walHeldBytes)} B × $${P.walStorageUsdPerGbMonth} ÷ ${GIB}`,
        inputs: [
          ...rateInputs(walParts),
          { name: 'how long an object stays', value: walHoldMs ?? 0, unit: 'ms', source: 'derived', from: 'core/sim/world/wal.ts walObjectDeletable: tiered (Ry), below the log start, or past local retention' },
          r.brokerInput('remote.log.manager.task.interval.ms', 'ms'),
          r.modelInput('tieredPutLatencyMs', 'ms'),
          r.modelInput('tieredPutBytesPerMs', 'B/ms'),
          r.priceInput('walStorageUsdPerGbMonth', 'USD per GB-month'),
        ],
        usd: months(walHeldBytes) * P.walStorageUsdPerGbMonth,
      },
      walHeldBytes,
    );
  }

  // ---- what the figure assumes, whatever the design
  assumptions.unshift(
    "Steady state: the timeline's repeating produces run for ever at their rate; one-off produces and consumes, crashes, elections, store outages and throttles are left out (leaders as assigned, addReplica and setConfig applied). Every replica stays in the ISR.",
    'A month is 30 days (2,592,000 s) and a GB 2^30 bytes (core/domain/prices.ts); prices are the table of docs/protocol.md §8 unless the scenario\'s prices block sets them.',
  );
  if (mode === 'kip1023') assumptions.push('KIP-1023 changes only where an empty follower starts fetching; once every replica is in the ISR it costs what classic KIP-405 does.');
  if (mode !== 'wal' || walParts.length === 0) assumptions.push('Replication: each follower fetches every produced byte from its leader; only the record bytes are priced (no request or response headers).');
  if (tieredParts.length > 0) {
    assumptions.push(
      `Storage is the average held over time: a replica keeps its local retention plus half a segment (the active one fills, the oldest waits to expire whole) plus what is produced in half a log.retention.check.interval.ms (${r.broker['log.retention.check.interval.ms']} ms: local retention runs with the broker's log retention task, Kafka's LogManager.cleanupLogs), and a tiered segment waits for its upload (the copy task, every remote.log.manager.task.interval.ms, ${I} ms) before that; the tiered store keeps its retention, to within a segment. Local retention here: ${localRetentionWords(tieredParts)}.`,
    );
  }
  assumptions.push(
    'Object-store requests carry no cross-zone fee in the model (core/sim/state/costs.ts counts cross-zone bytes only between brokers and clients); the model makes no LIST requests; request headers, retries, Kafka\'s __remote_log_metadata topic and the brokers\' instances are not priced.',
  );

  // Checks of the configuration against the rates.
  for (const p of uploading) {
    if (copyMs(p) > p.seg.fillMs) warnings.push(`Uploads fall behind on ${p.key}: one segment's copy takes ${fmtNum(copyMs(p))} ms (model.tieredPutLatencyMs + segment / model.tieredPutBytesPerMs) and a segment fills in ${fmtNum(p.seg.fillMs)} ms; local disks then grow without bound.`);
  }

  const month = usdRound(sum(lines.map((l) => l.usdPerMonth)));
  const fills = producing.map((p) => p.seg.fillMs).filter((x) => Number.isFinite(x));
  const localReached = producing.map((p) => timeToReach(p.rate, p.uploads ? effectiveLocalRetentionMs(p.cfg) : p.cfg['retention.ms'], p.uploads ? effectiveLocalRetentionBytes(p.cfg) : p.cfg['retention.bytes'], p.seg));
  const remoteReached = uploading.map((p) => timeToReach(p.rate, p.cfg['retention.ms'], p.cfg['retention.bytes'], p.seg));
  return {
    cost: { month, lines, assumptions, warnings },
    facts: {
      bytesPerSec: totalRate,
      tiered: tieredParts.length > 0,
      wal: walParts.length > 0,
      segmentFillMs: fills.length > 0 ? Math.max(...fills) : null,
      localRetentionReachedMs: maxOrNull(localReached),
      remoteRetentionReachedMs: maxOrNull(remoteReached),
      walCleanupReachedMs: walParts.length > 0 ? walHoldMs : null,
      quantities,
    },
  };
}

/** Each topic's effective local retention in words ("orders: 7 days (local.retention.ms -2: retention.ms)"). */
export { measuredMonthByLine } from './steady-measured.js';
export { type TieringInput, type TieringResult, replayCombiner, replayTiering } from './steady-replay.js';
