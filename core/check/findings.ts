/**
 * Known findings (core/sim/checks/findings.ts, where the kernel marks each violation that is
 * one): interleavings where the model, following Kafka's code, breaks one of its own
 * invariants. The swarm and the exhaustive search report them apart from new violations.
 */
export { KNOWN_FINDINGS, KNOWN_FINDING_NOTE, findingById, knownFinding, type KnownFinding } from '../sim/checks/findings.js';
