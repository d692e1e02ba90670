/**
 * The `timeline` of a scenario and its actions, and the one check of an action against a
 * scenario. A scenario file's events and the actions the page records (and carries in its
 * URL) are read by the same rules here, so a new action kind or a new rule is written once.
 */
import {
  MAX_BROKERS,
  MAX_PARTITIONS,
  MAX_RECORDS_PER_EVENT,
  MAX_TIMELINE_ENTRIES,
  MAX_UNTIL_MS,
  Problems,
  boolC,
  checkKeys,
  describe,
  expectArray,
  expectMap,
  hasOwn,
  indexPath,
  intC,
  timeC,
  isRawMap,
  keyPath,
  list,
  missing,
  oneOfC,
  stringC,
  opt,
  q,
  req,
  truncate,
} from './checks.js';
import type { Checker, IntRange, RawMap } from './checks.js';
import { validateConfigEntries, validateConsumerConfig } from './configs.js';
import { brokerRange, partitionRange } from './topics.js';
import type { TopicInfo } from './topics.js';
import type { Acks, InputProblem, Scenario, TimelineAction, TimelineEvent } from './types.js';

type ActionKind = TimelineAction['kind'];

/**
 * The fields of each action kind, in a scenario file. Typed as a record of every kind, so a
 * kind added to TimelineAction without an entry here does not compile.
 */
const ACTION_FIELDS: Record<ActionKind, readonly string[]> = {
  addReplica: ['topic', 'partition', 'broker'],
  produce: ['topic', 'partition', 'records', 'acks', 'everyMs', 'untilMs', 'zone'],
  consume: ['topic', 'partition', 'broker', 'fromOffset', 'records', 'config', 'zone'],
  crash: ['broker'],
  restart: ['broker'],
  electLeader: ['topic', 'partition', 'broker'],
  setConfig: [],
  objectStore: ['available', 'store', 'extraLatencyMs'],
  isolate: ['broker'],
  heal: ['broker'],
  addBroker: ['broker'],
};

/** Every action kind, in the order messages list them. */
const ACTION_KEYS = Object.keys(ACTION_FIELDS) as ActionKind[];

/**
 * What an action is checked against: the brokers and the topics of its scenario, and the
 * brokers that addBroker events (or recorded actions) before it added to the cluster.
 */
export interface ActionContext {
  /** The scenario's `brokers`. Undefined when the scenario's broker count is itself invalid. */
  brokers: number | undefined;
  topics: ReadonlyMap<string, TopicInfo>;
  /** The scenario's zones (a consume's `zone` names one); absent: not checked here. */
  zones?: readonly string[];
  /** Brokers added before this action (ids `brokers`, `brokers + 1`, ...); absent: none. */
  addedBrokers?: number;
  /**
   * Where the addBroker events after this one are, in order (a scenario file's timeline
   * only): a broker id they add is named in the message of an event that uses it too early.
   */
  laterBrokers?: readonly string[];
}

/**
 * The context of the actions recorded on a validated scenario (the page's): the cluster as
 * the scenario leaves it, its addBroker events included, so that an action may name any
 * broker the scenario adds (one that is not there yet when the action applies is told as
 * ignored, core/sim/world/controller.ts) and a new broker takes the id after theirs.
 */
export function actionContext(s: Scenario): ActionContext {
  const added = s.timeline.filter((e) => e.action.kind === 'addBroker').length;
  return {
    brokers: s.brokers,
    topics: new Map(s.topics.map((t) => [t.name, { partitions: t.partitions }])),
    zones: s.zones,
    ...(added > 0 ? { addedBrokers: added } : {}),
  };
}

/** The context of the action after `action`: an addBroker adds a broker to the cluster. */
export function contextAfter(ctx: ActionContext, action: TimelineAction): ActionContext {
  return action.kind === 'addBroker' ? { ...ctx, addedBrokers: (ctx.addedBrokers ?? 0) + 1 } : ctx;
}

/**
 * A broker id of the cluster at this point: 0 .. brokers - 1, and those addBroker added. An
 * id that an addBroker adds later (or could add) gets a message that says so.
 */
