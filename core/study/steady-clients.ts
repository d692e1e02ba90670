/**
 * The steady-state cost's client lines (core/study/steady-cost.ts): what producers and
 * consumers send and read across zones. Producers may sit in any zone (a produce's `zone`);
 * consumers read from the leader, from the broker a consume names, or with KIP-392 from an
 * in-sync follower of their own zone (replica.selector.class RackAwareReplicaSelector and
 * the consumer's client.rack: ReplicaManager.findPreferredReadReplica). Each line keeps its
 * formula and inputs; the assumptions say where the clients are and what moving them or
 * turning KIP-392 on would change.
 */
import type { CostInput, CostLine, PartFlow, Resolved } from './steady-flows.js';
import { GIB, MONTH_S, fmtNum, usdWords } from './steady-flows.js';

/** What the client lines need of steady-cost.ts's context. */
export interface ClientLineContext {
  r: Resolved;
  producing: readonly PartFlow[];
  zones: readonly string[];
  zone: (broker: number) => string;
  monthInput: CostInput;
  gbInput: CostInput;
  czPrice: CostInput;
  rateInputs: (ps: readonly PartFlow[]) => CostInput[];
  crossZoneUsd: (bytes: number) => number;
  add: (line: Omit<CostLine, 'usdPerMonth' | 'calculation'> & { usd: number; calc: string }, quantity: number) => void;
  assumptions: string[];
  /** The readFanout option (undefined: derived from the scenario's consumes). */
  readFanout: number | undefined;
}

const sum = (xs: readonly number[]): number => xs.reduce((n, x) => n + x, 0);
const pct = (x: number): string => `${fmtNum(Math.round(x * 1000) / 10)}%`;

/** The derived input "share across zones" of a line, with where it came from. */
const shareInput = (value: number, from: string): CostInput => ({ name: 'share across zones', value, unit: 'fraction', source: 'derived', from });

/** Share of a partition's produced bytes sent from another zone than its leader's. */
export function produceCrossShare(p: PartFlow, zone: (b: number) => string): number {
  return sum(p.produceZones.filter((z) => z.zone !== zone(p.leader)).map((z) => z.share));
}

/** Share of a partition's reads served from another zone than the consumer's. */
export function readCrossShare(p: PartFlow, zone: (b: number) => string): number {
  return sum(p.reads.filter((x) => x.zone !== zone(x.from)).map((x) => x.share));
}

/** The same, had every consumer read from a replica of its own zone where the partition has one (KIP-392). */
function readCrossShareRackAware(p: PartFlow, zone: (b: number) => string): number {
  return sum(p.reads.filter((x) => x.zone !== zone(x.from) && !p.replicas.some((b) => zone(b) === x.zone)).map((x) => x.share));
}

