/**
 * The deterministic kernel: simulated time in integer milliseconds and an event queue
 * ordered by (time, sequence). It is the loop only: it pops an event, hands it to the
 * handler of its kind, steps the machines the handlers deliver to (pure XState machines,
 * core/sim/runtime/machines.ts), executes the effects they ask for through the interpreter
 * (core/sim/loop/effects.ts), and checks the invariants of what the step touched. The
 * cluster's behaviour lives in the subsystems of core/sim/world/, each a module of functions
 * of a `Sim` (core/sim/state/context.ts): network, store, tiering, replica-log, clients,
 * controller, wal. The subfolders of core/sim/ are layers (README, "The kernel"): loop/
 * imports world/, which imports state/, which imports runtime/ and checks/; never upwards.
 *
 * A run is a pure function of (scenario, seed, user actions); `checkpoint()` returns plain
 * data from which `Kernel.restore()` continues with the same trace.
 *
 * Leaves out: the controller's quorum (elections are immediate and clean), fetch
 * sessions, client quotas, transactions, compaction. (Replication throttles, the remote
 * copy and fetch quotas and the remote reader pool are core/sim/world/quotas.ts.)
 */
import type { AnyMachineSnapshot } from 'xstate';
import { logEndOffset } from '../../domain/partition-log.js';
import { MemoryObjectStore, type ObjectStoreBackend } from '../../ports/object-store.js';
import type { Scenario, TimelineAction } from '../../scenario/types.js';
import { assert, fail } from '../../util/assert.js';
import { onConsumerFetch, onConsumerRemoteRead, onRemoteFetchExpired, onRemoteIndexRead, onConsumerResponse, sendConsumerFetch } from '../world/clients.js';
import { onTransferDone } from '../world/bandwidth.js';
import type { Sim } from '../state/context.js';
import { applyTimeline } from '../world/controller.js';
import { EFFECTS, READ_ONLY_EFFECTS, resumeQuotaWait } from './effects.js';
import { type Chooser, PinnedChooser, describeEvent, isTimelineEvent } from './choices.js';
import { type Queued, dueFirst, pop, push, pushFirst, peek, remove } from '../state/event-queue.js';
import { combinerFacts, leaderFacts, leaderView, machineState, metadataReady, replica, replicaFacts, logRetentionFacts, remoteExpiredNow, rlmFacts, rlmTaskEvent, walEnabled, walFallbackActive, walStartOffset, zoneOf } from '../state/facts.js';
import { type Change, type Violation, checkChange, checkInvariants } from '../checks/invariants.js';
import { isFindingEvidence, knownFinding } from '../checks/findings.js';
import { MACHINES, type MachineEvents, type MachineName, type MachineStep, fastStep, isLiveSnapshot, stateName } from '../runtime/machines.js';
import { admitRequest, onFollowerRequest, onFollowerRequestAtLeader, onFollowerResponse, severed, takeParked, traceResponse } from '../world/network.js';
import { pureInitialTransition } from '../runtime/pure-transition.js';
import { setUpPartitions, initialState, startCluster } from './setup.js';
import { BROKER_KEY, type Checkpoint, type KernelEvent, type KernelEventOf, type KernelState, type RequestMessage, type ResponseMessage, type PartitionState, type ReplicaState, cloneJson, copyState, replicaStatsOf } from '../state/state.js';
import { onAuxStateRead, onRemoteSegmentLookup, onSegmentObjectDone, setRemoteSegmentState } from '../world/tiering.js';
import { type Endpoint, type TraceEntry, wholeMs } from '../state/trace.js';
import { onWalChunkDelivered, onWalChunkRead, onWalDeleteDone, onWalPutDone, retainedChunks } from '../world/wal.js';

/** The params of an effect that names none (never written to). */
const EMPTY_PARAMS: Record<string, unknown> = Object.freeze({});

export interface Delivery {
  /** `broker|topic-partition|machine`. */
  id: string;
  name: MachineName;
  broker: number;
  key: string;
  before: AnyMachineSnapshot;
  event: { type: string };
  atMs: number;
}

