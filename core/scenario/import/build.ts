/**
 * `import` (issue 29): a scenario from what an operator can paste from a real cluster, the
 * outputs of kafka-topics.sh --describe (topics.ts), kafka-configs.sh --describe --all
 * (configs.ts) and kafka-log-dirs.sh --describe (log-dirs.ts). What it gets:
 *
 * - the brokers, with their racks as zones (`broker.rack` from the brokers' configs);
 * - each topic's partitions: the leader first, then the in-sync followers, which start with
 *   the leader's local log (`followersInSync`); a replica out of the ISR is added empty at
 *   t = 0 (`addReplica`) and catches up, as a lagging follower does;
 * - the topic and broker configs the model has, under Kafka's names, each with where its
 *   value comes from (resolve-configs.ts);
 * - each partition's local size, the leader's in kafka-log-dirs.sh, laid out as segments
 *   of the topic's segment.bytes (generate.ts, layoutSegments, as `whatif` lays them out).
 *
 * The remote (tiered) size is in none of these outputs (kafka-log-dirs.sh reports local
 * logs): it is given (`tiered`) or left empty, and said so. Everything assumed is returned
 * as lines to print. The text is checked by the scenario parser as any file is. Pure.
 */
import { MODEL_KNOBS, TOPIC_CONFIGS, type ConfigValue } from '../../domain/config.js';
import { formatBytes } from '../../util/format.js';
import { MAX_BROKERS, MAX_INITIAL_ENTRIES, MAX_SCENARIO_CHARS, MAX_ZONE_CHARS } from '../checks.js';
import { type Layout, layoutSegments, segmentYaml } from '../generate.js';
import { parseScenarioText } from '../parse.js';
import type { Scenario } from '../types.js';
import { WHATIF_BATCH_BYTES } from '../whatif.js';
import { type ImportResult, refusal } from './common.js';
import { type DescribedConfigs, parseConfigsDescribe } from './configs.js';
import { type DescribedLogDirs, parseLogDirs, replicaSize } from './log-dirs.js';
import { type ResolvedConfig, resolveBrokerConfigs, resolveTopicConfigs, sourceText } from './resolve-configs.js';
import { type DescribedTopic, parseTopicsDescribe } from './topics.js';

/** A pasted output and the name messages give it (a file name, or "the topics paste"). */
export interface ImportText {
  text: string;
  source: string;
}

export interface ImportInput {
  topics: ImportText;
  /** Several outputs may be given (the topics' and the brokers'); none: topic configs from kafka-topics.sh only, racks unknown. */
  configs: ImportText[];
  /** null: sizes unknown, every partition starts empty. */
  logDirs: ImportText | null;
}

export interface ImportOptions {
  /** Only these topics (null: every topic but Kafka's internal ones). */
  topics: string[] | null;
  /** Bytes in remote storage only of each partition of every tiered topic, and per topic (wins). */
  tieredBytes: number | null;
  tieredByTopic: Record<string, number>;
  recordBytes: number;
  untilMs: number;
  seed: number;
}

export const IMPORT_DEFAULTS: ImportOptions = { topics: null, tieredBytes: null, tieredByTopic: {}, recordBytes: MODEL_KNOBS.recordBytes.default as number, untilMs: 10_000, seed: 1 };

export interface ImportedBroker {
  /** The id in the cluster, and in the scenario (0 .. n-1, in the cluster's order). */
  clusterId: number;
  id: number;
  rack: string | null;
}

export interface ImportedPartition {
  topic: string;
  partition: number;
  /** Scenario ids: the leader first, then the in-sync followers; `outOfSync` are added at t = 0. */
  replicas: number[];
  outOfSync: number[];
  localBytes: number;
  remoteBytes: number;
  layout: Layout;
  /** Where the local size comes from (the leader's log dir), or '' without log dirs. */
  sizeFrom: string;
}

export interface Imported {
  /** The scenario's text (YAML, with comments naming each value's source). */
  body: string;
  /** The text as the scenario parser read it. */
  scenario: Scenario;
  brokers: ImportedBroker[];
  zones: string[];
  partitions: ImportedPartition[];
  brokerConfigs: ResolvedConfig[];
  topicConfigs: Record<string, ResolvedConfig[]>;
  /** What was assumed or left out, one line each, to print beside the figures. */
  assumptions: string[];
}