/** The producer and consumer cross-zone lines, and their assumptions. */
export function clientLines(c: ClientLineContext): void {
  const { r, producing, zones, zone } = c;
  const M = r.model;
  const totalRate = sum(producing.map((p) => p.rate));
  const clientInput = r.modelInput('clientZone', 'zone');
  const spread = zones.length > 1 ? (zones.length - 1) / zones.length : 0;
  const price = `$${c.czPrice.value}`;

  // ---- producers
  {
    const bytes = sum(producing.map((p) => p.rate * MONTH_S * produceCrossShare(p, zone)));
    const fraction = totalRate > 0 ? bytes / (totalRate * MONTH_S) : 0;
    const named = producing.some((p) => p.streams.some((x) => x.zone !== undefined));
    const mix = zoneMix(producing.flatMap((p) => p.produceZones.map((z) => ({ zone: z.zone, weight: z.share * p.rate }))));
    c.add(
      {
        id: 'crossZoneProduce',
        name: 'producer cross-zone',
        formula: 'produce rate × seconds in a month × share of produced bytes whose leader is in another zone than the producer × 2 × cross-zone price ÷ bytes in a GB',
        calc: `${fmtNum(totalRate)} B/s × ${fmtNum(MONTH_S)} s × ${fmtNum(fraction)} × 2 × ${price} ÷ ${GIB}`,
        inputs: [
          ...c.rateInputs(producing),
          c.monthInput,
          clientInput,
          shareInput(
            fraction,
            named
              ? `producer zones (timeline produce zone) ${mix} against each partition's leader zone`
              : M.clientZone === ''
                ? "clientZone '': the producer is in each leader's zone"
                : `leaders' zones against clientZone ${M.clientZone}`,
          ),
          c.czPrice,
          c.gbInput,
        ],
        usd: c.crossZoneUsd(bytes),
      },
      bytes,
    );
    const spreadUsd = c.crossZoneUsd(totalRate * MONTH_S * spread);
    if (named) {
      c.assumptions.push(
        `Producers write from ${mix} (each produce's zone); ${pct(fraction)} of the produced bytes reach a leader in another zone. ` +
          `Producers cannot pick a same-zone replica: every produce goes to the leader, whatever the design.`,
      );
    } else {
      c.assumptions.push(
        M.clientZone === ''
          ? `The producer sits in each partition leader's zone (model.clientZone '', the default, and no produce names a zone), so it never crosses zones to reach it. Spread evenly over the ${zones.length} zone${zones.length === 1 ? '' : 's'} (${zones.join(', ')}) (a produce's zone; whatif --producer-zones spread), a producer would reach a leader in another zone ${zones.length - 1} time${zones.length === 2 ? '' : 's'} in ${zones.length}: ${usdWords(spreadUsd)} a month more.`
          : `The producer sits in zone ${M.clientZone} (model.clientZone); partitions whose leader is elsewhere cross zones for every produced byte. Spread evenly over the ${zones.length} zones the share would be ${zones.length - 1} in ${zones.length} (${usdWords(spreadUsd)} a month).`,
      );
    }
  }

  // ---- consumers
  {
    const bytes = sum(producing.map((p) => p.rate * MONTH_S * p.fanout * readCrossShare(p, zone)));
    const read = sum(producing.map((p) => p.rate * p.fanout));
    const fanout = totalRate > 0 ? read / totalRate : 0;
    const fraction = read > 0 ? bytes / (read * MONTH_S) : 0;
    const fanoutFrom =
      c.readFanout !== undefined
        ? 'the readFanout option'
        : "records the scenario's consume events read ÷ records its produces write over the run, at most 1 per consume event (consumers reading at the tail)";
    const rackShare = read > 0 ? sum(producing.map((p) => p.rate * p.fanout * sum(p.reads.filter((x) => x.rackAware).map((x) => x.share)))) / read : 0;
    c.add(
      {
        id: 'crossZoneConsume',
        name: 'consumer cross-zone',
        formula: 'produce rate × read fan-out × seconds in a month × share of read bytes served from another zone than the consumer × 2 × cross-zone price ÷ bytes in a GB',
        calc: `${fmtNum(totalRate)} B/s × ${fmtNum(fanout)} × ${fmtNum(MONTH_S)} s × ${fmtNum(fraction)} × 2 × ${price} ÷ ${GIB}`,
        inputs: [
          ...c.rateInputs(producing),
          { name: 'read fan-out', value: fanout, unit: 'reads per produced byte', source: c.readFanout !== undefined ? 'scenario' : 'derived', from: fanoutFrom },
          c.monthInput,
          clientInput,
          shareInput(fraction, `the consumer zone against the broker each consume reads from (the leader unless it names one${rackShare > 0 ? `, or with KIP-392 a follower of its zone: ${pct(rackShare)} of reads` : ''})`),
          c.czPrice,
          c.gbInput,
        ],
        usd: c.crossZoneUsd(bytes),
      },
      bytes,
    );
    if (fanout === 0) {
      c.assumptions.push("No consumer: the scenario has no consume event, so nothing is read at steady state (a consumer group reading everything at the tail would read each produced byte once, from the leader's local log).");
      return;
    }
    const readMix = zoneMix(producing.flatMap((p) => p.reads.map((x) => ({ zone: x.zone, weight: x.share * p.rate * p.fanout }))));
    c.assumptions.push(
      `Consumers read ${fmtNum(fanout)} times what is produced (${fanoutFrom}), at the tail, from the local log: no tiered-store GET. A consumer behind the local log start would GET each segment's range from the tiered store. They read from ${readMix}; ${pct(fraction)} of the bytes read come from a broker in another zone.`,
    );
    const rackBytes = sum(producing.map((p) => p.rate * MONTH_S * p.fanout * readCrossShareRackAware(p, zone)));
    if (rackShare > 0) {
      c.assumptions.push(
        `KIP-392: ${pct(rackShare)} of the reads go to an in-sync follower in the consumer's zone (replica.selector.class RackAwareReplicaSelector, the consumer's client.rack), which serves them up to its own high watermark, one replication round behind the leader's.`,
      );
    } else if (rackBytes < bytes) {
      c.assumptions.push(
        `With KIP-392 (the brokers' replica.selector.class org.apache.kafka.common.replica.RackAwareReplicaSelector and each consumer's client.rack; whatif --fetch-from-follower) the consumers would read from a replica in their own zone where the partition has one: ${usdWords(c.crossZoneUsd(bytes - rackBytes))} a month less, each read up to that follower's high watermark.`,
      );
    }
  }
}

/** "zone a 33.3%, zone b 33.3%, ..." of weighted entries. */
function zoneMix(entries: readonly { zone: string; weight: number }[]): string {
  const by = new Map<string, number>();
  for (const e of entries) by.set(e.zone, (by.get(e.zone) ?? 0) + e.weight);
  const total = sum([...by.values()]);
  if (total <= 0) return 'no zone';
  return [...by]
    .sort((a, b) => (a[0] < b[0] ? -1 : 1))
    .map(([z, w]) => `zone ${z} ${pct(w / total)}`)
    .join(', ');
}
