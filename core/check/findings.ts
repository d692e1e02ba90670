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
    id: 'auxStateSkippedAfterRetry',
    invariant: 'followerEpochsMatchLeader',
    summary:
      "TierStateMachine truncates the follower before reading the leader-epoch checkpoint; when the read fails and the retried Fetch is " +
      'below the leader\'s Log-Start-Offset, OFFSET_OUT_OF_RANGE resumes at the follower\'s log end and the auxiliary state is never ' +
      'built: the follower joins the ISR without leader epochs for [LSO, LLSO)',
    reproducedBy: 'conformance/finding-aux-state-skipped-after-retry.yaml',
    matches(v, trace) {
      if (v.invariant !== 'followerEpochsMatchLeader' || !/ is in epoch -1 there/.test(v.message)) return false;
      const b = brokerOf(v.subject);
      return trace.some((e) => {
        const x = e as unknown as Record<string, unknown>;
        return x.type === 'objectStore' && x.purpose === 'leaderEpochCheckpoint' && x.ok === false && x.broker === b;
      });
    },
  },
];

export function knownFinding(v: Pick<Violation, 'invariant' | 'message' | 'subject'>, trace: readonly TraceEntry[]): KnownFinding | undefined {
  return KNOWN_FINDINGS.find((f) => f.matches(v, trace));
}