const isInternal = (name: string) => name.startsWith('__');
const q = (s: string) => JSON.stringify(s);
const plural = (n: number, one: string, many = `${one}s`) => `${n.toLocaleString('en-US')} ${n === 1 ? one : many}`;
const listShort = (xs: string[], max = 12) => (xs.length <= max ? xs.join(', ') : `${xs.slice(0, max).join(', ')} and ${xs.length - max} more`);
const yamlValue = (v: ConfigValue) => (typeof v === 'string' ? q(v) : String(v));

/** The parsed inputs, or the first refusal. */
function parseInputs(input: ImportInput): ImportResult<{ topics: DescribedTopic[]; configs: DescribedConfigs | null; logDirs: DescribedLogDirs | null; configSource: string }> {
  const topics = parseTopicsDescribe(input.topics.text, input.topics.source);
  if (!topics.ok) return topics;
  let configs: DescribedConfigs | null = null;
  for (const c of input.configs) {
    const parsed = parseConfigsDescribe(c.text, c.source);
    if (!parsed.ok) return parsed;
    if (configs === null) configs = parsed.value;
    else {
      for (const [name, s] of parsed.value.topics) {
        if (configs.topics.has(name)) return refusal(c.source, s.line, `the configs of topic ${name} are given twice (also in an earlier --configs)`);
        configs.topics.set(name, s);
      }
      for (const [id, s] of parsed.value.brokers) {
        if (configs.brokers.has(id)) return refusal(c.source, s.line, `the configs of broker ${id} are given twice (also in an earlier --configs)`);
        configs.brokers.set(id, s);
      }
      if (parsed.value.brokerDefaults !== null) {
        if (configs.brokerDefaults !== null) return refusal(c.source, parsed.value.brokerDefaults.line, `the cluster's default broker configs are given twice`);
        configs.brokerDefaults = parsed.value.brokerDefaults;
      }
      configs.ignored.push(...parsed.value.ignored);
    }
  }
  let logDirs: DescribedLogDirs | null = null;
  if (input.logDirs !== null) {
    const parsed = parseLogDirs(input.logDirs.text, input.logDirs.source);
    if (!parsed.ok) return parsed;
    logDirs = parsed.value;
  }
  return { ok: true, value: { topics: topics.value, configs, logDirs, configSource: input.configs.map((c) => c.source).join(', ') } };
}