export interface KernelOptions {
  store?: ObjectStoreBackend;
  /**
   * `model` (default): a store request completes after the modelled latency, so runs are
   * deterministic on every store. `measured`: after the time the real store took (at least
   * 1 ms); such a run is not deterministic, and its JSON says so.
   */
  latency?: 'model' | 'measured';
  /** The wall clock, ms, for `latency: 'measured'` (the core reads no clock of its own). */
  clock?: () => number;
  /** Seed override (the CLI's --seed). */
  seed?: number;
  /**
   * Keep every trace entry in `trace` (default true). A headless run that only streams the
   * trace (`onTrace`) passes false, so an hour-long run does not hold millions of entries.
   * Needs a synchronous store (an asynchronous store completes trace entries later).
   */
  keepTrace?: boolean;
  /** Called with every trace entry as it is made, kept or not (synchronous stores only). */
  onTrace?: (e: TraceEntry) => void;
  /**
   * The machine step (default `fastStep`, the equivalent of XState's pure `transition()`).
   * The benchmark replaces it to measure what the machines cost; it must return what
   * `transition()` returns for the same arguments, or the run is a different run.
   */
  transition?: MachineStep;
  /**
   * Check the invariants of every partition after every step, not only of those the step
   * may have changed (slower; the tests use it to show that both give the same run).
   */
  checkEveryPartition?: boolean;
  /**
   * Answers the kernel's choice points (core/sim/loop/choices.ts). Absent: the scenario's pinned
   * `choices` if it has any, else none (every point takes its default, and is not even asked).
   */
  chooser?: Chooser;
}

