/**
 * Known findings: interleavings where the model, following Kafka's code, breaks one of its
 * own invariants. They are real behaviour worth showing in a design review, not model bugs,
 * so the swarm reports them apart from new violations. Each names its evidence in the trace.
 */
import type { TraceEntry } from '../sim/trace.js';
import type { Violation } from './invariants.js';

export interface KnownFinding {
  id: string;
  invariant: string;
  summary: string;
  /** The conformance case that reproduces it. */
  reproducedBy: string;
  matches(v: Pick<Violation, 'invariant' | 'message' | 'subject'>, trace: readonly TraceEntry[]): boolean;
}

const brokerOf = (subject: string | undefined): number => Number(/@(\d+)/.exec(subject ?? '')?.[1] ?? -1);

export const KNOWN_FINDINGS: readonly KnownFinding[] = [
  {
    id: 'auxStateIncomplete',
    invariant: 'followerEpochsMatchLeader',
    summary:
      "Kafka's TierStateMachine truncates the follower (truncateFullyAndStartAt, epoch cache cleared) before it reads the leader-epoch " +
      'checkpoint. If the read fails, or the broker crashes, in between, nothing rebuilds the auxiliary state later: a retried Fetch below ' +
      "the leader's Log-Start-Offset resumes at the follower's log end (OFFSET_OUT_OF_RANGE), and a restarted broker fetches from its log " +
      'end. The follower joins the ISR without leader epochs for [LSO, LLSO).',
    reproducedBy: 'conformance/finding-aux-state-skipped-after-retry.yaml, conformance/finding-aux-state-lost-in-crash.yaml',
    matches(v, trace) {
      if (v.invariant !== 'followerEpochsMatchLeader' || !/ is in epoch -1 there/.test(v.message)) return false;
      const b = brokerOf(v.subject);
      // An aux-state build truncated this broker's log and never restored its epochs afterwards.
      let open = false;
      for (const e of trace) {
        const x = e as unknown as Record<string, unknown>;
        if (x.broker !== b || x.type !== 'log') continue;
        if (x.action === 'truncateFullyAndStartAt' && typeof x.rule === 'string' && x.rule.startsWith('auxState')) open = true;
        if (x.action === 'leaderEpochsRestored') open = false;
      }
      return open;
    },
  },
];

export function knownFinding(v: Pick<Violation, 'invariant' | 'message' | 'subject'>, trace: readonly TraceEntry[]): KnownFinding | undefined {
  return KNOWN_FINDINGS.find((f) => f.matches(v, trace));
}