export function buildImport(input: ImportInput, options: ImportOptions = IMPORT_DEFAULTS): ImportResult<Imported> {
  const parsed = parseInputs(input);
  if (!parsed.ok) return parsed;
  const { topics: described, configs, logDirs, configSource } = parsed.value;
  const topicsSource = input.topics.source;
  const assumptions: string[] = [];

  // ------------------------------------------------------------ the topics
  let chosen: DescribedTopic[];
  if (options.topics !== null) {
    chosen = [];
    for (const name of options.topics) {
      const t = described.find((x) => x.name === name);
      if (t === undefined) return refusal(topicsSource, null, `--topic ${name}: no such topic here (it describes ${listShort(described.map((x) => x.name))})`);
      if (!chosen.includes(t)) chosen.push(t);
    }
  } else {
    chosen = described.filter((t) => !isInternal(t.name));
    const internal = described.filter((t) => isInternal(t.name)).map((t) => t.name);
    if (internal.length > 0) assumptions.push(`topics     Kafka's internal topics left out: ${listShort(internal)} (--topic NAME takes one in)`);
    if (chosen.length === 0) return refusal(topicsSource, null, `no topic but Kafka's internal ones (${listShort(internal)}): name one with --topic to import it`);
  }
  for (const name of [...Object.keys(options.tieredByTopic)]) {
    if (!chosen.some((t) => t.name === name)) return refusal(topicsSource, null, `--tiered ${name}=...: ${name} is not among the topics imported (${listShort(chosen.map((t) => t.name))})`);
  }

  // ------------------------------------------------------------ the brokers and racks
  const ids = new Set<number>();
  for (const t of chosen) for (const p of t.partitions) for (const r of p.replicas) ids.add(r);
  for (const b of configs?.brokers.keys() ?? []) ids.add(b);
  for (const b of logDirs?.brokers.keys() ?? []) ids.add(b);
  const clusterIds = [...ids].sort((a, b) => a - b);
  if (clusterIds.length > MAX_BROKERS) return refusal(topicsSource, null, `${clusterIds.length} brokers; the model holds at most ${MAX_BROKERS}`);
  const toModel = new Map(clusterIds.map((c, i) => [c, i]));
  const identity = clusterIds.every((c, i) => c === i);
  const brokerSections = configs === null ? 0 : clusterIds.filter((b) => configs.brokers.has(b)).length;
  let racks: Array<string | null> = clusterIds.map(() => null);
  if (configs !== null && brokerSections > 0) {
    const missing = clusterIds.filter((b) => !configs.brokers.has(b));
    if (missing.length > 0) {
      return refusal(configSource, null, `the configs of broker ${missing.join(', ')} are missing (brokers ${clusterIds.filter((b) => configs.brokers.has(b)).join(', ')} are given): paste kafka-configs.sh --describe --all --entity-type brokers, which prints every broker`);
    }
    const all = clusterIds.every((b) => configs.brokers.get(b)!.scope === 'all');
    racks = clusterIds.map((b) => configs.brokers.get(b)!.entries.get('broker.rack')?.value ?? null);
    const withRack = clusterIds.filter((_, i) => racks[i] !== null);
    if (withRack.length > 0 && withRack.length < clusterIds.length) {
      const b = clusterIds.find((_, i) => racks[i] === null)!;
      return refusal(configSource, configs.brokers.get(b)!.line, `broker ${b} has no broker.rack while broker ${withRack[0]} has ${racks[clusterIds.indexOf(withRack[0])]}: the model puts every broker in a zone; give every broker its rack`);
    }
    const long = racks.find((r) => r !== null && r.length > MAX_ZONE_CHARS);
    if (long !== undefined && long !== null) return refusal(configSource, null, `broker.rack "${long.slice(0, 40)}..." is longer than a zone name may be (${MAX_ZONE_CHARS} characters)`);
    if (withRack.length === 0) assumptions.push(`zones      no broker has broker.rack${all ? '' : ' (or the configs are "Dynamic configs", which leave it out: give --all)'}: every broker in one zone, "a"`);
  } else {
    assumptions.push(`zones      racks unknown (no "All configs for broker N are:" in ${configs === null ? 'the input: no --configs' : configSource}): every broker in one zone, "a"`);
  }
  const zones = racks.every((r) => r !== null) ? (racks as string[]) : ['a'];
  const brokers: ImportedBroker[] = clusterIds.map((c, i) => ({ clusterId: c, id: i, rack: racks[i] }));
  assumptions.unshift(
    `brokers    ${plural(clusterIds.length, 'broker')}${identity ? ` (ids ${clusterIds.join(', ')})` : `: the cluster's ids ${clusterIds.join(', ')} are the model's ${clusterIds.map((_, i) => i).join(', ')} (a scenario numbers its brokers from 0)`}${racks.every((r) => r !== null) ? `, racks as zones: ${brokers.map((b) => `${b.clusterId} in ${b.rack}`).join(', ')}` : ''}`,
  );

  // ------------------------------------------------------------ configs
  let brokerConfigs: ResolvedConfig[] = [];
  if (configs !== null && (brokerSections > 0 || configs.brokerDefaults !== null)) {
    const r = resolveBrokerConfigs(configs, clusterIds, configSource);
    if (!r.ok) return r;
    brokerConfigs = r.value.configs;
    if (r.value.notModelled.length > 0) assumptions.push(`ignored    broker configs set but not modelled: ${listShort(r.value.notModelled)}`);
  } else {
    assumptions.push(`config     broker configs unknown (no broker configs in the input): the model's defaults, Kafka's but remote.log.storage.system.enable true`);
  }
  const topicConfigs: Record<string, ResolvedConfig[]> = {};
  for (const t of chosen) {
    const section = configs?.topics.get(t.name);
    const r = resolveTopicConfigs(t, section, topicsSource, configSource);
    if (!r.ok) return r;
    topicConfigs[t.name] = r.value.configs;
    if (section === undefined) assumptions.push(`config     ${t.name}: no "All configs for topic ${t.name} are:" in the input: the values of kafka-topics.sh's Configs: (those not at Kafka's default), Kafka's defaults for the rest`);
    if (r.value.notModelled.length > 0) assumptions.push(`ignored    ${t.name}: topic configs set but not modelled: ${listShort(r.value.notModelled)}`);
  }
  const configOf = (topic: string, name: string): ConfigValue | undefined => topicConfigs[topic].find((c) => c.name === name)?.value;

  // ------------------------------------------------------------ partitions and sizes
  const partitions: ImportedPartition[] = [];
  const timeline: Array<{ topic: string; partition: number; broker: number }> = [];
  const notes = { elr: [] as string[], reassign: [] as string[], future: [] as string[], outOfSync: [] as string[], remoteScaled: [] as string[] };
  if (logDirs === null) assumptions.push(`sizes      no --log-dirs: every partition starts empty`);
  for (const t of chosen) {
    const tiered = configOf(t.name, 'remote.storage.enable') === true;
    const given = Object.hasOwn(options.tieredByTopic, t.name) ? options.tieredByTopic[t.name] : null;
    if (given !== null && !tiered) return refusal(topicsSource, t.line, `--tiered ${t.name}=...: ${t.name} is not tiered (remote.storage.enable is not true), so nothing of it is in remote storage`);
    const remoteBytes = tiered ? (given ?? options.tieredBytes ?? 0) : 0;
    if (remoteBytes > 0) assumptions.push(`remote     ${t.name}: ${formatBytes(remoteBytes)} (${remoteBytes.toLocaleString('en-US')} bytes) a partition in remote storage only, below its local log (--tiered, as given)`);
    if (tiered && given === null && options.tieredBytes === null) {
      assumptions.push(`remote     ${t.name}: nothing in remote storage only (kafka-log-dirs.sh reports local logs only; give --tiered SIZE or --tiered ${t.name}=SIZE, per partition)`);
    }
    const segmentBytes = Number(configOf(t.name, 'internal.segment.bytes') ?? configOf(t.name, 'segment.bytes') ?? TOPIC_CONFIGS['segment.bytes'].default);
    if (t.markedForDeletion) assumptions.push(`topics     ${t.name} is marked for deletion in the cluster; imported as it stands`);
    for (const p of t.partitions) {
      const where = `${t.name}-${p.partition}`;
      if (p.leader === null) return refusal(topicsSource, p.line, `${where} has no leader (Leader: none): the model starts every partition with a leader; leave ${t.name} out with --topic naming the others`);
      const inSync = [p.leader, ...p.replicas.filter((r) => r !== p.leader && p.isr.includes(r))];
      const outOfSync = p.replicas.filter((r) => !inSync.includes(r));
      if (outOfSync.length > 0) notes.outOfSync.push(`${where} (${outOfSync.join(', ')})`);
      if ((p.elr?.length ?? 0) > 0 || (p.lastKnownElr?.length ?? 0) > 0) notes.elr.push(where);
      if (p.adding.length > 0 || p.removing.length > 0) notes.reassign.push(`${where} (adding ${p.adding.join(',') || 'none'}, removing ${p.removing.join(',') || 'none'})`);
      let localBytes = 0;
      let dirNote = '';
      if (logDirs !== null) {
        const dirs = logDirs.brokers.get(p.leader);
        const src = input.logDirs!.source;
        if (dirs === undefined) return refusal(src, logDirs.jsonLine, `no broker ${p.leader} (the leader of ${where}, ${topicsSource} line ${p.line}): paste kafka-log-dirs.sh --describe for every broker (without --broker-list)`);
        const size = replicaSize(dirs, t.name, p.partition);
        if (!size.found) {
          const why = size.erroredDirs.length > 0 ? `; its log dirs with an error: ${size.erroredDirs.join(', ')}` : ' (was --topic-list given?)';
          return refusal(src, logDirs.jsonLine, `no replica of ${where} on broker ${p.leader}, its leader (${topicsSource} line ${p.line})${why}`);
        }
        localBytes = size.size;
        dirNote = `leader ${p.leader}'s ${size.logDir}: ${size.size.toLocaleString('en-US')} bytes`;
        for (const r of p.replicas) {
          const f = replicaSize(logDirs.brokers.get(r), t.name, p.partition);
          if (f.found && f.future !== null) notes.future.push(`${where} on broker ${r} (${f.future.logDir}, ${f.future.size.toLocaleString('en-US')} bytes; the current one in ${f.logDir})`);
        }
      }
      const perSegment = Math.floor(segmentBytes / options.recordBytes);
      const remoteCount = Math.ceil(Math.floor(remoteBytes / options.recordBytes) / Math.max(1, perSegment));
      // A large remote part in larger segments, as whatif does: a bootstrap reads none of them.
      const scale = Math.max(1, Math.min(Math.ceil(remoteCount / 32), Math.floor(2147483647 / Math.max(1, perSegment * options.recordBytes))));
      if (scale > 1) notes.remoteScaled.push(`${where} x${scale}`);
      let layout: Layout;
      try {
        layout = layoutSegments({ remoteBytes, localBytes, segmentBytes, recordBytes: options.recordBytes, remoteSegmentScale: scale });
      } catch (e) {
        return refusal(topicsSource, p.line, `${where}: ${(e as Error).message}`);
      }
      if (!tiered) layout = { ...layout, segments: layout.segments.map((s) => ({ ...s, tier: 'local' as const })) };
      if (layout.segments.length > MAX_INITIAL_ENTRIES) {
        return refusal(topicsSource, p.line, `${where}: ${formatBytes(localBytes)} local in ${formatBytes(segmentBytes)} segments is ${plural(layout.segments.length, 'segment')}, more than a scenario holds a partition (${MAX_INITIAL_ENTRIES.toLocaleString('en-US')}): leave ${t.name} out with --topic naming the others`);
      }
      partitions.push({ topic: t.name, partition: p.partition, replicas: inSync.map((b) => toModel.get(b)!), outOfSync: outOfSync.map((b) => toModel.get(b)!), localBytes, remoteBytes, layout, sizeFrom: dirNote });
      for (const b of outOfSync) timeline.push({ topic: t.name, partition: p.partition, broker: toModel.get(b)! });
    }
  }
  if (notes.outOfSync.length > 0) assumptions.push(`isr        replicas out of the ISR, added empty at t=0 to catch up from the leader (the model holds no partial log): ${listShort(notes.outOfSync, 8)}`);
  if (notes.reassign.length > 0) assumptions.push(`reassign   reassignments in progress, their replicas kept as they stand (the reassignment's end is not modelled): ${listShort(notes.reassign, 8)}`);
  if (notes.elr.length > 0) assumptions.push(`ignored    Elr/LastKnownElr (KIP-966's eligible leader replicas) not modelled: ${listShort(notes.elr, 8)}`);
  if (notes.future.length > 0) assumptions.push(`ignored    future replicas (a move between log directories), the current replica used: ${listShort(notes.future, 4)}`);
  if (notes.remoteScaled.length > 0) assumptions.push(`remote     laid out in segments of several segment.bytes (a bootstrap reads none of them; as whatif does): ${listShort(notes.remoteScaled, 8)}`);
  if (logDirs !== null) {
    assumptions.push(`sizes      each partition's local log is its leader's size in kafka-log-dirs.sh, in ${options.recordBytes}-byte records (--record-bytes), its rolled segments full and ${chosen.some((t) => configOf(t.name, 'remote.storage.enable') === true) ? 'uploaded (tiered topics), ' : ''}the active segment what is left; in-sync followers start with a copy of it`);
  }
  assumptions.push(`epochs     leader epochs are not in these outputs: every partition's leader at epoch 0`);
  assumptions.push(`run        no producer or consumer (add them to the timeline); until t=${options.untilMs}ms (--until)`);

  const body = scenarioText({ brokers, zones, identity, brokerConfigs, topicConfigs, chosen, partitions, timeline, options });
  if (body.length > MAX_SCENARIO_CHARS) {
    const byTopic = chosen.map((t) => ({ name: t.name, segments: partitions.filter((p) => p.topic === t.name).reduce((n, p) => n + p.layout.segments.length, 0) })).sort((a, b) => b.segments - a.segments);
    return refusal(topicsSource, null, `the scenario would be ${body.length.toLocaleString('en-US')} characters, more than a scenario file holds (${MAX_SCENARIO_CHARS.toLocaleString('en-US')}: docs/scenario-format.md, Limits); the most segments: ${byTopic.slice(0, 3).map((x) => `${x.name} ${x.segments.toLocaleString('en-US')}`).join(', ')}: import fewer topics with --topic NAME`);
  }
  const check = parseScenarioText(body, 'the imported scenario');
  if (!check.ok) {
    const first = check.problems[0];
    return refusal(topicsSource, null, `the scenario built is refused: ${first.path === '' ? '' : `${first.path}: `}${first.message}${check.problems.length > 1 ? ` (and ${check.problems.length - 1} more)` : ''}; import fewer topics with --topic NAME`);
  }
  return { ok: true, value: { body, scenario: check.scenario, brokers, zones, partitions, brokerConfigs, topicConfigs, assumptions } };
}

