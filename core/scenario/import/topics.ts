/**
 * `kafka-topics.sh --describe` as Kafka's TopicCommand prints it
 * (tools/src/main/java/org/apache/kafka/tools/TopicCommand.java, TopicService.describeTopic):
 * for each topic, TopicDescription.printDescription's line
 *
 *   Topic: orders	TopicId: 5x...	PartitionCount: 3	ReplicationFactor: 3	Configs: remote.storage.enable=true,segment.bytes=1048576
 *
 * (TopicId left out for a zero id; Configs the entries that are not at Kafka's default,
 * `name=value` joined by commas; `MarkedForDeletion: true` last when it is), then for each
 * partition, in partition order, PartitionDescription.printDescription's line
 *
 *   	Topic: orders	Partition: 0	Leader: 1	Replicas: 1,2,3	Isr: 1,2,3	Elr: 	LastKnownElr:
 *
 * (`Leader: none` when the partition has none; `Adding Replicas:` and `Removing Replicas:`
 * after Isr while a reassignment runs; `Elr: N/A` and `LastKnownElr: N/A` when the broker
 * does not send them). Fields are tab-separated; a terminal's copy that turned the tabs into
 * spaces reads the same. Pure: text in, topics out, or one line naming what is wrong.
 */
import { type ImportResult, excerpt, numberedLines, parseId, parseIdList, refusal, wrongFormat } from './common.js';

export interface DescribedPartition {
  partition: number;
  /** null: `Leader: none` (no leader: the partition is offline). */
  leader: number | null;
  replicas: number[];
  isr: number[];
  /** A reassignment in progress: the replicas being added and removed. */
  adding: number[];
  removing: number[];
  /** KIP-966's eligible leader replicas; null when not printed or N/A. */
  elr: number[] | null;
  lastKnownElr: number[] | null;
  line: number;
}

export interface DescribedTopic {
  name: string;
  topicId: string | null;
  partitionCount: number;
  replicationFactor: number;
  /** The `Configs:` entries (Kafka prints those not at their default), in order, with their line. */
  configs: Array<{ name: string; value: string }>;
  markedForDeletion: boolean;
  line: number;
  partitions: DescribedPartition[];
}

const TOPIC_KEYS = ['Topic', 'TopicId', 'PartitionCount', 'ReplicationFactor', 'Configs', 'MarkedForDeletion'];
const PARTITION_KEYS = ['Topic', 'Partition', 'Leader', 'Replicas', 'Isr', 'Adding Replicas', 'Removing Replicas', 'Elr', 'LastKnownElr', 'MarkedForDeletion'];
const ANY_KEY = /(?:^|\s)(Topic|TopicId|PartitionCount|ReplicationFactor|Configs|MarkedForDeletion|Partition|Leader|Replicas|Isr|Adding Replicas|Removing Replicas|Elr|LastKnownElr):(?=\s|$)/g;

/** A line's `Key: value` fields in order (values trimmed), or null when it starts with no key. */
function fields(line: string): Map<string, string> | null {
  const found = [...line.matchAll(ANY_KEY)];
  if (found.length === 0 || line.slice(0, found[0].index).trim() !== '') return null;
  const out = new Map<string, string>();
  found.forEach((m, i) => {
    const start = m.index + m[0].length;
    const end = i + 1 < found.length ? found[i + 1].index : line.length;
    if (!out.has(m[1])) out.set(m[1], line.slice(start, end).trim());
  });
  return out;
}

/**
 * `Configs:`'s value: `name=value` entries joined by commas, where a value may itself hold
 * commas (`cleanup.policy=compact,delete`, `leader.replication.throttled.replicas=0:1,1:2`):
 * a piece without `=` belongs to the entry before it.
 */
export function splitConfigs(s: string): Array<{ name: string; value: string }> | string {
  const out: Array<{ name: string; value: string }> = [];
  if (s.trim() === '') return out;
  for (const piece of s.split(',')) {
    const m = /^([A-Za-z0-9._-]+)=(.*)$/.exec(piece);
    if (m !== null) out.push({ name: m[1], value: m[2] });
    else if (out.length > 0) out[out.length - 1].value += `,${piece}`;
    else return piece;
  }
  return out;
}

