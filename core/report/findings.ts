/**
 * The known findings among a run's violations, as the reports explain them: Kafka's own
 * behaviour, which the model follows (core/sim/checks/findings.ts), each once with its
 * paragraph and where docs/protocol.md explains it.
 */
import { KNOWN_FINDING_NOTE, findingById } from '../check/findings.js';

export interface FindingNote {
  id: string;
  title: string;
  summary: string;
  /** docs/protocol.md with the anchor of its explanation. */
  docs: string;
  /** "a known finding: Kafka's own behaviour, ... not an error of the model". */
  note: string;
}

export function knownFindingsOf(violations: ReadonlyArray<{ finding?: string }>): FindingNote[] {
  const out = new Map<string, FindingNote>();
  for (const v of violations) {
    const f = findingById(v.finding);
    if (f && !out.has(f.id)) out.set(f.id, { id: f.id, title: f.title, summary: f.summary, docs: f.docs, note: KNOWN_FINDING_NOTE });
  }
  return [...out.values()];
}
