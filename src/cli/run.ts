/** `run FILE`: one scenario, narrated or as JSON, on the memory, directory or S3 store. */
import { KNOWN_FINDING_NOTE, findingById } from '../../core/check/findings.js';
import { MODEL_KNOBS } from '../../core/domain/config.js';
import { describeJitter } from '../../core/domain/jitter.js';
import { BATCH_HEADER_BYTES, minBatchBytes } from '../../core/format/record-batch.js';
import { scaledSizesReason } from '../../core/scenario/scaled.js';
import { Kernel } from '../../core/sim/loop/kernel.js';
import { buildRunJson } from '../../core/sim/loop/output.js';
import { seedPrng } from '../../core/sim/state/prng.js';
import { Narrator } from '../../core/narrate/narrate.js';
import { VisibleStepCounter } from '../../core/session/session.js';
import { formatBytes, formatUsd } from '../../core/util/format.js';
import { describeNetwork } from '../../core/sim/world/bandwidth.js';
import { FsObjectStore, FsStoreRefused, fsFailureCode } from '../stores/fs-store.js';
import { S3LeaseHeld, S3ObjectStore, badPrefix } from '../stores/s3-store.js';
import { describeFailure, type StoreFailures } from '../stores/failure.js';
import { EXIT, signalExit } from './exit.js';
import { HELP } from './help.js';
import { type Flags, type Io, UsageError } from './flags.js';
import { checkOutputPath, inputNamedBy, writeWhole } from './output-file.js';
import { loadScenario, printProblems, resolveScenarioPath } from './scenarios.js';
import { dirname } from 'node:path';
import { TraceSpool, spoolBeside } from './trace-spool.js';
import { type TraceEntry, wholeMs } from '../../core/sim/state/trace.js';

/** Warnings of one kind printed one by one before the rest are counted. */
const MAX_REPEATED_WARNINGS = 10;

/** Options that belong to one store only: given with another, they are a mistake, not ignored. */
const STORE_FLAGS: Array<{ flag: string; set: (f: Flags) => boolean; stores: string[] }> = [
  { flag: '--dir', set: (f) => f.dir !== undefined, stores: ['fs'] },
  { flag: '--bucket', set: (f) => f.bucket !== undefined, stores: ['s3'] },
  { flag: '--wal-bucket', set: (f) => f.walBucket !== undefined, stores: ['s3'] },
  { flag: '--prefix', set: (f) => f.prefix !== undefined, stores: ['s3'] },
  { flag: '--s3-endpoint', set: (f) => f.s3Endpoint !== undefined, stores: ['s3'] },
  { flag: '--s3-timeout-ms', set: (f) => f.s3TimeoutMs !== undefined, stores: ['s3'] },
  { flag: '--force-path-style', set: (f) => f.forcePathStyle, stores: ['s3'] },
  { flag: '--create-buckets', set: (f) => f.createBuckets, stores: ['s3'] },
  { flag: '--latency', set: (f) => f.latency !== 'model', stores: ['fs', 's3'] },
  { flag: '--store-failures', set: (f) => f.storeFailures !== undefined, stores: ['fs', 's3'] },
];

/** How long a synchronous run may hold the event loop before it lets signals in. */
const YIELD_EVERY_MS = 50;