interface TextParts {
  brokers: ImportedBroker[];
  zones: string[];
  identity: boolean;
  brokerConfigs: ResolvedConfig[];
  topicConfigs: Record<string, ResolvedConfig[]>;
  chosen: DescribedTopic[];
  partitions: ImportedPartition[];
  timeline: Array<{ topic: string; partition: number; broker: number }>;
  options: ImportOptions;
}

/** A config map's lines: the values written, each with its source; the defaults in one comment. */
function configLines(configs: ResolvedConfig[], indent: string): string[] {
  const out: string[] = [];
  for (const c of configs.filter((x) => x.written)) out.push(`${indent}${c.name}: ${yamlValue(c.value)}   # ${sourceText(c.source)}${c.note !== undefined ? `; ${c.note}` : ''}`);
  const defaults = configs.filter((x) => !x.written).map((x) => x.name);
  if (defaults.length > 0) out.push(`${indent}# at Kafka's default, as the model's (DEFAULT_CONFIG): ${defaults.join(', ')}`);
  return out;
}

function scenarioText(p: TextParts): string {
  const names = p.chosen.map((t) => t.name);
  const name = `Imported from a cluster: ${plural(p.brokers.length, 'broker')}, ${names.length === 1 ? `topic ${names[0]}` : `topics ${listShort(names, 3)}`}`.slice(0, 200);
  const lines = [
    `name: ${q(name)}`,
    `description: >`,
    `  Made by npm run sim -- import (core/scenario/import/build.ts) from kafka-topics.sh --describe,`,
    `  kafka-configs.sh --describe --all and kafka-log-dirs.sh --describe of a cluster.`,
    `seed: ${p.options.seed}`,
    `brokers: ${p.brokers.length}`,
  ];
  if (!p.identity) lines.push(`# The cluster's broker ids: ${p.brokers.map((b) => `${b.clusterId} is ${b.id}`).join(', ')}.`);
  lines.push(`zones: [${p.zones.map(q).join(', ')}]${p.zones.length > 1 ? '   # broker.rack of each broker, in id order' : ''}`);
  const broker = configLines(p.brokerConfigs, '  ');
  if (broker.length > 0) lines.push(`config:`, ...broker);
  lines.push(`model:`, `  recordBytes: ${p.options.recordBytes}`, `  # The existing logs' batches: 1 MiB, as whatif writes them (core/scenario/whatif.ts).`, `  producerBatchBytes: ${Math.max(WHATIF_BATCH_BYTES, p.options.recordBytes)}`);
  lines.push(`topics:`);
  for (const t of p.chosen) {
    const parts = p.partitions.filter((x) => x.topic === t.name);
    lines.push(`  - name: ${q(t.name)}`, `    partitions: ${t.partitionCount}`, `    # Leader first, then the in-sync followers (Replicas in the cluster: ${t.partitions.map((x) => `[${x.replicas.join(',')}]`).join(' ')}).`);
    lines.push(`    replicas: [${parts.map((x) => `[${x.replicas.join(', ')}]`).join(', ')}]`);
    const conf = configLines(p.topicConfigs[t.name], '      ');
    if (conf.some((l) => !l.trimStart().startsWith('#'))) lines.push(`    config:`, ...conf);
    else lines.push(`    # config: ${conf.length > 0 ? conf[0].trim().slice(2) : "Kafka's defaults"}`);
    lines.push(`    initial:`);
    for (const x of parts) {
      const note = x.sizeFrom;
      lines.push(`      - partition: ${x.partition}`, `        followersInSync: true`, `        segments:${note ? `   # ${note}` : ''}`);
      for (const s of x.layout.segments) lines.push(`          - ${segmentYaml(s)}`);
    }
  }
  if (p.timeline.length > 0) {
    lines.push(`timeline:   # replicas out of the ISR in the cluster: added empty, they catch up`);
    for (const e of p.timeline) lines.push(`  - at: 0`, `    addReplica: {topic: ${q(e.topic)}, partition: ${e.partition}, broker: ${e.broker}}`);
  }
  lines.push(`until: ${p.options.untilMs}`);
  return lines.join('\n') + '\n';
}
