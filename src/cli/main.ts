/**
 * The headless CLI (README, "The CLI"; its JSON: docs/json-output.md): `run`, `list`, `validate`, `--help`.
 * Exit codes: 0 ok; 2 bad input; 3 an external store failed; 129 an invariant was violated.
 */
import { mkdirSync, readFileSync, readdirSync, writeFileSync, existsSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseScenarioText } from '../../core/scenario/parse.js';
import type { InputProblem, Scenario } from '../../core/scenario/types.js';
import { Kernel } from '../../core/sim/kernel.js';
import { buildRunJson } from '../../core/sim/output.js';
import { Narrator } from '../../core/narrate/narrate.js';
import { MODES, type Mode, compare, formatCompare } from '../../core/study/compare.js';
import { runCase } from '../../core/check/conformance.js';
import { loadConformance } from '../conformance.js';
import { explore } from '../explore.js';
import { FAULT_KINDS, type FaultKind } from '../../core/check/faults.js';
import { KNOWN_FINDINGS } from '../../core/check/findings.js';
import { toScenarioFile } from '../../core/scenario/serialize.js';
import { formatUsd } from '../../core/util/format.js';
import { encodeUrlState, type UrlState } from '../../web/lib/url.js';
import { CHAPTERS, findChapter, type Chapter } from '../../core/report/chapters.js';
import { REPORT_FORMATS, type ReportFormat, buildReport, renderReport } from '../../core/report/report.js';
import { FsObjectStore } from '../stores/fs-store.js';
import { S3ObjectStore } from '../stores/s3-store.js';
import { hideNodeVersionWarning } from '../node-warnings.js';

export const EXIT = { ok: 0, badInput: 2, storeFailed: 3, violation: 129 } as const;

const here = dirname(fileURLToPath(import.meta.url));
export const SCENARIO_DIR = resolve(here, '../../scenarios');

