/**
 * What a what-if assumed (core/scenario/whatif.ts), as the lines `npm run sim -- whatif`
 * prints under "assumed:" and the page's "Your partition" form shows: the cluster, each
 * partition's log, the producer, the consumers, the event and the run's end with the estimate
 * it was made from. `defaults` are the options left at their defaults, as flags ("--brokers 3").
 * Pure: the CLI (src/cli/whatif.ts) and the page (web/lib/whatif-form.ts) print them.
 */
import { formatBytes, formatMs, formatRate } from '../util/format.js';
import { sizeFlagText } from '../util/size.js';
import { type WhatIf, WHATIF_TOPIC } from './whatif.js';

export function describeWhatIfAssumptions(w: WhatIf, defaults: readonly string[]): string[] {
  const i = w.input;
  const b = (n: number) => formatBytes(n);
  const e = w.event;
  const lines: string[] = [];
  const zones = `${i.zones} zone${i.zones === 1 ? '' : 's'} (${w.zones.join(', ')}; broker i in zone i mod ${i.zones})`;
  lines.push(`  cluster    ${i.brokers} broker${i.brokers === 1 ? '' : 's'} in ${zones}; topic ${WHATIF_TOPIC}: ${i.partitions} partition${i.partitions === 1 ? '' : 's'}, replication factor ${i.replicationFactor}, replicas ${JSON.stringify(w.replicas).replace(/,/g, ', ')} (leader first)`);
  const perRemote = w.layout.recordsPerRemoteSegment * i.recordBytes;
  const coarse = w.layout.recordsPerRemoteSegment !== w.layout.recordsPerSegment
    ? ` of ${b(perRemote)}, ${w.layout.recordsPerRemoteSegment / w.layout.recordsPerSegment} x segment.bytes, so that the scenario fits a file: a new replica's bootstrap reads none of them`
    : '';
  // Binary units, with the size as given beside them when it reads otherwise (931 GiB (1TB)).
  const both = (n: number) => (sizeFlagText(n).endsWith('iB') || n < 1024 ? b(n) : `${b(n)} (${sizeFlagText(n)})`);
  lines.push(
    `  log        each partition: ${both(w.layout.remoteBytes)} in remote storage only (${w.layout.remoteSegments.toLocaleString('en-US')} segment${w.layout.remoteSegments === 1 ? '' : 's'}${coarse}), ${both(w.layout.localBytes)} local ` +
      `(${w.layout.bothSegments} uploaded and still local, then ${w.layout.activeBytes === 0 ? 'an empty active segment' : `the active segment of ${b(w.layout.activeBytes)}`}${i.activeBytes === null ? '' : ' (--active)'}); segment.bytes ${i.segmentBytes} (${b(i.segmentBytes)}), ` +
      `${i.recordBytes}-byte records written in ${b(Math.max(1024 * 1024, i.recordBytes))} batches; the followers in sync`,
  );
  if (w.produce === null) lines.push(`  producer   none (--produce 0)`);
  else {
    const p = w.produce;
    const where = i.producerZones === 'spread' ? `; one producer in each of the ${i.zones} zones, taking turns (--producer-zones spread)` : "; in each partition leader's zone";
    lines.push(`  producer   ${p.records} record${p.records === 1 ? '' : 's'} to each partition every ${p.everyMs} ms, acks=all, from t=0: ${formatRate(p.bytesPerSec)} in all${p.recordAtATime ? ` (under a record per linger.ms: each record sent alone)` : ''}${where}`);
  }
  const reads = i.fetchFromFollower
    ? ', reading from an in-sync replica of their own zone (KIP-392: replica.selector.class RackAwareReplicaSelector, client.rack = zone)'
    : ', reading from the leader';
  lines.push(`  consumers  ${i.consumersPerZone === 0 ? `none${i.fetchFromFollower ? ' (--fetch-from-follower has no consumer to act on)' : ''}` : `${i.consumersPerZone} in each zone${reads}`}`);
  const where = e.zone === e.leaderZone ? `zone ${e.zone}, the leader's` : `zone ${e.zone}; the leader is in zone ${e.leaderZone}`;
  if (e.kind === 'crash-leader') lines.push(`  event      t=${e.atMs}ms: broker ${e.broker}, the leader of ${WHATIF_TOPIC}-0, crashes (another in-sync replica is elected); it restarts at t=${e.endsAtMs}ms`);
  else lines.push(`  event      t=${e.atMs}ms: broker ${e.broker} (${where}) joins and an empty replica of ${WHATIF_TOPIC}-0 is added on it${e.kind === 'store-outage' ? `; the tiered store is unavailable from then until t=${e.endsAtMs}ms` : ''}`);
  const est = w.estimate;
  const copies = e.kind === 'crash-leader'
    ? `the restarted broker copies what was produced while it was down, about ${b(est.copyBytes.classic)}`
    : `classic copies the leader's local log, ${b(est.copyBytes.classic)}; KIP-1023 from the Earliest-Pending-Upload-Offset, the active segment, ${b(est.copyBytes.kip1023)}`;
  lines.push(`  run        until t=${w.untilMs}ms${i.untilMs === null ? ` (estimated: ${copies}; about ${formatMs(Math.round(est.catchUpMs ?? 0), { unit: 'auto' })} at replica.fetch.max.bytes a Fetch; --until to change)` : ' (--until)'}`);
  if (defaults.length > 0) lines.push(`  defaults   ${defaults.join(' ')}`);
  return lines;
}
