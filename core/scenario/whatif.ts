/**
 * `whatif` (issue 29): a design-review question ("KIP-1023 against classic for a partition
 * with 1 TB tiered and 50 MB local") turned into an ordinary scenario, the schema of
 * scenarios/*.yaml (docs/scenario-format.md), written as YAML text so that the scenario parser
 * (core/scenario/parse.ts) checks it exactly as it checks a file, and `--out` saves exactly
 * what ran. Pure: sizes in, text and what was assumed out; the CLI (src/cli/whatif.ts) reads
 * the flags, runs the comparison and prints.
 *
 * The cluster: `brokers` brokers in `zones` zones (broker i in zone i % zones, racks round
 * robin); one tiered topic, `events`, of `partitions` partitions with replicas spread over
 * the zones (generate.ts, rackAwareReplicas). Each partition's log at t = 0 is the steady
 * state of a tiered partition (generate.ts, layoutSegments): `tiered` bytes in remote
 * storage only, `local` bytes on local disk: the active segment (`active`, by default what
 * `local` leaves past whole segments) and before it rolled segments, every one already
 * uploaded; the followers in sync (`followersInSync`). A producer writes `produce` bytes a
 * second over the partitions from t = 0 with acks=all (Kafka's producer default since 3.0),
 * one batch per partition each linger.ms (generate.ts, producePlan). Then the event, at
 * `eventAtMs`, on partition 0:
 *   add-replica    a broker joins (addBroker) and an empty replica of partition 0 is added on
 *                  it (addReplica): how long until it is in the ISR, what it pulls;
 *   store-outage   the same, with the tiered store unavailable from the moment the replica is
 *                  added for `outageMs` (its bootstrap reads the remote auxiliary state);
 *   crash-leader   the leader of partition 0 crashes (the controller elects another in-sync
 *                  replica) and restarts `downMs` later, as offline-follower-returns.yaml does.
 * The run ends at `until`: given, or estimated from the layout and the bandwidth model
 * (estimateCatchUpMs) with room to spare, so the slowest design's new replica has joined.
 */
import { BROKER_CONFIGS, MODEL_KNOBS, RACK_AWARE_REPLICA_SELECTOR, TOPIC_CONFIGS, kafkaRangeRefusal } from '../domain/config.js';
import { formatBytes } from '../util/format.js';
import { sizeFlagText } from '../util/size.js';
import { MAX_BROKERS, MAX_INITIAL_ENTRIES, MAX_RECORDS_PER_EVENT, MAX_SCENARIO_CHARS, MAX_TIMELINE_ENTRIES, MAX_TOTAL_PARTITIONS, MAX_TOTAL_REPLICAS, MAX_UNTIL_MS, MAX_YAML_ALIASES, MAX_ZONES } from './checks.js';
import { type Layout, type ProducePlan, layoutSegments, producePlan, rackAwareReplicas, segmentYaml, zoneNames } from './generate.js';

export * from './whatif-input.js';
import { MAX_LOCAL_SEGMENTS, WHATIF_BATCH_BYTES, WHATIF_TOPIC, type WhatIfEvent, type WhatIfInput } from './whatif-input.js';

/** Kafka's largest segment (an int: LogSegment positions are ints). */
const KAFKA_INT_MAX = 2147483647;

/** What the event does, for the assumptions and the JSON. */
export interface WhatIfEventPlan {
  kind: WhatIfEvent;
  atMs: number;
  /** add-replica, store-outage: the broker that joins and hosts the new replica; crash-leader: the leader that crashes. */
  broker: number;
  zone: string;
  /** The zone of partition 0's leader at t = 0. */
  leaderZone: string;
  /** store-outage: when the store is back; crash-leader: when the broker restarts. */
  endsAtMs?: number;
}

/** The estimate `until` is made from (estimateCatchUpMs), per design. */
export interface WhatIfEstimate {
  /** Bytes the new replica copies from the leader: classic from the local log start, KIP-1023 from the Earliest-Pending-Upload-Offset (the active segment). */
  copyBytes: { classic: number; kip1023: number };
  /** Estimated time from the event until the slowest design's replica is in the ISR, ms (null: it never catches up with the producer). */
  catchUpMs: number | null;
}