const HELP: Record<string, string> = {
  main: `tierscope: an executable model of Kafka tiered-storage replication (KIP-405, KIP-1023, KIP-1176)

Usage: npm run sim -- <command> [options]     (or: tierscope <command>)

Commands:
  run FILE        run one scenario and narrate it (or print JSON with --json)
  compare FILE    run one workload as classic KIP-405, KIP-1023 and KIP-1176 (WAL)
  conformance     run the conformance suite (expected outcomes from Kafka's tests)
  explore         swarm: many seeds with random fault schedules, on every core
  list            list the bundled scenarios
  validate FILE   check a scenario file without running it
  report FILE     a design-review document of a scenario or a guided chapter:
                  Markdown, a Mermaid sequence diagram, SVG, or JSON

Run 'npm run sim -- <command> --help' for a command's options.
Scenario format: docs/scenario-format.md. Exit codes: 0 ok, 2 bad input,
3 an external store failed, 129 an invariant was violated.`,
  run: `Usage: npm run sim -- run FILE [options]

Runs a scenario (YAML or JSON). FILE may also name a bundled scenario
without its extension (see 'list').

Options:
  --json               print exactly one JSON document on stdout (docs/json-output.md)
  --seed N             override the scenario's seed (integer 0..4294967295)
  --store memory|fs|s3 where tiered objects go: memory (default), a directory, or S3
  --dir PATH           with --store fs: the directory (objects in Kafka's segment format)
  --bucket NAME        with --store s3: the bucket (credentials: the AWS SDK's default chain)
  --wal-bucket NAME    the bucket of the WAL's fast store (e.g. S3 Express One Zone)
  --prefix P           a key prefix inside the buckets
  --s3-endpoint URL    an S3-compatible endpoint (also AWS_ENDPOINT_URL_S3); region: AWS_REGION
  --force-path-style   path-style addressing, for S3-compatible servers
  --create-buckets     create missing buckets
  --latency model|measured
                       model (default): store requests take the modelled latency, so the
                       run is the same on every store; measured: simulated time advances
                       by what the real store took (not deterministic; the JSON says so)
  --trace-out FILE     also write the trace as JSON lines to FILE
  --max-steps N        stop (exit 2) after N steps (default 5000000): a guard against
                       scenarios that would run for hours
  --verbose            narrate every step, including machine state changes and empty fetches
  --help               this text

Exit codes: 0 ok, 2 bad input, 3 an external store failed, 129 an invariant was
violated (the JSON still prints, with its violations).`,
  compare: `Usage: npm run sim -- compare FILE [--modes classic,kip1023,wal] [--seed N] [--json]

Runs the scenario's workload once per mode, in memory, with the same seed and timeline:
  classic   KIP-405 only (follower.fetch.last.tiered.offset.enable and wal.enable off)
  kip1023   follower.fetch.last.tiered.offset.enable on, wal.enable off
  wal       KIP-1176: wal.enable on for every topic (a model name)
and prints one table: time for a new follower to catch up, bytes fetched from the leader,
cross-zone bytes, object-store requests and bytes, produce latency p50/p99 by acks,
remote reads after a failover, and the cost of the run and of a month at the same rates.
With --json: one JSON document { scenario, seed, modes: [...] }.
Exit codes: 0 ok, 2 bad input, 129 an invariant was violated in some mode.`,
  conformance: `Usage: npm run sim -- conformance [DIR] [--json]

Runs every case in DIR (default conformance/): a scenario with expected outcomes, each
citing the Kafka test or docs/protocol.md example it comes from. Prints one line per case and
what failed. Exit codes: 0 all pass, 2 a case file is invalid, 129 a case failed.`,
  explore: `Usage: npm run sim -- explore [--seeds N] [--scenario FILE] [--faults KINDS] [--workers N] [--json]

Runs seeds 1..N (default 200), each on one scenario (seed s takes scenario (s - 1) mod S of
the bundled ones, or FILE) with a random fault schedule made from the seed: KINDS is a
comma-separated list of crash, partition, store, slow, config (default all). Uses every
core (worker threads). Stops at the first violation no known finding explains, saves the
run as explore-failures/NAME-seed-N.json, and prints the invariant, a run command and a
walkthrough URL that replay it. Known findings (Kafka behaviour the model reproduces, see
conformance/finding-*.yaml) are counted, not failures.
Exit codes: 0 no new violation, 2 bad input, 129 a violation was found.`,
  report: `Usage: npm run sim -- report FILE [--format md|mermaid|svg|json] [options]

Runs a scenario, or a guided chapter's scenario, and prints one document:
  md        Markdown for a KIP discussion or design doc (default): the setup, the
            configs that matter, what happens step by step in the model's narration
            (a chapter's stops, or the run's key events), the run's figures, the same
            workload as classic / kip1023 / wal side by side, invariants, and the
            commands that reproduce it
  mermaid   a Mermaid sequenceDiagram of the requests, object-store operations and
            state changes (repeated long-poll fetches left out)
  svg       a standalone SVG: each replica's offset lanes and the remote tier, and a
            compact sequence diagram of the key events
  json      the JSON of 'run --json' plus "chapter" and "comparison"

FILE is a scenario file, a bundled scenario name, or a chapter id (a chapter id wins
over a bundled scenario of the same name; give the path, e.g.
scenarios/kip1023-bootstrap.yaml, for the scenario alone). Chapters:
${CHAPTERS.map((c) => `  ${c.id}`).join('\n')}

Options:
  --format F           md (default), mermaid, svg or json
  --chapter ID         report this chapter's stops (FILE may then be left out)
  --modes LIST         modes of the comparison (default classic,kip1023,wal)
  --seed N             override the scenario's seed
  --from N, --to N     visible steps covered (as numbered in the walkthrough; a
                       chapter defaults to its stops); the SVG's lanes show step --to
  --max-messages N     the most messages of the sequence diagrams (default 200)
  --out PATH           write the document to PATH instead of stdout
  --help               this text

Exit codes: 0 ok, 2 bad input (unknown format or chapter, bad file), 129 an invariant
was violated in the run (the document is still written).`,
  list: `Usage: npm run sim -- list [--json]

Lists the bundled scenarios in scenarios/ with their descriptions.`,
  validate: `Usage: npm run sim -- validate FILE [--json]

Checks a scenario file and prints every problem with its path. Exit 0 when valid, 2 otherwise.`,
};

