/**
 * The `topics` of a scenario: names, partitions, replica lists, topic configs, and the
 * initial log of a partition (`initial`: its segments, tiers and leader epochs), whose
 * offsets must be contiguous and whose tiers must run remote, both, local.
 */
import type { ConfigValue } from '../domain/config.js';
import {
  boolC,
  MAX_BROKERS,
  MAX_INITIAL_ENTRIES,
  MAX_PARTITIONS,
  MAX_TOPIC_NAME_CHARS,
  MAX_TOPICS,
  MAX_TOTAL_PARTITIONS,
  MAX_TOTAL_REPLICAS,
  checkInt,
  checkKeys,
  describe,
  expectArray,
  expectMap,
  given,
  hasOwn,
  indexPath,
  intC,
  keyPath,
  list,
  missing,
  num,
  oneOfC,
  opt,
  plural,
  q,
  req,
} from './checks.js';
import type { Checker, IntRange, Problems } from './checks.js';
import { TOPIC_CONFIG_KEYS, checkTopicCreation, validateConfigEntries } from './configs.js';
import type { InitialPartitionState, InitialSegment, Tier, TopicSpec } from './types.js';

/**
 * Kafka's rules for a topic name (org.apache.kafka.common.internals.Topic.validate): not
 * empty, not '.' or '..', at most 249 characters, only ASCII letters, digits, '.', '_'
 * and '-'.
 */
const TOPIC_NAME_CHARS_RE = /^[a-zA-Z0-9._-]*$/;
const TOPIC_NAME_EXPECT = `a topic name of 1 to ${MAX_TOPIC_NAME_CHARS} characters from a-z A-Z 0-9 . _ -, other than '.' and '..'`;

const topicNameC: Checker<string> = {
  expect: TOPIC_NAME_EXPECT,
  check(p, v, path) {
    let why: string | undefined;
    if (typeof v !== 'string') why = `got ${describe(v)}`;
    else if (v.length === 0) why = 'got an empty name';
    else if (v === '.' || v === '..') why = `got ${describe(v)} (Kafka refuses '.' and '..': Topic.validate)`;
    else if (v.length > MAX_TOPIC_NAME_CHARS) why = `got ${num(v.length)} characters (Kafka allows at most ${MAX_TOPIC_NAME_CHARS}: Topic.validate)`;
    else if (!TOPIC_NAME_CHARS_RE.test(v)) {
      const bad = [...v].find((c) => !TOPIC_NAME_CHARS_RE.test(c)) ?? '';
      why = `got ${describe(v)}, which has ${JSON.stringify(bad)} (Kafka allows only a-z A-Z 0-9 . _ -: Topic.validate)`;
    }
    if (why === undefined) return v as string;
    p.add(path, `expected ${TOPIC_NAME_EXPECT}, ${why}`);
    return undefined;
  },
};

const TOPIC_KEYS = ['name', 'partitions', 'replicas', 'config', 'initial'] as const;
const INITIAL_KEYS = [
  'partition',
  'leaderEpoch',
  'leaderEpochs',
  'segments',
  'highestOffsetInRemoteStorage',
  'remoteLogMetadataReadyMs',
  'followersInSync',
] as const;
const SEGMENT_KEYS = ['baseOffset', 'endOffset', 'tier'] as const;
const TIERS: readonly Tier[] = ['remote', 'both', 'local'];

/** What a timeline action is checked against, per topic name. */
export interface TopicInfo {
  /** Undefined when `partitions` is invalid. */
  partitions: number | undefined;
}

/** The broker id range, given the (possibly invalid) broker count. */
export function brokerRange(brokers: number | undefined): IntRange {
  if (brokers === undefined) return { min: 0, max: MAX_BROKERS - 1, note: '(a broker id)' };
  return { min: 0, max: brokers - 1, note: `(a broker id; brokers: ${brokers})` };
}

