/**
 * The work a scenario asks of a run, estimated from the file before anything runs, and the
 * limits it must stay within (docs/scenario-format.md, "Limits"). A valid file can still ask
 * for more than a run can hold: ten million records every millisecond for a year is a few
 * lines of YAML. What a run holds grows with the record batches in the logs and the segments;
 * its time with the kernel events, which also hold memory where the trace is kept (each
 * leaves about one trace entry: the page, `compare`, `report`, `run --store s3`); `run`
 * otherwise streams its trace. So
 * these are what is counted:
 *
 * - timeline events: every firing of the timeline, a repeated produce once per period;
 * - records: produced over the run (those of `initial` are counted as their batches);
 * - record batches: a produce is cut into batches of `producerBatchBytes`, held once (a
 *   follower appends the leader's batches); the local segments of `initial` likewise, while
 *   its remote-only segments are laid out by rule and hold none;
 * - segments: rolled by `segment.bytes` (or `internal.segment.bytes`) and `segment.ms`, and those of `initial`;
 * - kernel events: the timeline, the followers' fetch rounds (one per long poll,
 *   `replica.fetch.wait.max.ms` plus the round trip, while idle; more when data arrives),
 *   consumer fetches, remote log manager tasks, ISR checks, segment uploads and WAL writes.
 *
 * Each figure is an upper estimate of the model's main loops (the configs at their smallest
 * over the run, every follower fetching all the time), not an exact count; runs of the
 * bundled scenarios use a few percent of each. Retries after faults are not counted: the CLI's
 * --max-steps and the page's step cap stop a run that still goes on. A problem names the
 * part of the file that contributes most.
 */
import { BROKER_CONFIGS, CONSUMER_CONFIGS, INTERNAL_SEGMENT_BYTES, MODEL_KNOBS, TOPIC_CONFIGS } from '../domain/config.js';
import { keyPath, num } from './checks.js';
import type { Problems } from './checks.js';
import type { InputProblem, Scenario, TimelineAction } from './types.js';

export const WORK_LIMITS = {
  /** Firings of the timeline over the run (a repeated produce counts each time). */
  timelineEvents: 1_000_000,
  /** Records produced over the run. */
  records: 100_000_000,
  /** Record batches held (replicas share them; remote-only `initial` segments hold none). */
  batches: 2_000_000,
  /** Segments rolled over the run, with those of `initial`. */
  segments: 10_000,
  /** Kernel events of the run, its trace streamed (`run`): the CLI's default --max-steps. */
  events: 5_000_000,
} as const;

/**
 * Kernel events of a run that keeps its whole trace in memory (the page, for stepping back;
 * `compare` and `report`, which read it): about 500 bytes each held, so the limit keeps such
 * a run near 250 MB.
 */
export const KEPT_TRACE_EVENTS = 500_000;

export interface WorkOptions {
  /** The run keeps its whole trace (the page, compare, report): kernel events are limited to KEPT_TRACE_EVENTS. */
  traceKept?: boolean;
}

export type WorkDimension = keyof typeof WORK_LIMITS;

/** One part of the file and what it adds to a dimension. */
export interface WorkPart {
  path: string;
  amount: number;
  /** How the amount comes about, for the message (made only when it is shown). */
  why: () => string;
  /** Parts of one kind at one path add up (the partitions of a topic); other kinds stay apart. */
  kind?: string;
}

export interface WorkEstimate {
  /** The estimate of each dimension. */
  totals: Record<WorkDimension, number>;
  /** What makes up each dimension, largest first. */
  parts: Record<WorkDimension, WorkPart[]>;
  /** A follower's fetch round takes no simulated time: the run would never advance. */
  stalls: InputProblem[];
}

