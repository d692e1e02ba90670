/**
 * `kafka-log-dirs.sh --describe` as Kafka's LogDirsCommand prints it
 * (tools/src/main/java/org/apache/kafka/tools/LogDirsCommand.java, execute and
 * formatAsJson): two lines, "Querying brokers for log directories information" and
 * "Received log directory information from brokers 1,2,3", then one line of JSON
 *
 *   {"brokers":[{"broker":1,"logDirs":[{"logDir":"/data/d1","error":null,"partitions":[
 *     {"partition":"orders-0","size":5242880,"offsetLag":0,"isFuture":false}]}]}],"version":1}
 *
 * with each broker's log directories, each with the class name of its error (null when
 * none) and the replicas in it: the partition as TopicPartition.toString prints it
 * (`topic-N`), the size of its local log in bytes, its offset lag, and whether it is the
 * future replica of a move between log directories (kafka-reassign-partitions.sh with log
 * dirs). Object keys come in any order (a HashMap). The lines before the JSON may be left
 * out, and the JSON may be reformatted (jq). Pure: text in, sizes by broker out, or one line
 * naming what is wrong.
 */
import { type ImportResult, excerpt, numberedLines, refusal, wrongFormat } from './common.js';

export interface LogDirReplica {
  topic: string;
  partition: number;
  size: number;
  offsetLag: number;
  isFuture: boolean;
}

export interface LogDir {
  logDir: string;
  /** The class name of the directory's error (e.g. org.apache.kafka.common.errors.KafkaStorageException), or null. */
  error: string | null;
  replicas: LogDirReplica[];
}

export interface DescribedLogDirs {
  brokers: Map<number, LogDir[]>;
  /** The line the JSON starts on (messages about its content name it). */
  jsonLine: number;
}

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

const isObj = (v: Json | undefined): v is { [k: string]: Json } => typeof v === 'object' && v !== null && !Array.isArray(v);