export function partitionRange(topicName: string, partitions: number | undefined): IntRange {
  if (partitions === undefined) return { min: 0, max: MAX_PARTITIONS - 1 };
  return { min: 0, max: partitions - 1, note: `(topic ${q(topicName)} has ${plural(partitions, 'partition')})` };
}

function validateReplicas(
  p: Problems,
  v: unknown,
  path: string,
  partitions: number | undefined,
  brokers: number | undefined,
): number[][] {
  const out: number[][] = [];
  const arr = expectArray(p, v, path, 'an array with one array of broker ids per partition, e.g. [[0, 1]]', true, MAX_PARTITIONS);
  if (!arr) return out;
  if (partitions !== undefined && arr.length !== partitions) {
    p.add(path, `expected ${plural(partitions, 'replica list')} (one per partition; partitions: ${partitions}), got ${arr.length}`);
  }
  arr.forEach((entry, i) => {
    const ep = indexPath(path, i);
    const ids = expectArray(p, entry, ep, 'a non-empty array of distinct broker ids (the first is the leader)', true, MAX_BROKERS);
    if (!ids) return;
    const seen = new Map<number, number>();
    const list: number[] = [];
    ids.forEach((id, k) => {
      const ip = indexPath(ep, k);
      const b = checkInt(p, id, ip, brokerRange(brokers));
      if (b === undefined) return;
      const prev = seen.get(b);
      if (prev !== undefined) {
        p.add(ip, `expected distinct broker ids, got ${b} again (also at ${indexPath(ep, prev)})`);
        return;
      }
      seen.set(b, k);
      list.push(b);
    });
    out.push(list);
  });
  return out;
}

interface SegmentsResult {
  segments: InitialSegment[];
  /** baseOffset of the first segment, when valid. */
  firstBase: number | undefined;
  /** endOffset of the last (active) segment, when valid. */
  lastEnd: number | undefined;
}

function validateSegments(
  p: Problems,
  v: unknown,
  path: string,
  remoteEnable: boolean | undefined,
  topicPath: string,
): SegmentsResult {
  const res: SegmentsResult = { segments: [], firstBase: undefined, lastEnd: undefined };
  const arr = expectArray(p, v, path, 'a non-empty array of segments {baseOffset, endOffset, tier}, oldest first', true, MAX_INITIAL_ENTRIES);
  if (!arr) return res;
  let prevEnd: number | undefined;
  let prevIndex = -1;
  let maxRank = -1;
  let maxRankIndex = -1;
  arr.forEach((entry, k) => {
    const sp = indexPath(path, k);
    const isLast = k === arr.length - 1;
    const seg = expectMap(p, entry, sp, 'a segment {baseOffset, endOffset, tier}');
    if (!seg) {
      prevEnd = undefined;
      return;
    }
    checkKeys(p, seg, sp, SEGMENT_KEYS);
    const base = req(p, seg, 'baseOffset', sp, intC({ min: 0 }));
    let end: number | undefined;
    {
      const ep = keyPath(sp, 'endOffset');
      let r: IntRange;
      if (base === undefined) r = { min: -1 };
      else if (isLast) r = { min: base - 1, note: '(baseOffset - 1 for an empty active segment, or more)' };
      else r = { min: base, note: '(baseOffset or more; only the last, active segment may be empty)' };
      end = req(p, seg, 'endOffset', sp, intC(r));
      if (end !== undefined && !Number.isSafeInteger(end + 1)) {
        p.add(ep, `expected an integer below ${Number.MAX_SAFE_INTEGER}, got ${end}`);
        end = undefined;
      }
    }
    const tier = req(p, seg, 'tier', sp, oneOfC(TIERS));

    // Contiguity with the previous segment.
    if (k > 0 && base !== undefined && prevEnd !== undefined) {
      const want = prevEnd + 1;
      const bp = keyPath(sp, 'baseOffset');
      const prevRef = `${indexPath(path, prevIndex)}.endOffset + 1`;
      if (base > want) {
        p.add(bp, `gap: expected ${want} (${prevRef}), got ${base}; offsets ${want}..${base - 1} are in no segment`);
      } else if (base < want) {
        p.add(bp, `overlap: expected ${want} (${prevRef}), got ${base}; offsets ${base}..${want - 1} are in two segments`);
      }
    }

    // Tiers: remote*, both*, local+, and the active segment is local.
    if (tier !== undefined) {
      const tp = keyPath(sp, 'tier');
      const rank = TIERS.indexOf(tier);
      if (isLast && tier !== 'local') {
        p.add(tp, `expected 'local' for the last (active) segment, got '${tier}'`);
      } else if (rank < maxRank) {
        p.add(tp, `expected tiers in the order remote, both, local (oldest first), got '${tier}' after a '${TIERS[maxRank]}' segment (${indexPath(path, maxRankIndex)})`);
      }
      if (rank > maxRank) {
        maxRank = rank;
        maxRankIndex = k;
      }
      if (tier !== 'local' && remoteEnable === false) {
        p.add(tp, `expected 'local' because the topic is not tiered (a '${tier}' segment needs remote.storage.enable: true in ${topicPath}.config), got '${tier}'`);
      }
    }

    if (k === 0) res.firstBase = base;
    if (isLast) res.lastEnd = end;
    prevEnd = end;
    prevIndex = k;
    if (base !== undefined && end !== undefined && tier !== undefined) {
      res.segments.push({ baseOffset: base, endOffset: end, tier });
    }
  });
  return res;
}

