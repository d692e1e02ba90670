/**
 * Known findings: interleavings where the model, following Kafka's code, breaks one of its
 * own invariants. They are real behaviour worth showing in a design review, not model bugs,
 * so every output names them apart from new violations (the kernel marks each violation
 * with the finding it is, `finding: id`): the CLI and the reports say "known finding", the
 * page draws it in its own colour, each with a paragraph and where docs/protocol.md explains
 * it. Each names its evidence in the trace.
 *
 * Here, under core/sim/checks, so the kernel can mark a violation as it happens; it reads
 * the trace as plain records. core/check/findings.ts re-exports it.
 */
import type { Violation } from './observed.js';

export interface KnownFinding {
  id: string;
  invariant: string;
  /** A short name, for a heading or a label. */
  title: string;
  /** One paragraph: what Kafka does and why the invariant breaks. */
  summary: string;
  /** Where docs/protocol.md explains it (a path with its anchor). */
  docs: string;
  /** The conformance case that reproduces it. */
  reproducedBy: string;
  matches(v: Pick<Violation, 'invariant' | 'message' | 'subject'>, trace: readonly object[]): boolean;
}

/** What every output says of a known finding, after its invariant and message. */
export const KNOWN_FINDING_NOTE = "Kafka's own behaviour, which the model follows, not an error of the model";

const brokerOf = (subject: string | undefined): number => Number(/@(\d+)/.exec(subject ?? '')?.[1] ?? -1);

export const KNOWN_FINDINGS: readonly KnownFinding[] = [
  {
    id: 'auxStateIncomplete',
    invariant: 'followerEpochsMatchLeader',
    title: "Kafka's aux-state gap: leader epochs lost when the build is interrupted",
    summary:
      "Kafka's TierStateMachine truncates the follower (truncateFullyAndStartAt, epoch cache cleared) before it reads the leader-epoch " +
      'checkpoint. If the read fails, or the broker crashes, in between, nothing rebuilds the auxiliary state later: a retried Fetch below ' +
      "the leader's Log-Start-Offset resumes at the follower's log end (OFFSET_OUT_OF_RANGE), and a restarted broker fetches from its log " +
      'end. The follower joins the ISR without leader epochs for [LSO, LLSO); elected, it leads without them.',
    docs: 'docs/protocol.md#finding-aux-state',
    reproducedBy: 'conformance/finding-aux-state-skipped-after-retry.yaml, conformance/finding-aux-state-lost-in-crash.yaml',
    matches(v, trace) {
      // The replica without epochs: the follower ("is in epoch -1 there"), or a leader it
      // became ("-1 on leader L", "leader L has it in epoch -1").
      let b = -1;
      if (v.invariant === 'followerEpochsMatchLeader' && / is in epoch -1 there/.test(v.message)) b = brokerOf(v.subject);
      else if (v.invariant === 'followerEpochsMatchLeader' || v.invariant === 'noCommittedRecordLost') {
        const m = /-1 on leader (\d+)|leader (\d+) has it in epoch -1/.exec(v.message);
        if (m) b = Number(m[1] ?? m[2]);
      }
      if (b < 0) return false;
      // An aux-state build truncated this broker's log, was interrupted (its checkpoint read
      // failed, or the broker crashed) and its epochs were never restored afterwards.
      let open = false;
      let interrupted = false;
      for (const e of trace) {
        const x = e as Record<string, unknown>;
        if (x.broker !== b) continue;
        if (x.type === 'log' && x.action === 'truncateFullyAndStartAt' && typeof x.rule === 'string' && x.rule.startsWith('auxState')) {
          open = true;
          interrupted = false;
        }
        if (x.type === 'log' && x.action === 'leaderEpochsRestored') open = false;
        if (open && x.type === 'objectStore' && x.purpose === 'leaderEpochCheckpoint' && x.ok === false) interrupted = true;
        if (open && x.type === 'broker' && x.action === 'crashed') interrupted = true;
      }
      return open && interrupted;
    },
  },
];

export function knownFinding(v: Pick<Violation, 'invariant' | 'message' | 'subject'>, trace: readonly object[]): KnownFinding | undefined {
  return KNOWN_FINDINGS.find((f) => f.matches(v, trace));
}

/**
 * Whether a trace entry is evidence a finding reads (kept by a kernel that streams its
 * trace instead of keeping it): the aux-state build's truncation and restore, a failed
 * checkpoint read, a crash.
 */
export function isFindingEvidence(e: object): boolean {
  const x = e as Record<string, unknown>;
  return (x.type === 'log' && (x.action === 'truncateFullyAndStartAt' || x.action === 'leaderEpochsRestored'))
    || (x.type === 'objectStore' && x.purpose === 'leaderEpochCheckpoint' && x.ok === false)
    || (x.type === 'broker' && x.action === 'crashed');
}

/** The finding of that id (as a violation or a trace entry names it), if known. */
export function findingById(id: string | undefined | null): KnownFinding | undefined {
  return id ? KNOWN_FINDINGS.find((f) => f.id === id) : undefined;
}
