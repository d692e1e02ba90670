/**
 * The "Your partition" form's options in the page's link (web/lib/url.ts, whatif=): written
 * as whatif's flags and read back to the same form; a bad link names its problems and keeps
 * the rest; the form reads sizes with the CLI's parser and names the flag of a bad field.
 */
import { describe, expect, it } from 'vitest';
import { decodeUrlState, encodeUrlState } from '../web/lib/url.js';
import { defaultForm, formArgs, parseFormArgs, readForm, type WhatIfForm } from '../web/lib/whatif-form.js';
import { buildForm } from '../web/lib/whatif-build.js';
import { WHATIF_DEFAULTS } from '../core/scenario/whatif.js';
import { encodeCompareQuery, parseCompareQuery, walkthroughHref } from '../web/compare/params.js';

function form(values: Partial<WhatIfForm['values']>, modes: WhatIfForm['modes'] = ['classic', 'kip1023']): WhatIfForm {
  const f = defaultForm();
  return { values: { ...f.values, ...values }, modes };
}

describe('the what-if form in the link', () => {
  it('round-trips the options, with the step and recorded actions beside them', () => {
    const f = form({ tieredBytes: '1TB', localBytes: '50MB', segmentBytes: '10MB', recordBytes: '1kB', produceBytesPerSec: '10MB/s', event: 'store-outage', consumersPerZone: '2' });
    const q = encodeUrlState({ whatif: f, step: 120, seed: 7, actions: [{ step: 3, action: { kind: 'crash', broker: 1 } }] });
    expect(q).toContain('whatif=--brokers+3+');
    expect(q).toContain('--modes+classic,kip1023');
    expect(q).not.toContain('src=');
    const { state, problems } = decodeUrlState(q);
    expect(problems).toEqual([]);
    expect(state.whatif).toEqual(f);
    expect(state.step).toBe(120);
    expect(state.seed).toBe(7);
    expect(state.actions).toEqual([{ step: 3, action: { kind: 'crash', broker: 1 } }]);
    // The same options build the same scenario.
    const a = buildForm(f);
    const b = buildForm(state.whatif!);
    expect(a.ok && b.ok && a.whatIf.body === b.whatIf.body).toBe(true);
  });

  it('round-trips the defaults, every design, and values as typed (a bad one too)', () => {
    for (const f of [defaultForm(), form({}, ['wal']), form({ tieredBytes: '12parsecs', lingerMs: '-1' })]) {
      const { state } = decodeUrlState(encodeUrlState({ whatif: f, actions: [] }));
      expect(state.whatif).toEqual(f);
      expect(readForm(state.whatif!).errors).toEqual(readForm(f).errors);
    }
    // A size typed with a space travels without it: the same bytes.
    const spaced = decodeUrlState(encodeUrlState({ whatif: form({ localBytes: '50 GiB' }), actions: [] })).state.whatif!;
    expect(spaced.values.localBytes).toBe('50GiB');
    expect(formArgs(spaced)).toEqual(formArgs(form({ localBytes: '50GiB' })));
  });

  it('names what a hand-made link gets wrong and keeps the rest', () => {
    const { form: f, problems } = parseFormArgs('--tiered 2TiB --bogus 1 --local --modes classic,nope --tiered 3TiB stray');
    expect(f.values.tieredBytes).toBe('2TiB');
    expect(f.values.localBytes).toBe(defaultForm().values.localBytes);
    expect(f.modes).toEqual(defaultForm().modes);
    expect(problems.join('\n')).toMatch(/--bogus is not one of the form's options/);
    expect(problems.join('\n')).toMatch(/--local needs a value/);
    expect(problems.join('\n')).toMatch(/--modes expects/);
    expect(problems.join('\n')).toMatch(/--tiered is given twice/);
    expect(problems.join('\n')).toMatch(/expected an option such as --tiered, got "stray"/);
  });

  it('carries the options to the side-by-side view and back, which builds the same scenario', () => {
    const f = form({ tieredBytes: '1GiB', localBytes: '5MiB', segmentBytes: '1MiB', recordBytes: '1KiB' });
    const q = encodeCompareQuery({ scenario: null, whatif: f, modes: ['classic', 'kip1023'], step: 9, tMs: 0, actions: [] });
    expect(q).toMatch(/^compare=&modes=classic,kip1023&whatif=--brokers/);
    expect(q.length).toBeLessThan(400);
    const read = parseCompareQuery(q, [], () => null);
    expect(read.problems).toEqual([]);
    expect(read.scenario).toBeNull();
    expect(read.whatif).toEqual(f);
    const built = buildForm(f);
    expect(built.ok && read.source === built.whatIf.body).toBe(true);
    expect(walkthroughHref({ scenario: null, whatif: read.whatif, step: 9, actions: [] })).toBe(`./?${encodeUrlState({ whatif: f, step: 9, actions: [] })}`);
    // A what-if that cannot be built says why, in place of the runs.
    const bad = parseCompareQuery(encodeCompareQuery({ scenario: null, whatif: form({ replicationFactor: '9' }), actions: [] }), [], () => null);
    expect(bad.sourceUnreadable).toBe(true);
    expect(bad.whatifProblem).toMatch(/^--replication-factor must be from 1 to --brokers/);
  });

  it('keeps the existing parameters as they were', () => {
    expect(encodeUrlState({ scenario: 'add-replica', step: 4, actions: [] })).toBe('scenario=add-replica&step=4');
    expect(decodeUrlState('scenario=add-replica').state.whatif).toBeUndefined();
  });
});

describe('the what-if form', () => {
  it("starts at whatif's defaults", () => {
    const { input, errors } = readForm(defaultForm());
    expect(errors).toEqual({});
    expect(input).toEqual(WHATIF_DEFAULTS);
    expect(defaultForm().values).toMatchObject({ tieredBytes: '1TiB', localBytes: '50GiB', segmentBytes: '1GiB', produceBytesPerSec: '1MB/s' });
  });

  it("gives the size parser's message beside the field, naming its flag", () => {
    const { errors } = readForm(form({ produceBytesPerSec: '10Mb/s', localBytes: '50gb', brokers: 'three' }));
    expect(errors.produceBytesPerSec).toMatch(/^--produce: .*bits/);
    expect(errors.localBytes).toMatch(/^--local: .*did you mean GB\?/);
    expect(errors.brokers).toBe('--brokers expects a whole number, got "three"');
  });

  it("puts the builder's problem on the field it names, never throws", () => {
    const r = buildForm(form({ replicationFactor: '5' }));
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.errors.replicationFactor).toMatch(/^--replication-factor must be from 1 to --brokers \(3\)/);
    const m = buildForm(form({}, []));
    expect(m.ok || m.errors.modes).toBeTruthy();
  });

  it('says when the page cannot run it, with a smaller one it can', () => {
    const r = buildForm(defaultForm());
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.refused?.[0].message).toMatch(/more than the limit of 500,000 for a run that keeps its whole trace/);
    expect(r.suggestion).toBe('--produce 0');
    expect(r.command).toBe('npm run sim -- whatif --brokers 3 --zones 3 --partitions 1 --replication-factor 3 --tiered 1TiB --local 50GiB --segment-bytes 1GiB --produce 1MB/s --record-bytes 1KiB --linger-ms 5 --consumers-per-zone 0 --producer-zones leader --event add-replica --event-at-ms 1000 --outage-ms 10000 --down-ms 10000 --seed 1 --modes classic,kip1023,wal');
    expect(r.assumptions[0]).toMatch(/^cluster +3 brokers in 3 zones/);
  });
});
