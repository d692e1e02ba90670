/** The CLI's --help texts (README, "The CLI"). */
import { CHAPTERS } from '../../core/report/chapters.js';
import { BUGS } from '../../core/util/bugs.js';
import { modesHelp } from '../../core/study/modes.js';

export const HELP: Record<string, string> = {
  main: `tierscope: an executable model of Kafka tiered-storage replication (KIP-405, KIP-1023, KIP-1176)

Usage: npm run sim -- <command> [options]     (or: tierscope <command>)

Commands:
  run FILE        run one scenario and narrate it (or print JSON with --json)
  compare FILE    run one workload as classic KIP-405, KIP-1023 and KIP-1176 (WAL)
  whatif          a what-if from sizes and rates (--tiered 1TiB --local 50GiB ...):
                  builds the scenario, compares the designs, says what it assumed
  import          a scenario from a real cluster: the outputs of kafka-topics.sh,
                  kafka-configs.sh and kafka-log-dirs.sh (--topics, --configs, --log-dirs)
  conformance     run the conformance suite (expected outcomes from Kafka's tests)
  explore         swarm: many seeds with random fault schedules, on every core,
                  or in shards on many machines ('explore merge' joins them);
                  explore FILE --exhaustive: every path within bounds
  list            list the bundled scenarios
  validate FILE... check scenario files without running them
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
                       (it changes a run only where the scenario draws: model.jitter)
  --plant-bug NAME     switch on a deliberate bug (core/util/bugs.ts), to replay a path
                       explore found with it (docs/checking.md)
  --store memory|fs|s3 where tiered objects go: memory (default), a directory, or S3
  --dir PATH           with --store fs: the directory (objects in Kafka's segment format)
  --bucket NAME        with --store s3: the bucket (credentials: the AWS SDK's default chain)
  --wal-bucket NAME    the bucket of the WAL's fast store (e.g. S3 Express One Zone)
  --prefix P           a key prefix inside the buckets (segments separated by single
                       slashes: no "..", ".", leading "/", "//", backslash or control
                       character)
  --s3-endpoint URL    an S3-compatible endpoint (also AWS_ENDPOINT_URL_S3); region: AWS_REGION
  --s3-timeout-ms N    the longest one S3 request may take, its 3 attempts included
                       (default 30000; connecting: 5000 an attempt); past it the request
                       fails as timed out, a store failure (see --store-failures)
  --force-path-style   path-style addressing, for S3-compatible servers
  --create-buckets     create missing buckets
  --latency model|measured
                       model (default): store requests take the modelled latency, so the
                       run is the same on every store; measured: simulated time advances
                       by what the real store took (not deterministic; the JSON says so)
  --store-failures exit|fault
                       what a failing real store does to the run: exit (default) stops
                       at the first failed request with exit 3 and its cause; fault
                       answers it as a failed request and the model goes on (backs
                       off, retries), the JSON counting them in "storeFailures"
  --trace-out FILE     also write the trace as JSON lines to FILE (checked before the
                       run; written whole or not at all)
  --max-steps N        stop (exit 2) after N steps (default 5000000): a guard against
                       scenarios that would run for hours
  --no-work-budget     do not refuse a scenario over the work budget (events, records,
                       batches, segments: docs/scenario-format.md, Limits); the other
                       limits still apply (also for compare, report, validate, explore)
  --verbose            narrate every step, including machine state changes and empty fetches
  --help               this text

Exit codes: 0 ok, 2 bad input (nothing runs), 3 an external store or an output file
failed, 129 an invariant was violated (the JSON still prints, with its violations),
130 or 143 stopped by SIGINT or SIGTERM.`,
  import: `Usage: npm run sim -- import --topics FILE [--configs FILE]... [--log-dirs FILE] [options]

A scenario from a real cluster, read from what its tools print (docs/import.md):
  --topics FILE     kafka-topics.sh --describe (TopicCommand): the topics, each
                    partition's replicas, leader and ISR (required)
  --configs FILE    kafka-configs.sh --describe --all, for topics and/or brokers
                    (ConfigCommand): configs with their sources, broker.rack as zones;
                    may be given several times (one file per entity type)
  --log-dirs FILE   kafka-log-dirs.sh --describe (LogDirsCommand): each partition's
                    local size, laid out as segments of its segment.bytes
Example:
  npm run sim -- import --topics topics.txt --configs configs.txt --log-dirs log-dirs.txt --out cluster.yaml

Options:
  --out FILE          write the scenario there (its first line names the command; an
                      existing file is written over only if an import wrote it);
                      without it the scenario goes to stdout, the assumptions to stderr
  --topic NAME        only this topic (repeat, or NAME,NAME); default every topic but
                      Kafka's internal ones (__consumer_offsets, ...)
  --tiered SIZE       bytes in remote storage only of each partition of every tiered
                      topic (none of the outputs holds it; default 0, said so);
                      --tiered TOPIC=SIZE for one topic's partitions (repeat)
  --record-bytes SIZE the records the sizes are laid out in (default 1024)
  --until MS          the run's end (default 10000)
  --seed N            the scenario's seed (default 1)
  --help              this text

Replicas out of the ISR are added empty at t=0 and catch up; a partition without a
leader, brokers that differ in a broker config, or an output cut short is refused
with one line naming the file, the line and what is missing (exit 2).`,
  whatif: `Usage: npm run sim -- whatif [options]

A design-review question in sizes and rates, answered by compare: builds an ordinary
scenario (docs/scenario-format.md) from the options, checks it as a file is checked, runs
it in each design, and prints what it assumed (every default it filled in, the network and
store figures), compare's table, and what the event's replica took. Example:

  npm run sim -- whatif --tiered 1TB --local 50MB --segment-bytes 10MB --record-bytes 1kB

The cluster (defaults in brackets, each printed when used):
  --brokers N              brokers [3], broker i in zone i mod --zones (racks round robin)
  --zones N                zones a, b, c, ... [3]; at most --brokers
  --partitions N           partitions of the tiered topic "events" [1]
  --replication-factor N   replicas of each partition, spread over the zones as Kafka's
                           rack-aware placement spreads them, leaders round robin [3]
Each partition's log at t=0 (the followers in sync):
  --tiered SIZE            bytes in remote storage only [1TiB]
  --local SIZE             bytes on the leader's disk, the active segment included; every
                           rolled segment already uploaded [50GiB]
  --active SIZE            bytes of the active segment (not uploaded), part of --local, at
                           most a segment [what --local leaves past whole segments: none
                           when --local is a whole number of segments]
  --segment-bytes SIZE     segment.bytes, at least 1MiB as Kafka requires [1GiB]
  --record-bytes SIZE      bytes of a record [1KiB]
The load:
  --produce RATE           bytes a second over all partitions, acks=all, from t=0;
                           0 for none [1MB/s]
  --linger-ms MS           the producer's linger.ms: a batch per partition each MS [5];
                           a list (5,50,200) also prints each value's month at steady
                           state in every design (KIP-1176's moves with the batching)
  --consumers-per-zone N   consumers in each zone, each reading what is produced, a
                           second behind, from the leader [0]
  --producer-zones WHERE   leader: the producer in each leader's zone; spread: one in
                           each zone, taking turns on every partition [leader]
  --fetch-from-follower    KIP-392: the brokers' replica.selector.class is
                           RackAwareReplicaSelector and each consumer's client.rack its
                           zone, so it reads from an in-sync replica of its own zone
The event, on partition 0, at --event-at-ms [1000]:
  --event add-replica      a broker joins and an empty replica is added on it [default]
  --event store-outage     the same, the tiered store unavailable for --outage-ms [10000]
                           from the moment the replica is added
  --event crash-leader     the leader crashes, and restarts --down-ms [10000] later
The run:
  --until MS               when the run ends (also --duration MS); default: estimated from
                           the sizes and the bandwidth, so the slowest design's replica
                           has time to join the ISR
  --modes LIST             designs compared: classic, kip1023, wal [classic,kip1023,wal]
  --seed N                 the scenario's seed [1]
  --max-steps N            each design's run may take at most N steps [5000000]
  --no-work-budget         do not refuse a scenario over the work budget
  --out FILE               also write the scenario to FILE, with this command in a header
                           comment; 'compare FILE' gives the same figures. An existing FILE
                           is written over only if a whatif run wrote it (its first line)
  --json                   one JSON document (docs/json-output.md, "whatif --json")
  --help                   this text

SIZE: a number and a unit as written: B, kB, MB, GB, TB (powers of 1000) or KiB, MiB, GiB,
TiB (powers of 1024); a plain number is bytes. RATE: a SIZE per second, e.g. 10MB/s.
Nothing is written without --out. Exit codes: 0 ok, 2 bad input (one line naming the
option) or a run over --max-steps, 3 --out could not be written, 129 an invariant was
violated in some design.`,
  compare: `Usage: npm run sim -- compare FILE [--modes classic,kip1023,wal] [--seed N] [--max-steps N] [--json]

Runs the scenario's workload once per mode, in memory, with the same seed and timeline:
${modesHelp()}
and prints one table: time for a new follower to catch up, bytes fetched from the leader,
cross-zone bytes, object-store requests and bytes, produce latency p50/p99 by acks,
remote reads after a failover, and the cost of the run and of a month at the same rates
(from a run of at least 1 s of simulated time; a shorter one prints "too early").
Then each mode's cost per month at steady state (docs/protocol.md §8.1): priced from the
scenario's rates once segments roll, upload and expire and retention is reached, as lines
(cross-zone replication, producer and consumer cross-zone, each store's requests and
transfer, storage on local disks, the tiered and the fast store), each with its calculation
and the same line measured in the run; the assumptions beside them, and warnings when the
run is too short to show steady state.
With --json: one JSON document { scenario, seed, modes: [...] } (costUsd.month null when too
early; steadyStateCostUsd { month, lines, assumptions, warnings }: docs/json-output.md).
--max-steps N: each mode's run may take at most N steps (default 5000000, as for run);
a run that needs more stops the command (exit 2), naming the mode.
Exit codes: 0 ok, 2 bad input or a run over --max-steps, 129 an invariant was violated
in some mode.`,
  conformance: `Usage: npm run sim -- conformance [DIR] [--json]

Runs every case in DIR (default conformance/): a scenario with expected outcomes, each
citing the Kafka test or docs/protocol.md example it comes from. Prints one line per case and
what failed. Exit codes: 0 all pass, 2 a case file is invalid, 129 a case failed.`,
  explore: `Usage: npm run sim -- explore [--seeds N] [--scenario FILE] [--faults KINDS] [--workers N]
         [--shard K/M] [--out FILE.jsonl] [--keep-going] [--plant-bug NAME] [--json]
       npm run sim -- explore merge FILES... [--json]

Runs seeds 1..N (default 200), each on one scenario (seed s takes scenario (s - 1) mod S of
the bundled ones, or FILE) with a random fault schedule made from the seed: KINDS is a
comma-separated list of crash, partition, store, slow, config (default all). Uses every
core (worker threads). Stops at the first violation no known finding explains, saves the
run as explore-failures/NAME-seed-N.json, and prints the invariant, a run command and a
walkthrough URL that replay it. Known findings (Kafka behaviour the model reproduces, see
conformance/finding-*.yaml) are counted, not failures.

Options:
  --seeds N          the seed space 1..N (default 200)
  --scenario FILE    one scenario instead of the bundled ones
  --faults KINDS     the fault kinds drawn (default all)
  --workers N        worker threads (default: the cores)
  --shard K/M        run only shard K of M: the seeds s with (s - 1) mod M = K, K from 0
                     to M - 1. The M shards are disjoint and together are 1..N.
  --shard auto/M     K from JOB_COMPLETION_INDEX (a Kubernetes Indexed Job's pod), else
                     AWS_BATCH_JOB_ARRAY_INDEX (an AWS Batch array job's child)
  --out FILE.jsonl   write every seed's result to FILE as JSON Lines (a header, a line a
                     seed in seed order, an end line), for explore merge; implies
                     --keep-going. Written under a temporary name and renamed when
                     complete; "-" writes it on stdout (the report then goes to stderr)
  --keep-going       run every seed instead of stopping at the first new violation
  --plant-bug NAME   switch on a deliberate bug in every run, to check the checker: the
                     swarm should find it (a run that finds nothing means the checks
                     missed it). NAME is one of (each described in core/util/bugs.ts):
${Object.keys(BUGS).map((k) => `                       ${k}`).join('\n')}
  --json             print one JSON document (docs/json-output.md)

explore merge FILES... reads the --out files of all M shards of one run, checks that they
belong together (the same seeds, scenarios, faults and planted bug; each shard once; every
seed once; each file complete) and prints the report, text or --json, that one run of all
N seeds with --keep-going prints, saving the first new violation the same way. Each
problem is named on a line of its own (exit 2). deploy/README.md runs the shards as a
Kubernetes Indexed Job.

Exit codes: 0 no new violation, 2 bad input, 3 the --out file could not be written, 129 a
violation was found, 130 or 143 stopped by SIGINT or SIGTERM (no --out file is left).

Usage: npm run sim -- explore FILE --exhaustive [--crashes N] [--store-faults N]
         [--partitions N] [--delays N] [--delay-ms MS] [--fault-ms MS] [--max-depth D]
         [--max-states S] [--settle-ms MS] [--strategy bfs|dfs] [--plant-bug NAME] [--json]

Explores every order of FILE's nondeterministic choices within the bounds instead of one
(docs/checking.md): which of the events due at the same millisecond runs first; whether a
message between brokers arrives --delay-ms late (at most --delays per path, default 0);
whether the store fails a request (--store-faults, default 1); whether a broker crashes
(--crashes, default 1) or is cut off (--partitions, default 0) at an instant, for
--fault-ms (default 1000). Equal states are explored once. Every invariant is checked in
every state; at the end of each path the run goes on --settle-ms (default 30000; with
--delays, --delay-ms more first) without new faults and every follower still fetching must
be in the ISR. Counts of faults are at most 10 each, durations at most 3600000 ms. Prints states explored,
distinct states, depth, whether the space was exhausted, time and states/s, and every
violation with its shortest path (breadth-first), saved in explore-failures/ as a scenario
that run replays (its faults in the timeline, its answers pinned in choices) with a
walkthrough URL. --max-depth and --max-states bound the search (default 100000 and
2000000, lowered to what the heap holds: a state costs about 4096 bytes, and a bound the
heap cannot hold is refused before starting; NODE_OPTIONS=--max-old-space-size=MB gives
more). SIGINT or SIGTERM prints the search so far (states, depth, each violation found,
saved and replayable) and exits 130 or 143. --plant-bug NAME switches on one deliberate bug (core/util/bugs.ts) to check
the checker; NAME is one of:
  ${Object.keys(BUGS).slice(0, 3).join(', ')},
  ${Object.keys(BUGS).slice(3).join(', ')}.
Exit codes: 0 no new violation, 2 bad input, 129 a new violation was found, 130 or 143
stopped by SIGINT or SIGTERM.`,
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
  validate: `Usage: npm run sim -- validate FILE... [--json]

Checks scenario files (one process for all: \`validate scenarios/*.yaml\`) and prints every
problem with its path. With --json: one document { file, valid, problems } for one file, an
array of them for several. Exit 0 when every file is valid, 2 otherwise (every file is still
checked).`,
};
