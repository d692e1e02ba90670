/**
 * What the three parsers of `import` share (issue 29): the one-line refusal naming the
 * input, its line and what was wrong, and the recognition of each Kafka tool's output, so
 * that one tool's output passed where another's belongs is named as what it is.
 */

/** The outputs `import` reads, by the tool that prints them. */
export type ToolFormat = 'topics' | 'configs' | 'log-dirs';

/** Each format: the command an operator runs, Kafka's class that prints it, and the option it goes to. */
export const TOOL_FORMATS: Readonly<Record<ToolFormat, { command: string; kafkaClass: string; option: string }>> = {
  topics: { command: 'kafka-topics.sh --describe', kafkaClass: 'TopicCommand', option: '--topics' },
  configs: { command: 'kafka-configs.sh --describe --all', kafkaClass: 'ConfigCommand', option: '--configs' },
  'log-dirs': { command: 'kafka-log-dirs.sh --describe', kafkaClass: 'LogDirsCommand', option: '--log-dirs' },
};

export type ImportResult<T> = { ok: true; value: T } | { ok: false; problem: string };

/** `FILE line N: what` (the one line every refusal is). */
export function refusal(source: string, line: number | null, what: string): { ok: false; problem: string } {
  return { ok: false, problem: line === null ? `${source}: ${what}` : `${source} line ${line}: ${what}` };
}

/** The text's lines (CRLF or LF), numbered from 1. */
export function numberedLines(text: string): Array<{ n: number; text: string }> {
  return text.split(/\r?\n/).map((t, i) => ({ n: i + 1, text: t }));
}

/** At most 80 characters of a line, for a message. */
export function excerpt(s: string): string {
  const t = s.trim();
  return JSON.stringify(t.length > 80 ? `${t.slice(0, 77)}...` : t);
}

const CONFIG_HEADER = /^(All|Dynamic) configs for (topic|broker|broker-logger|client-metric|group) (\S*) ?are:\s*$/;
const DEFAULT_HEADER = /^Default configs for (brokers|broker-loggers) in the cluster are:\s*$/;

/** Which tool printed `text`, from its first line that only one of them prints, or null. */
export function detectFormat(text: string): { format: ToolFormat; line: number } | null {
  for (const { n, text: t } of numberedLines(text)) {
    const s = t.trim();
    if (s === '') continue;
    if (/^Topic:\s/.test(s) && /\s(PartitionCount|Partition|Leader):\s/.test(s)) return { format: 'topics', line: n };
    if (CONFIG_HEADER.test(s) || DEFAULT_HEADER.test(s)) return { format: 'configs', line: n };
    if (/^Querying brokers for log directories information/.test(s) || /^Received log directory information from brokers/.test(s)) return { format: 'log-dirs', line: n };
    if (s.startsWith('{') && s.includes('"brokers"')) return { format: 'log-dirs', line: n };
  }
  return null;
}

/** The refusal of text that another tool printed, or null when it is not recognised as another's. */
export function wrongFormat(source: string, text: string, expected: ToolFormat): { ok: false; problem: string } | null {
  const found = detectFormat(text);
  if (found === null || found.format === expected) return null;
  const f = TOOL_FORMATS[found.format];
  const e = TOOL_FORMATS[expected];
  return refusal(source, found.line, `this is the output of ${f.command} (${f.kafkaClass}), not of ${e.command} (${e.kafkaClass}): give it as ${f.option}`);
}

export { CONFIG_HEADER, DEFAULT_HEADER };

/** Broker ids and partition numbers: a non-negative int. */
export function parseId(s: string): number | null {
  return /^\d{1,9}$/.test(s) ? Number(s) : null;
}

/** A comma-separated list of broker ids (`1,2,3`; empty: none), or null if one is not an id. */
export function parseIdList(s: string): number[] | null {
  const t = s.trim();
  if (t === '') return [];
  const ids = t.split(',').map((x) => parseId(x.trim()));
  return ids.some((x) => x === null) ? null : (ids as number[]);
}