function validateLeaderEpochs(
  p: Problems,
  v: unknown,
  path: string,
  firstBase: number | undefined,
  lastEnd: number | undefined,
): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  const arr = expectArray(p, v, path, 'a non-empty array of [epoch, startOffset] pairs', true, MAX_INITIAL_ENTRIES);
  if (!arr) return out;
  const range: IntRange = { min: firstBase ?? 0 };
  const notes: string[] = [];
  if (firstBase !== undefined) notes.push(`the first segment's baseOffset is ${firstBase}`);
  if (lastEnd !== undefined) {
    range.max = lastEnd + 1;
    notes.push(`the log end offset is ${lastEnd + 1}`);
  }
  if (notes.length > 0) range.note = `(${notes.join('; ')})`;
  let prevEpoch: number | undefined;
  let prevEpochIndex = -1;
  let prevStart: number | undefined;
  let prevStartIndex = -1;
  arr.forEach((entry, m) => {
    const ep = indexPath(path, m);
    if (!Array.isArray(entry) || entry.length !== 2) {
      p.add(ep, `expected an [epoch, startOffset] pair, got ${describe(entry)}`);
      return;
    }
    const epochPath = indexPath(ep, 0);
    const startPath = indexPath(ep, 1);
    const epoch = checkInt(p, entry[0], epochPath, { min: 0, note: '(a leader epoch)' });
    const start = checkInt(p, entry[1], startPath, range);
    let ok = epoch !== undefined && start !== undefined;
    if (epoch !== undefined) {
      if (prevEpoch !== undefined && epoch <= prevEpoch) {
        p.add(epochPath, `expected an integer > ${prevEpoch} (epochs strictly ascending; ${indexPath(path, prevEpochIndex)}[0] is ${prevEpoch}), got ${epoch}`);
        ok = false;
      }
      prevEpoch = epoch;
      prevEpochIndex = m;
    }
    if (start !== undefined) {
      if (prevStart !== undefined && start < prevStart) {
        p.add(startPath, `expected an integer >= ${prevStart} (start offsets never decrease; ${indexPath(path, prevStartIndex)}[1] is ${prevStart}), got ${start}`);
        ok = false;
      }
      prevStart = start;
      prevStartIndex = m;
    }
    if (ok) out.push([epoch as number, start as number]);
  });
  return out;
}