export async function cmdRun(flags: Flags, io: Io): Promise<number> {
  if (flags.help) return io.out(HELP.run), EXIT.ok;
  if (flags.positional.length !== 1) throw new UsageError('run needs exactly one FILE');
  for (const o of STORE_FLAGS) {
    if (o.set(flags) && !o.stores.includes(flags.store)) throw new UsageError(`${o.flag} applies to --store ${o.stores.join(' or ')} only (this run uses --store ${flags.store})`);
  }
  if (flags.store === 'fs' && flags.dir === undefined) throw new UsageError('--store fs needs --dir PATH');
  if (flags.store === 's3' && flags.bucket === undefined) throw new UsageError('--store s3 needs --bucket NAME');
  const file = flags.positional[0];
  // On S3 (an asynchronous store) the run keeps its trace (below): the kept-trace budget.
  const loaded = loadScenario(file, { workBudget: flags.workBudget, traceKept: flags.store === 's3' });
  if (!loaded.ok) return printProblems(io, file, loaded.problems, flags.json), EXIT.badInput;
  // A file store writes Kafka's RecordBatch v2, whose header and smallest record need room.
  if (flags.store !== 'memory') {
    const recordBytes = loaded.scenario.model.recordBytes ?? (MODEL_KNOBS.recordBytes.default as number);
    const need = minBatchBytes(1);
    if (recordBytes < need) {
      io.err(`run: ${file}: model.recordBytes is ${recordBytes}, but --store ${flags.store} writes each batch as a Kafka RecordBatch v2 of exactly the model's size, and a one-record batch needs at least ${need} bytes (a ${BATCH_HEADER_BYTES}-byte header and a ${need - BATCH_HEADER_BYTES}-byte record): give model.recordBytes ${need} or more, or run on --store memory`);
      return EXIT.badInput;
    }
  }
  // An output that cannot be written is found before the run, not after it.
  if (flags.traceOut !== undefined) {
    if (inputNamedBy(flags.traceOut, [resolveScenarioPath(file)]) !== null) {
      io.err(`run: --trace-out ${flags.traceOut} is the scenario being run (${file}); nothing was run: give --trace-out another file`);
      return EXIT.badInput;
    }
    const bad = checkOutputPath(flags.traceOut);
    if (bad !== null) return io.err(`run: --trace-out ${bad}`), EXIT.badInput;
  }
  let store: FsObjectStore | S3ObjectStore | undefined;
  if (flags.store === 'fs') {
    try {
      store = new FsObjectStore(flags.dir!);
      for (const note of store.notes) io.err(`run: --store fs: note: ${note}`);
    } catch (e) {
      if (e instanceof FsStoreRefused) return io.err(`run: --store fs: ${e.message}`), EXIT.badInput;
      if (fsFailureCode(e) === null) throw e;
      io.err(`run: --store fs: cannot use ${flags.dir}: ${(e as Error).message}`);
      return EXIT.storeFailed;
    }
  }
  if (flags.store === 's3') {
    // Checked before any request: a prefix with `..` would leave the bucket's folder on servers that keep objects as files.
    const badPrefixWhy = badPrefix(flags.prefix ?? '');
    if (badPrefixWhy !== null) throw new UsageError(`--prefix ${badPrefixWhy}: use segments separated by single slashes, e.g. tierscope/runs/`);
    const badRegionWhy = badRegion(process.env.AWS_REGION);
    if (badRegionWhy !== null) throw new UsageError(badRegionWhy);
    const s3 = new S3ObjectStore({
      bucket: flags.bucket!,
      ...(flags.walBucket ? { walBucket: flags.walBucket } : {}),
      ...(flags.prefix ? { prefix: flags.prefix } : {}),
      ...(flags.s3Endpoint ?? process.env.AWS_ENDPOINT_URL_S3 ? { endpoint: flags.s3Endpoint ?? process.env.AWS_ENDPOINT_URL_S3 } : {}),
      forcePathStyle: flags.forcePathStyle,
      ...(flags.s3TimeoutMs !== undefined ? { timeoutMs: flags.s3TimeoutMs } : {}),
    });
    try {
      await s3.check(flags.createBuckets);
      // The bucket and prefix are this run's alone (s3-store.ts, the lease).
      for (const note of await s3.takeLease()) io.err(`run: --store s3: note: ${note}`);
    } catch (e) {
      s3.destroy();
      if (e instanceof S3LeaseHeld) return io.err(`run: --store s3: ${e.message}`), EXIT.badInput;
      io.err(`--store s3: ${(e as Error).message}`);
      return EXIT.storeFailed;
    }
    store = s3;
  }
  const failures: StoreFailures | null = store?.failures ?? null;
  const stopOnFailure = (flags.storeFailures ?? 'exit') === 'exit';
  const maxSteps = flags.maxSteps ?? 5_000_000;
  // On a synchronous store the trace is not kept: each step's entries are narrated, and
  // spooled to files for --json and --trace-out, as they are made (trace-spool.ts), so a long
  // run holds no trace. An asynchronous store (S3) completes entries after they are made: its
  // run keeps the trace.
  const streaming = !(store instanceof S3ObjectStore);
  const stepEntries: TraceEntry[] = [];
  const jsonSpool = streaming && flags.json ? new TraceSpool() : null;
  const traceOutSpool = streaming && flags.traceOut !== undefined ? spoolBeside(flags.traceOut) : null;
  let remoteLogMetadataRecords = 0;
  const onTrace = (e: TraceEntry): void => {
    stepEntries.push(e);
    if (e.type === 'remoteMetadata' && (e as { action?: string }).action === 'stateChanged') remoteLogMetadataRecords++;
    // As JSON.stringify(document, null, 2) prints an element of the top-level trace array.
    if (jsonSpool !== null) jsonSpool.add(`${jsonSpool.count > 0 ? ',\n' : ''}    ${JSON.stringify(e, null, 2).replace(/\n/g, '\n    ')}`);
    if (traceOutSpool !== null) traceOutSpool.add(`${JSON.stringify(e)}\n`);
  };
  const disposeSpools = (): void => {
    jsonSpool?.dispose();
    traceOutSpool?.dispose();
  };
  const kernel = new Kernel(loaded.scenario, {
    ...(flags.seed !== undefined ? { seed: flags.seed } : {}),
    ...(store ? { store } : {}),
    latency: flags.latency,
    ...(flags.latency === 'measured' ? { clock: () => performance.now() } : {}),
    ...(streaming ? { keepTrace: false, onTrace } : {}),
  });
  /** The entries not yet narrated: this step's when streaming, else the kept trace. */
  const traceNow = (): TraceEntry[] => (streaming ? stepEntries : kernel.trace);
  /** The document on stdout: when streaming, its (empty) trace replaced by the spooled entries, written in pieces. */
  const printJson = async (doc: { trace: TraceEntry[] }): Promise<void> => {
    const text = JSON.stringify(doc, null, 2);
    const marker = '\n  "trace": [],\n';
    const at = jsonSpool === null || jsonSpool.count === 0 ? -1 : text.indexOf(marker);
    if (at < 0) {
      jsonSpool?.dispose();
      io.out(text);
      return;
    }
    io.out(`${text.slice(0, at)}\n  "trace": [`);
    await jsonSpool!.drainLines(io.out, io.drained);
    io.out(`  ],\n${text.slice(at + marker.length)}`);
  };
  // The generator as seeded: starting the cluster may already draw (a follower's first Fetch, with jitter).
  const prngBefore = JSON.stringify(seedPrng(kernel.seed));
  let printed = 0;
  const narrator = new Narrator(flags.verbose);
  if (!flags.json) {
    io.out(`${loaded.scenario.name}${loaded.scenario.description ? `: ${loaded.scenario.description.trim()}` : ''}`);
    io.out(`seed ${kernel.seed}, until t=${loaded.scenario.until}ms`);
    const scaled = scaledSizesReason(loaded.scenario);
    if (scaled !== null) io.out(`sizes scaled: ${scaled}`);
    if (flags.latency === 'measured') io.out(`store latency: measured on the ${flags.store} store (this run is not deterministic)`);
    const jitter = loaded.scenario.model.jitter;
    if (jitter !== undefined) io.out(`latency jitter drawn from the seed (model.jitter): ${describeJitter(jitter)}${flags.latency === 'measured' ? ' (the stores\' measured latencies are not jittered)' : ''}`);
    io.out('');
  }
  const flush = (): void => {
    const trace = traceNow();
    if (!flags.json) {
      for (; printed < trace.length; printed++) {
        const line = narrator.line(trace[printed]);
        if (line !== null) io.out(line);
      }
    }
    if (streaming) {
      trace.length = 0;
      printed = 0;
    }
  };
  const traceLength = (): number => traceNow().length;
  // SIGINT and SIGTERM stop the run between steps (the loop lets them in at least every
  // YIELD_EVERY_MS), with a line saying where, and the conventional exit code.
  let stoppedBy: NodeJS.Signals | null = null;
  const onSignal = (sig: NodeJS.Signals): void => {
    stoppedBy = sig;
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  const failed = (): boolean => stopOnFailure && failures !== null && failures.first !== null;
  // The walkthrough's count of the same run: it groups kernel events into visible steps.
  const visible = new VisibleStepCounter();
  const counted = (stepped: boolean, traceBefore: number): boolean => {
    visible.after(stepped, traceNow(), traceBefore, kernel.hasNext());
    return stepped;
  };
  try {
    flush();
    if (store instanceof S3ObjectStore) {
      try {
        await kernel.settle();
      } catch (e) {
        io.err(`--store s3: ${(e as Error).message}`);
        return EXIT.storeFailed;
      }
      let before = traceLength();
      while (stoppedBy === null && !failed() && kernel.hasNext() && counted(await kernel.stepAsync(), before) && kernel.state.stepCount < maxSteps) {
        flush();
        before = traceLength();
      }
    } else {
      let lastYield = performance.now();
      let before = traceLength();
      while (stoppedBy === null && !failed() && kernel.hasNext() && counted(kernel.step(), before) && kernel.state.stepCount < maxSteps) {
        flush();
        before = traceLength();
        if ((kernel.state.stepCount & 255) === 0 && performance.now() - lastYield > YIELD_EVERY_MS) {
          await new Promise((r) => setImmediate(r));
          // The narration on a pipe: wait for its reader rather than hold what it has not read.
          if (io.drained !== undefined) await io.drained();
          lastYield = performance.now();
        }
      }
    }
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    if (store instanceof S3ObjectStore) {
      await store.releaseLease();
      store.destroy();
    }
  }
  // A run whose last event was the budget's last step still ends at `until` (the step
  // that finds no event left is the one that moves the clock there).
  if (stoppedBy === null && !failed() && !kernel.hasNext()) kernel.step();
  flush();
  if (stoppedBy !== null) {
    disposeSpools();
    io.err(`run: stopped by ${stoppedBy} at t=${wholeMs(kernel.nowMs)}ms of ${loaded.scenario.until}ms (${kernel.state.stepCount} steps)${flags.traceOut !== undefined ? `; ${flags.traceOut} was not written` : ''}`);
    return signalExit(stoppedBy);
  }
  if (failed()) {
    // The run stops here: it no longer matches the same run in memory.
    traceOutSpool?.dispose();
    const json = { ...buildRunJson(kernel, streaming ? { remoteLogMetadataRecords } : undefined), storeFailures: { count: failures!.count, first: failures!.first } };
    if (flags.json) await printJson(json);
    else jsonSpool?.dispose();
    io.err(`run: the ${flags.store} store failed at t=${wholeMs(kernel.nowMs)}ms: ${describeFailure(failures!.first!)}; the run stopped (--store-failures fault models such failures as failed requests instead)`);
    return EXIT.storeFailed;
  }
  if (kernel.state.stepCount >= maxSteps && kernel.hasNext()) {
    disposeSpools();
    io.err(`run: stopped after ${maxSteps} steps at t=${wholeMs(kernel.nowMs)}ms of ${loaded.scenario.until}ms; the scenario needs more (raise the budget with --max-steps N)`);
    return EXIT.badInput;
  }
  const seedUsed = JSON.stringify(kernel.state.prng) !== prngBefore;
  const json = {
    ...buildRunJson(kernel, streaming ? { remoteLogMetadataRecords } : undefined),
    ...(failures !== null && failures.count > 0 ? { storeFailures: { count: failures.count, first: failures.first } } : {}),
  };
  if (flags.traceOut) {
    const bad = traceOutSpool !== null ? traceOutSpool.moveTo(flags.traceOut) : writeWhole(flags.traceOut, json.trace.map((e) => JSON.stringify(e)).join('\n') + '\n');
    if (bad !== null) {
      // The run's own output still goes out; only the trace file is missing.
      if (flags.json) await printJson(json);
      io.err(`run: --trace-out ${bad}`);
      return EXIT.storeFailed;
    }
  }
  // Pinned choices (a saved counterexample) that did not apply: the run is not the path they describe.
  // The first few, then a count: a file of thousands of pins would otherwise print thousands of lines.
  const mismatches = kernel.pinned?.mismatches ?? [];
  for (const m of mismatches.slice(0, MAX_REPEATED_WARNINGS)) io.err(`run: warning: pinned choice ${JSON.stringify(m.choice)} did not apply: ${m.reason}`);
  if (mismatches.length > MAX_REPEATED_WARNINGS) io.err(`run: warning: ... and ${(mismatches.length - MAX_REPEATED_WARNINGS).toLocaleString('en-US')} more pinned choices did not apply (${mismatches.length.toLocaleString('en-US')} in all)`);
  const unused = kernel.pinned?.unused() ?? [];
  for (const c of unused.slice(0, MAX_REPEATED_WARNINGS)) io.err(`run: warning: pinned choice at step ${c.step} point ${c.n} (${c.kind}) was never reached`);
  if (unused.length > MAX_REPEATED_WARNINGS) io.err(`run: warning: ... and ${(unused.length - MAX_REPEATED_WARNINGS).toLocaleString('en-US')} more pinned choices were never reached (${unused.length.toLocaleString('en-US')} in all)`);
  if (flags.seed !== undefined && !seedUsed) io.err(`run: note: --seed ${flags.seed} changed nothing: this scenario draws nothing at random, so every seed gives the same run`);
  if (jsonSpool?.failed) {
    disposeSpools();
    io.err(`run: --json: the trace could not be written to ${dirname(jsonSpool.path)} on its way to the output (${jsonSpool.failed})`);
    return EXIT.storeFailed;
  }
  if (flags.json) {
    await printJson(json);
  } else {
    io.out('');
    io.out(`Summary at t=${json.endMs}ms (${json.metrics.steps as number} kernel events, shown as ${visible.count} steps in the walkthrough):`);
    if (json.sizesScaled) io.out(`  sizes scaled: ${json.sizesScaledReason}`);
    for (const p of json.partitions) {
      io.out(`  ${p.topic}-${p.partition}: ${p.leader < 0 ? 'no leader' : `leader ${p.leader}`}, epoch ${p.leaderEpoch}, ISR [${p.isr.join(', ')}], ${p.remoteSegments.length} remote segments`);
      for (const r of p.replicas) {
        const joined = r.isrJoinedAtMs === null ? '' : `, joined the ISR at t=${r.isrJoinedAtMs}ms (${r.isrJoinedAtMs - r.addedAtMs} ms after it was added at t=${r.addedAtMs}ms)`;
        const pulled = r.bytesFromLeader + r.bytesFromStore > 0 ? `, pulled ${formatBytes(r.bytesFromLeader)} from the leader and ${formatBytes(r.bytesFromStore)} from the object stores` : '';
        const f = r.fetcher ? `, fetcher ${r.fetcher.machineState} at ${r.fetcher.fetchOffset}${r.fetcher.delayed ? ' (delayed)' : ''}${r.fetcher.failed ? ' (failed)' : ''}` : '';
        io.out(
          `    broker ${r.broker} ${r.role}${r.inIsr ? ' in ISR' : ''}: LSO ${r.logStartOffset}, LLSO ${r.localLogStartOffset}, HW ${r.highWatermark}, LEO ${r.logEndOffset}, Ry ${r.highestOffsetInRemoteStorage}${f}${joined}${pulled}`,
        );
      }
    }
    io.out(`  assumed: ${describeNetwork(kernel.state.model, kernel.state.brokerConfig['replica.fetch.max.bytes'])}`);
    const req = json.metrics.requests as Record<string, number>;
    io.out(`  requests: ${Object.entries(req).map(([k, v]) => `${k} ${v}`).join(', ') || 'none'}`);
    const m = json.metrics as Record<string, unknown>;
    const zone = m.crossZoneBytes as Record<string, number> | undefined;
    if (zone) io.out(`  cross-zone bytes: ${Object.entries(zone).map(([k, v]) => `${k} ${v}`).join(', ')}`);
    const stores = m.objectStore as Record<string, Record<string, number>> | undefined;
    if (stores) io.out(`  object stores: ${Object.entries(stores).map(([k, c]) => `${k} ${c.puts} PUT / ${c.gets} GET / ${c.deletes} DELETE`).join('; ')}`);
    const cost = m.costUsd as Record<string, number> | undefined;
    if (cost) {
      // The JSON's rounded figures, in full.
      const usd = (n: number) => formatUsd(n, { asIs: true });
      io.out(`  cost: ${usd(cost.total)} (cross-zone ${usd(cost.crossZone)}, requests ${usd(cost.objectStoreRequests)}, transfer ${usd(cost.objectStoreTransfer)}, storage ${usd(cost.storage)})`);
    }
    if (!seedUsed) io.out('  seed: nothing in this run was drawn at random, so every seed gives the same run');
    else {
      const j = json.metrics.jitter as { network: { count: number }; tiered: { count: number }; wal: { count: number } } | undefined;
      const drawn = j === undefined ? '' : ` (${j.network.count} network hops, ${j.tiered.count + j.wal.count} store requests)`;
      io.out(`  seed: ${kernel.seed} drew the jittered latencies${drawn}, so another seed gives another run`);
    }
    if (json.storeFailures) io.out(`  store failures modelled as failed requests: ${json.storeFailures.count} (the first: ${describeFailure(json.storeFailures.first!)})`);
    for (const line of invariantsLines(json.violations)) io.out(line);
  }
  return json.violations.length > 0 ? EXIT.violation : EXIT.ok;
}

/**
 * The summary's invariants: "all held", or each violation; a known finding (Kafka's own
 * behaviour, core/sim/checks/findings.ts) is named as one, not as a VIOLATION, with its
 * paragraph and where docs/protocol.md explains it.
 */
export function invariantsLines(violations: ReadonlyArray<{ atMs: number; invariant: string; message: string; finding?: string }>): string[] {
  if (violations.length === 0) return ['  invariants: all held'];
  const known = violations.filter((v) => findingById(v.finding) !== undefined);
  const fresh = violations.length - known.length;
  const out: string[] = [];
  const n = (k: number, what: string) => `${k} ${what}${k === 1 ? '' : 's'}`;
  if (known.length > 0) {
    out.push(`  invariants: ${n(known.length, 'known finding')} (${KNOWN_FINDING_NOTE})${fresh === 0 ? ', no other violation' : ` and ${n(fresh, 'violation')}`}`);
  }
  const explained = new Set<string>();
  for (const v of violations) {
    const f = findingById(v.finding);
    if (!f) {
      out.push(`  VIOLATION at t=${v.atMs}ms ${v.invariant}: ${v.message}`);
      continue;
    }
    out.push(`  KNOWN FINDING at t=${v.atMs}ms ${v.invariant}: ${v.message}`);
    if (explained.has(f.id)) continue;
    explained.add(f.id);
    out.push(`    ${f.title}. ${f.summary} See ${f.docs}.`);
  }
  return out;
}

/**
 * Why the AWS_REGION the SDK would use cannot be one, or null (unset is fine: us-east-1).
 * An empty value reaches the SDK as "Region is missing", a blank or odd one as a host name
 * it refuses; both are the user's setting, said as such before any request.
 */
export function badRegion(region: string | undefined): string | null {
  if (region === undefined) return null;
  if (region.trim() === '') return `AWS_REGION is set but empty: unset it (S3 in us-east-1 is then used) or give a region, e.g. AWS_REGION=eu-west-1`;
  if (!/^[a-zA-Z0-9-]+$/.test(region)) return `AWS_REGION ${JSON.stringify(region)} is not a region name (letters, digits and '-', e.g. eu-west-1)`;
  return null;
}