/** The handler of each kind of queued event: a new kind fails to compile until it has one. */
const HANDLERS: { readonly [K in KernelEvent['kind']]: (s: Kernel, ev: KernelEventOf<K>) => void } = {
  injected: (k, ev) => applyTimeline(k, ev.action),
  timeline: (k, ev) => {
    const action = k.scenario.timeline[ev.index].action;
    applyTimeline(k, action);
    if (action.kind === 'produce' && action.everyMs !== undefined) {
      const next = k.state.nowMs + action.everyMs;
      if (next <= (action.untilMs ?? k.scenario.until)) k.schedule(next, { kind: 'timeline', index: ev.index });
    }
  },
  transferDone: (k, ev) => onTransferDone(k, ev.transferId),
  deliver: (k, { msg }) => (msg.dir === 'request' ? onRequest(k, msg) : onResponse(k, msg)),
  machineTimer: (k, ev) => {
    if (!k.state.brokers[ev.broker].alive) return;
    switch (ev.machine) {
      case 'fetcher':
        return k.deliver(ev.broker, ev.key, 'fetcher', { type: 'backoff.expired', timerId: ev.timerId });
      case 'walCombiner':
        return k.deliver(ev.broker, BROKER_KEY, 'walCombiner', { type: 'wal.timer', timerId: ev.timerId, ...combinerFacts(k.state, ev.broker) });
      case 'walReplica':
        return k.deliver(ev.broker, ev.key, 'walReplica', { type: 'wal.retry', timerId: ev.timerId });
      case 'rlm':
        return k.deliver(ev.broker, ev.key, 'rlm', rlmTaskEvent(k.state, ev.broker, ev.key, ev.timerId));
      case 'rlmExpiration':
        return k.deliver(ev.broker, ev.key, 'rlmExpiration', { type: 'expiration.due', timerId: ev.timerId });
      case 'logRetention':
        return k.deliver(ev.broker, ev.key, 'logRetention', { type: 'retention.due', timerId: ev.timerId });
    }
  },
  walChunkDelivered: onWalChunkDelivered,
  walLogChanged: (k, ev) => {
    if (!k.state.brokers[ev.broker].alive) return;
    const end = logEndOffset(replica(k.state, ev.key, ev.broker).log);
    // Below what the replica's WAL machine knew: a truncation; it reads the metadata again from there.
    const knew = (k.machineSnapshot(ev.broker, ev.key, 'walReplica')?.context as { logEndOffset?: number } | undefined)?.logEndOffset ?? 0;
    k.deliver(ev.broker, ev.key, 'walReplica', { type: 'wal.logChanged', logEndOffset: end, ...(end < knew ? { rewound: retainedChunks(k.state, ev.key) } : {}) });
  },
  fetchWaitExpired: (k, ev) => {
    const parked = takeParked(k.state.partitions[ev.key], ev.msgId);
    if (parked !== undefined) onFollowerRequestAtLeader(k, parked.msg, 'expired');
  },
  remoteFetchExpired: onRemoteFetchExpired,
  remoteSegmentLookedUp: onRemoteSegmentLookup,
  storeDone: (k, ev) => {
    if (!k.state.brokers[ev.broker].alive) return;
    const c = ev.completion;
    // What a replica reads from a store to build its own log (KIP-405's auxiliary state, KIP-1176's chunks).
    if ((c.for === 'auxState' || c.for === 'walChunk') && ev.result.ok) replicaStatsOf(k.state, ev.key, ev.broker).bytesFromStore += ev.result.bytes;
    switch (c.for) {
      case 'consumerRead':
        return onConsumerRemoteRead(k, ev);
      case 'remoteIndex':
        return onRemoteIndexRead(k, ev);
      case 'walPut':
        return onWalPutDone(k, ev);
      case 'walChunk':
        return onWalChunkRead(k, ev);
      case 'walDelete':
        return onWalDeleteDone(k, ev);
      case 'deleteOnDisable':
        return;
      case 'copy':
      case 'remoteDelete':
        return onSegmentObjectDone(k, ev);
      case 'auxState':
        return onAuxStateRead(k, ev, c.object);
    }
  },
  consumerFetch: (k, ev) => sendConsumerFetch(k, ev.consumerId),
  isrCheck: (k, ev) => {
    const part = k.state.partitions[ev.key];
    if (!k.state.brokers[ev.broker].alive || part.leader !== ev.broker) return;
    k.deliver(ev.broker, ev.key, 'leader', {
      type: 'isr.check',
      timerId: ev.timerId,
      ...leaderFacts(k.state, ev.key, ev.broker),
    });
  },
  quotaWait: (k, ev) => resumeQuotaWait(k, ev.what),
  rlmStep: (k, ev) => {
    if (!k.state.brokers[ev.broker].alive) return;
    if (ev.task === 'copy') k.deliver(ev.broker, ev.key, 'rlm', { type: 'rlm.step', requestId: ev.requestId, ...rlmFacts(k.state, ev.key, ev.broker) });
    else if (ev.task === 'expiration') k.deliver(ev.broker, ev.key, 'rlmExpiration', { type: 'expiration.step', requestId: ev.requestId, remoteExpired: remoteExpiredNow(k.state, ev.key, ev.broker) });
    else k.deliver(ev.broker, ev.key, 'logRetention', { type: 'retention.step', requestId: ev.requestId, ...logRetentionFacts(k.state, ev.key, ev.broker) });
  },
};

/** A request arrives at a broker: a consumer's, or a follower's for the leader. */
function onRequest(s: Sim, msg: RequestMessage): void {
  if (!admitRequest(s, msg)) return;
  if (msg.source === 'consumer' && msg.api === 'Fetch') return onConsumerFetch(s, msg);
  onFollowerRequest(s, msg);
}

/** A response arrives: traced, then the consumer or the follower fetcher takes it. */
function onResponse(s: Sim, sent: ResponseMessage): void {
  const msg = severed(s, sent);
  const batches = traceResponse(s, msg);
  if (msg.target === 'consumer' && msg.api === 'Fetch') return onConsumerResponse(s, msg);
  onFollowerResponse(s, msg, batches);
}

