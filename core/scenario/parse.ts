/**
 * Reading and validating a scenario file (docs/scenario-format.md).
 *
 * `parseScenarioText` reads YAML or JSON (JSON is YAML) with safe options; then
 * `validateScenario` checks the plain value and applies the defaults, and a scenario that
 * is otherwise valid is checked against the work budget (budget.ts). Every problem is
 * reported, each with the path of the offending value and what was expected (the first
 * MAX_PROBLEMS, then one entry counting the rest); neither function throws. The limits are
 * listed in docs/scenario-format.md, "Limits". Validation only descends into known
 * shapes, and outputs are built from fresh objects holding only known keys, so hostile keys
 * (`__proto__`, ...) are reported as unknown and never copied.
 *
 * The parts live beside this file: checks.ts (limits, problems, checkers), yaml.ts (the
 * text), configs.ts, topics.ts and timeline.ts (the timeline, and the check of one action
 * that the page also uses), budget.ts (the work a run would take). This file checks the
 * top level and ties them together.
 */
import type { ConfigValue } from '../domain/config.js';
import {
  MAX_BROKERS,
  MAX_DESCRIPTION_CHARS,
  MAX_NAME_CHARS,
  MAX_SCENARIO_CHARS,
  MAX_SEED,
  MAX_UNTIL_MS,
  MAX_ZONE_CHARS,
  MAX_ZONES,
  Problems,
  capProblems,
  checkKeys,
  describe,
  expectArray,
  expectMap,
  given,
  hasOwn,
  indexPath,
  isRawMap,
  intC,
  list,
  missing,
  must,
  num,
  opt,
  req,
  stringC,
  truncate,
} from './checks.js';
import { checkWork } from './budget.js';
import { BROKER_KEYS, validateConfigEntries, validateModel, validatePrices } from './configs.js';
import { validateTimeline } from './timeline.js';
import { validateChoices } from './choices.js';
import { validateTopics } from './topics.js';
import type { TopicInfo } from './topics.js';
import type { InputProblem, ParseResult, Scenario } from './types.js';
import { readYaml } from './yaml.js';

// The limits stay part of what this module exports.
export {
  MAX_BROKERS,
  MAX_DESCRIPTION_CHARS,
  MAX_INITIAL_ENTRIES,
  MAX_NAME_CHARS,
  MAX_PARTITIONS,
  MAX_PROBLEMS,
  MAX_RECORDS_PER_EVENT,
  MAX_SCENARIO_CHARS,
  MAX_SEED,
  MAX_TIMELINE_ENTRIES,
  MAX_TOPIC_NAME_CHARS,
  MAX_TOPICS,
  MAX_TOTAL_PARTITIONS,
  MAX_TOTAL_REPLICAS,
  MAX_UNTIL_MS,
  MAX_YAML_ALIASES,
  MAX_ZONE_CHARS,
  MAX_ZONES,
} from './checks.js';
export { problemCount } from './checks.js';
export { KEPT_TRACE_EVENTS, WORK_LIMITS, estimateWork, workProblems } from './budget.js';
export type { WorkEstimate } from './budget.js';

const TOP_KEYS = ['name', 'description', 'seed', 'brokers', 'zones', 'config', 'model', 'prices', 'topics', 'timeline', 'until', 'choices'] as const;

/** What validation found: the scenario, or the problems kept and how many there were. */
type Checked = { ok: true; scenario: Scenario } | { ok: false; problems: InputProblem[]; total: number };

export interface ValidateOptions {
  /**
   * Check the work budget (budget.ts; default true). Only code that builds a workload on
   * purpose larger than a run with a kept trace can hold, and runs it headless (the
   * benchmark), turns it off; files from users are always checked.
   */
  checkWork?: boolean;
  /** The run keeps its whole trace (the page, compare, report): the stricter kernel-event limit applies (budget.ts). */
  traceKept?: boolean;
}

