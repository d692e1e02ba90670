/**
 * Guided chapters for design reviews: each a bundled scenario with a short script of
 * narrated stops. A stop is not a step number but a description of the trace entry it
 * waits for (a narration rule, an API and error), so a chapter keeps pointing at the
 * right moment when the model changes how many steps lead up to it. `resolveChapter`
 * runs the scenario and finds each stop's visible step, in order: a stop is the first
 * matching step after the previous stop.
 *
 * Leaves out: user actions inside a chapter (a chapter is the scenario as written).
 */
import { narrate } from '../narrate/narrate.js';
import type { Scenario } from '../scenario/types.js';
import { Session } from '../session/session.js';
import type { TraceEntry } from '../sim/state/trace.js';

/** What a stop waits for: every field given must match one trace entry of the step. */
export interface StopMatch {
  /** The narration rule (`kip1023Eligible`, `auxStateBuilt`, ...). */
  rule?: string;
  /** The trace entry type (`response`, `wal`, `isr`, `objectStore`, ...). */
  type?: string;
  /** The Kafka API of a request or response. */
  api?: string;
  /** A Kafka error name, or the store's error. */
  error?: string;
  /** Object-store operation (`put`, `get`, `delete`). */
  op?: string;
  /** Object store (`tiered`, `wal`). */
  store?: string;
}

export interface ChapterStop {
  /** Short heading shown at the stop. */
  title: string;
  /** What to look at and why it matters, in the presenter's words. */
  text: string;
  match: StopMatch;
}

export interface Chapter {
  /** The `?chapter=` value. */
  id: string;
  title: string;
  /** The bundled scenario it plays (file name without extension). */
  scenario: string;
  /** One paragraph: what the chapter shows. */
  summary: string;
  stops: ChapterStop[];
}

export interface ResolvedStop {
  /** Index of the stop in the chapter. */
  index: number;
  /** The visible step the stop shows. */
  step: number;
  /** Simulated time at that step. */
  atMs: number;
  title: string;
  text: string;
  /** The model's own narration of that step. */
  lines: string[];
}

export interface ResolvedChapter {
  chapter: Chapter;
  stops: ResolvedStop[];
  /** Stops whose match never happened (a chapter out of date with the model). */
  missing: string[];
  totalSteps: number;
}