export class Kernel implements Sim {
  readonly scenario: Scenario;
  /** The seed this run uses (the scenario's, or an override). */
  readonly seed: number;
  state: KernelState;
  trace: TraceEntry[] = [];
  store: ObjectStoreBackend;
  readonly latencyMode: 'model' | 'measured';
  readonly clock: () => number;
  /**
   * Called with every event delivered to a machine and the snapshot it met, before the
   * transition (the browser's inspection log replays these on real XState actors).
   */
  onDeliver: ((d: Delivery) => void) | null = null;
  /** Requests to an asynchronous store issued in this step, awaited before the next. */
  pendingIo: Promise<void>[] = [];
  /** The requests a leader is answering in this step. */
  answering: RequestMessage[] = [];
  private machines: Record<string, AnyMachineSnapshot> = {};
  private machineIds: Record<string, Record<number, Partial<Record<MachineName, string>>>> = {};
  private keepTrace = true;
  /** Without the trace (keepTrace false): the few entries a known finding reads (core/sim/checks/findings.ts). */
  private findingEvidence: TraceEntry[] = [];
  private traceSink: ((e: TraceEntry) => void) | null = null;
  private machineStep: MachineStep = fastStep;
  private checkEveryPartition = false;
  /**
   * Partitions whose invariant inputs the current step may have changed (an effect other
   * than READ_ONLY_EFFECTS, a timeline action); their invariants are checked after the step,
   * since an unchanged partition gives the answer of its last check.
   * `touchedAll`: every partition (at the start, after a restore, after a cluster-wide change).
   */
  private touched: string[] = [];
  private touchedAll = true;
  private partitionIndex: Record<string, number> = {};
  /** Answers choice points; null: every point takes its default without being asked. */
  private chooser: Chooser | null = null;
  /** The pinned choices of the scenario, when they are the chooser (their mismatches are read after the run). */
  pinned: PinnedChooser | null = null;
  /** The step under way (choice points outside a step, in the page's recorded actions, take their default). */
  private stepUnderWay = 0;
  private choiceN = 0;

  constructor(scenario: Scenario, options: KernelOptions = {}) {
    this.scenario = scenario;
    this.store = options.store ?? new MemoryObjectStore();
    this.keepTrace = options.keepTrace ?? true;
    this.traceSink = options.onTrace ?? null;
    this.machineStep = options.transition ?? fastStep;
    this.checkEveryPartition = options.checkEveryPartition ?? false;
    // An asynchronous store completes its trace entries after they are made.
    assert((this.keepTrace && this.traceSink === null) || this.store.executeAsync === undefined, 'keepTrace false and onTrace need a synchronous store');
    this.latencyMode = options.latency ?? 'model';
    assert(this.latencyMode === 'model' || options.clock !== undefined, 'latency measured needs a clock');
    this.clock = options.clock ?? (() => 0);
    this.seed = options.seed ?? scenario.seed;
    this.useChooser(options);
    this.state = initialState(scenario, this.seed);
    setUpPartitions(this);
    this.indexPartitions();
    scenario.timeline.forEach((e, index) => push(this.state.queue, e.at, { kind: 'timeline', index }));
    startCluster(this);
  }

  /** Continue a run from a checkpoint taken by `checkpoint()`. */
  static restore(scenario: Scenario, cp: Checkpoint, options: KernelOptions = {}): Kernel {
    const k = Object.create(Kernel.prototype) as Kernel;
    const w = k as unknown as Record<string, unknown>;
    w.scenario = scenario;
    w.seed = cp.seed;
    w.latencyMode = 'model';
    w.clock = () => 0;
    k.store = options.store ?? new MemoryObjectStore();
    // Stored objects are never changed in place, so the store's maps are copied, not its objects.
    k.store.restore(cp.store);
    k.state = copyState(cp.state);
    k.trace = cp.trace.slice(0, cp.traceLength ?? cp.trace.length);
    k.answering = [];
    k.pendingIo = [];
    k.onDeliver = null;
    k.keepTrace = true;
    k.traceSink = options.onTrace ?? null;
    k.machineStep = options.transition ?? fastStep;
    k.checkEveryPartition = options.checkEveryPartition ?? false;
    k.stepUnderWay = 0;
    k.choiceN = 0;
    k.useChooser(options);
    k.touched = [];
    k.touchedAll = true;
    k.machineIds = {};
    k.indexPartitions();
    k.machines = {};
    for (const [id, persisted] of Object.entries(cp.machines)) {
      if (isLiveSnapshot(persisted)) {
        k.machines[id] = persisted;
        continue;
      }
      const name = id.split('|')[2] as MachineName;
      const p = cloneJson(persisted) as { value: unknown; context: Record<string, unknown> };
      k.machines[id] = (MACHINES[name] as (typeof MACHINES)['fetcher']).resolveState({
        value: p.value as never,
        context: p.context as never,
      }) as AnyMachineSnapshot;
    }
    return k;
  }