class UsageError extends Error {}

interface Io {
  out: (s: string) => void;
  err: (s: string) => void;
}

interface Flags {
  positional: string[];
  json: boolean;
  verbose: boolean;
  help: boolean;
  seed?: number;
  store: string;
  dir?: string;
  bucket?: string;
  walBucket?: string;
  prefix?: string;
  s3Endpoint?: string;
  forcePathStyle: boolean;
  createBuckets: boolean;
  traceOut?: string;
  latency: 'model' | 'measured';
  modes?: Mode[];
  seeds?: number;
  maxSteps?: number;
  scenario?: string;
  faults?: FaultKind[];
  workers?: number;
  format?: ReportFormat;
  chapter?: string;
  out?: string;
  fromStep?: number;
  toStep?: number;
  maxMessages?: number;
}

/** Options only `report` takes: elsewhere they stay unknown options, as before. */
const REPORT_ONLY = new Set(['--format', '--chapter', '--out', '--from', '--to', '--max-messages']);

function parseFlags(args: string[], command?: string): Flags {
  const f: Flags = { positional: [], json: false, verbose: false, help: false, store: 'memory', forcePathStyle: false, createBuckets: false, latency: 'model' };
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (command !== 'report' && REPORT_ONLY.has(a)) throw new UsageError(`unknown option ${a}`);
    const value = (): string => {
      const v = args[++i];
      if (v === undefined || v.startsWith('--')) throw new UsageError(`${a} needs a value`);
      return v;
    };
    switch (a) {
      case '--json':
        f.json = true;
        break;
      case '--verbose':
        f.verbose = true;
        break;
      case '--help':
      case '-h':
        f.help = true;
        break;
      case '--seed': {
        const v = value();
        if (!/^\d+$/.test(v) || Number(v) > 0xffffffff) throw new UsageError(`--seed expects an integer from 0 to 4294967295, got "${v}"`);
        f.seed = Number(v);
        break;
      }
      case '--store':
        f.store = value();
        if (!['memory', 'fs', 's3'].includes(f.store)) throw new UsageError(`--store expects memory, fs or s3, got "${f.store}"`);
        break;
      case '--latency': {
        const v = value();
        if (v !== 'model' && v !== 'measured') throw new UsageError(`--latency expects model or measured, got "${v}"`);
        f.latency = v;
        break;
      }
      case '--modes': {
        const v = value();
        const list = v.split(',').map((x) => x.trim()).filter((x) => x !== '');
        const bad = list.filter((x) => !(MODES as readonly string[]).includes(x));
        if (list.length === 0 || bad.length > 0) throw new UsageError(`--modes expects a comma-separated list of ${MODES.join(', ')}, got "${v}"`);
        f.modes = [...new Set(list)] as Mode[];
        break;
      }
      case '--seeds':
      case '--workers':
      case '--max-steps': {
        const v = value();
        if (!/^\d+$/.test(v) || Number(v) < 1 || Number(v) > 1_000_000_000) throw new UsageError(`${a} expects a whole number from 1, got "${v}"`);
        if (a === '--seeds') f.seeds = Number(v);
        else if (a === '--workers') f.workers = Number(v);
        else f.maxSteps = Number(v);
        break;
      }
      case '--scenario':
        f.scenario = value();
        break;
      case '--faults': {
        const v = value();
        const list = v.split(',').map((x) => x.trim()).filter((x) => x !== '');
        const bad = list.filter((x) => !(FAULT_KINDS as readonly string[]).includes(x));
        if (bad.length > 0) throw new UsageError(`--faults expects a comma-separated list of ${FAULT_KINDS.join(', ')}, got "${v}"`);
        f.faults = [...new Set(list)] as FaultKind[];
        break;
      }
      case '--trace-out':
        f.traceOut = value();
        break;
      case '--dir':
        f.dir = value();
        break;
      case '--bucket':
        f.bucket = value();
        break;
      case '--wal-bucket':
        f.walBucket = value();
        break;
      case '--prefix':
        f.prefix = value();
        break;
      case '--s3-endpoint':
        f.s3Endpoint = value();
        break;
      case '--format': {
        const v = value();
        if (!(REPORT_FORMATS as readonly string[]).includes(v)) throw new UsageError(`--format expects ${REPORT_FORMATS.join(', ')}, got "${v}"`);
        f.format = v as ReportFormat;
        break;
      }
      case '--chapter':
        f.chapter = value();
        break;
      case '--out':
        f.out = value();
        break;
      case '--from':
      case '--to': {
        const v = value();
        if (!/^\d+$/.test(v) || Number(v) > 1_000_000_000) throw new UsageError(`${a} expects a step number from 0, got "${v}"`);
        if (a === '--from') f.fromStep = Number(v);
        else f.toStep = Number(v);
        break;
      }
      case '--max-messages': {
        const v = value();
        if (!/^\d+$/.test(v) || Number(v) < 1 || Number(v) > 1_000_000) throw new UsageError(`--max-messages expects a whole number from 1, got "${v}"`);
        f.maxMessages = Number(v);
        break;
      }
      case '--force-path-style':
        f.forcePathStyle = true;
        break;
      case '--create-buckets':
        f.createBuckets = true;
        break;
      default:
        if (a.startsWith('-')) throw new UsageError(`unknown option ${a}`);
        f.positional.push(a);
    }
  }
  return f;
}