/** Kernel events per fetch round: the request, the leader's answer (or its long-poll expiry), the response. */
const EVENTS_PER_FETCH_ROUND = 3;
/** Kernel events of a consumer Fetch (request and response, or the remote read between). */
const EVENTS_PER_CONSUMER_FETCH = 3;
/** Kernel events of a remote log manager task run (the timer and the task step). */
const EVENTS_PER_RLM_RUN = 2;
/** Kernel events of one tiered segment: its copy (the step, four object PUTs, metadata) and its later delete. */
const EVENTS_PER_TIERED_SEGMENT = 12;
/**
 * Kernel events of one produce on a WAL topic, besides the fetches (the combiner's timer and
 * PUT, the metadata record, per follower a ranged GET and its append), counted twice: these
 * steps leave about two trace entries each, and the trace is most of what a run holds.
 */
const WAL_EVENTS_PER_PRODUCE = 8;
const WAL_EVENTS_PER_FOLLOWER = 8;
/** A consumer Fetch asks for max.partition.fetch.bytes of its partition by default (Kafka's ConsumerConfig). */
const CONSUMER_FETCH_BYTES = CONSUMER_CONFIGS['max.partition.fetch.bytes'].default;

type Values = Array<{ value: unknown; path: string }>;

/** Every value a config takes over the run, where it is set (the default first when the scenario does not set it). */
function brokerValues(s: Scenario, key: keyof typeof BROKER_CONFIGS): Values {
  const given = (s.config as Record<string, unknown>)[key];
  const out: Values = [{ value: given ?? BROKER_CONFIGS[key].default, path: given === undefined ? '' : keyPath('config', key) }];
  s.timeline.forEach((e, i) => {
    if (e.action.kind === 'setConfig' && e.action.topic === undefined && key in e.action.values) {
      out.push({ value: e.action.values[key], path: keyPath(`timeline[${i}].setConfig`, key) });
    }
  });
  return out;
}

/** As brokerValues, for a topic; an internal config (no default) has only the values given. */
function topicValues(s: Scenario, t: number, key: keyof typeof TOPIC_CONFIGS | typeof INTERNAL_SEGMENT_BYTES): Values {
  const topic = s.topics[t];
  const given = (topic.config as Record<string, unknown>)[key];
  const fallback = key === INTERNAL_SEGMENT_BYTES ? undefined : TOPIC_CONFIGS[key].default;
  const out: Values = given === undefined && fallback === undefined ? [] : [{ value: given ?? fallback, path: given === undefined ? '' : keyPath(`topics[${t}].config`, key) }];
  s.timeline.forEach((e, i) => {
    const a = e.action;
    if (a.kind === 'setConfig' && (a.topic === undefined || a.topic === topic.name) && key in a.values) {
      out.push({ value: a.values[key], path: keyPath(`timeline[${i}].setConfig`, key) });
    }
  });
  return out;
}

/** The smallest integer value and where it is set ('' for the default). */
function smallest(values: Values): { value: number; path: string } {
  let best = { value: Number.POSITIVE_INFINITY, path: '' };
  for (const v of values) if (typeof v.value === 'number' && v.value < best.value) best = { value: v.value, path: v.path };
  return best;
}

function modelInt(s: Scenario, key: 'recordBytes' | 'producerBatchBytes' | 'sameZoneLatencyMs' | 'crossZoneLatencyMs'): number {
  const spec = MODEL_KNOBS[key];
  const v = s.model[key];
  return typeof v === 'number' ? v : (spec.default as number);
}

/** How many times a timeline entry fires: a repeated produce once at `at`, then every `everyMs` while not past its end. */
export function firings(at: number, action: TimelineAction, until: number): number {
  if (action.kind !== 'produce' || action.everyMs === undefined) return 1;
  const end = Math.min(action.untilMs ?? until, until);
  return end < at ? 1 : 1 + Math.floor((end - at) / action.everyMs);
}

interface PartitionWork {
  topic: number;
  followers: number;
  /** Followers that copy the `initial` log: those of the file unless followersInSync, and every added replica. */
  copying: number;
  /** Produce firings, batches and bytes appended to it. */
  firings: number;
  batches: number;
  bytes: number;
  initialSegments: number;
}

