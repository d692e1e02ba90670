/**
 * `kafka-configs.sh --describe` as Kafka's ConfigCommand prints it
 * (core/src/main/scala/kafka/admin/ConfigCommand.scala, describeResourceConfig): for each
 * entity a header, `All configs for topic orders are:` with `--all` (`Dynamic configs for
 * ...` without it; `Default configs for brokers in the cluster are:` for the cluster-wide
 * dynamic broker defaults), then one line an entry:
 *
 *   name=value sensitive=false synonyms={DYNAMIC_TOPIC_CONFIG:segment.bytes=1048576, DEFAULT_CONFIG:log.segment.bytes=1073741824}
 *
 * the synonyms in order of precedence (DescribeConfigs with includeSynonyms), so the first
 * names where the value comes from (ConfigEntry.ConfigSource: DYNAMIC_TOPIC_CONFIG,
 * DYNAMIC_BROKER_CONFIG, DYNAMIC_DEFAULT_BROKER_CONFIG, STATIC_BROKER_CONFIG,
 * DEFAULT_CONFIG, ...); a sensitive value is printed as `null`. The topics' and the brokers'
 * outputs (`--entity-type topics`, `--entity-type brokers`) may be pasted one after the
 * other. Pure: text in, entries by entity out, or one line naming what is wrong.
 */
import { CONFIG_HEADER, DEFAULT_HEADER, type ImportResult, excerpt, numberedLines, refusal, wrongFormat } from './common.js';

/** Kafka's ConfigEntry.ConfigSource values. */
export const CONFIG_SOURCES = [
  'DYNAMIC_TOPIC_CONFIG',
  'DYNAMIC_BROKER_LOGGER_CONFIG',
  'DYNAMIC_BROKER_CONFIG',
  'DYNAMIC_DEFAULT_BROKER_CONFIG',
  'DYNAMIC_CLIENT_METRICS_CONFIG',
  'DYNAMIC_GROUP_CONFIG',
  'STATIC_BROKER_CONFIG',
  'DEFAULT_CONFIG',
  'UNKNOWN',
] as const;
export type ConfigSource = (typeof CONFIG_SOURCES)[number];

export interface ConfigLine {
  name: string;
  /** null: Kafka printed `null` (a sensitive value, or none). */
  value: string | null;
  sensitive: boolean;
  /** Where the value comes from: the first synonym's source (UNKNOWN when none is listed). */
  source: ConfigSource;
  synonyms: Array<{ source: ConfigSource; name: string; value: string }>;
  line: number;
}

export interface ConfigSection {
  /** `all` (--all: every config) or `dynamic` (only those set dynamically). */
  scope: 'all' | 'dynamic';
  entries: Map<string, ConfigLine>;
  line: number;
}

export interface DescribedConfigs {
  topics: Map<string, ConfigSection>;
  brokers: Map<number, ConfigSection>;
  /** `Default configs for brokers in the cluster are:` (dynamic cluster-wide broker defaults). */
  brokerDefaults: ConfigSection | null;
  /** Sections of other entity types (broker loggers, client metrics, groups): not used. */
  ignored: string[];
}

const ENTRY = /^\s*([A-Za-z0-9._-]+)=(.*?) sensitive=(true|false) synonyms=\{(.*)\}\s*$/;
const SYNONYM = /^([A-Z_]+):([A-Za-z0-9._-]+)=(.*)$/;

function parseSynonyms(s: string): ConfigLine['synonyms'] | string {
  if (s.trim() === '') return [];
  const out: ConfigLine['synonyms'] = [];
  // Split before each `SOURCE:name=`; a value may hold ", " itself.
  for (const piece of s.split(/, (?=[A-Z_]+:[A-Za-z0-9._-]+=)/)) {
    const m = SYNONYM.exec(piece);
    if (m === null || !(CONFIG_SOURCES as readonly string[]).includes(m[1])) return piece;
    out.push({ source: m[1] as ConfigSource, name: m[2], value: m[3] });
  }
  return out;
}