export const CHAPTERS: readonly Chapter[] = [
  {
    id: 'classic-bootstrap',
    title: '1. The classic KIP-405 bootstrap',
    scenario: 'classic-two-rounds',
    summary:
      'An empty follower joins a tiered partition whose leader has already uploaded and deleted its oldest segments. Without KIP-1023 it takes two rounds: OFFSET_OUT_OF_RANGE moves it to the Log-Start-Offset, then OFFSET_MOVED_TO_TIERED_STORAGE sends it to the Local-Log-Start-Offset, where it builds the remote auxiliary state.',
    stops: [
      { title: 'Fetch at 0 is out of range', match: { type: 'response', api: 'Fetch', error: 'OFFSET_OUT_OF_RANGE' },
        text: 'The empty follower fetches at offset 0, below the leader\'s Log-Start-Offset (10). The leader answers OFFSET_OUT_OF_RANGE.' },
      { title: 'Round 1: move to the Log-Start-Offset', match: { rule: 'leaderStartAboveFollowerEnd' },
        text: 'The classic path asks ListOffsets -1 and -2, and truncates fully to the leader\'s Log-Start-Offset. But offsets 10 to 99 live only in remote storage.' },
      { title: 'OFFSET_MOVED_TO_TIERED_STORAGE', match: { type: 'response', api: 'Fetch', error: 'OFFSET_MOVED_TO_TIERED_STORAGE' },
        text: 'The second fetch lands in the tiered-only range [LSO, LLSO): the leader answers OFFSET_MOVED_TO_TIERED_STORAGE.' },
      { title: 'Round 2: build the remote auxiliary state', match: { rule: 'auxStateClassic' },
        text: 'ListOffsets -4 gives the Local-Log-Start-Offset (100). The follower restarts its log there and reads the leader-epoch checkpoint and producer snapshot of the remote segment that ends at 99.' },
      { title: 'Aux state built, no records copied', match: { rule: 'auxStateBuilt' },
        text: 'Only metadata came from remote storage: the epochs and the producer state. As TierStateMachine.start does, the follower asks ListOffsets -1 for the leader\'s end offset (200, so 100 records to go), then fetches records from 100, everything the leader still holds locally.' },
      { title: 'In sync', match: { rule: 'followerCaughtUp' },
        text: 'The follower reaches the high watermark and joins the ISR. It replicated the whole local log, 100 records, to get there.' },
    ],
  },
  {
    id: 'kip1023-bootstrap',
    title: '2. KIP-1023: one round from the earliest pending upload offset',
    scenario: 'kip1023-bootstrap',
    summary:
      'With follower.fetch.last.tiered.offset.enable on, an empty follower asks for the Earliest-Pending-Upload-Offset (ListOffsets -6) and starts right after what the leader already uploaded. One round, and it replicates only what is not yet in remote storage.',
    stops: [
      { title: 'Out of range, and KIP-1023 applies', match: { rule: 'kip1023Eligible' },
        text: 'The empty follower fetches at 0, below the leader\'s Log-Start-Offset, and gets OFFSET_OUT_OF_RANGE. The flag is on, the topic is tiered and not compacted, and the follower is empty: instead of the classic two rounds it asks ListOffsets -2, -6 and -4.' },
      { title: 'Earliest-Pending-Upload-Offset', match: { type: 'response', api: 'ListOffsets', rule: 'earliestPendingUpload.afterHighestTiered' },
        text: 'ListOffsets -6 answers max(Ry + 1, Log-Start-Offset) = 150: the first offset the leader has not uploaded yet.' },
      { title: 'Start at max(EPUO, LLSO)', match: { rule: 'kip1023Start' },
        text: 'The start is max(150, Local-Log-Start-Offset 100) = 150, never below the leader\'s local log.' },
      { title: 'Remote auxiliary state up to 150', match: { rule: 'auxStateKip1023' },
        text: 'The follower truncates fully to 150 and reads the leader-epoch checkpoint and producer snapshot of the remote segment covering 149.' },
      { title: 'Fetch from 150', match: { type: 'response', api: 'Fetch', rule: 'localRecords' },
        text: 'The first record fetch returns only [150, 199], 50 records, against 100 in the classic path: the offsets in [100, 149] are already in remote storage, so the follower never holds them locally.' },
      { title: 'In sync after one round', match: { rule: 'followerCaughtUp' },
        text: 'The follower joins the ISR. Its Local-Log-Start-Offset is 150, above the leader\'s: reads below it must come from remote storage if it becomes leader.' },
    ],
  },
  {
    id: 'kip1023-unknown-epuo-retry',
    title: '3. KIP-1023: retry while the EPUO is unknown',
    scenario: 'kip1023-unknown-epuo-retry',
    summary:
      'A new leader has not yet loaded its remote log metadata, so it does not know what it uploaded (Ry is unknown) and some offsets are tiered-only. ListOffsets -6 answers -1, and the follower backs off and retries until the leader\'s remote log manager learns Ry.',
    stops: [
      { title: 'The leader does not know Ry', match: { rule: 'rlmMetadataLoading' },
        text: 'The leader\'s remote log manager cannot read the highest offset in remote storage while the metadata is loading.' },
      { title: 'KIP-1023 applies', match: { rule: 'kip1023Eligible' },
        text: 'The empty follower gets OFFSET_MOVED_TO_TIERED_STORAGE and takes the KIP-1023 path.' },
      { title: 'ListOffsets -6 answers -1', match: { rule: 'earliestPendingUpload.unknownTieredOnlyExists' },
        text: 'Ry is unknown and the Local-Log-Start-Offset is above the Log-Start-Offset, so the leader cannot say where pending uploads begin: it answers -1.' },
      { title: 'Back off and retry', match: { rule: 'kip1023PendingUploadUnknown' },
        text: 'The follower does not guess. It backs off replica.fetch.backoff.ms, fetch offset unchanged, and starts over.' },
      { title: 'The leader learns Ry', match: { rule: 'rlmRefreshHighestOffset' },
        text: 'The remote log manager task refreshes Ry from the remote metadata (149), even with nothing to upload: this refresh is what KIP-1023 added.' },
      { title: 'The retry succeeds', match: { rule: 'kip1023Start' },
        text: 'The next ListOffsets -6 answers 150, and the follower starts there.' },
      { title: 'In sync', match: { rule: 'followerCaughtUp' },
        text: 'The follower catches up after about six seconds of retries: the price of not knowing Ry.' },
    ],
  },
  {
    id: 'kip1023-epuo-below-log-start',
    title: '4. KIP-1023: EPUO below the Log-Start-Offset',
    scenario: 'kip1023-epuo-below-log-start',
    summary:
      'Retention moved the Log-Start-Offset past everything the leader uploaded, so Ry + 1 is below the Log-Start-Offset. The leader clamps its answer to the Log-Start-Offset, and the follower starts there with nothing to rebuild.',
    stops: [
      { title: 'Upload in progress', match: { rule: 'copyCandidate' },
        text: 'The leader is still copying [100, 149]: Ry is 50, below the Log-Start-Offset of 100.' },
      { title: 'KIP-1023 applies', match: { rule: 'kip1023Eligible' },
        text: 'The empty follower gets OFFSET_OUT_OF_RANGE and takes the KIP-1023 path.' },
      { title: 'The answer is clamped', match: { rule: 'earliestPendingUpload.afterHighestTiered' },
        text: 'Ry + 1 = 51 is below the Log-Start-Offset, so ListOffsets -6 answers max(Ry + 1, LSO) = 100.' },
      { title: 'Start at the Log-Start-Offset', match: { rule: 'kip1023StartAtLogStart' },
        text: 'The start equals the Log-Start-Offset: nothing is tiered-only below it, so no remote auxiliary state is needed.' },
      { title: 'In sync', match: { rule: 'followerCaughtUp' },
        text: 'The follower fetches [100, 199] and joins the ISR.' },
    ],
  },
  {
    id: 'kip1023-promoted-follower',
    title: '5. A KIP-1023 follower promoted to leader reads from remote',
    scenario: 'kip1023-promoted-follower-remote-reads',
    summary:
      'A follower that bootstrapped with KIP-1023 holds only [150, 199] locally. When it becomes leader, consumers reading older offsets are served from remote storage: KIP-1023\'s cost, paid later and by someone else.',
    stops: [
      { title: 'Bootstrap from the EPUO', match: { rule: 'kip1023Start' },
        text: 'The follower starts at 150, the Earliest-Pending-Upload-Offset.' },
      { title: 'In sync with a short local log', match: { rule: 'followerCaughtUp' },
        text: 'It joins the ISR with Local-Log-Start-Offset 150, while the leader still holds [100, 199] locally.' },
      { title: 'Leadership moves', match: { rule: 'electLeader' },
        text: 'The follower is elected leader at epoch 1.' },
      { title: 'A consumer read goes remote', match: { rule: 'consumerRemoteRead' },
        text: 'A consumer asks for offset 100. The old leader would have served it from disk; the new leader must fetch it from remote storage.' },
      { title: 'Local again from 150', match: { rule: 'consumerReadRemote' },
        text: 'Half the read came from remote storage, half locally. Compare cross-zone bytes and remote reads in the side-by-side view.' },
    ],
  },
  {
    id: 'wal-steady-state',
    title: '6. KIP-1176: steady state through the fast store',
    scenario: 'wal-steady-state',
    summary:
      'With the WAL on, the leader\'s combiner puts produced batches into one object in a fast object store, publishes a record per chunk on the WAL metadata topic, and followers read their byte range from the store instead of fetching records from the leader.',
    stops: [
      { title: 'A produce', match: { rule: 'appendAsLeader' },
        text: 'A producer writes 100 records with acks=all to the leader.' },
      { title: 'The combiner puts one WAL object', match: { type: 'objectStore', op: 'put', store: 'wal' },
        text: 'The combiner waits up to its linger, then writes one object with the chunks of every partition it leads.' },
      { title: 'Metadata record published', match: { rule: 'walMetadataPublished' },
        text: 'A record on __remote_wal_log_metadata names the object, the byte range of each chunk, its offsets and its leader epoch.' },
      { title: 'The follower reads its byte range', match: { type: 'objectStore', op: 'get', store: 'wal' },
        text: 'The follower GETs its chunk\'s byte range from the fast store. No records crossed a zone from the leader.' },
      { title: 'Appended, acknowledged', match: { rule: 'walChunkAppended' },
        text: 'The follower appends the chunk; its Fetch now carries no records, only its offset, and the leader moves the high watermark.' },
      { title: 'Tiered as usual', match: { rule: 'copyFinished' },
        text: 'Rolled segments are still uploaded to tiered storage by the remote log manager.' },
      { title: 'WAL object deleted', match: { rule: 'walObjectTiered' },
        text: 'Once every chunk of an object is in tiered storage, the object is deleted from the fast store.' },
    ],
  },
  {
    id: 'wal-fast-store-outage',
    title: '7. KIP-1176: a fast-store outage',
    scenario: 'wal-fast-store-outage',
    summary:
      'The fast store goes down and wal.fallback.fetch.enable is off: the combiner cannot put, followers receive nothing, the high watermark freezes and acks=all produces wait until the ISR shrinks.',
    stops: [
      { title: 'Replication through the WAL', match: { rule: 'walChunkAppended' },
        text: 'Before the outage, chunks flow through the fast store as in steady state.' },
      { title: 'The fast store goes down', match: { rule: 'storeOutage' },
        text: 'At t = 5.5 s the fast store becomes unavailable.' },
      { title: 'PUT fails', match: { rule: 'walPutFailed' },
        text: 'The combiner\'s PUT fails with ServiceUnavailable. It retries with backoff; the records stay pending on the leader, the high watermark cannot move.' },
      { title: 'The ISR shrinks', match: { rule: 'followerLagging' },
        text: 'After replica.lag.time.max.ms the follower leaves the ISR, and acks=all completes with the leader alone: a durability loss an operator would page on.' },
      { title: 'The store recovers', match: { rule: 'storeRecovered' },
        text: 'The fast store is back; the combiner\'s retry succeeds and the follower catches up through the WAL.' },
    ],
  },
  {
    id: 'wal-failover',
    title: '8. KIP-1176: leader failover with chunks in flight',
    scenario: 'wal-failover-chunks-in-flight',
    summary:
      'The leader crashes while WAL chunks are in flight. Before it leads, the elected replica syncs the WAL tail from the metadata topic; the other follower drops a chunk written in the old epoch.',
    stops: [
      { title: 'Steady state', match: { rule: 'walChunkAppended' },
        text: 'Chunks flow from the leader\'s combiner through the fast store to both followers.' },
      { title: 'The leader crashes; tail sync before leading', match: { rule: 'walTailSync' },
        text: 'Broker 0 crashes with chunks published but not yet read by every follower. The elected replica reads the WAL metadata topic to its end and applies the chunks it has not read, so it leads with every acknowledged record.' },
      { title: 'New leader', match: { rule: 'leaderCrashed' },
        text: 'Broker 1 leads at epoch 1 from log end 70.' },
      { title: 'A stale chunk is dropped', match: { rule: 'walChunkStaleEpoch' },
        text: 'Broker 2 drops a chunk written in epoch 0: it now follows epoch 1, and fetches the records from the new leader instead.' },
    ],
  },
  {
    id: 'retention-three-tasks',
    title: '9. Retention: three tasks, three schedules',
    scenario: 'retention-three-tasks',
    summary:
      "Kafka does not retain a tiered partition in one pass. The leader's copy task (RLMCopyTask) and its expiration task (RLMExpirationTask) are scheduled apart, each every remote.log.manager.task.interval.ms after its last run ended; a follower's task (RLMFollowerTask) only learns the highest offset in remote storage; local retention is the broker's log retention task, first 30 s after the broker starts and then every log.retention.check.interval.ms (5 minutes). Each acts on its own, with Kafka's defaults.",
    stops: [
      { title: 'The copy task starts an upload', match: { rule: 'copyCandidate' },
        text: 'At t = 0 the leader\'s copy task finds 50-99 rolled and not uploaded, and starts copying it (a PUT of about 100 ms).' },
      { title: 'The expiration task does not wait', match: { rule: 'remoteRetention' },
        text: 'At the same moment the expiration task, on its own schedule and thread pool, finds the 200 KiB across both tiers over retention.bytes (150 KiB): it raises Log-Start-Offset to 50, then deletes 0-49. It does not wait for the copy in flight.' },
      { title: 'Copies finish; nothing is deleted locally', match: { rule: 'copyFinished' },
        text: 'The copy task uploads 50-99, then 100-149, raising the highest offset in remote storage (Ry) to 149 by t = 0.2 s. Both segments are now in remote storage, yet they stay on the local disks: local retention is not the remote log manager\'s job.' },
      { title: 'The follower task learns Ry', match: { rule: 'rlmRefreshHighestOffset' },
        text: 'The follower\'s RLMFollowerTask runs again 30 s after its first run and learns Ry 149 from the remote log metadata. Until now the follower could not have deleted anything: it did not know what was uploaded.' },
      { title: 'The log retention task, 30 s after start', match: { rule: 'localRetention' },
        text: 'The broker\'s log retention task runs for the first time log.initial.task.delay.ms (30 s) after the broker started. On broker 0 it deletes the uploaded segments below the high watermark: Local-Log-Start-Offset moves to 150, Log-Start-Offset stays 50. Broker 1 started at the same moment, so its run comes at the same millisecond, the next step, and does the same now that its follower task knows Ry. The next runs are 5 minutes later.' },
    ],
  },
];

