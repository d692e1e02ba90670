/**
 * The Conditions panel's commands, shared by its buttons and the keyboard (web/lib/keyboard.ts):
 * each records one timeline action on the run, for the partition shown.
 */
import type { PartitionView } from '../../core/session/view.js';
import type { RunState } from './run.svelte.js';

/** The largest burst the Records field takes. */
export const BURST_MAX = 100000;

export function toggleKip1023(run: RunState): void {
  run.act({ kind: 'setConfig', values: { 'follower.fetch.last.tiered.offset.enable': !run.view?.kip1023Enabled } });
}
export function toggleTiering(run: RunState, partition: PartitionView | null): void {
  if (!partition) return;
  // Kafka refuses turning tiering off unless the remote data goes too (KIP-950,
  // LogConfig.validateTurningOffRemoteStorageWithDelete): the switch asks for both.
  const values: Record<string, boolean> = partition.tiered ? { 'remote.storage.enable': false, 'remote.log.delete.on.disable': true } : { 'remote.storage.enable': true };
  run.act({ kind: 'setConfig', topic: partition.topic, values });
}
export function toggleWal(run: RunState, partition: PartitionView | null): void {
  if (!partition) return;
  run.act({ kind: 'setConfig', topic: partition.topic, values: { 'wal.enable': !partition.walEnabled } });
}
export function toggleStore(run: RunState): void {
  run.act({ kind: 'objectStore', available: !run.view?.storeAvailable.tiered, store: 'tiered' });
}
export function toggleFastStore(run: RunState): void {
  run.act({ kind: 'objectStore', available: !run.view?.storeAvailable.wal, store: 'wal' });
}
export function produceBurst(run: RunState, partition: PartitionView | null, records: number): void {
  if (!partition) return;
  run.act({ kind: 'produce', topic: partition.topic, partition: partition.partition, records: Math.max(1, Math.min(BURST_MAX, records | 0)), acks: 1 });
}