export interface WhatIf {
  input: WhatIfInput;
  /** Consumers' polls (null: none: no consumers, or nothing produced to read). */
  consumers: ConsumerPlan | null;
  /** The scenario file's text (YAML), without a header comment. */
  body: string;
  layout: Layout;
  zones: string[];
  replicas: number[][];
  produce: ProducePlan | null;
  event: WhatIfEventPlan;
  estimate: WhatIfEstimate;
  untilMs: number;
}

export type WhatIfResult = { ok: true; whatIf: WhatIf } | { ok: false; problem: string };

const bytes = (n: number): string => formatBytes(n);

/**
 * The bandwidth model's catch-up time (README, "How long until a new replica is in the
 * ISR?"; test/bandwidth.test.ts checks it within 5%): a bootstrap (two GETs of the remote
 * auxiliary state and a few round trips), then `copyBytes` at replica.fetch.max.bytes a
 * Fetch (one segment a read: a round more per segment), each round a hop each way plus its
 * bytes on the interface. A producer adds its bytes while the copy runs: the copy catches up
 * at (fetch rate - produce rate); null when it never does.
 */
export function estimateCatchUpMs(copyBytes: number, o: { hopMs: number; segmentBytes: number; producePerPartitionBytesPerSec: number }): number | null {
  const fetch = BROKER_CONFIGS['replica.fetch.max.bytes'].default as number;
  const nicPerMs = (MODEL_KNOBS.brokerNetworkBytesPerSec.default as number) / 1000;
  const getMs = (MODEL_KNOBS.tieredGetLatencyMs.default as number) + 1;
  const bootstrapMs = 2 * getMs + 8 * o.hopMs;
  const rounds = Math.ceil(copyBytes / fetch) + Math.ceil(copyBytes / o.segmentBytes);
  const copyMs = rounds * 2 * o.hopMs + copyBytes / nicPerMs;
  const roundMs = 2 * o.hopMs + fetch / nicPerMs;
  const fetchPerMs = fetch / roundMs;
  const producePerMs = o.producePerPartitionBytesPerSec / 1000;
  if (producePerMs >= 0.9 * fetchPerMs) return null;
  return (bootstrapMs + copyMs) / (1 - producePerMs / fetchPerMs);
}

function problemIf(cond: boolean, flag: string, message: string): string | null {
  return cond ? `${flag} ${message}` : null;
}