  /**
   * A checkpoint that takes this kernel's state instead of copying it, for a kernel that is
   * not used again (the exhaustive checker's successors): cheaper than `checkpoint()`.
   */
  release(): Checkpoint {
    return { seed: this.seed, state: this.state, machines: this.machines, store: this.store.snapshot(), trace: this.trace, traceLength: this.trace.length };
  }

  checkpoint(): Checkpoint {
    return { seed: this.seed, state: copyState(this.state), machines: { ...this.machines }, store: this.store.snapshot(), trace: this.trace, traceLength: this.trace.length };
  }

  private useChooser(options: KernelOptions): void {
    const pins = this.scenario.choices ?? [];
    this.pinned = options.chooser === undefined && pins.length > 0 ? new PinnedChooser(pins) : null;
    this.chooser = options.chooser ?? this.pinned?.choose ?? null;
  }

  private indexPartitions(): void {
    this.partitionIndex = {};
    this.state.partitionOrder.forEach((key, i) => (this.partitionIndex[key] = i));
  }

  // ------------------------------------------------------------------ the loop

  get nowMs(): number {
    return this.state.nowMs;
  }

  /** True while events remain at or before `until`. */
  hasNext(): boolean {
    const next = peek(this.state.queue);
    return next !== undefined && next.at <= this.scenario.until;
  }

  /** Processes one event. Returns false when the run has ended. */
  step(): boolean {
    const next = peek(this.state.queue);
    if (next === undefined || next.at > this.scenario.until) {
      this.state.nowMs = this.scenario.until;
      return false;
    }
    let ev = next.ev;
    if (this.chooser === null) pop(this.state.queue);
    else {
      // Choice points are numbered within their step; outside a step none is asked.
      this.stepUnderWay = this.state.stepCount + 1;
      this.choiceN = 0;
      const chosen = this.chooseDue();
      remove(this.state.queue, chosen);
      ev = chosen.ev;
    }
    this.state.nowMs = next.at;
    this.state.stepCount++;
    (HANDLERS[ev.kind] as (k: Kernel, ev: KernelEvent) => void)(this, ev);
    this.stepUnderWay = 0;
    this.checkTouched();
    return true;
  }

  /**
   * The due event to run: the chooser picks among the events due at the earliest time (the
   * first of the timeline's, and every other). Its default is the queue's first.
   */
  private chooseDue(): Queued<KernelEvent> {
    const due = dueFirst(this.state.queue);
    let timeline = false;
    const candidates = due.filter((q) => {
      if (!isTimelineEvent(q.ev)) return true;
      if (timeline) return false;
      return (timeline = true);
    });
    if (candidates.length === 1) return candidates[0];
    const pick = this.chooser!({ kind: 'order', step: this.stepUnderWay, n: this.choiceN++, options: candidates.length, what: () => candidates.map((q) => describeEvent(q.ev, this.scenario.timeline)) });
    assert(Number.isInteger(pick) && pick >= 0 && pick < candidates.length, `order choice ${pick} of ${candidates.length}`);
    return candidates[pick];
  }

  choose(kind: 'delay' | 'storeFault', what: () => string): number {
    if (this.chooser === null || this.stepUnderWay === 0) return 0;
    const answer = this.chooser({ kind, step: this.stepUnderWay, n: this.choiceN++, options: 2, what: () => [what()] });
    assert(Number.isInteger(answer) && answer >= 0 && (kind === 'delay' || answer <= 1), `${kind} choice ${answer}`);
    return answer;
  }

  /**
   * Queues a fault (or its end) at `atMs`, before every other event of that time but after
   * the faults queued before it: the exhaustive checker's, run as a timeline event.
   */
  inject(atMs: number, action: TimelineAction): void {
    pushFirst(this.state.queue, atMs, { kind: 'injected', action });
  }

