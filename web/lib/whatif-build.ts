/**
 * Building the "Your partition" form's what-if (web/lib/whatif-form.ts reads the form): the
 * CLI's builder (core/scenario/whatif.ts), and whether the page can run what it builds. Loaded
 * when the form is first built (RunState.loadWhatIf), not with the page.
 */
import { parseScenarioText, workProblems } from '../../core/scenario/parse.js';
import type { InputProblem } from '../../core/scenario/types.js';
import { type WhatIfInput, buildWhatIf } from '../../core/scenario/whatif.js';
import { describeWhatIfAssumptions } from '../../core/scenario/whatif-assumptions.js';
import { sizeFlagText } from '../../core/util/size.js';
import { type FormBuild, type WhatIfForm, fieldOfProblem, formCommand, readForm } from './whatif-form.js';

/** Whether the page would run `body`: null, or the work budget's problems (docs/scenario-format.md, Limits). */
function pageRefusal(body: string): InputProblem[] | null {
  const r = parseScenarioText(body, 'whatif');
  if (!r.ok) return r.problems;
  const work = workProblems(r.scenario, [], { traceKept: true });
  return work.length > 0 ? work : null;
}

/**
 * A smaller what-if the page would run: no producer, or (with it, then without) a local log a
 * tenth, a hundredth or a thousandth as large; as the flags that change. Null when none of
 * these fits.
 */
function suggestSmaller(input: WhatIfInput): string | null {
  const tries: Array<{ change: Partial<WhatIfInput>; flags: string }> = [];
  if (input.produceBytesPerSec > 0) tries.push({ change: { produceBytesPerSec: 0 }, flags: '--produce 0' });
  for (const f of [10, 100, 1000]) {
    const local = Math.max(input.recordBytes, Math.floor(input.localBytes / f / input.recordBytes) * input.recordBytes);
    if (local >= input.localBytes) break;
    const flag = `--local ${sizeFlagText(local)}`;
    tries.push({ change: { localBytes: local }, flags: flag });
    if (input.produceBytesPerSec > 0) tries.push({ change: { localBytes: local, produceBytesPerSec: 0 }, flags: `${flag} --produce 0` });
  }
  for (const t of tries) {
    const r = buildWhatIf({ ...input, ...t.change });
    if (r.ok && pageRefusal(r.whatIf.body) === null) return t.flags;
  }
  return null;
}

/** Builds the form's scenario with whatif's builder, and says whether the page can run it. */
export function buildForm(form: WhatIfForm): FormBuild {
  const { input, errors } = readForm(form);
  if (Object.keys(errors).length > 0) return { ok: false, errors };
  const built = buildWhatIf(input);
  if (!built.ok) return { ok: false, errors: { [fieldOfProblem(built.problem)]: built.problem } };
  const w = built.whatIf;
  const refused = pageRefusal(w.body);
  return {
    ok: true,
    whatIf: w,
    modes: [...form.modes],
    assumptions: describeWhatIfAssumptions(w, []).map((l) => l.trim()),
    command: formCommand(form),
    refused,
    suggestion: refused === null ? null : suggestSmaller(input),
  };
}