function validateInitial(
  p: Problems,
  v: unknown,
  path: string,
  topicName: string,
  topicPath: string,
  partitions: number | undefined,
  remoteEnable: boolean | undefined,
): InitialPartitionState[] {
  const out: InitialPartitionState[] = [];
  const arr = expectArray(p, v, path, 'an array of initial partition states', false, MAX_PARTITIONS);
  if (!arr) return out;
  const seen = new Map<number, number>();
  arr.forEach((entry, j) => {
    const ip = indexPath(path, j);
    const st = expectMap(p, entry, ip, 'a map {partition, segments, ...}');
    if (!st) return;
    checkKeys(p, st, ip, INITIAL_KEYS);

    let partition = req(p, st, 'partition', ip, intC(partitionRange(topicName, partitions)));
    if (partition !== undefined) {
      const prev = seen.get(partition);
      if (prev !== undefined) {
        p.add(keyPath(ip, 'partition'), `expected each partition at most once, got partition ${partition} again (also at ${indexPath(path, prev)})`);
        partition = undefined;
      } else {
        seen.set(partition, j);
      }
    }

    const segs: SegmentsResult = missing(p, st, 'segments', ip, 'a non-empty array of segments {baseOffset, endOffset, tier}')
      ? { segments: [], firstBase: undefined, lastEnd: undefined }
      : validateSegments(p, st.segments, keyPath(ip, 'segments'), remoteEnable, topicPath);

    const leaderEpoch = opt(p, st, 'leaderEpoch', ip, intC({ min: 0 }));
    const epochs = given(st, 'leaderEpochs')
      ? validateLeaderEpochs(p, st.leaderEpochs, keyPath(ip, 'leaderEpochs'), segs.firstBase, segs.lastEnd)
      : undefined;
    const lastEpoch = epochs && epochs.length > 0 ? epochs[epochs.length - 1][0] : undefined;
    if (leaderEpoch !== undefined && lastEpoch !== undefined && leaderEpoch < lastEpoch) {
      p.add(keyPath(ip, 'leaderEpoch'), `expected an integer >= ${lastEpoch} (the last epoch in leaderEpochs), got ${leaderEpoch}`);
    }

    const hwRange: IntRange = { min: -1 };
    if (segs.lastEnd !== undefined) {
      hwRange.max = segs.lastEnd;
      hwRange.note = '(-1: not known yet; at most the last offset in the log)';
    }
    const hors = opt(p, st, 'highestOffsetInRemoteStorage', ip, intC(hwRange));
    const readyMs = opt(p, st, 'remoteLogMetadataReadyMs', ip, intC({ min: 0 }));
    const inSync = opt(p, st, 'followersInSync', ip, boolC);

    if (partition === undefined || segs.segments.length === 0 || segs.firstBase === undefined) return;
    const epoch = leaderEpoch ?? lastEpoch ?? 0;
    const state: InitialPartitionState = {
      partition,
      leaderEpoch: epoch,
      leaderEpochs: epochs ?? [[epoch, segs.firstBase]],
      segments: segs.segments,
      remoteLogMetadataReadyMs: readyMs ?? 0,
    };
    if (hors !== undefined) state.highestOffsetInRemoteStorage = hors;
    if (inSync === true) state.followersInSync = true;
    out.push(state);
  });
  return out;
}

