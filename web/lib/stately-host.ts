/**
 * Stately's hosted inspector (@statelyai/inspect), loaded on demand by web/lib/inspect.ts.
 * It opens stately.ai in a new window, so the host is checked first: offline, or with the
 * host blocked, the page says so instead of opening a window on a browser error page.
 */
import type { InspectionLog } from './inspect.js';

/** Where the hosted inspector lives (createBrowserInspector's default is stately.ai/registry/inspect). */
export const STATELY_PROBE_URL = 'https://stately.ai/favicon.ico';

/**
 * Stately's host answers (any answer: an opaque no-cors response is enough). False when the
 * browser is offline, the request fails (no network, blocked) or nothing comes within
 * `timeoutMs`.
 */
export async function statelyReachable(timeoutMs = 8000): Promise<boolean> {
  if (typeof navigator !== 'undefined' && navigator.onLine === false) return false;
  const ctrl = new AbortController();
  const timer = setTimeout(() => ctrl.abort(), timeoutMs);
  try {
    await fetch(STATELY_PROBE_URL, { mode: 'no-cors', cache: 'no-store', signal: ctrl.signal });
    return true;
  } catch {
    return false;
  } finally {
    clearTimeout(timer);
  }
}

export const OFFLINE_NOTE =
  'Offline: the Stately inspector is hosted at stately.ai, which cannot be reached from here (no network, or the network blocks it), so it was not opened. The statechart view (Machines, Open statecharts) works offline.';

export async function attach(log: InspectionLog, reachable: () => Promise<boolean> = statelyReachable): Promise<string> {
  if (!(await reachable())) return OFFLINE_NOTE;
  const { createBrowserInspector } = await import('@statelyai/inspect');
  const inspector = createBrowserInspector({ autoStart: true });
  log.forward((e) => inspector.inspect.next?.(e));
  return 'Stately inspector attached: new machine events go to it (it opens in a new window and needs network access).';
}