function validateInner(raw: unknown, options: ValidateOptions = {}): Checked {
  const p = new Problems();
  const top = expectMap(p, raw, '', `a map with the scenario's keys (${list(TOP_KEYS)})`);
  if (!top) return { ok: false, problems: p.items, total: p.count };
  checkKeys(p, top, '', TOP_KEYS);

  const name = req(p, top, 'name', '', stringC({ nonEmpty: true, maxChars: MAX_NAME_CHARS }));
  const description = opt(p, top, 'description', '', stringC({ maxChars: MAX_DESCRIPTION_CHARS })) ?? '';
  const seed = opt(p, top, 'seed', '', intC({ min: 0, max: MAX_SEED })) ?? 1;
  const brokers = req(p, top, 'brokers', '', intC({ min: 1, max: MAX_BROKERS }));

  let zones: string[] = ['a'];
  if (given(top, 'zones')) {
    const arr = expectArray(p, top.zones, 'zones', 'a non-empty array of zone names', true, MAX_ZONES);
    if (arr) {
      const zc = stringC({ nonEmpty: true, maxChars: MAX_ZONE_CHARS });
      zones = [];
      arr.forEach((z, i) => {
        const zone = zc.check(p, z, indexPath('zones', i));
        if (zone !== undefined) zones.push(zone);
      });
    }
  }

  let config: Record<string, ConfigValue> = {};
  if (given(top, 'config')) {
    const cm = expectMap(p, top.config, 'config', `a map of broker configs (${list(BROKER_KEYS)})`);
    if (cm) config = validateConfigEntries(p, cm, 'config', 'broker');
  }
  // A jitter link may name the brokers the timeline's addBroker events add (counted as timeline.ts does).
  const addedBrokers = Array.isArray(top.timeline) ? top.timeline.filter((e) => isRawMap(e) && hasOwn(e, 'addBroker')).length : 0;
  const model = given(top, 'model') ? validateModel(p, top.model, 'model', zones, brokers === undefined ? undefined : { count: brokers, added: addedBrokers }) : {};
  const prices = given(top, 'prices') ? validatePrices(p, top.prices, 'prices') : undefined;

  const until = req(p, top, 'until', '', intC({ min: 1, max: MAX_UNTIL_MS, note: '(ms)' }));

  const infos = new Map<string, TopicInfo>();
  const topics = missing(p, top, 'topics', '', 'a non-empty array of topics')
    ? []
    : validateTopics(p, top.topics, brokers, infos, config['remote.log.storage.system.enable'] !== false);

  const timeline = given(top, 'timeline') ? validateTimeline(p, top.timeline, until, { brokers, topics: infos, zones }) : [];
  const choices = given(top, 'choices') ? validateChoices(p, top.choices) : [];

  if (p.count > 0) return { ok: false, problems: p.items, total: p.count };
  const scenario: Scenario = {
    name: must(name, 'name'),
    description,
    seed,
    brokers: must(brokers, 'brokers'),
    zones,
    config,
    model,
    ...(prices !== undefined ? { prices } : {}),
    topics,
    timeline,
    until: must(until, 'until'),
    ...(choices.length > 0 ? { choices } : {}),
  };
  // Only a scenario that is otherwise valid is measured: the estimate needs every value.
  if (options.checkWork !== false) checkWork(p, scenario, { traceKept: options.traceKept === true });
  if (p.count > 0) return { ok: false, problems: p.items, total: p.count };
  return { ok: true, scenario };
}

function internalProblem(e: unknown): ParseResult {
  let detail = 'unknown error';
  try {
    detail = e instanceof Error ? e.message : String(e);
  } catch {
    // keep the default
  }
  return { ok: false, problems: [{ path: '', message: `could not read the scenario: ${truncate(detail, 200)}` }] };
}

/**
 * Validates a plain value (as YAML or JSON gives it) against the scenario schema and the
 * limits, and applies the defaults. Reports every problem (the first MAX_PROBLEMS, then a
 * count); never throws.
 */
export function validateScenario(raw: unknown, options?: ValidateOptions): ParseResult {
  try {
    const r = validateInner(raw, options);
    return r.ok ? r : { ok: false, problems: capProblems(r.problems, r.total) };
  } catch (e) {
    return internalProblem(e);
  }
}

/**
 * Reads a scenario from YAML or JSON text and validates it. A YAML syntax error is
 * reported as a problem at path '' with its line and column; never throws.
 */
export function parseScenarioText(text: string, fileName?: string, options?: ValidateOptions): ParseResult {
  try {
    if (typeof text !== 'string') {
      return { ok: false, problems: [{ path: '', message: `expected the text of a scenario file, got ${describe(text)}` }] };
    }
    if (text.length > MAX_SCENARIO_CHARS) {
      // Not read at all: a scenario is a few kilobytes, and the YAML reader's time and memory grow with the text.
      return { ok: false, problems: [{ path: '', message: `${fileName ? `${fileName}: ` : ''}the scenario is ${num(text.length)} characters; at most ${num(MAX_SCENARIO_CHARS)} (128 KiB) are read (docs/scenario-format.md, Limits)` }] };
    }
    const read = readYaml(text, fileName);
    if (!read.ok) return { ok: false, problems: capProblems(read.problems, read.total) };
    const { value: raw, problems, total } = read;
    if (raw === null || raw === undefined) {
      problems.push({ path: '', message: `expected a map with the scenario's keys (${list(TOP_KEYS)}), got an empty document` });
      return { ok: false, problems: capProblems(problems, total + 1) };
    }
    const result = validateInner(raw, options);
    if (total === 0) return result.ok ? result : { ok: false, problems: capProblems(result.problems, result.total) };
    if (result.ok) return { ok: false, problems: capProblems(problems, total) };
    return { ok: false, problems: capProblems([...problems, ...result.problems], total + result.total) };
  } catch (e) {
    return internalProblem(e);
  }
}
