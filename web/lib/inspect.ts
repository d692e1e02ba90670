/**
 * Attaches Stately's inspector (@statelyai/inspect, the v5 successor of @xstate/inspect)
 * and feeds it the kernel's machine transitions: each machine is an actor id
 * (`fetcher@broker1/orders-0`), each delivered event an inspection event with the state it
 * led to. The inspector opens in a new window; it needs network access to stately.ai.
 */
import type { RunState } from './run.svelte.js';

export async function attachStatelyInspector(run: RunState): Promise<string> {
  try {
    const { createBrowserInspector } = await import('@statelyai/inspect');
    const inspector = createBrowserInspector({ autoStart: true });
    const seen = new Set<string>();
    for (const e of run.inspection) {
      if (!seen.has(e.actor)) {
        inspector.actor(e.actor, { status: 'active', context: {} } as never);
        seen.add(e.actor);
      }
      inspector.event(e.actor, { type: e.kind });
      inspector.snapshot(e.actor, { status: 'active', value: e.detail.split(' → ')[1], context: {} } as never);
    }
    return `Stately inspector attached with ${run.inspection.length} events (it opens in a new window and needs network access).`;
  } catch (err) {
    return `The Stately inspector could not start here: ${(err as Error).message}`;
  }
}
