/**
 * Inspection with XState's own `inspect` option. The kernel steps machines with the pure
 * transition(), which has no inspect hook, so while the event log is open each machine of
 * the run is mirrored by a real XState actor, started from the snapshot the kernel's event
 * met and sent the same event: XState's inspect option then reports the events, snapshots
 * and actions (the machines' effects are no-ops outside the kernel, so nothing runs twice).
 * The same inspection stream can feed Stately's inspector (@statelyai/inspect).
 */
import { type AnyActorRef, type InspectionEvent, createActor } from 'xstate';
import type { Delivery } from '../../core/sim/loop/kernel.js';
import { MACHINES } from '../../core/sim/runtime/machines.js';

export interface LogEntry {
  atMs: number;
  actor: string;
  kind: string;
  detail: string;
}

export class InspectionLog {
  entries: LogEntry[] = [];
  private actors = new Map<string, AnyActorRef>();
  private atMs = 0;
  private external: ((e: InspectionEvent) => void) | null = null;
  onChange: (() => void) | null = null;

  /** Forward every inspection event to another inspector too (Stately's). */
  forward(fn: (e: InspectionEvent) => void): void {
    this.external = fn;
  }

  reset(): void {
    for (const a of this.actors.values()) a.stop();
    this.actors.clear();
  }

  deliver(d: Delivery): void {
    this.atMs = d.atMs;
    let actor = this.actors.get(d.id);
    if (actor === undefined) {
      const machine = MACHINES[d.name] as (typeof MACHINES)['fetcher'];
      const label = `${d.name}@broker${d.broker}/${d.key}`;
      const [broker, key] = [d.broker, d.key];
      actor = createActor(machine, {
        id: label,
        // The input is only used for a fresh start; the snapshot restores the kernel's state.
        input: { broker, topic: key, partition: 0 },
        snapshot: machine.getPersistedSnapshot(d.before as never) as never,
        inspect: (e) => this.record(label, e),
      });
      actor.start();
      this.actors.set(d.id, actor);
    }
    actor.send(d.event as never);
  }

  private record(actor: string, e: InspectionEvent): void {
    this.external?.(e);
    if (e.type === '@xstate.event') {
      this.entries.push({ atMs: this.atMs, actor, kind: 'event', detail: e.event.type });
    } else if (e.type === '@xstate.snapshot') {
      const v = (e.snapshot as { value?: unknown }).value;
      this.entries.push({ atMs: this.atMs, actor, kind: 'snapshot', detail: JSON.stringify(v) });
    } else if (e.type === '@xstate.action') {
      const a = e.action as { type: string };
      if (!a.type.startsWith('xstate.')) this.entries.push({ atMs: this.atMs, actor, kind: 'action', detail: a.type });
    }
    if (this.entries.length > 400) this.entries.splice(0, this.entries.length - 300);
    this.onChange?.();
  }
}

/**
 * Attaches Stately's inspector: it opens in a new window on stately.ai and needs the
 * internet, so web/lib/stately-host.ts first checks the host answers; offline (or blocked)
 * it returns a note saying so instead of opening a window on a browser error page. Loaded on
 * demand with the inspector's package.
 */
export async function attachStatelyInspector(log: InspectionLog): Promise<string> {
  try {
    const host = await import('./stately-host.js');
    return await host.attach(log);
  } catch (err) {
    return `The Stately inspector could not start here: ${(err as Error).message}`;
  }
}
