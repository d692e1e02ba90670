/** `run FILE`: one scenario, narrated or as JSON, on the memory, directory or S3 store. */
import { writeFileSync } from 'node:fs';
import { Kernel } from '../../core/sim/kernel.js';
import { buildRunJson } from '../../core/sim/output.js';
import { Narrator } from '../../core/narrate/narrate.js';
import { formatUsd } from '../../core/util/format.js';
import { FsObjectStore } from '../stores/fs-store.js';
import { S3ObjectStore } from '../stores/s3-store.js';
import { EXIT } from './exit.js';
import { HELP } from './help.js';
import { type Flags, type Io, UsageError } from './flags.js';
import { loadScenario, printProblems } from './scenarios.js';

export async function cmdRun(flags: Flags, io: Io): Promise<number> {
  if (flags.help) return io.out(HELP.run), EXIT.ok;
  if (flags.positional.length !== 1) throw new UsageError('run needs exactly one FILE');
  if (flags.store === 'fs' && flags.dir === undefined) throw new UsageError('--store fs needs --dir PATH');
  if (flags.store === 's3' && flags.bucket === undefined) throw new UsageError('--store s3 needs --bucket NAME');
  const file = flags.positional[0];
  const loaded = loadScenario(file);
  if (!loaded.ok) return printProblems(io, file, loaded.problems, flags.json), EXIT.badInput;
  let store: FsObjectStore | S3ObjectStore | undefined;
  if (flags.store === 'fs') {
    try {
      store = new FsObjectStore(flags.dir!);
    } catch (e) {
      io.err(`--store fs: cannot use ${flags.dir}: ${(e as Error).message}`);
      return EXIT.storeFailed;
    }
  }
  if (flags.store === 's3') {
    const s3 = new S3ObjectStore({
      bucket: flags.bucket!,
      ...(flags.walBucket ? { walBucket: flags.walBucket } : {}),
      ...(flags.prefix ? { prefix: flags.prefix } : {}),
      ...(flags.s3Endpoint ?? process.env.AWS_ENDPOINT_URL_S3 ? { endpoint: flags.s3Endpoint ?? process.env.AWS_ENDPOINT_URL_S3 } : {}),
      forcePathStyle: flags.forcePathStyle,
    });
    try {
      await s3.check(flags.createBuckets);
    } catch (e) {
      io.err(`--store s3: ${(e as Error).message}`);
      s3.destroy();
      return EXIT.storeFailed;
    }
    store = s3;
  }
  const maxSteps = flags.maxSteps ?? 5_000_000;
  const kernel = new Kernel(loaded.scenario, { ...(flags.seed !== undefined ? { seed: flags.seed } : {}), ...(store ? { store } : {}), latency: flags.latency, ...(flags.latency === 'measured' ? { clock: () => performance.now() } : {}) });
  let printed = 0;
  const narrator = new Narrator(flags.verbose);
  if (!flags.json) {
    io.out(`${loaded.scenario.name}${loaded.scenario.description ? `: ${loaded.scenario.description.trim()}` : ''}`);
    io.out(`seed ${kernel.seed}, until t=${loaded.scenario.until}ms`);
    if (flags.latency === 'measured') io.out(`store latency: measured on the ${flags.store} store (this run is not deterministic)`);
    io.out('');
  }
  const flush = (): void => {
    if (flags.json) return;
    for (; printed < kernel.trace.length; printed++) {
      const line = narrator.line(kernel.trace[printed]);
      if (line !== null) io.out(line);
    }
  };
  flush();
  if (store instanceof S3ObjectStore) {
    try {
      await kernel.settle();
    } catch (e) {
      io.err(`--store s3: ${(e as Error).message}`);
      store.destroy();
      return EXIT.storeFailed;
    }
    while ((await kernel.stepAsync()) && kernel.state.stepCount < maxSteps) flush();
    store.destroy();
  } else {
    while (kernel.step() && kernel.state.stepCount < maxSteps) flush();
  }
  flush();
  if (kernel.state.stepCount >= maxSteps && kernel.hasNext()) {
    io.err(`run: stopped after ${maxSteps} steps at t=${kernel.nowMs}ms of ${loaded.scenario.until}ms; the scenario needs more (raise the budget with --max-steps N)`);
    return EXIT.badInput;
  }
  const json = buildRunJson(kernel);
  if (flags.traceOut) writeFileSync(flags.traceOut, json.trace.map((e) => JSON.stringify(e)).join('\n') + '\n');
  if (flags.json) {
    io.out(JSON.stringify(json, null, 2));
  } else {
    io.out('');
    io.out(`Summary at t=${json.endMs}ms (${json.metrics.steps as number} steps):`);
    for (const p of json.partitions) {
      io.out(`  ${p.topic}-${p.partition}: leader ${p.leader}, epoch ${p.leaderEpoch}, ISR [${p.isr.join(', ')}], ${p.remoteSegments.length} remote segments`);
      for (const r of p.replicas) {
        const f = r.fetcher ? `, fetcher ${r.fetcher.machineState} at ${r.fetcher.fetchOffset}${r.fetcher.delayed ? ' (delayed)' : ''}${r.fetcher.failed ? ' (failed)' : ''}` : '';
        io.out(
          `    broker ${r.broker} ${r.role}${r.inIsr ? ' in ISR' : ''}: LSO ${r.logStartOffset}, LLSO ${r.localLogStartOffset}, HW ${r.highWatermark}, LEO ${r.logEndOffset}, Ry ${r.highestOffsetInRemoteStorage}${f}`,
        );
      }
    }
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
    if (json.violations.length === 0) io.out('  invariants: all held');
    else for (const v of json.violations) io.out(`  VIOLATION at t=${v.atMs}ms ${v.invariant}: ${v.message}`);
  }
  return json.violations.length > 0 ? EXIT.violation : EXIT.ok;
}