export function parseTopicsDescribe(text: string, source: string): ImportResult<DescribedTopic[]> {
  const other = wrongFormat(source, text, 'topics');
  if (other !== null) return other;
  const topics: DescribedTopic[] = [];
  let current: DescribedTopic | null = null;
  const close = (t: DescribedTopic | null): { ok: false; problem: string } | null => {
    if (t === null) return null;
    if (t.partitions.length !== t.partitionCount) {
      const have = new Set(t.partitions.map((p) => p.partition));
      const missing = Array.from({ length: t.partitionCount }, (_, i) => i).filter((i) => !have.has(i));
      return refusal(source, t.line, `topic ${t.name} has PartitionCount: ${t.partitionCount} but ${t.partitions.length} partition line${t.partitions.length === 1 ? '' : 's'} follow${t.partitions.length === 1 ? 's' : ''} it${missing.length > 0 ? ` (partition ${missing.slice(0, 5).join(', ')}${missing.length > 5 ? ', ...' : ''} missing)` : ''}: paste the whole output of kafka-topics.sh --describe`);
    }
    return null;
  };
  let lines = 0;
  for (const { n, text: raw } of numberedLines(text)) {
    if (raw.trim() === '') continue;
    lines++;
    const f = fields(raw);
    if (f === null || !f.has('Topic')) {
      return refusal(source, n, `expected a topic line ("Topic: NAME  TopicId: ...  PartitionCount: N  ReplicationFactor: N  Configs: ...") or a partition line ("Topic: NAME  Partition: N  Leader: N  Replicas: ...  Isr: ...") as kafka-topics.sh --describe prints them (TopicCommand), got ${excerpt(raw)}`);
    }
    const name = f.get('Topic')!;
    if (!/^[A-Za-z0-9._-]+$/.test(name)) return refusal(source, n, `"${name}" is not a topic name (Kafka's are letters, digits, '.', '_' and '-')`);
    if (f.has('Partition')) {
      // A partition line.
      const unknown = [...f.keys()].filter((k) => !PARTITION_KEYS.includes(k));
      if (unknown.length > 0) return refusal(source, n, `${unknown[0]}: belongs on a topic line, not a partition line`);
      if (current === null || current.name !== name) {
        return refusal(source, n, `a partition line of topic ${name} with no "Topic: ${name}  PartitionCount: ..." line before it: paste the whole output of kafka-topics.sh --describe (not one filtered by --under-replicated-partitions or the like, which leaves out the topic lines)`);
      }
      for (const key of ['Leader', 'Replicas', 'Isr']) if (!f.has(key)) return refusal(source, n, `partition line without "${key}:"`);
      const partition = parseId(f.get('Partition')!);
      if (partition === null) return refusal(source, n, `Partition: expected a partition number, got ${excerpt(f.get('Partition')!)}`);
      if (partition >= current.partitionCount) return refusal(source, n, `partition ${partition} of ${name}, which has PartitionCount: ${current.partitionCount} (line ${current.line})`);
      const dup = current.partitions.find((p) => p.partition === partition);
      if (dup !== undefined) return refusal(source, n, `partition ${name}-${partition} is described twice (first at line ${dup.line})`);
      const leaderText = f.get('Leader')!;
      const leader = leaderText === 'none' || leaderText === '-1' ? null : parseId(leaderText);
      if (leader === null && leaderText !== 'none' && leaderText !== '-1') return refusal(source, n, `Leader: expected a broker id or "none", got ${excerpt(leaderText)}`);
      const lists: Record<string, number[] | null> = {};
      for (const key of ['Replicas', 'Isr', 'Adding Replicas', 'Removing Replicas', 'Elr', 'LastKnownElr']) {
        const v = f.get(key);
        if (v === undefined || v === 'N/A') {
          lists[key] = null;
          continue;
        }
        const ids = parseIdList(v);
        if (ids === null) return refusal(source, n, `${key}: expected broker ids separated by commas, got ${excerpt(v)}`);
        lists[key] = ids;
      }
      const replicas = lists.Replicas ?? [];
      if (replicas.length === 0) return refusal(source, n, `partition ${name}-${partition} lists no replicas`);
      if (new Set(replicas).size !== replicas.length) return refusal(source, n, `Replicas: ${replicas.join(',')} names a broker twice`);
      const isr = lists.Isr ?? [];
      const outside = [...isr, ...(lists['Adding Replicas'] ?? []), ...(lists['Removing Replicas'] ?? [])].find((b) => !replicas.includes(b));
      if (outside !== undefined) return refusal(source, n, `broker ${outside} is in the Isr or a reassignment of ${name}-${partition} but not in its Replicas (${replicas.join(',')})`);
      if (leader !== null && !replicas.includes(leader)) return refusal(source, n, `Leader: ${leader} is not one of the Replicas (${replicas.join(',')})`);
      current.partitions.push({
        partition,
        leader,
        replicas,
        isr,
        adding: lists['Adding Replicas'] ?? [],
        removing: lists['Removing Replicas'] ?? [],
        elr: lists.Elr,
        lastKnownElr: lists.LastKnownElr,
        line: n,
      });
      continue;
    }
    // A topic line.
    const unknown = [...f.keys()].filter((k) => !TOPIC_KEYS.includes(k));
    if (unknown.length > 0) return refusal(source, n, `${unknown[0]}: belongs on a partition line; a topic line has ${TOPIC_KEYS.join(', ')}`);
    for (const key of ['PartitionCount', 'ReplicationFactor', 'Configs']) {
      if (!f.has(key)) return refusal(source, n, `topic line of ${name} without "${key}:" (TopicCommand prints Topic, TopicId, PartitionCount, ReplicationFactor and Configs)`);
    }
    const closed = close(current);
    if (closed !== null) return closed;
    if (topics.some((t) => t.name === name)) return refusal(source, n, `topic ${name} is described twice (first at line ${topics.find((t) => t.name === name)!.line})`);
    const count = parseId(f.get('PartitionCount')!);
    if (count === null || count === 0) return refusal(source, n, `PartitionCount: expected a number of partitions, got ${excerpt(f.get('PartitionCount')!)}`);
    const rf = parseId(f.get('ReplicationFactor')!);
    if (rf === null || rf === 0) return refusal(source, n, `ReplicationFactor: expected a number of replicas, got ${excerpt(f.get('ReplicationFactor')!)}`);
    const configs = splitConfigs(f.get('Configs')!);
    if (typeof configs === 'string') return refusal(source, n, `Configs: expected name=value entries separated by commas, got ${excerpt(configs)}`);
    current = {
      name,
      topicId: f.get('TopicId') ?? null,
      partitionCount: count,
      replicationFactor: rf,
      configs,
      markedForDeletion: f.get('MarkedForDeletion') === 'true',
      line: n,
      partitions: [],
    };
    topics.push(current);
  }
  const closed = close(current);
  if (closed !== null) return closed;
  if (lines === 0) return refusal(source, null, `empty: expected the output of kafka-topics.sh --describe (TopicCommand)`);
  for (const t of topics) t.partitions.sort((a, b) => a.partition - b.partition);
  return { ok: true, value: topics };
}