/**
 * The work of `s`, with `extra` actions (what the page records) each counted once, as if
 * applied at the start.
 */
export function estimateWork(s: Scenario, extra: readonly TimelineAction[] = []): WorkEstimate {
  const parts: Record<WorkDimension, WorkPart[]> = { timelineEvents: [], records: [], batches: [], segments: [], events: [] };
  const U = s.until;
  const recordBytes = modelInt(s, 'recordBytes');
  const perBatch = Math.max(1, Math.floor(modelInt(s, 'producerBatchBytes') / recordBytes));
  const batchBytes = perBatch * recordBytes;
  // A follower Fetch reads min(replica.fetch.max.bytes, replica.fetch.response.max.bytes,
  // the broker's fetch.max.bytes), at least one batch, from one segment (docs/protocol.md §3).
  const brokerFetchMax = smallest(brokerValues(s, 'fetch.max.bytes')).value;
  const fetchMax = Math.min(smallest(brokerValues(s, 'replica.fetch.max.bytes')).value, smallest(brokerValues(s, 'replica.fetch.response.max.bytes')).value, brokerFetchMax);
  const batchesPerFetch = Math.max(1, Math.floor(fetchMax / batchBytes));
  const batchesOf = (records: number): number => Math.ceil(records / perBatch);

  const partitions = new Map<string, PartitionWork>();
  s.topics.forEach((t, i) => {
    for (let p = 0; p < t.partitions; p++) {
      const replicas = t.replicas[p]?.length ?? 1;
      const inSync = t.initial.some((st) => st.partition === p && st.followersInSync === true);
      partitions.set(`${t.name}-${p}`, { topic: i, followers: replicas - 1, copying: inSync ? 0 : replicas - 1, firings: 0, batches: 0, bytes: 0, initialSegments: 0 });
    }
  });
  const entries = [
    ...s.timeline.map((e, i) => ({ at: e.at, action: e.action, path: `timeline[${i}]` })),
    ...extra.map((action, i) => ({ at: 0, action, path: `actions[${i}]` })),
  ];
  for (const e of entries) {
    if (e.action.kind !== 'addReplica') continue;
    const w = partitions.get(`${e.action.topic}-${e.action.partition}`);
    if (w) {
      w.followers++;
      w.copying++;
    }
  }
  const walTopic = s.topics.map((_, t) => topicValues(s, t, 'wal.enable').some((v) => v.value === true));
  const tieredTopic = s.topics.map((_, t) => topicValues(s, t, 'remote.storage.enable').some((v) => v.value === true));

  // The timeline: its firings, the records and batches it produces, the fetch rounds that carry them.
  for (const e of entries) {
    const a = e.action;
    const n = firings(e.at, a, U);
    parts.timelineEvents.push({
      path: n > 1 ? `${e.path}.produce.everyMs` : e.path,
      amount: n,
      why: () => (n > 1 ? `${e.path} from ${num(e.at)} ms every ${a.kind === 'produce' ? num(a.everyMs ?? 0) : ''} ms until ${num(a.kind === 'produce' ? Math.min(a.untilMs ?? U, U) : U)} ms` : e.path),
    });
    if (a.kind === 'produce') {
      const w = partitions.get(`${a.topic}-${a.partition}`);
      if (!w) continue;
      const times = n > 1 ? ` x ${num(n)} times` : '';
      const batches = batchesOf(a.records);
      parts.records.push({ path: `${e.path}.produce.records`, amount: n * a.records, why: () => `${e.path}: ${num(a.records)} records${times}` });
      parts.batches.push({
        path: `${e.path}.produce.records`,
        amount: n * batches,
        why: () => `${e.path}: ${num(batches)} batch${batches === 1 ? '' : 'es'} of up to ${num(perBatch)} records${times}`,
      });
      w.firings += n;
      w.batches += n * batches;
      w.bytes += n * a.records * recordBytes;
      const rounds = n * w.followers * Math.ceil(batches / batchesPerFetch);
      const wal = walTopic[w.topic] ? n * (WAL_EVENTS_PER_PRODUCE + WAL_EVENTS_PER_FOLLOWER * w.followers) : 0;
      parts.events.push({
        path: n > 1 ? `${e.path}.produce.everyMs` : `${e.path}.produce.records`,
        amount: n + rounds * EVENTS_PER_FETCH_ROUND + wal,
        why: () => `${e.path}: ${num(n)} produce${n === 1 ? '' : 's'}, ${num(rounds)} follower fetch rounds to copy them${wal > 0 ? `, ${num(wal)} WAL events` : ''}`,
      });
    } else if (a.kind === 'consume') {
      const consumerMax = Math.min(a.config?.['max.partition.fetch.bytes'] ?? CONSUMER_FETCH_BYTES, a.config?.['fetch.max.bytes'] ?? Number.POSITIVE_INFINITY, brokerFetchMax);
      const fetches = Math.ceil(batchesOf(a.records) / Math.max(1, Math.floor(consumerMax / batchBytes))) + 1;
      parts.events.push({ path: `${e.path}.consume.records`, amount: 1 + fetches * EVENTS_PER_CONSUMER_FETCH, why: () => `${e.path}: ${num(fetches)} consumer fetches` });
    } else {
      parts.events.push({ path: e.path, amount: 1, why: () => e.path });
    }
  }

  // The initial logs: the batches of their local segments (remote-only segments are laid out
  // by rule and hold none), the rounds that copy them to the followers that start empty.
  s.topics.forEach((t, ti) => {
    t.initial.forEach((st, j) => {
      const w = partitions.get(`${t.name}-${st.partition}`);
      if (!w) return;
      // A batch never spans two leader epochs: each epoch start may cut one more.
      let local = 0;
      let localSegments = 0;
      for (const g of st.segments) {
        if (g.tier === 'remote') continue;
        local += batchesOf(g.endOffset - g.baseOffset + 1);
        localSegments++;
      }
      if (local > 0) local += st.leaderEpochs.length;
      w.initialSegments += st.segments.length;
      const path = `topics[${ti}].initial[${j}].segments`;
      parts.batches.push({ path, amount: local, why: () => `${path}: ${num(local)} batches of up to ${num(perBatch)} records in the local segments` });
      // A Fetch reads one segment at most: one more round per segment at worst.
      const rounds = w.copying * (Math.ceil(local / batchesPerFetch) + localSegments);
      parts.events.push({ path, amount: rounds * EVENTS_PER_FETCH_ROUND, why: () => `${path}: ${num(rounds)} follower fetch rounds to copy the local segments` });
    });
  });

  // Over time: idle fetch rounds, ISR checks, remote log manager tasks, segments.
  const stalls: InputProblem[] = [];
  // replica.fetch.min.bytes of 0 or less: the leader holds no Fetch (docs/protocol.md §3).
  const minBytes = smallest(brokerValues(s, 'replica.fetch.min.bytes'));
  const maxWait = smallest(brokerValues(s, 'replica.fetch.wait.max.ms'));
  const wait = minBytes.value <= 0 ? { value: 0, path: minBytes.path } : maxWait;
  const latency = linkLatency(s, s.brokers + entries.filter((e) => e.action.kind === 'addBroker').length);
  const followers = [...partitions.values()].reduce((n, w) => n + w.followers, 0);
  const round = wait.value + 2 * latency.value;
  if (followers > 0 && round === 0) {
    const why = minBytes.value <= 0 ? `replica.fetch.min.bytes is ${minBytes.value} (the leader answers a Fetch at once, even with nothing to read)` : 'replica.fetch.wait.max.ms is 0';
    stalls.push({
      path: wait.path || latency.path || 'until',
      message: `${why} and ${latency.what} is 0 ms, so a follower's fetch round takes no simulated time and the run never advances past that moment; give ${minBytes.value <= 0 ? 'replica.fetch.min.bytes at least 1 or the latency at least 1 ms' : 'one of them at least 1 ms'}`,
    });
  }
  if (followers > 0 && round > 0) {
    const rounds = followers * Math.ceil(U / round);
    parts.events.push({
      path: 'until',
      kind: 'idle',
      amount: rounds * EVENTS_PER_FETCH_ROUND,
      why: () => `${num(followers)} follower${followers === 1 ? '' : 's'} fetching in rounds of ${round} ms (${minBytes.value <= 0 ? `no wait: replica.fetch.min.bytes ${minBytes.value}` : `replica.fetch.wait.max.ms ${wait.value}`} + 2 x ${latency.value} ms latency) for ${num(U)} ms: ${num(rounds)} rounds`,
    });
  }
  const lag = smallest(brokerValues(s, 'replica.lag.time.max.ms'));
  const isrPeriod = Math.max(1, Math.floor(lag.value / 2));
  const interval = smallest(brokerValues(s, 'remote.log.manager.task.interval.ms'));
  let tieredReplicas = 0;
  for (const w of partitions.values()) if (tieredTopic[w.topic]) tieredReplicas += w.followers + 1;
  const isrChecks = partitions.size * Math.ceil(U / isrPeriod);
  parts.events.push({ path: lag.path || 'until', kind: 'isr', amount: isrChecks, why: () => `${num(partitions.size)} partition leader${partitions.size === 1 ? '' : 's'} checking the ISR every ${num(isrPeriod)} ms (replica.lag.time.max.ms / 2) for ${num(U)} ms` });
  if (tieredReplicas > 0) {
    const runs = tieredReplicas * (1 + Math.ceil(U / interval.value));
    parts.events.push({
      path: interval.path || 'until',
      kind: 'rlm',
      amount: runs * EVENTS_PER_RLM_RUN,
      why: () => `${num(tieredReplicas)} tiered replica${tieredReplicas === 1 ? '' : 's'} running the remote log manager task every ${num(interval.value)} ms for ${num(U)} ms: ${num(runs)} runs`,
    });
  }
  for (const w of partitions.values()) {
    const t = w.topic;
    // The smallest segment size the run may roll at: internal.segment.bytes, where given, takes
    // segment.bytes' place (LogConfig.segmentSize()); counting both errs on more segments.
    const internal = topicValues(s, t, INTERNAL_SEGMENT_BYTES);
    const segBytes = smallest([...topicValues(s, t, 'segment.bytes'), ...internal]);
    const segKey = internal.some((v) => v.path === segBytes.path) ? INTERNAL_SEGMENT_BYTES : 'segment.bytes';
    const segMs = smallest(topicValues(s, t, 'segment.ms'));
    const rolled = Math.min(w.batches, Math.ceil(w.bytes / segBytes.value) + Math.min(w.firings, Math.ceil(U / segMs.value)));
    if (rolled + w.initialSegments === 0) continue;
    const path = segBytes.path || segMs.path || `topics[${t}]`;
    const name = s.topics[t].name;
    parts.segments.push({ path, amount: rolled + w.initialSegments, why: () => `topic ${name}: ${num(rolled)} segments rolled (${segKey} ${num(segBytes.value)}, segment.ms ${num(segMs.value)})${w.initialSegments > 0 ? ` and ${num(w.initialSegments)} initial` : ''} on a partition` });
    const each = tieredTopic[t] ? EVENTS_PER_TIERED_SEGMENT : 1;
    parts.events.push({ path, amount: rolled * each, why: () => `topic ${name}: ${num(rolled)} segments rolled on a partition${tieredTopic[t] ? ', each uploaded and deleted' : ''}` });
  }

  const totals = {} as Record<WorkDimension, number>;
  for (const d of Object.keys(parts) as WorkDimension[]) {
    parts[d] = merge(parts[d]).sort((x, y) => y.amount - x.amount);
    totals[d] = parts[d].reduce((n, x) => n + x.amount, 0);
  }
  return { totals, parts, stalls };
}