  /** Processes every event at or before `ms` (and before `until`); the clock then reads `ms`. */
  runUntil(ms: number): void {
    for (;;) {
      const next = peek(this.state.queue);
      if (next === undefined || next.at > ms || next.at > this.scenario.until) break;
      this.step();
    }
    this.state.nowMs = Math.max(this.state.nowMs, Math.min(ms, this.scenario.until));
  }

  runToEnd(maxSteps = Number.MAX_SAFE_INTEGER): void {
    let n = 0;
    while (n++ < maxSteps && this.step()) {
      /* keep stepping */
    }
  }

  /** Waits for every store request issued so far (asynchronous stores only). */
  async settle(): Promise<void> {
    while (this.pendingIo.length > 0) await Promise.all(this.pendingIo.splice(0));
  }

  /** One step, with the store's requests completed before it returns. */
  async stepAsync(): Promise<boolean> {
    await this.settle();
    const more = this.step();
    await this.settle();
    return more;
  }

  /** Exposed for the browser's recorded actions: same effect as a timeline event now. */
  applyAction(action: TimelineAction): void {
    applyTimeline(this, action);
    this.checkTouched();
  }

  schedule(atMs: number, ev: KernelEvent): void {
    push(this.state.queue, atMs, ev);
  }

  /** Every trace entry goes through here: kept in `trace` (unless `keepTrace` is false) and streamed to `onTrace`. */
  emit(e: TraceEntry): void {
    // Trace times are whole ms (the end of a transfer may fall within one: core/sim/world/bandwidth.ts).
    if (!Number.isInteger(e.atMs)) e.atMs = wholeMs(e.atMs);
    if (this.keepTrace) this.trace.push(e);
    else if (isFindingEvidence(e)) this.findingEvidence.push(e);
    if (this.traceSink !== null) this.traceSink(e);
  }

  addViolation(v: Violation): void {
    const k = `${v.invariant}|${v.subject ?? ''}`;
    if (this.state.violationKeys[k]) return;
    this.state.violationKeys[k] = true;
    // A known finding (Kafka's own behaviour) is marked as such, for every output to say so.
    const finding = knownFinding(v, this.keepTrace ? this.trace : this.findingEvidence)?.id;
    const marked = finding === undefined ? v : { ...v, finding };
    this.state.violations.push(Number.isInteger(marked.atMs) ? marked : { ...marked, atMs: wholeMs(marked.atMs) });
    this.emit({ atMs: v.atMs, type: 'violation', invariant: v.invariant, message: v.message, ...(finding === undefined ? {} : { finding }) });
  }

  /** The checkers' hook (Sim.observe): the change is checked now; a change to remote metadata raises its version. */
  observe(change: Change): void {
    if (change.kind === 'remoteSegmentAdded' || (change.kind === 'remoteSegmentState' && change.from !== change.to)) {
      const versions = this.state.checkCache.remoteVersion;
      versions[change.key] = (versions[change.key] ?? 0) + 1;
    }
    const found = checkChange(this.state, change);
    for (let i = 0; i < found.length; i++) this.addViolation(found[i]);
  }

  // ------------------------------------------------------------------ machines

  /** Steps one machine with an event and executes the effects it asks for. */
  deliver<N extends MachineName>(broker: number, key: string, name: N, event: MachineEvents[N]): void {
    const id = this.machineId(broker, key, name);
    const snap = this.machines[id];
    if (snap === undefined) fail(`machine ${id} exists`);
    if (this.onDeliver !== null) this.onDeliver({ id, name, broker, key, before: snap, event, atMs: this.state.nowMs });
    const [next, actions] = this.machineStep(name, snap, event);
    this.machines[id] = next;
    // The same value (the fast step shares one per state) is the same state: no names needed.
    if (next.value !== snap.value) {
      const before = stateName(snap.value);
      const after = stateName(next.value);
      if (before !== after) {
        const part = this.state.partitions[key] as PartitionState | undefined;
        const where = part === undefined ? {} : { topic: part.topic, partition: part.partition };
        this.emit({ atMs: this.state.nowMs, type: `${name}State`, broker, ...where, from: before, to: after, event: event.type });
      }
    }
    const handlers = EFFECTS[name] as unknown as Record<string, ((s: Sim, broker: number, key: string, p: unknown) => void) | undefined>;
    const readOnly = READ_ONLY_EFFECTS[name] as ReadonlySet<string>;
    for (let i = 0; i < actions.length; i++) {
      const action = actions[i] as { type: string; params?: unknown };
      if (action.type.startsWith('xstate.')) continue;
      const run = handlers[action.type];
      if (run === undefined) fail(`unknown effect ${action.type} from ${name}`);
      // Every change to what the invariants read goes through an effect (or a timeline action).
      if (!readOnly.has(action.type)) this.touch(key);
      run(this, broker, key, action.params ?? EMPTY_PARAMS);
    }
  }

