/**
 * What the statechart view (StatechartView.svelte, loaded on demand) needs from the page's
 * own modules, handed to it as one object instead of imported: a module the first load holds
 * and the view's chunk imported too would be split out of the page's entry chunk into chunks
 * of its own, and the first load's JavaScript would grow (bench/page.ts measures it).
 */
import { mount, unmount } from 'svelte';
import { and, not, or } from 'xstate';
import { RULES } from '../../core/narrate/narrate.js';
import { MACHINES } from '../../core/sim/runtime/machines.js';
import { scopeFor } from '../../core/sim/runtime/pure-transition.js';
import { BROKER_KEY } from '../../core/sim/state/state.js';
import { attachStatelyInspector } from './inspect.js';
import type { RunState } from './run.svelte.js';
import type { GuardChecks } from './statechart-graph.js';

const check = (g: unknown) => (g as { check: unknown }).check;

export const GUARD_CHECKS: GuardChecks = { and: check(and([])), or: check(or([])), not: check(not(() => true)) };

export const chartKit = {
  machines: MACHINES,
  checks: GUARD_CHECKS,
  /** The machine's inert actor scope (XState's microstep needs one to list a step's eventless moves). */
  scopeOf: (name: keyof typeof MACHINES) => scopeFor(MACHINES[name]).scope as unknown,
  brokerKey: BROKER_KEY,
  rules: RULES,
  attachInspector: attachStatelyInspector,
};

export type ChartKit = typeof chartKit;

/**
 * Opens the statechart view over the page (a modal dialog), loading it first (its chunk holds
 * elkjs); while it is open the run records each step's machine deliveries. Returns '' or why
 * the view could not load.
 */
export async function openStatecharts(run: RunState): Promise<string> {
  try {
    const { default: View } = await import('../components/StatechartView.svelte');
    run.setChartEnabled(true);
    const view = mount(View, {
      target: document.body,
      props: {
        kit: chartKit,
        run,
        onclose: () => {
          void unmount(view);
          run.setChartEnabled(false);
        },
      },
    });
    return '';
  } catch (e) {
    return `The statechart view could not load: ${(e as Error).message}`;
  }
}