/** Parts at the same path add up (the segments of the partitions of one topic, say). */
function merge(list: WorkPart[]): WorkPart[] {
  const byPath = new Map<string, { part: WorkPart; count: number }>();
  for (const x of list) {
    if (x.amount === 0) continue;
    const key = `${x.path}|${x.kind ?? ''}`;
    const have = byPath.get(key);
    if (have === undefined) byPath.set(key, { part: { ...x }, count: 1 });
    else {
      have.part.amount += x.amount;
      have.count++;
    }
  }
  return [...byPath.values()].map(({ part, count }) => (count === 1 ? part : { ...part, why: () => `${part.why()} (and ${count - 1} more like it)` }));
}

/**
 * The smallest one-way latency between two of the `brokers` brokers of the scenario (those
 * addBroker adds included; 0 when there is one broker).
 */
function linkLatency(s: Scenario, brokers: number): { value: number; path: string; what: string } {
  const zones = s.zones.length;
  const same = { value: modelInt(s, 'sameZoneLatencyMs'), path: s.model.sameZoneLatencyMs === undefined ? '' : 'model.sameZoneLatencyMs', what: 'model.sameZoneLatencyMs' };
  const cross = { value: modelInt(s, 'crossZoneLatencyMs'), path: s.model.crossZoneLatencyMs === undefined ? '' : 'model.crossZoneLatencyMs', what: 'model.crossZoneLatencyMs' };
  const links = [...(brokers > zones ? [same] : []), ...(zones > 1 && brokers > 1 ? [cross] : [])];
  if (links.length === 0) return { ...same, value: 0 };
  return links.reduce((a, b) => (b.value < a.value ? b : a));
}