function brokerIdC(ctx: ActionContext): Checker<number> {
  const added = ctx.addedBrokers ?? 0;
  const range: IntRange = ctx.brokers === undefined || added === 0
    ? brokerRange(ctx.brokers)
    : { min: 0, max: ctx.brokers + added - 1, note: `(a broker id; brokers: ${ctx.brokers}, and ${added} added by addBroker)` };
  const c = intC(range);
  return {
    expect: c.expect,
    check(p, v, path) {
      if (ctx.brokers === undefined || typeof v !== 'number' || !Number.isInteger(v) || v <= (range.max as number) || v >= MAX_BROKERS) return c.check(p, v, path);
      const next = (range.max as number) + 1;
      const later = ctx.laterBrokers?.[v - next];
      p.add(path, later !== undefined
        ? `expected ${c.expect}, got ${v}: broker ${v} joins the cluster only at ${later} (addBroker), after this event`
        : v === next
          ? `expected ${c.expect}, got ${v}: no broker ${v} is in the cluster at this point (an addBroker before this adds it: ${v} is the next id)`
          : `expected ${c.expect}, got ${v}: no broker ${v} is in the cluster at this point (addBroker adds brokers in id order, the next being ${next})`);
      return undefined;
    },
  };
}

/** Reads `topic` (must name a topic) and `partition` (in range) of an action. */
function topicPartition(
  p: Problems,
  body: RawMap,
  base: string,
  ctx: ActionContext,
): { topic?: string; partition?: number } {
  const topic = req(p, body, 'topic', base, {
    expect: 'the name of a topic in topics',
    check(pp, v, path) {
      if (typeof v !== 'string') {
        pp.add(path, `expected the name of a topic in topics, got ${describe(v)}`);
        return undefined;
      }
      if (!ctx.topics.has(v)) {
        const known = [...ctx.topics.keys()];
        pp.add(path, known.length > 0
          ? `unknown topic ${q(v)}; expected one of ${list(known.map((k) => truncate(k)))}`
          : `unknown topic ${q(v)}; expected the name of a topic in topics`);
        return undefined;
      }
      return v;
    },
  });
  const info = topic !== undefined ? ctx.topics.get(topic) : undefined;
  const partition = req(p, body, 'partition', base, intC(info ? partitionRange(topic as string, info.partitions) : { min: 0, max: MAX_PARTITIONS - 1 }));
  return { topic, partition };
}

const recordsC = intC({ min: 1, max: MAX_RECORDS_PER_EVENT });

const acksC: Checker<Acks> = {
  expect: "0, 1, 'all' or -1 (the same as 'all')",
  check(p, v, path) {
    if (v === 0 || v === 1 || v === 'all') return v;
    if (v === -1) return 'all';
    p.add(path, `expected 0, 1, 'all' or -1 (the same as 'all'), got ${describe(v)}`);
    return undefined;
  },
};

/** Validates one action body of a scenario file; returns the action, or undefined after a problem. */
function validateAction(p: Problems, kind: ActionKind, v: unknown, path: string, ctx: ActionContext): TimelineAction | undefined {
  if (kind === 'setConfig') {
    const body = expectMap(p, v, path, 'a map of config keys to values (and optionally topic: NAME)');
    // In a scenario file the configs to set are the body itself, beside the optional topic.
    return body && setConfigAction(p, body, path, body, path, ['topic'], ctx);
  }
  const body = expectMap(p, v, path, `a map {${list(ACTION_FIELDS[kind])}}`);
  if (!body) return undefined;
  return fieldsAction(p, kind, body, path, ctx);
}

/** A client's own zone (a produce's or a consume's `zone`: a client in another zone than the leader's pays cross-zone transfer). */
function clientZone(p: Problems, body: RawMap, path: string, ctx: ActionContext): string | undefined {
  return opt(p, body, 'zone', path, ctx.zones === undefined ? stringC({ nonEmpty: true }) : oneOfC(ctx.zones));
}