export function validateTopics(
  p: Problems,
  v: unknown,
  brokers: number | undefined,
  infos: Map<string, TopicInfo>,
  /** The brokers' remote.log.storage.system.enable (the top-level config's, else its default). */
  remoteStorageSystemEnabled: boolean = true,
): TopicSpec[] {
  const out: TopicSpec[] = [];
  const arr = expectArray(p, v, 'topics', 'a non-empty array of topics', true, MAX_TOPICS);
  if (!arr) return out;
  const firstIndex = new Map<string, number>();
  /** Topics with '.' or '_', by their name with '.' made '_' (Topic.unifyCollisionChars). */
  const collisions = new Map<string, { name: string; index: number }>();
  let totalPartitions = 0;
  let totalReplicas = 0;
  arr.forEach((entry, i) => {
    const tp = indexPath('topics', i);
    const t = expectMap(p, entry, tp, 'a topic {name, partitions, replicas, ...}');
    if (!t) return;
    checkKeys(p, t, tp, TOPIC_KEYS);

    let name = req(p, t, 'name', tp, topicNameC);
    // Remember the name even if it is malformed, so the timeline does not also complain.
    const rawName = typeof t.name === 'string' ? t.name : undefined;
    if (name !== undefined) {
      const prev = firstIndex.get(name);
      // Kafka's controller refuses a name that equals an existing one once '.' and '_' are
      // made one (their metric names would collide): ReplicationControlManager's
      // validateNewTopicNames with Topic.unifyCollisionChars (Kafka 4.x), the topics created
      // in the order listed.
      const unified = name.replace(/\./g, '_');
      const collides = name.includes('.') || name.includes('_') ? collisions.get(unified) : undefined;
      if (prev !== undefined) {
        p.add(keyPath(tp, 'name'), `expected a unique topic name, got ${q(name)} again (also at topics[${prev}].name)`);
        name = undefined;
      } else if (collides !== undefined) {
        p.add(keyPath(tp, 'name'), `Topic '${name}' collides with existing topic: ${collides.name} (topics[${collides.index}].name; Kafka makes '.' and '_' one in metric names and refuses the second: ReplicationControlManager, Topic.hasCollisionChars)`);
        name = undefined;
      } else {
        firstIndex.set(name, i);
        if (name.includes('.') || name.includes('_')) collisions.set(unified, { name, index: i });
      }
    }

    const partitions = req(p, t, 'partitions', tp, intC({ min: 1, max: MAX_PARTITIONS }));
    if (rawName !== undefined && !infos.has(rawName)) infos.set(rawName, { partitions });
    if (partitions !== undefined) {
      totalPartitions += partitions;
      if (totalPartitions > MAX_TOTAL_PARTITIONS && totalPartitions - partitions <= MAX_TOTAL_PARTITIONS) {
        p.add(keyPath(tp, 'partitions'), `expected at most ${num(MAX_TOTAL_PARTITIONS)} partitions in all topics together, got ${num(totalPartitions)} up to this topic (docs/scenario-format.md, Limits)`);
      }
    }

    const replicas = missing(p, t, 'replicas', tp, 'an array with one array of broker ids per partition, e.g. [[0, 1]]')
      ? []
      : validateReplicas(p, t.replicas, keyPath(tp, 'replicas'), partitions, brokers);
    const replicaCount = replicas.reduce((n, r) => n + r.length, 0);
    totalReplicas += replicaCount;
    if (totalReplicas > MAX_TOTAL_REPLICAS && totalReplicas - replicaCount <= MAX_TOTAL_REPLICAS) {
      p.add(keyPath(tp, 'replicas'), `expected at most ${num(MAX_TOTAL_REPLICAS)} replicas in all partitions together (partitions x replicas, summed over the topics), got ${num(totalReplicas)} up to this topic (docs/scenario-format.md, Limits)`);
    }

    let config: Record<string, ConfigValue> = {};
    let remoteEnable: boolean | undefined = false;
    if (given(t, 'config')) {
      const cp = keyPath(tp, 'config');
      const cm = expectMap(p, t.config, cp, `a map of topic configs (${list(TOPIC_CONFIG_KEYS)})`);
      if (cm) {
        const before = p.count;
        config = validateConfigEntries(p, cm, cp, 'topic');
        // Each value is valid: the controller's checks between configs, as at CreateTopics.
        if (p.count === before) checkTopicCreation(p, config, cp, remoteStorageSystemEnabled);
        if (hasOwn(cm, 'remote.storage.enable')) {
          const re = cm['remote.storage.enable'];
          remoteEnable = typeof re === 'boolean' ? re : undefined;
        }
      } else {
        remoteEnable = undefined;
      }
    }

    const initial = given(t, 'initial')
      ? validateInitial(p, t.initial, keyPath(tp, 'initial'), name ?? rawName ?? '', tp, partitions, remoteEnable)
      : [];

    if (name === undefined || partitions === undefined) return;
    out.push({ name, partitions, replicas, config, initial });
  });
  return out;
}
