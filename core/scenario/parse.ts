/**
 * Reading and validating a scenario file (docs/scenario-format.md).
 *
 * `parseScenarioText` reads YAML or JSON (JSON is YAML) with safe options; then
 * `validateScenario` checks the plain value and applies the defaults. Every problem is
 * reported, each with the path of the offending value and what was expected; neither
 * function throws. Validation only descends into known shapes, and outputs are built
 * from fresh objects holding only known keys, so hostile keys (`__proto__`, ...) are
 * reported as unknown and never copied.
 *
 * The parts live beside this file: checks.ts (limits, problems, checkers), yaml.ts (the
 * text), configs.ts, topics.ts and timeline.ts (the timeline, and the check of one action
 * that the page also uses). This file checks the top level and ties them together.
 */
import type { ConfigValue } from '../domain/config.js';
import {
  MAX_BROKERS,
  MAX_SEED,
  MAX_UNTIL_MS,
  Problems,
  checkKeys,
  describe,
  expectArray,
  expectMap,
  given,
  indexPath,
  intC,
  list,
  missing,
  must,
  opt,
  req,
  stringC,
  truncate,
} from './checks.js';
import { BROKER_KEYS, validateConfigEntries, validateModel, validatePrices } from './configs.js';
import { validateTimeline } from './timeline.js';
import { validateTopics } from './topics.js';
import type { TopicInfo } from './topics.js';
import type { ParseResult, Scenario } from './types.js';
import { readYaml } from './yaml.js';

// The limits stay part of what this module exports.
export {
  MAX_BROKERS,
  MAX_PARTITIONS,
  MAX_RECORDS_PER_EVENT,
  MAX_SEED,
  MAX_UNTIL_MS,
  MAX_YAML_ALIASES,
} from './checks.js';

const TOP_KEYS = ['name', 'description', 'seed', 'brokers', 'zones', 'config', 'model', 'prices', 'topics', 'timeline', 'until'] as const;

function validateInner(raw: unknown): ParseResult {
  const p = new Problems();
  const top = expectMap(p, raw, '', `a map with the scenario's keys (${list(TOP_KEYS)})`);
  if (!top) return { ok: false, problems: p.items };
  checkKeys(p, top, '', TOP_KEYS);

  const name = req(p, top, 'name', '', stringC({ nonEmpty: true }));
  const description = opt(p, top, 'description', '', stringC()) ?? '';
  const seed = opt(p, top, 'seed', '', intC({ min: 0, max: MAX_SEED })) ?? 1;
  const brokers = req(p, top, 'brokers', '', intC({ min: 1, max: MAX_BROKERS }));

  let zones: string[] = ['a'];
  if (given(top, 'zones')) {
    const arr = expectArray(p, top.zones, 'zones', 'a non-empty array of zone names', true);
    if (arr) {
      const zc = stringC({ nonEmpty: true });
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
  const model = given(top, 'model') ? validateModel(p, top.model, 'model', zones) : {};
  const prices = given(top, 'prices') ? validatePrices(p, top.prices, 'prices') : undefined;

  const until = req(p, top, 'until', '', intC({ min: 1, max: MAX_UNTIL_MS, note: '(ms)' }));

  const infos = new Map<string, TopicInfo>();
  const topics = missing(p, top, 'topics', '', 'a non-empty array of topics')
    ? []
    : validateTopics(p, top.topics, brokers, infos);

  const timeline = given(top, 'timeline') ? validateTimeline(p, top.timeline, until, { brokers, topics: infos }) : [];

  if (p.count > 0) return { ok: false, problems: p.items };
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
  };
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
 * Validates a plain value (as YAML or JSON gives it) against the scenario schema and
 * applies the defaults. Reports every problem; never throws.
 */
export function validateScenario(raw: unknown): ParseResult {
  try {
    return validateInner(raw);
  } catch (e) {
    return internalProblem(e);
  }
}

/**
 * Reads a scenario from YAML or JSON text and validates it. A YAML syntax error is
 * reported as a problem at path '' with its line and column; never throws.
 */
export function parseScenarioText(text: string, fileName?: string): ParseResult {
  try {
    if (typeof text !== 'string') {
      return { ok: false, problems: [{ path: '', message: `expected the text of a scenario file, got ${describe(text)}` }] };
    }
    const read = readYaml(text, fileName);
    if (!read.ok) return { ok: false, problems: read.problems };
    const { value: raw, problems } = read;
    if (raw === null || raw === undefined) {
      problems.push({ path: '', message: `expected a map with the scenario's keys (${list(TOP_KEYS)}), got an empty document` });
      return { ok: false, problems };
    }
    const result = validateScenario(raw);
    if (problems.length === 0) return result;
    return { ok: false, problems: result.ok ? problems : [...problems, ...result.problems] };
  } catch (e) {
    return internalProblem(e);
  }
}