/** An action of any kind but setConfig, from its fields; undefined after a problem. */
function fieldsAction(
  p: Problems,
  kind: Exclude<ActionKind, 'setConfig'>,
  body: RawMap,
  path: string,
  ctx: ActionContext,
): TimelineAction | undefined {
  const before = p.count;
  checkKeys(p, body, path, ACTION_FIELDS[kind], ` in ${kind}`);
  const brokerC = brokerIdC(ctx);
  let action: TimelineAction | undefined;
  switch (kind) {
    case 'addReplica':
    case 'electLeader': {
      const { topic, partition } = topicPartition(p, body, path, ctx);
      const broker = req(p, body, 'broker', path, brokerC);
      if (topic !== undefined && partition !== undefined && broker !== undefined) action = { kind, topic, partition, broker };
      break;
    }
    case 'produce': {
      const { topic, partition } = topicPartition(p, body, path, ctx);
      const records = req(p, body, 'records', path, recordsC);
      const acks = opt(p, body, 'acks', path, acksC) ?? 1;
      const everyMs = opt(p, body, 'everyMs', path, intC({ min: 1, max: MAX_UNTIL_MS }));
      const untilMs = opt(p, body, 'untilMs', path, intC({ min: 0, max: MAX_UNTIL_MS }));
      if (untilMs !== undefined && everyMs === undefined) p.add(`${path}.untilMs`, 'untilMs needs everyMs (it ends a repeated produce)');
      const zone = clientZone(p, body, path, ctx);
      if (topic !== undefined && partition !== undefined && records !== undefined) {
        action = { kind, topic, partition, records, acks };
        if (everyMs !== undefined) {
          action.everyMs = everyMs;
          if (untilMs !== undefined) action.untilMs = untilMs;
        }
        if (zone !== undefined) action.zone = zone;
      }
      break;
    }
    case 'consume': {
      const { topic, partition } = topicPartition(p, body, path, ctx);
      const broker = opt(p, body, 'broker', path, brokerC);
      const fromOffset = req(p, body, 'fromOffset', path, intC({ min: 0 }));
      const records = req(p, body, 'records', path, recordsC);
      // null, as for any optional key, counts as not given.
      const config = hasOwn(body, 'config') && body.config !== null ? validateConsumerConfig(p, body.config, `${path}.config`) : undefined;
      const zone = clientZone(p, body, path, ctx);
      if (topic !== undefined && partition !== undefined && fromOffset !== undefined && records !== undefined) {
        action = broker === undefined
          ? { kind, topic, partition, fromOffset, records }
          : { kind, topic, partition, broker, fromOffset, records };
        if (config !== undefined && Object.keys(config).length > 0) action.config = config;
        if (zone !== undefined) action.zone = zone;
      }
      break;
    }
    case 'crash':
    case 'restart':
    case 'isolate':
    case 'heal': {
      const broker = req(p, body, 'broker', path, brokerC);
      if (broker !== undefined) action = { kind, broker };
      break;
    }
    case 'addBroker': {
      // A new broker takes the next id (KRaft: a broker registers with its own node.id; the
      // model numbers brokers 0, 1, 2, ... so that an id says where the broker stands).
      if (ctx.brokers === undefined) break;
      const next = ctx.brokers + (ctx.addedBrokers ?? 0);
      if (next >= MAX_BROKERS) {
        p.add(path, `the cluster would have ${next + 1} brokers, more than the limit of ${MAX_BROKERS} (docs/scenario-format.md, Limits)`);
        break;
      }
      const broker = opt(p, body, 'broker', path, intC({ min: next, max: next, note: `(the next broker id: brokers 0 .. ${next - 1} are in the cluster here)` })) ?? next;
      action = { kind, broker };
      break;
    }
    case 'objectStore': {
      const available = req(p, body, 'available', path, boolC);
      const store = opt(p, body, 'store', path, oneOfC(['tiered', 'wal'] as const));
      const extraLatencyMs = opt(p, body, 'extraLatencyMs', path, intC({ min: 0, max: 600000 }));
      if (available !== undefined) {
        action = store === undefined ? { kind, available } : { kind, available, store };
        if (extraLatencyMs !== undefined) action.extraLatencyMs = extraLatencyMs;
      }
      break;
    }
    default: {
      // A kind added to TimelineAction needs its checks above; until then this does not compile.
      const unchecked: never = kind;
      throw new Error(`internal: no checks for the action kind ${String(unchecked)}`);
    }
  }
  return p.count === before ? action : undefined;
}

/**
 * A setConfig action: the optional `topic` of `holder` (at `path`) and the configs of
 * `configs` (at `configsPath`, all keys but `skip`). Undefined after a problem.
 */
function setConfigAction(
  p: Problems,
  holder: RawMap,
  path: string,
  configs: RawMap,
  configsPath: string,
  skip: readonly string[],
  ctx: ActionContext,
): TimelineAction | undefined {
  const before = p.count;
  let topic: string | undefined;
  if (hasOwn(holder, 'topic')) {
    topic = req(p, holder, 'topic', path, {
      expect: 'the name of a topic in topics',
      check(pp, val, tp) {
        if (typeof val === 'string' && ctx.topics.has(val)) return val;
        const known = [...ctx.topics.keys()];
        pp.add(tp, typeof val === 'string'
          ? `unknown topic ${q(val)}; expected one of ${list(known.map((k) => truncate(k)))}`
          : `expected the name of a topic in topics, got ${describe(val)}`);
        return undefined;
      },
    });
  }
  const values = validateConfigEntries(p, configs, configsPath, hasOwn(holder, 'topic') ? 'oneTopic' : 'any', skip);
  if (Object.keys(configs).filter((k) => !skip.includes(k)).length === 0) {
    p.add(configsPath, 'expected at least one config key to set, got none');
  }
  if (p.count !== before) return undefined;
  return topic === undefined ? { kind: 'setConfig', values } : { kind: 'setConfig', topic, values };
}