/** A path, or the name of a bundled scenario without extension. */
export function resolveScenarioPath(arg: string): string {
  if (existsSync(arg)) return arg;
  for (const ext of ['.yaml', '.yml', '.json']) {
    const p = join(SCENARIO_DIR, arg + ext);
    if (existsSync(p)) return p;
  }
  return arg;
}

type Loaded = { ok: true; scenario: Scenario } | { ok: false; problems: InputProblem[] };

export function loadScenario(file: string): Loaded {
  const path = resolveScenarioPath(file);
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    const why = code === 'ENOENT' ? 'no such file (and no bundled scenario of that name)' : code === 'EISDIR' ? 'is a directory' : `cannot be read (${code ?? 'error'})`;
    return { ok: false, problems: [{ path: '', message: `${file}: ${why}` }] };
  }
  return parseScenarioText(text, basename(path));
}

function printProblems(io: Io, file: string, problems: InputProblem[], json: boolean): void {
  if (json) {
    io.out(JSON.stringify({ file, valid: false, problems }, null, 2));
    return;
  }
  io.err(`${file}: ${problems.length} problem${problems.length === 1 ? '' : 's'}`);
  for (const p of problems) io.err(`  ${p.path === '' ? '(file)' : p.path}: ${p.message}`);
}

export function listScenarios(): Array<{ file: string; name: string; description: string }> {
  const out: Array<{ file: string; name: string; description: string }> = [];
  for (const f of readdirSync(SCENARIO_DIR).sort()) {
    if (!/\.(ya?ml|json)$/.test(f)) continue;
    const r = loadScenario(join(SCENARIO_DIR, f));
    if (r.ok) out.push({ file: f.replace(/\.(ya?ml|json)$/, ''), name: r.scenario.name, description: r.scenario.description });
  }
  return out;
}