export function parseLogDirs(text: string, source: string): ImportResult<DescribedLogDirs> {
  const other = wrongFormat(source, text, 'log-dirs');
  if (other !== null) return other;
  const lines = numberedLines(text);
  let start = -1;
  for (const { n, text: raw } of lines) {
    const s = raw.trim();
    if (s === '' || /^Querying brokers for log directories information\s*$/.test(s) || /^Received log directory information from brokers [\d,]*\s*$/.test(s)) continue;
    if (!s.startsWith('{')) {
      return refusal(source, n, `expected the JSON that kafka-log-dirs.sh --describe prints (LogDirsCommand: {"brokers":[...],"version":1}), got ${excerpt(raw)}`);
    }
    start = n;
    break;
  }
  if (start < 0) return refusal(source, null, `no JSON: expected the output of kafka-log-dirs.sh --describe (LogDirsCommand), whose last line is {"brokers":[...],"version":1}`);
  const body = lines.slice(start - 1).map((l) => l.text).join('\n').trimEnd();
  let doc: Json;
  try {
    doc = JSON.parse(body) as Json;
  } catch (e) {
    // V8 names the position ("... in JSON at position 42"): turned into the file's line.
    const msg = (e as Error).message;
    const pos = /position (\d+)/.exec(msg);
    const line = pos === null ? start : start + body.slice(0, Number(pos[1])).split('\n').length - 1;
    const what = msg.replace(/\s*\(line \d+ column \d+\)/, '').replace(/ in JSON at position \d+/, '');
    return refusal(source, line, `not valid JSON (${what}): the JSON of kafka-log-dirs.sh --describe is cut or changed; paste its whole last line`);
  }
  const at = (path: string, what: string) => refusal(source, start, `${path}: ${what}`);
  if (!isObj(doc)) return at('the JSON', `expected an object {"brokers":[...],"version":1}`);
  if (doc.version !== 1) return at('version', `expected 1 (the only version LogDirsCommand prints), got ${excerpt(JSON.stringify(doc.version ?? null))}`);
  if (!Array.isArray(doc.brokers)) return at('brokers', `missing: expected a list of {"broker":ID,"logDirs":[...]}`);
  const brokers = new Map<number, LogDir[]>();
  for (const [bi, b] of doc.brokers.entries()) {
    const bp = `brokers[${bi}]`;
    if (!isObj(b)) return at(bp, `expected {"broker":ID,"logDirs":[...]}`);
    if (typeof b.broker !== 'number' || !Number.isInteger(b.broker) || b.broker < 0) return at(`${bp}.broker`, `expected a broker id, got ${excerpt(JSON.stringify(b.broker ?? null))}`);
    if (brokers.has(b.broker)) return at(`${bp}.broker`, `broker ${b.broker} is listed twice`);
    if (!Array.isArray(b.logDirs)) return at(`${bp}.logDirs`, `missing: expected a list of {"logDir":PATH,"error":...,"partitions":[...]}`);
    const dirs: LogDir[] = [];
    for (const [di, d] of b.logDirs.entries()) {
      const dp = `${bp}.logDirs[${di}]`;
      if (!isObj(d)) return at(dp, `expected {"logDir":PATH,"error":...,"partitions":[...]}`);
      if (typeof d.logDir !== 'string') return at(`${dp}.logDir`, `missing: expected the directory's path`);
      if (d.error !== null && d.error !== undefined && typeof d.error !== 'string') return at(`${dp}.error`, `expected null or an error's class name`);
      if (!Array.isArray(d.partitions)) return at(`${dp}.partitions`, `missing: expected a list of {"partition":"topic-N","size":BYTES,"offsetLag":N,"isFuture":false}`);
      const replicas: LogDirReplica[] = [];
      for (const [pi, r] of d.partitions.entries()) {
        const rp = `${dp}.partitions[${pi}]`;
        if (!isObj(r)) return at(rp, `expected {"partition":"topic-N","size":BYTES,"offsetLag":N,"isFuture":false}`);
        const tp = typeof r.partition === 'string' ? /^([A-Za-z0-9._-]+)-(\d{1,9})$/.exec(r.partition) : null;
        if (tp === null) return at(`${rp}.partition`, `expected "topic-N" (TopicPartition.toString), got ${excerpt(JSON.stringify(r.partition ?? null))}`);
        if (typeof r.size !== 'number' || !Number.isSafeInteger(r.size) || r.size < 0) return at(`${rp}.size`, `expected the bytes of ${r.partition as string}'s local log, got ${excerpt(JSON.stringify(r.size ?? null))}`);
        if (r.offsetLag !== undefined && (typeof r.offsetLag !== 'number' || !Number.isInteger(r.offsetLag))) return at(`${rp}.offsetLag`, `expected a number of offsets`);
        if (r.isFuture !== undefined && typeof r.isFuture !== 'boolean') return at(`${rp}.isFuture`, `expected true or false`);
        replicas.push({ topic: tp[1], partition: Number(tp[2]), size: r.size, offsetLag: typeof r.offsetLag === 'number' ? r.offsetLag : 0, isFuture: r.isFuture === true });
      }
      dirs.push({ logDir: d.logDir, error: typeof d.error === 'string' ? d.error : null, replicas });
    }
    brokers.set(b.broker, dirs);
  }
  return { ok: true, value: { brokers, jsonLine: start } };
}

/** Where a replica's current log (not a future one) is on a broker: its directory, or why it is not known. */
export function replicaSize(
  dirs: LogDir[] | undefined,
  topic: string,
  partition: number,
): { found: true; size: number; logDir: string; future: { logDir: string; size: number } | null; others: number } | { found: false; erroredDirs: string[] } {
  if (dirs === undefined) return { found: false, erroredDirs: [] };
  let current: { size: number; logDir: string } | null = null;
  let future: { logDir: string; size: number } | null = null;
  let others = 0;
  for (const d of dirs) {
    for (const r of d.replicas) {
      if (r.topic !== topic || r.partition !== partition) continue;
      if (r.isFuture) future = { logDir: d.logDir, size: r.size };
      else if (current === null) current = { size: r.size, logDir: d.logDir };
      else others++;
    }
  }
  if (current === null) return { found: false, erroredDirs: dirs.filter((d) => d.error !== null).map((d) => `${d.logDir} (${d.error})`) };
  return { found: true, ...current, future, others };
}