/** The first problem with the input, naming its flag, or null. */
export function checkWhatIfInput(i: WhatIfInput): string | null {
  const addsBroker = i.event !== 'crash-leader';
  const maxBrokers = addsBroker ? MAX_BROKERS - 1 : MAX_BROKERS;
  const checks: Array<string | null> = [
    problemIf(!(i.brokers >= 1 && i.brokers <= maxBrokers), '--brokers', `must be from 1 to ${maxBrokers}${addsBroker ? ` (the ${i.event} event adds one, and a scenario has at most ${MAX_BROKERS} brokers)` : ''}, got ${i.brokers}`),
    problemIf(!(i.zones >= 1 && i.zones <= Math.min(i.brokers, MAX_ZONES)), '--zones', `must be from 1 to --brokers (${i.brokers}): a zone needs a broker, got ${i.zones}`),
    problemIf(!(i.partitions >= 1 && i.partitions <= MAX_TOTAL_PARTITIONS), '--partitions', `must be from 1 to ${MAX_TOTAL_PARTITIONS}, got ${i.partitions}`),
    problemIf(!(i.replicationFactor >= 1 && i.replicationFactor <= i.brokers), '--replication-factor', `must be from 1 to --brokers (${i.brokers}), got ${i.replicationFactor}`),
    problemIf(i.partitions * i.replicationFactor + (addsBroker ? 1 : 0) > MAX_TOTAL_REPLICAS, '--partitions', `x --replication-factor is ${i.partitions * i.replicationFactor} replicas; a scenario has at most ${MAX_TOTAL_REPLICAS} (docs/scenario-format.md, Limits)`),
    problemIf(i.event === 'crash-leader' && i.replicationFactor < 2, '--replication-factor', `must be at least 2 for --event crash-leader (another in-sync replica takes over), got ${i.replicationFactor}`),
    segmentBytesProblem(i.segmentBytes),
    problemIf(i.activeBytes !== null && i.activeBytes > i.segmentBytes, '--active', `(${bytes(i.activeBytes ?? 0)}) is more than a segment (--segment-bytes ${bytes(i.segmentBytes)})`),
    problemIf(i.activeBytes !== null && i.activeBytes > i.localBytes, '--active', `(${bytes(i.activeBytes ?? 0)}) is more than --local (${bytes(i.localBytes)}), which includes it`),
    problemIf(!(i.recordBytes >= 1), '--record-bytes', `must be at least 1 byte, got ${i.recordBytes}`),
    problemIf(i.recordBytes > i.segmentBytes, '--record-bytes', `(${bytes(i.recordBytes)}) is more than a segment (--segment-bytes ${bytes(i.segmentBytes)})`),
    problemIf(!(i.lingerMs >= 0 && i.lingerMs <= 600_000), '--linger-ms', `must be from 0 to 600000, got ${i.lingerMs}`),
    problemIf(!(i.consumersPerZone >= 0 && i.consumersPerZone <= 100), '--consumers-per-zone', `must be from 0 to 100, got ${i.consumersPerZone}`),
    problemIf(!(i.eventAtMs >= 0 && i.eventAtMs < MAX_UNTIL_MS), '--event-at-ms', `must be from 0, got ${i.eventAtMs}`),
    problemIf(!(i.outageMs >= 1), '--outage-ms', `must be at least 1, got ${i.outageMs}`),
    problemIf(!(i.downMs >= 1), '--down-ms', `must be at least 1, got ${i.downMs}`),
    problemIf(i.untilMs !== null && !(i.untilMs > i.eventAtMs && i.untilMs <= MAX_UNTIL_MS), '--until', `must be after the event (--event-at-ms ${i.eventAtMs}) and at most ${MAX_UNTIL_MS}, got ${i.untilMs}`),
    // The event's end is a timeline entry too: the run must reach it.
    problemIf(i.untilMs !== null && i.event === 'crash-leader' && i.untilMs > i.eventAtMs && i.untilMs < i.eventAtMs + i.downMs, '--until', `must be at or after the leader's restart (--event-at-ms ${i.eventAtMs} + --down-ms ${i.downMs} = ${i.eventAtMs + i.downMs}), got ${i.untilMs}`),
    problemIf(i.untilMs !== null && i.event === 'store-outage' && i.untilMs > i.eventAtMs && i.untilMs < i.eventAtMs + i.outageMs, '--until', `must be at or after the store's return (--event-at-ms ${i.eventAtMs} + --outage-ms ${i.outageMs} = ${i.eventAtMs + i.outageMs}), got ${i.untilMs}`),
  ];
  return checks.find((c) => c !== null) ?? null;
}

/** Kafka's refusal of a segment.bytes, as the scenario parser gives it (core/scenario/configs.ts), or null. */
export function segmentBytesProblem(v: number): string | null {
  const refusal = kafkaRangeRefusal('segment.bytes', TOPIC_CONFIGS['segment.bytes'], v);
  if (refusal === null) return null;
  return `--segment-bytes ${sizeFlagText(v)}: Kafka refuses it ("${refusal}"; ${TOPIC_CONFIGS['segment.bytes'].kafkaRange}); whatif builds what Kafka accepts: 1MiB to 2147483647 bytes`;
}