  createMachine(broker: number, key: string, name: MachineName): void {
    const machine = MACHINES[name] as (typeof MACHINES)['fetcher'];
    const part = this.state.partitions[key] as PartitionState | undefined;
    const input = part === undefined ? { broker, topic: '', partition: -1 } : { broker, topic: part.topic, partition: part.partition };
    const [snap] = pureInitialTransition(machine, input);
    this.machines[this.machineId(broker, key, name)] = snap as AnyMachineSnapshot;
  }

  /**
   * `broker|topic-partition|machine`, the key of a machine, made once: a string built anew
   * for every lookup would be hashed anew every time.
   */
  private machineId(broker: number, key: string, name: MachineName): string {
    const perKey = (this.machineIds[key] ??= {});
    const perBroker = (perKey[broker] ??= {});
    return (perBroker[name] ??= `${broker}|${key}|${name}`);
  }

  machineSnapshot(broker: number, key: string, name: MachineName): AnyMachineSnapshot | undefined {
    return this.machines[this.machineId(broker, key, name)];
  }

  machineState(broker: number, key: string, name: MachineName): string {
    return machineState(this, broker, key, name);
  }

  // ------------------------------------------------------------------ invariants

  /** The step may have changed this partition (its invariants are checked after it). */
  touch(key: string): void {
    const t = this.touched;
    if (this.touchedAll || key === BROKER_KEY || (t.length > 0 && t[t.length - 1] === key) || t.includes(key)) return;
    t.push(key);
  }

  /** A change that may reach every partition (a crash, a config change). */
  touchAll(): void {
    this.touchedAll = true;
  }

  /** Checks the invariants of the partitions touched since the last check, in partition order. */
  private checkTouched(): void {
    const t = this.touched;
    let keys: readonly string[] = t;
    if (this.touchedAll || this.checkEveryPartition) keys = this.state.partitionOrder;
    else if (t.length === 0) return;
    else if (t.length > 1) t.sort((a, b) => this.partitionIndex[a] - this.partitionIndex[b]);
    const found = checkInvariants(this.state, keys, true);
    t.length = 0;
    this.touchedAll = false;
    for (const v of found) this.addViolation(v);
  }

  // ------------------------------------------------------------------ reads for the views and tests

  objectStore(): ObjectStoreBackend {
    return this.store;
  }

  replica(key: string, broker: number): ReplicaState {
    return replica(this.state, key, broker);
  }

  replicaFacts(key: string, broker: number) {
    return replicaFacts(this.state, key, broker);
  }

  leaderView(key: string, broker: number) {
    return leaderView(this.state, key, broker);
  }

  rlmFacts(key: string, broker: number) {
    return rlmFacts(this.state, key, broker);
  }

  metadataReady(key: string, broker: number): boolean {
    return metadataReady(this.state, key, broker);
  }

  zoneOf(e: Endpoint, key: string): string {
    return zoneOf(this.state, e, key);
  }

  walEnabled(key: string): boolean {
    return walEnabled(this.state, key);
  }

  walStartOffset(key: string): number {
    return walStartOffset(this.state, key);
  }

  walFallbackActive(broker: number): boolean {
    return walFallbackActive(this, broker);
  }

  /** A remote segment's state changed from outside a machine (tests of the invariants). */
  setRemoteSegmentState(key: string, segmentId: string, to: Parameters<typeof setRemoteSegmentState>[3]): void {
    setRemoteSegmentState(this, key, segmentId, to);
  }
}