export function findChapter(id: string): Chapter | undefined {
  return CHAPTERS.find((c) => c.id === id);
}

/** Does this trace entry satisfy every field the match gives? */
export function entryMatches(e: TraceEntry, m: StopMatch): boolean {
  const x = e as unknown as Record<string, unknown>;
  if (m.rule !== undefined && x.rule !== m.rule) return false;
  if (m.type !== undefined && e.type !== m.type) return false;
  if (m.api !== undefined && x.api !== m.api) return false;
  if (m.error !== undefined && x.error !== m.error) return false;
  if (m.op !== undefined && x.op !== m.op) return false;
  if (m.store !== undefined && x.store !== m.store) return false;
  return true;
}

/**
 * Finds a chapter's stops while a session steps (the caller's run, so a report or a page
 * that runs the scenario anyway does not run it again): call `observe` after every visible
 * step.
 */
export class StopFinder {
  readonly stops: ResolvedStop[] = [];
  private next = 0;

  constructor(readonly chapter: Chapter) {}

  /** Every stop found. */
  get done(): boolean {
    return this.next >= this.chapter.stops.length;
  }

  observe(session: Session): void {
    // One step can satisfy several stops in a row (a response and the rule it triggers).
    const entries = session.currentEntries;
    while (!this.done && entries.some((e) => entryMatches(e, this.chapter.stops[this.next].match))) {
      const s = this.chapter.stops[this.next];
      this.stops.push({
        index: this.next,
        step: session.step,
        atMs: session.kernel.state.nowMs,
        title: s.title,
        text: s.text,
        lines: entries.map((e) => narrate(e)).filter((l): l is string => l !== null),
      });
      this.next++;
    }
  }

  resolved(totalSteps: number): ResolvedChapter {
    return { chapter: this.chapter, stops: this.stops, missing: this.chapter.stops.slice(this.next).map((s) => s.title), totalSteps };
  }
}

/**
 * Runs the chapter's scenario (with `seed`, default the scenario's) and finds each stop's
 * step. `maxSteps` bounds the run for scenarios that go on long after the last stop.
 */
export function resolveChapter(chapter: Chapter, scenario: Scenario, seed = scenario.seed, maxSteps = 100000): ResolvedChapter {
  const session = new Session(scenario, seed);
  const finder = new StopFinder(chapter);
  while (session.step < maxSteps && session.forward()) finder.observe(session);
  return finder.resolved(session.step);
}