/** Builds the what-if; a problem names the flag to change. */
export function buildWhatIf(input: WhatIfInput): WhatIfResult {
  const bad = checkWhatIfInput(input);
  if (bad !== null) return { ok: false, problem: bad };
  const i = input;
  const sizes = `--local ${sizeFlagText(i.localBytes)} in --segment-bytes ${sizeFlagText(i.segmentBytes)} segments`;
  const layoutOf = (remoteSegmentScale = 1): Layout =>
    layoutSegments({ remoteBytes: i.tieredBytes, localBytes: i.localBytes, ...(i.activeBytes !== null ? { activeBytes: i.activeBytes } : {}), segmentBytes: i.segmentBytes, recordBytes: i.recordBytes, remoteSegmentScale });
  let layout = layoutOf();
  const localSegments = layout.bothSegments + 1;
  if (localSegments > MAX_LOCAL_SEGMENTS) {
    return { ok: false, problem: `${sizes} make ${localSegments.toLocaleString('en-US')} local segments a partition; whatif writes at most ${MAX_LOCAL_SEGMENTS.toLocaleString('en-US')} (each is a line of the scenario, which holds at most 128 KiB: docs/scenario-format.md, Limits): give a larger --segment-bytes${suggestSegmentBytes(i)} or a smaller --local` };
  }
  if (i.partitions > 1 + MAX_YAML_ALIASES) {
    return { ok: false, problem: `--partitions ${i.partitions}: each partition's initial log is the first one's, written once and named by a YAML alias, and a scenario may hold at most ${MAX_YAML_ALIASES} aliases, so at most ${1 + MAX_YAML_ALIASES} partitions` };
  }
  const zones = zoneNames(i.zones);
  const replicas = rackAwareReplicas(i.brokers, i.zones, i.partitions, i.replicationFactor);
  const produce = producePlan(i.produceBytesPerSec, i.partitions, i.recordBytes, i.lingerMs);
  if (produce !== null && produce.records > MAX_RECORDS_PER_EVENT) {
    return { ok: false, problem: `--produce ${i.produceBytesPerSec} B/s with --linger-ms ${i.lingerMs} is ${produce.records.toLocaleString('en-US')} records a produce; at most ${MAX_RECORDS_PER_EVENT.toLocaleString('en-US')} (docs/scenario-format.md, Limits): give a smaller --linger-ms` };
  }
  const leader = replicas[0][0];
  const zoneOf = (b: number): string => zones[b % zones.length];
  const addsBroker = i.event !== 'crash-leader';
  const eventBroker = addsBroker ? i.brokers : leader;
  const event: WhatIfEventPlan = {
    kind: i.event,
    atMs: i.eventAtMs,
    broker: eventBroker,
    zone: zoneOf(eventBroker),
    leaderZone: zoneOf(leader),
    ...(i.event === 'store-outage' ? { endsAtMs: i.eventAtMs + i.outageMs } : {}),
    ...(i.event === 'crash-leader' ? { endsAtMs: i.eventAtMs + i.downMs } : {}),
  };

  // The run's end: the slowest design's catch-up, with room to spare.
  const hopMs = (zoneOf(eventBroker) === zoneOf(leader) ? MODEL_KNOBS.sameZoneLatencyMs.default : MODEL_KNOBS.crossZoneLatencyMs.default) as number;
  const perPartition = produce === null ? 0 : produce.bytesPerSec / i.partitions;
  const copyBytes = addsBroker
    ? { classic: layout.localBytes, kip1023: layout.activeBytes }
    : // The crashed leader catches up what was produced while it was down.
      { classic: Math.ceil((perPartition * i.downMs) / 1000), kip1023: Math.ceil((perPartition * i.downMs) / 1000) };
  const catchUpMs = estimateCatchUpMs(Math.max(copyBytes.classic, copyBytes.kip1023), { hopMs, segmentBytes: i.segmentBytes, producePerPartitionBytesPerSec: perPartition });
  const estimate: WhatIfEstimate = { copyBytes, catchUpMs };
  let untilMs = i.untilMs;
  if (untilMs === null) {
    if (catchUpMs === null) {
      return { ok: false, problem: `--produce ${sizeFlagText(i.produceBytesPerSec)}/s (${bytes(Math.round(perPartition))}/s a partition) is about as fast as one follower fetches (replica.fetch.max.bytes a round trip), so a new replica would never catch up: give a smaller --produce, or --until to run anyway` };
    }
    const delay = i.event === 'store-outage' ? i.outageMs : i.event === 'crash-leader' ? i.downMs : 0;
    // A quarter longer than the estimate, and 5 s more (the ISR check, backoffs), in whole seconds.
    untilMs = Math.ceil((i.eventAtMs + delay + 1.25 * catchUpMs + 5000) / 1000) * 1000;
    if (untilMs > MAX_UNTIL_MS) return { ok: false, problem: `the run would have to last ${untilMs} ms, more than ${MAX_UNTIL_MS}: give smaller sizes or --until` };
  }

  const otherEntries = (produce === null ? 0 : i.partitions * producerTurns(i)) + eventEntries(i, event).length;
  const consumers = consumerPlan(i, untilMs, produce, otherEntries);
  if (i.consumersPerZone > 0 && produce !== null && consumers === null) {
    return { ok: false, problem: `--consumers-per-zone ${i.consumersPerZone} in ${i.zones} zones reading ${i.partitions} partitions is more consume events than a timeline holds (${MAX_TIMELINE_ENTRIES.toLocaleString('en-US')}: docs/scenario-format.md, Limits): give fewer consumers or partitions` };
  }
  const parts = { consumers, zones, replicas, produce, event, untilMs };
  let body = scenarioYaml(i, { ...parts, layout });
  // Too many segments in remote storage only for a scenario file: laid out larger, a whole
  // number of segment.bytes each. A new replica's bootstrap never reads them (it reads the
  // auxiliary state of the segment below the local log start, and the leader's local log),
  // so no figure depends on their size (test/whatif.test.ts runs both and compares).
  const fits = (b: string, l: Layout) => b.length <= MAX_SCENARIO_CHARS && l.segments.length <= MAX_INITIAL_ENTRIES;
  if (!fits(body, layout) && layout.remoteSegments > 0) {
    const last = layout.segments[layout.remoteSegments - 1];
    const lineChars = `          - ${segmentYaml(last)}\n`.length;
    const room = Math.max(1, Math.floor((MAX_SCENARIO_CHARS - (body.length - layout.remoteSegments * lineChars)) / lineChars));
    for (let factor = Math.max(2, Math.ceil(layout.remoteSegments / Math.min(room, MAX_INITIAL_ENTRIES - localSegments))); ; factor++) {
      if (factor * layout.recordsPerSegment * i.recordBytes > KAFKA_INT_MAX) {
        return { ok: false, problem: `--tiered ${sizeFlagText(i.tieredBytes)} is more than whatif lays out in a scenario file (128 KiB: docs/scenario-format.md, Limits), even in segments of 2 GiB (Kafka's largest, 2147483647 bytes): give a smaller --tiered` };
      }
      layout = layoutOf(factor);
      body = scenarioYaml(i, { ...parts, layout });
      if (fits(body, layout)) break;
    }
  }
  if (!fits(body, layout)) {
    return { ok: false, problem: `${sizes} make a scenario of ${body.length.toLocaleString('en-US')} characters (${layout.segments.length.toLocaleString('en-US')} segments a partition); a scenario file is at most ${MAX_SCENARIO_CHARS.toLocaleString('en-US')} (128 KiB: docs/scenario-format.md, Limits): give a larger --segment-bytes${suggestSegmentBytes(i)}` };
  }
  return { ok: true, whatIf: { input: i, consumers, body, layout, zones, replicas, produce, event, estimate, untilMs } };
}