async function cmdRun(flags: Flags, io: Io): Promise<number> {
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

function cmdCompare(flags: Flags, io: Io): number {
  if (flags.help) return io.out(HELP.compare), EXIT.ok;
  if (flags.positional.length !== 1) throw new UsageError('compare needs exactly one FILE');
  if (flags.store !== 'memory') throw new UsageError('compare runs in memory only (no --store)');
  const file = flags.positional[0];
  const loaded = loadScenario(file);
  if (!loaded.ok) return printProblems(io, file, loaded.problems, flags.json), EXIT.badInput;
  const result = compare(loaded.scenario, flags.modes ?? [...MODES], flags.seed);
  io.out(flags.json ? JSON.stringify(result, null, 2) : formatCompare(result));
  return result.modes.some((m) => m.violations > 0) ? EXIT.violation : EXIT.ok;
}

function cmdConformance(flags: Flags, io: Io): number {
  if (flags.help) return io.out(HELP.conformance), EXIT.ok;
  if (flags.positional.length > 1) throw new UsageError('conformance takes at most one DIR');
  const dir = flags.positional[0];
  let loaded: ReturnType<typeof loadConformance>;
  try {
    loaded = loadConformance(dir);
  } catch (e) {
    io.err(`conformance: cannot read ${dir ?? 'conformance/'}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
    return EXIT.badInput;
  }
  if (loaded.problems.length > 0) {
    for (const p of loaded.problems) io.err(p);
    return EXIT.badInput;
  }
  const results = loaded.cases.map(runCase);
  const failed = results.filter((r) => r.failures.length > 0);
  if (flags.json) io.out(JSON.stringify({ cases: results.length, failed: failed.length, results }, null, 2));
  else {
    for (const r of results) {
      io.out(`${r.failures.length === 0 ? 'ok  ' : 'FAIL'} ${r.file}: ${r.name}`);
      io.out(`     from ${r.source}`);
      for (const f of r.failures) io.out(`     - ${f}`);
    }
    io.out(`${results.length - failed.length} of ${results.length} cases pass`);
  }
  return failed.length > 0 ? EXIT.violation : EXIT.ok;
}

async function cmdExplore(flags: Flags, io: Io): Promise<number> {
  if (flags.help) return io.out(HELP.explore), EXIT.ok;
  if (flags.positional.length > 0) throw new UsageError('explore takes no FILE; use --scenario FILE');
  const scenarios: Array<{ file: string; scenario: Scenario }> = [];
  if (flags.scenario !== undefined) {
    const loaded = loadScenario(flags.scenario);
    if (!loaded.ok) return printProblems(io, flags.scenario, loaded.problems, flags.json), EXIT.badInput;
    scenarios.push({ file: basename(resolveScenarioPath(flags.scenario)).replace(/\.(ya?ml|json)$/, ''), scenario: loaded.scenario });
  } else {
    for (const s of listScenarios()) {
      const loaded = loadScenario(join(SCENARIO_DIR, `${s.file}.yaml`));
      if (loaded.ok) scenarios.push({ file: s.file, scenario: loaded.scenario });
    }
  }
  const seeds = flags.seeds ?? 200;
  const kinds = flags.faults ?? [...FAULT_KINDS];
  const tty = process.stderr.isTTY === true;
  let last = 0;
  const report = await explore({
    scenarios,
    seeds,
    kinds,
    ...(flags.workers !== undefined ? { workers: flags.workers } : {}),
    onProgress: (done, total) => {
      if (!tty || (done !== total && Date.now() - last < 250)) return;
      last = Date.now();
      process.stderr.write(`\r${done}/${total} seeds`);
    },
  });
  if (tty) process.stderr.write('\n');
  const f = report.failure;
  let replay: { file: string; command: string; url: string } | null = null;
  if (f !== null) {
    mkdirSync('explore-failures', { recursive: true });
    const file = join('explore-failures', `${f.scenario}-seed-${f.seed}.json`);
    const text = JSON.stringify(toScenarioFile(f.scenarioObject), null, 2);
    writeFileSync(file, text + '\n');
    replay = { file, command: `npm run sim -- run ${file} --seed ${f.seed}`, url: `http://localhost:5173/?${encodeUrlState({ source: text, seed: f.seed, actions: [] })}` };
  }
  if (flags.json) {
    const { failure, ...rest } = report;
    io.out(JSON.stringify({ ...rest, failure: failure === null ? null : { scenario: failure.scenario, seed: failure.seed, violations: failure.violations, error: failure.error ?? null, replay } }, null, 2));
  } else {
    io.out(`${report.runs} seeds over ${scenarios.length} scenario${scenarios.length === 1 ? '' : 's'} (faults: ${kinds.join(', ')}) in ${report.seconds} s on ${report.workers} workers: ${report.seedsPerSecond} seeds/s, ${report.steps} steps`);
    for (const [id, n] of Object.entries(report.known)) {
      const k = KNOWN_FINDINGS.find((x) => x.id === id);
      io.out(`known finding ${id} met in ${n} run${n === 1 ? '' : 's'} (${k?.reproducedBy ?? ''})`);
    }
    if (f === null) io.out('no new violation');
    else {
      if (f.error !== undefined) io.out(`MODEL ERROR in ${f.scenario} seed ${f.seed}: ${f.error}`);
      for (const v of f.violations) io.out(`VIOLATION in ${f.scenario} seed ${f.seed} at t=${v.atMs}ms: ${v.invariant}: ${v.message}`);
      io.out(`saved the run as ${replay!.file}`);
      io.out(`replay: ${replay!.command}`);
      io.out(`watch:  npm start, then open ${replay!.url}`);
    }
  }
  return f === null ? EXIT.ok : EXIT.violation;
}

/** The bundled scenario a path names (file name without extension), or null for a file of the user's. */
function bundledName(path: string): string | null {
  const abs = resolve(path);
  if (dirname(abs) !== SCENARIO_DIR || !existsSync(abs)) return null;
  return basename(abs).replace(/\.(ya?ml|json)$/, '');
}

function cmdReport(flags: Flags, io: Io): number {
  if (flags.help) return io.out(HELP.report), EXIT.ok;
  if (flags.positional.length > 1) throw new UsageError('report takes one FILE (a scenario file, a bundled scenario or a chapter id)');
  if (flags.store !== 'memory') throw new UsageError('report runs in memory only (no --store)');
  if (flags.fromStep !== undefined && flags.toStep !== undefined && flags.fromStep > flags.toStep) throw new UsageError(`--from ${flags.fromStep} is after --to ${flags.toStep}`);
  const format: ReportFormat = flags.format ?? (flags.json ? 'json' : 'md');
  let chapter: Chapter | undefined;
  if (flags.chapter !== undefined) {
    chapter = findChapter(flags.chapter);
    if (chapter === undefined) {
      io.err(`report: no chapter "${flags.chapter}"; the chapters are ${CHAPTERS.map((c) => c.id).join(', ')}`);
      return EXIT.badInput;
    }
  }
  let file = flags.positional[0];
  if (file === undefined) {
    if (chapter === undefined) throw new UsageError('report needs a FILE or --chapter ID');
    file = chapter.scenario;
  } else if (chapter === undefined && !existsSync(file) && findChapter(file) !== undefined) {
    // A chapter id names its scenario and its stops; a file of that name on disk wins.
    chapter = findChapter(file)!;
    file = chapter.scenario;
  }
  const loaded = loadScenario(file);
  if (!loaded.ok) return printProblems(io, file, loaded.problems, false), EXIT.badInput;
  const path = resolveScenarioPath(file);
  const bundled = bundledName(path);
  const seed = flags.seed ?? loaded.scenario.seed;
  const url: UrlState = bundled !== null ? { scenario: bundled, seed, actions: [] } : { source: readFileSync(path, 'utf8'), seed, actions: [] };
  if (chapter !== undefined && bundled === chapter.scenario) url.chapter = chapter.id;
  else if (flags.toStep !== undefined) url.step = flags.toStep;
  const wantsComparison = format === 'md' || format === 'json';
  const report = buildReport(loaded.scenario, {
    seed,
    ...(chapter !== undefined ? { chapter } : {}),
    modes: wantsComparison ? (flags.modes ?? MODES) : [],
    ...(flags.fromStep !== undefined ? { fromStep: flags.fromStep } : {}),
    ...(flags.toStep !== undefined ? { toStep: flags.toStep } : {}),
    ...(flags.maxMessages !== undefined ? { maxMessages: flags.maxMessages } : {}),
    ...(flags.maxSteps !== undefined ? { maxSteps: flags.maxSteps } : {}),
    scenarioRef: bundled ?? file,
    walkthroughUrl: `http://localhost:5173/?${encodeUrlState(url)}`,
  });
  if (report.chapter !== null && report.chapter.missing.length > 0) {
    io.err(`report: ${report.chapter.missing.length} stop${report.chapter.missing.length === 1 ? '' : 's'} of chapter ${report.chapter.chapter.id} not reached in this run: ${report.chapter.missing.join('; ')}`);
  }
  const text = renderReport(report, format);
  if (flags.out !== undefined) {
    try {
      writeFileSync(flags.out, text);
    } catch (e) {
      io.err(`report: cannot write ${flags.out}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
      return EXIT.badInput;
    }
    if (process.stderr.isTTY === true) process.stderr.write(`wrote ${flags.out} (${format}, ${text.length} characters)\n`);
  } else {
    io.out(text.replace(/\n$/, ''));
  }
  return report.run.violations.length > 0 ? EXIT.violation : EXIT.ok;
}

function cmdList(flags: Flags, io: Io): number {
  if (flags.help) return io.out(HELP.list), EXIT.ok;
  const list = listScenarios();
  if (flags.json) io.out(JSON.stringify(list, null, 2));
  else {
    for (const s of list) io.out(`${s.file}\n    ${s.name}: ${s.description.trim().replace(/\s+/g, ' ')}`);
    io.out('');
    io.out("Guided chapters (npm run sim -- report ID, or ?chapter=ID in the walkthrough):");
    for (const c of CHAPTERS) io.out(`${c.id}\n    ${c.title} (scenario ${c.scenario})`);
  }
  return EXIT.ok;
}

function cmdValidate(flags: Flags, io: Io): number {
  if (flags.help) return io.out(HELP.validate), EXIT.ok;
  if (flags.positional.length !== 1) throw new UsageError('validate needs exactly one FILE');
  const file = flags.positional[0];
  const loaded = loadScenario(file);
  if (!loaded.ok) return printProblems(io, file, loaded.problems, flags.json), EXIT.badInput;
  if (flags.json) io.out(JSON.stringify({ file, valid: true, problems: [] }, null, 2));
  else io.out(`${file}: valid (${loaded.scenario.name})`);
  return EXIT.ok;
}

export async function main(argv: string[], io: Io): Promise<number> {
  try {
    const [command, ...rest] = argv;
    if (command === undefined || command === '--help' || command === '-h' || command === 'help') {
      io.out(HELP.main);
      return command === undefined ? EXIT.badInput : EXIT.ok;
    }
    const flags = parseFlags(rest, command);
    switch (command) {
      case 'run':
        return await cmdRun(flags, io);
      case 'compare':
        return cmdCompare(flags, io);
      case 'conformance':
        return cmdConformance(flags, io);
      case 'explore':
        return await cmdExplore(flags, io);
      case 'list':
        return cmdList(flags, io);
      case 'validate':
        return cmdValidate(flags, io);
      case 'report':
        return cmdReport(flags, io);
      default:
        throw new UsageError(`unknown command "${command}"; expected run, compare, conformance, explore, list, validate or report`);
    }
  } catch (e) {
    if (e instanceof UsageError) {
      io.err(`tierscope: ${e.message}. See --help.`);
      return EXIT.badInput;
    }
    // A bug in the model, not the input: say so plainly; the stack only on request.
    io.err(`tierscope: internal error: ${(e as Error).message}`);
    if (process.env.TIERSCOPE_DEBUG) io.err((e as Error).stack ?? '');
    else io.err('Set TIERSCOPE_DEBUG=1 to see where it happened, and please report it with the scenario file.');
    return 70;
  }
}

const isEntry = process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url);
if (isEntry) {
  hideNodeVersionWarning();
  const chunks: string[] = [];
  void main(process.argv.slice(2), {
    out: (s) => chunks.push(s),
    err: (s) => process.stderr.write(s + '\n'),
  }).then((code) => process.stdout.write(chunks.length ? chunks.join('\n') + '\n' : '', () => process.exit(code)));
}
