/**
 * The `choices` of a scenario: answers pinned at the kernel's choice points
 * (core/sim/loop/choices.ts; docs/scenario-format.md, "Pinned choices"). The exhaustive checker
 * writes them into the counterexamples it saves; a person may edit them too.
 */
import { MAX_TIMELINE_ENTRIES, Problems, checkKeys, expectArray, expectMap, indexPath, intC, keyPath, list, oneOfC, opt, req, stringC } from './checks.js';
import { CHOICE_KINDS, type PinnedChoice } from './types.js';

const CHOICE_KEYS = ['step', 'n', 'kind', 'pick', 'what'] as const;

export function validateChoices(p: Problems, v: unknown): PinnedChoice[] {
  const out: PinnedChoice[] = [];
  const arr = expectArray(p, v, 'choices', 'an array of pinned choices {step, n, kind, pick, what}', false, MAX_TIMELINE_ENTRIES);
  if (!arr) return out;
  const seen = new Map<string, number>();
  arr.forEach((entry, i) => {
    const path = indexPath('choices', i);
    const c = expectMap(p, entry, path, `a pinned choice {${list(CHOICE_KEYS)}}`);
    if (!c) return;
    checkKeys(p, c, path, CHOICE_KEYS, ' in a pinned choice');
    const step = req(p, c, 'step', path, intC({ min: 1, max: Number.MAX_SAFE_INTEGER }));
    const n = req(p, c, 'n', path, intC({ min: 0, max: 1_000_000 }));
    const kind = req(p, c, 'kind', path, oneOfC(CHOICE_KINDS));
    const pick = req(p, c, 'pick', path, intC({ min: kind === 'storeFault' ? 1 : kind === 'order' ? 0 : 1, max: kind === 'storeFault' ? 1 : 10_000_000, note: kind === 'delay' ? '(extra ms)' : kind === 'order' ? '(index among the due events)' : '(1: the store fails the request)' }));
    const what = opt(p, c, 'what', path, stringC({ maxChars: 500 }));
    if (step === undefined || n === undefined || kind === undefined || pick === undefined) return;
    const at = `${step}|${n}`;
    const before = seen.get(at);
    if (before !== undefined) {
      p.add(keyPath(path, 'n'), `step ${step} point ${n} is pinned twice (choices[${before}] too)`);
      return;
    }
    seen.set(at, i);
    out.push({ step, n, kind, pick, ...(what !== undefined ? { what } : {}) });
  });
  return out;
}