/** ", e.g. 2GiB": the smallest power-of-two segment size from the given one up whose scenario fits, or ''. */
function suggestSegmentBytes(i: WhatIfInput): string {
  const max = TOPIC_CONFIGS['segment.bytes'].max as number;
  for (let s = 2 ** Math.ceil(Math.log2(i.segmentBytes)); s <= max; s *= 2) {
    if (s <= i.segmentBytes) continue;
    const r = buildWhatIf({ ...i, segmentBytes: s });
    if (r.ok) return ` (${sizeFlagText(s)} fits)`;
  }
  // Past Kafka's largest segment: the sizes themselves are too large.
  return max > i.segmentBytes ? ', or smaller sizes' : '';
}

/** When partition `q`'s producer first sends: linger clocks staggered over the partitions (as bench/workloads.ts), a steady stream rather than a burst each period. */
function produceStartMs(produce: ProducePlan, partitions: number, q: number): number {
  return (q * Math.max(1, Math.floor(produce.everyMs / partitions))) % produce.everyMs;
}

/** Producers taking turns on each partition: one, or one in each zone (--producer-zones spread). */
function producerTurns(i: WhatIfInput): number {
  return i.producerZones === 'spread' ? i.zones : 1;
}

/** Records one partition's producer has sent before `t` (its produces at start, start + everyMs, ...). */
function producedBefore(produce: ProducePlan, startMs: number, t: number): number {
  return t <= startMs ? 0 : Math.ceil((t - startMs) / produce.everyMs) * produce.records;
}