const UNIT: Record<WorkDimension, string> = {
  timelineEvents: 'timeline events',
  records: 'records',
  batches: 'batches',
  segments: 'segments',
  events: 'events',
};

const WHAT: Record<WorkDimension, string> = {
  timelineEvents: 'timeline events (a repeated produce counts each time)',
  records: 'records produced over the run',
  batches: 'record batches held',
  segments: 'segments (rolled over the run, and those of initial)',
  events: 'kernel events',
};

/**
 * The problems of `s` against the work limits, with `extra` recorded actions counted once
 * each; an empty list when it fits.
 */
export function workProblems(s: Scenario, extra: readonly TimelineAction[] = [], options: WorkOptions = {}): InputProblem[] {
  const w = estimateWork(s, extra);
  const out: InputProblem[] = [...w.stalls];
  for (const d of Object.keys(WORK_LIMITS) as WorkDimension[]) {
    const total = w.totals[d];
    const kept = d === 'events' && options.traceKept === true;
    const limit = kept ? KEPT_TRACE_EVENTS : WORK_LIMITS[d];
    if (total <= limit) continue;
    const top = w.parts[d];
    const most = top.slice(0, 3).map((x) => `${x.why()} (${num(x.amount)} ${UNIT[d]})`).join('; ');
    out.push({
      path: top[0]?.path ?? '',
      message: `the run would take about ${num(total)} ${WHAT[d]}, more than the limit of ${num(limit)}${kept ? ` for a run that keeps its whole trace (${num(WORK_LIMITS.events)} with the trace streamed, as \`run\` does)` : ''} (docs/scenario-format.md, Limits). The most: ${most}`,
    });
  }
  return out;
}

/** Adds the work problems of a scenario that is otherwise valid. */
export function checkWork(p: Problems, s: Scenario, options: WorkOptions = {}): void {
  for (const x of workProblems(s, [], options)) p.add(x.path, x.message);
}