export function validateTimeline(p: Problems, v: unknown, until: number | undefined, ctx: ActionContext): TimelineEvent[] {
  const out: TimelineEvent[] = [];
  const arr = expectArray(p, v, 'timeline', 'an array of events {at, <action>}', false, MAX_TIMELINE_ENTRIES);
  if (!arr) return out;
  const atRange: IntRange = until !== undefined
    ? { min: 0, max: until, note: `(ms; until: ${until})` }
    : { min: 0, max: MAX_UNTIL_MS, note: '(ms)' };
  const allowed = ['at', ...ACTION_KEYS];
  // Every addBroker event adds a broker for the events after it (a bad one too, so that one
  // mistake does not make every later use of its broker a problem).
  const addsBroker = (entry: unknown) => isRawMap(entry) && hasOwn(entry, 'addBroker');
  const brokerEvents = arr.flatMap((entry, k) => (addsBroker(entry) ? [indexPath('timeline', k)] : []));
  let added = 0;
  let prevAt: number | undefined;
  let prevIndex = -1;
  arr.forEach((entry, k) => {
    const ep = indexPath('timeline', k);
    const here: ActionContext = brokerEvents.length === 0 ? ctx : { ...ctx, addedBrokers: added, laterBrokers: brokerEvents.slice(added + (addsBroker(entry) ? 1 : 0)) };
    if (addsBroker(entry)) added++;
    const ev = expectMap(p, entry, ep, `an event {at, <one of ${list(ACTION_KEYS)}>}`);
    if (!ev) return;
    checkKeys(p, ev, ep, allowed, ' in a timeline event');
    let at = req(p, ev, 'at', ep, timeC(atRange));
    if (at !== undefined && prevAt !== undefined && at < prevAt) {
      p.add(keyPath(ep, 'at'), `expected a time >= ${prevAt} (events in time order; timeline[${prevIndex}].at is ${prevAt}), got ${at}`);
      prevAt = at;
      prevIndex = k;
      at = undefined;
    } else if (at !== undefined) {
      prevAt = at;
      prevIndex = k;
    }
    const kinds = ACTION_KEYS.filter((key) => hasOwn(ev, key));
    if (kinds.length === 0) {
      p.add(ep, `expected exactly one action key (one of ${list(ACTION_KEYS)}), got none`);
      return;
    }
    if (kinds.length > 1) {
      p.add(ep, `expected exactly one action key (one of ${list(ACTION_KEYS)}), got ${kinds.length}: ${list(kinds)}`);
    }
    const actions = kinds.map((kind) => validateAction(p, kind, ev[kind], keyPath(ep, kind), here));
    if (at !== undefined && kinds.length === 1 && actions[0] !== undefined) out.push({ at, action: actions[0] });
  });
  return out;
}

export type ActionResult = { ok: true; action: TimelineAction } | { ok: false; problems: InputProblem[] };

/**
 * Reads one action in the form the page records it and its URL carries it, `{kind, ...}`
 * with a setConfig's configs under `values`, checked against a scenario by the timeline's
 * rules and messages; problems' paths start at `path`. The action returned is a fresh
 * object with only known keys (and the defaults a scenario file gets), as the timeline's.
 * Never throws.
 */
export function readTimelineAction(ctx: ActionContext, value: unknown, path: string): ActionResult {
  const p = new Problems();
  const action = recordedAction(p, ctx, value, path);
  return action !== undefined && p.count === 0 ? { ok: true, action } : { ok: false, problems: p.items };
}

function recordedAction(p: Problems, ctx: ActionContext, value: unknown, path: string): TimelineAction | undefined {
  const a = expectMap(p, value, path, `an action {kind, ...} (kind: one of ${list(ACTION_KEYS)})`);
  if (!a) return undefined;
  const kind = req(p, a, 'kind', path, oneOfC(ACTION_KEYS));
  if (kind === undefined) return undefined;
  const { kind: _kind, ...fields } = a;
  if (kind !== 'setConfig') return fieldsAction(p, kind, fields, path, ctx);
  checkKeys(p, fields, path, ['topic', 'values'], ' in setConfig');
  if (missing(p, fields, 'values', path, 'a map of config keys to values')) return undefined;
  const valuesPath = keyPath(path, 'values');
  const values = expectMap(p, fields.values, valuesPath, 'a map of config keys to values');
  return values && setConfigAction(p, fields, path, values, valuesPath, [], ctx);
}