/**
 * Consumers in every zone reading what is produced (`--consumers-per-zone`): each polls every
 * `pollMs` and reads the records produced in the period before the last (a second behind the
 * producer, so what it reads is committed), from the partition's leader (Kafka's default
 * replica.selector.class, LeaderSelector: no fetching from a follower), one `consume` a poll.
 * A consume reads `records` from `fromOffset` and ends (docs/scenario-format.md); the offsets
 * are the producer's, assuming every produce is appended (with --event crash-leader, the
 * produces refused while the partition has no leader leave the later reads that many records
 * short). The poll period grows past 1 s where the timeline would otherwise pass its limit.
 */
export interface ConsumerPlan {
  pollMs: number;
  /** Consume entries in the timeline. */
  entries: number;
}

export function consumerPlan(i: WhatIfInput, untilMs: number, produce: ProducePlan | null, otherEntries: number): ConsumerPlan | null {
  if (i.consumersPerZone === 0 || produce === null) return null;
  const perPoll = i.zones * i.consumersPerZone * i.partitions;
  const room = MAX_TIMELINE_ENTRIES - otherEntries;
  let pollMs = 1000;
  while (perPoll * Math.max(0, Math.floor(untilMs / pollMs) - 1) > room && pollMs < untilMs) pollMs += 1000;
  const entries = perPoll * Math.max(0, Math.floor(untilMs / pollMs) - 1);
  return entries > room ? null : { pollMs, entries };
}

interface Parts {
  consumers: ConsumerPlan | null;
  layout: Layout;
  zones: string[];
  replicas: number[][];
  produce: ProducePlan | null;
  event: WhatIfEventPlan;
  untilMs: number;
}

/** A timeline entry as one YAML item. */
interface Entry {
  at: number;
  line: string;
}

function eventEntries(i: WhatIfInput, e: WhatIfEventPlan): Entry[] {
  const t = WHATIF_TOPIC;
  const add = [
    { at: e.atMs, line: `addBroker: {}` },
    { at: e.atMs, line: `addReplica: {topic: ${t}, partition: 0, broker: ${e.broker}}` },
  ];
  switch (i.event) {
    case 'add-replica':
      return add;
    case 'store-outage':
      // Unavailable from the moment the replica is added: its bootstrap's reads of the remote auxiliary state fail.
      return [{ at: e.atMs, line: `objectStore: {available: false, store: tiered}` }, ...add, { at: e.endsAtMs!, line: `objectStore: {available: true, store: tiered}` }];
    case 'crash-leader':
      return [
        { at: e.atMs, line: `crash: {broker: ${e.broker}}` },
        { at: e.endsAtMs!, line: `restart: {broker: ${e.broker}}` },
      ];
  }
}