export function parseConfigsDescribe(text: string, source: string): ImportResult<DescribedConfigs> {
  const other = wrongFormat(source, text, 'configs');
  if (other !== null) return other;
  const out: DescribedConfigs = { topics: new Map(), brokers: new Map(), brokerDefaults: null, ignored: [] };
  let section: ConfigSection | null = null;
  let skipping = false;
  let nonBlank = 0;
  for (const { n, text: raw } of numberedLines(text)) {
    const s = raw.trim();
    if (s === '') continue;
    nonBlank++;
    const header = CONFIG_HEADER.exec(s);
    if (header !== null) {
      const scope = header[1] === 'All' ? 'all' : 'dynamic';
      const kind = header[2];
      const entity = header[3];
      section = { scope, entries: new Map(), line: n };
      skipping = false;
      if (kind === 'topic') {
        if (!/^[A-Za-z0-9._-]+$/.test(entity)) return refusal(source, n, `"${entity}" is not a topic name`);
        const prev = out.topics.get(entity);
        if (prev !== undefined) return refusal(source, n, `the configs of topic ${entity} are given twice (first at line ${prev.line})`);
        out.topics.set(entity, section);
      } else if (kind === 'broker') {
        const id = /^\d{1,9}$/.test(entity) ? Number(entity) : null;
        if (id === null) return refusal(source, n, `"${entity}" is not a broker id`);
        const prev = out.brokers.get(id);
        if (prev !== undefined) return refusal(source, n, `the configs of broker ${id} are given twice (first at line ${prev.line})`);
        out.brokers.set(id, section);
      } else {
        out.ignored.push(`${kind} ${entity} (line ${n})`);
        skipping = true;
      }
      continue;
    }
    if (DEFAULT_HEADER.test(s)) {
      section = { scope: 'dynamic', entries: new Map(), line: n };
      if (s.startsWith('Default configs for brokers')) {
        if (out.brokerDefaults !== null) return refusal(source, n, `the cluster's default broker configs are given twice (first at line ${out.brokerDefaults.line})`);
        out.brokerDefaults = section;
        skipping = false;
      } else {
        out.ignored.push(`broker-logger defaults (line ${n})`);
        skipping = true;
      }
      continue;
    }
    const m = ENTRY.exec(raw);
    if (m === null) {
      if (section === null) return refusal(source, n, `expected a header such as "All configs for topic NAME are:" or "All configs for broker ID are:" as kafka-configs.sh --describe --all prints them (ConfigCommand), got ${excerpt(raw)}`);
      return refusal(source, n, `expected a config line "name=value sensitive=true|false synonyms={SOURCE:name=value, ...}" as kafka-configs.sh --describe prints it (ConfigCommand), got ${excerpt(raw)}`);
    }
    if (section === null) return refusal(source, n, `a config line before any "All configs for ... are:" header: which topic or broker it belongs to is missing`);
    if (skipping) continue;
    const synonyms = parseSynonyms(m[4]);
    if (typeof synonyms === 'string') return refusal(source, n, `synonyms of ${m[1]}: expected SOURCE:name=value (SOURCE one of ConfigEntry.ConfigSource's: ${CONFIG_SOURCES.join(', ')}), got ${excerpt(synonyms)}`);
    const prev = section.entries.get(m[1]);
    if (prev !== undefined) return refusal(source, n, `${m[1]} is given twice in one entity's configs (first at line ${prev.line})`);
    const sensitive = m[3] === 'true';
    section.entries.set(m[1], {
      name: m[1],
      value: m[2] === 'null' && (sensitive || synonyms.length === 0) ? null : m[2],
      sensitive,
      source: synonyms.length > 0 ? synonyms[0].source : 'UNKNOWN',
      synonyms,
      line: n,
    });
  }
  if (nonBlank === 0) return refusal(source, null, `empty: expected the output of kafka-configs.sh --describe --all (ConfigCommand)`);
  return { ok: true, value: out };
}