function scenarioYaml(i: WhatIfInput, p: Parts): string {
  const { layout, produce, event } = p;
  const t = WHATIF_TOPIC;
  const timeline: Entry[] = [];
  if (produce !== null) {
    const turns = producerTurns(i);
    for (let q = 0; q < i.partitions; q++) {
      const start = produceStartMs(produce, i.partitions, q);
      if (turns === 1) timeline.push({ at: start, line: `produce: {topic: ${t}, partition: ${q}, records: ${produce.records}, acks: all, everyMs: ${produce.everyMs}}` });
      // Spread: the zones take turns, each every turns × everyMs, so the partition still gets a produce every everyMs.
      else for (let k = 0; k < turns; k++) timeline.push({ at: start + k * produce.everyMs, line: `produce: {topic: ${t}, partition: ${q}, records: ${produce.records}, acks: all, everyMs: ${produce.everyMs * turns}, zone: ${p.zones[k]}}` });
    }
  }
  timeline.push(...eventEntries(i, event));
  if (p.consumers !== null && produce !== null) {
    const c = p.consumers;
    for (let at = 2 * c.pollMs; at <= p.untilMs; at += c.pollMs) {
      for (let q = 0; q < i.partitions; q++) {
        const from = layout.logEndOffset + producedBefore(produce, produceStartMs(produce, i.partitions, q), at - 2 * c.pollMs);
        const records = layout.logEndOffset + producedBefore(produce, produceStartMs(produce, i.partitions, q), at - c.pollMs) - from;
        if (records <= 0) continue;
        for (const zone of p.zones) {
          const rack = i.fetchFromFollower ? `, config: {client.rack: ${zone}}` : '';
          for (let n = 0; n < i.consumersPerZone; n++) timeline.push({ at, line: `consume: {topic: ${t}, partition: ${q}, fromOffset: ${from}, records: ${records}, zone: ${zone}${rack}}` });
        }
      }
    }
  }
  timeline.sort((a, b) => a.at - b.at);
  const what =
    i.event === 'crash-leader'
      ? `the leader of partition 0 (broker ${event.broker}) crashes at t=${event.atMs}ms and restarts at t=${event.endsAtMs}ms`
      : `broker ${event.broker} joins at t=${event.atMs}ms and an empty replica of partition 0 is added on it${i.event === 'store-outage' ? `, the tiered store unavailable until t=${event.endsAtMs}ms` : ''}`;
  const sizes = `${bytes(layout.remoteBytes)} tiered and ${bytes(layout.localBytes)} local`;
  const name =
    i.event === 'crash-leader'
      ? `What if the leader of a partition with ${sizes} crashes?`
      : i.event === 'store-outage'
        ? `What if a replica is added to a partition with ${sizes} during a tiered-store outage?`
        : `What if a replica is added to a partition with ${sizes}?`;
  const lines = [
    `name: ${name}`,
    `description: >`,
    `  Made by npm run sim -- whatif (core/scenario/whatif.ts). ${i.brokers} brokers in ${i.zones} zone${i.zones === 1 ? '' : 's'}; topic ${t},`,
    `  ${i.partitions} partition${i.partitions === 1 ? '' : 's'} with replication factor ${i.replicationFactor}, each with ${bytes(layout.remoteBytes)} in remote storage only`,
    `  (${layout.remoteSegments} segments) and ${bytes(layout.localBytes)} on local disk (${layout.bothSegments} uploaded and still local, then`,
    `  ${layout.activeBytes === 0 ? 'an empty active segment' : `the active segment, ${bytes(layout.activeBytes)}`}), in ${bytes(i.segmentBytes)} segments of ${i.recordBytes}-byte records; the followers in sync.`,
    produce === null
      ? `  No producer.`
      : `  A producer writes ${produce.records} record${produce.records === 1 ? '' : 's'} to each partition every ${produce.everyMs} ms with acks=all (${bytes(Math.round(produce.bytesPerSec))}/s in all)${i.producerZones === 'spread' ? `, the producers of the ${i.zones} zones taking turns` : ''}.`,
    `  Then ${what}.`,
    `seed: ${i.seed}`,
    `brokers: ${i.brokers}`,
    `zones: [${p.zones.join(', ')}]`,
    ...(i.fetchFromFollower ? [`config:`, `  # KIP-392: consumers read from an in-sync replica in their client.rack.`, `  replica.selector.class: ${RACK_AWARE_REPLICA_SELECTOR}`] : []),
    `model:`,
    `  recordBytes: ${i.recordBytes}`,
    `  # The existing log's batches (batch.size); a Fetch still carries replica.fetch.max.bytes,`,
    `  # so the rounds, bytes and times are those of smaller batches (core/scenario/whatif.ts).`,
    `  producerBatchBytes: ${Math.max(WHATIF_BATCH_BYTES, i.recordBytes)}`,
    `topics:`,
    `  - name: ${t}`,
    `    partitions: ${i.partitions}`,
    `    replicas: [${p.replicas.map((r) => `[${r.join(', ')}]`).join(', ')}]`,
    `    config:`,
    `      remote.storage.enable: true`,
    `      segment.bytes: ${i.segmentBytes}`,
    `      local.retention.bytes: ${layout.localBytes}`,
    `    initial:`,
  ];
  for (let q = 0; q < i.partitions; q++) {
    lines.push(`      - partition: ${q}`, `        followersInSync: true`);
    if (q === 0) {
      lines.push(`        segments:${i.partitions > 1 ? ' &log' : ''}`);
      for (const g of layout.segments) lines.push(`          - ${segmentYaml(g)}`);
    } else {
      lines.push(`        segments: *log`);
    }
  }
  if (timeline.length > MAX_TIMELINE_ENTRIES) throw new RangeError('timeline too long');
  lines.push(`timeline:`);
  for (const e of timeline) lines.push(`  - at: ${e.at}`, `    ${e.line}`);
  lines.push(`until: ${p.untilMs}`);
  return lines.join('\n') + '\n';
}
