/**
 * The page's "Your partition" form (issue 29): `npm run sim -- whatif` as fields. Each field
 * is one of whatif's options (README, "What if ...? (`whatif`)"), named by its flag and
 * filled with the CLI's default (WHATIF_DEFAULTS); sizes and rates are typed with units and
 * read by the CLI's parser (core/util/size.ts), whose messages the page shows beside the
 * field. The scenario is built by the CLI's builder (core/scenario/whatif.ts, buildWhatIf)
 * and its assumptions printed as the CLI prints them (core/scenario/whatif-assumptions.ts).
 *
 * The link holds the options, not the scenario (which can be 80 KB): `whatif=` is the
 * options as whatif's own flags (`--tiered 1TiB --local 50GiB ... --modes classic,kip1023`),
 * so the same text after `npm run sim -- whatif` gives the same scenario. Pure: no DOM.
 */
import { MODES, type Mode } from '../../core/study/modes.js';
import type { InputProblem } from '../../core/scenario/types.js';
import type { WhatIf } from '../../core/scenario/whatif.js';
import { WHATIF_DEFAULTS, WHATIF_EVENTS, WHATIF_PRODUCER_ZONES, type WhatIfEvent, type WhatIfInput } from '../../core/scenario/whatif-input.js';
import { parseRate, parseSize, sizeFlagText, SIZE_UNITS } from '../../core/util/size.js';

/** The input fields the form sets (the others keep whatif's defaults). */
export type FormField =
  | 'brokers' | 'zones' | 'partitions' | 'replicationFactor' | 'tieredBytes' | 'localBytes' | 'segmentBytes' | 'produceBytesPerSec' | 'recordBytes' | 'lingerMs'
  | 'consumersPerZone' | 'producerZones' | 'fetchFromFollower' | 'event' | 'eventAtMs' | 'outageMs' | 'downMs' | 'untilMs' | 'activeBytes' | 'seed';

export interface FieldSpec {
  field: FormField;
  /** whatif's flag, without the dashes: the field's name and its key in the link. */
  flag: string;
  label: string;
  /** `choice`: one of `options`; `switch`: a flag without a value (on or off). */
  kind: 'int' | 'size' | 'rate' | 'event' | 'choice' | 'switch';
  /** A short help line under the field. */
  hint: string;
  /** The values of a `choice`. */
  options?: readonly string[];
  /** May be left empty: whatif then works it out (its default is null). */
  optional?: true;
  /** Shown under "More options" (the run's timing and seed). */
  more?: true;
}

/** The fields, in the order of `npm run sim -- whatif --help`. */
export const FORM_FIELDS: readonly FieldSpec[] = [
  { field: 'brokers', flag: 'brokers', label: 'Brokers', kind: 'int', hint: 'before the event adds one' },
  { field: 'zones', flag: 'zones', label: 'Zones', kind: 'int', hint: 'broker i in zone i mod zones' },
  { field: 'partitions', flag: 'partitions', label: 'Partitions', kind: 'int', hint: 'of the topic events' },
  { field: 'replicationFactor', flag: 'replication-factor', label: 'Replication factor', kind: 'int', hint: 'replicas a partition' },
  { field: 'tieredBytes', flag: 'tiered', label: 'Tiered', kind: 'size', hint: 'a partition in remote storage only, e.g. 1TiB' },
  { field: 'localBytes', flag: 'local', label: 'Local', kind: 'size', hint: "on the leader's disk, e.g. 50GiB" },
  { field: 'segmentBytes', flag: 'segment-bytes', label: 'Segment bytes', kind: 'size', hint: 'segment.bytes, 1MiB to 2147483647' },
  { field: 'produceBytesPerSec', flag: 'produce', label: 'Produce rate', kind: 'rate', hint: 'over all partitions, e.g. 10MB/s; 0 for none' },
  { field: 'recordBytes', flag: 'record-bytes', label: 'Record bytes', kind: 'size', hint: 'each record' },
  { field: 'lingerMs', flag: 'linger-ms', label: 'Linger ms', kind: 'int', hint: "the producer's linger.ms" },
  { field: 'consumersPerZone', flag: 'consumers-per-zone', label: 'Consumers per zone', kind: 'int', hint: 'reading what is produced' },
  { field: 'producerZones', flag: 'producer-zones', label: 'Producer zones', kind: 'choice', options: WHATIF_PRODUCER_ZONES, hint: "leader: in each leader's zone; spread: one in every zone" },
  { field: 'fetchFromFollower', flag: 'fetch-from-follower', label: 'Fetch from follower', kind: 'switch', hint: "KIP-392: consumers read from a replica of their own zone" },
  { field: 'event', flag: 'event', label: 'Event', kind: 'event', hint: 'on partition 0, at Event at (ms)' },
  { field: 'eventAtMs', flag: 'event-at-ms', label: 'Event at (ms)', kind: 'int', hint: 'when the event happens', more: true },
  { field: 'outageMs', flag: 'outage-ms', label: 'Outage (ms)', kind: 'int', hint: 'store-outage: how long the tiered store is down', more: true },
  { field: 'downMs', flag: 'down-ms', label: 'Down (ms)', kind: 'int', hint: 'crash-leader: how long the leader stays down', more: true },
  { field: 'untilMs', flag: 'until', label: 'Until (ms)', kind: 'int', optional: true, hint: 'the run\'s end; empty: estimated from the sizes', more: true },
  { field: 'activeBytes', flag: 'active', label: 'Active segment', kind: 'size', optional: true, hint: 'part of Local; empty: what Local leaves past whole segments', more: true },
  { field: 'seed', flag: 'seed', label: 'Seed', kind: 'int', hint: "the scenario's seed", more: true },
];

const SPEC_BY_FLAG = new Map(FORM_FIELDS.map((f) => [f.flag, f]));

/** What the form holds: each field as typed, and the designs. */
export interface WhatIfForm {
  values: Record<FormField, string>;
  modes: Mode[];
}

/** A field's value as whatif's flag would give it back (sizes in the unit that writes them whole). */
function flagText(spec: FieldSpec, v: WhatIfInput[FormField]): string {
  if (v === null) return '';
  if (spec.kind === 'switch') return v === true ? 'true' : 'false';
  if (spec.kind === 'size') return sizeFlagText(v as number);
  if (spec.kind === 'rate') return v === 0 ? '0' : `${sizeFlagText(v as number)}/s`;
  return String(v);
}

/** The form at whatif's defaults (every design). */
export function defaultForm(): WhatIfForm {
  const values = {} as Record<FormField, string>;
  for (const s of FORM_FIELDS) values[s.field] = flagText(s, WHATIF_DEFAULTS[s.field]);
  return { values, modes: [...MODES] };
}

/** Problems with what was typed: by field, and `modes`; `form` for one that names no field. */
export type FormErrors = Partial<Record<FormField | 'modes' | 'form', string>>;

/** Reads the fields as the CLI reads its flags; each bad one gets its message. */
export function readForm(form: WhatIfForm): { input: WhatIfInput; errors: FormErrors } {
  const input: WhatIfInput = { ...WHATIF_DEFAULTS };
  const errors: FormErrors = {};
  const set = (f: FormField, v: number) => ((input as unknown as Record<string, number>)[f] = v);
  for (const s of FORM_FIELDS) {
    // A field a link from before it existed leaves out keeps whatif's default.
    const text = (form.values[s.field] ?? flagText(s, WHATIF_DEFAULTS[s.field])).trim();
    const flag = `--${s.flag}`;
    if (s.optional && text === '') continue;
    switch (s.kind) {
      case 'int':
        if (!/^\d+$/.test(text) || !Number.isSafeInteger(Number(text))) errors[s.field] = `${flag} expects a whole number, got "${text}"`;
        else set(s.field, Number(text));
        break;
      case 'size': {
        const r = parseSize(text);
        if (r.ok) set(s.field, r.value);
        else errors[s.field] = `${flag}: ${r.why}`;
        break;
      }
      case 'rate': {
        const r = parseRate(text);
        if (r.ok) set(s.field, r.value);
        else errors[s.field] = `${flag}: ${r.why}`;
        break;
      }
      case 'event':
        if ((WHATIF_EVENTS as readonly string[]).includes(text)) input.event = text as WhatIfEvent;
        else errors[s.field] = `--event expects ${WHATIF_EVENTS.join(', ')}, got "${text}"`;
        break;
      case 'choice':
        if (s.options!.includes(text)) (input as unknown as Record<string, string>)[s.field] = text;
        else errors[s.field] = `${flag} expects ${s.options!.join(' or ')}, got "${text}"`;
        break;
      case 'switch':
        (input as unknown as Record<string, boolean>)[s.field] = text === 'true';
        break;
    }
  }
  if (form.modes.length === 0) errors.modes = `--modes: choose at least one design of ${MODES.join(', ')}`;
  return { input, errors };
}

/** The field a builder's message is about: the first of its flags that is a field (else the form). */
export function fieldOfProblem(problem: string): FormField | 'form' {
  const m = /--([a-z-]+)/.exec(problem);
  return (m && SPEC_BY_FLAG.get(m[1])?.field) ?? 'form';
}

/** The form as whatif's arguments, every field given (so a link does not depend on the defaults of its day). */
export function formArgs(form: WhatIfForm): string[] {
  const args: string[] = [];
  for (const s of FORM_FIELDS) {
    const v = (form.values[s.field] ?? '').trim().replace(/\s+/g, '');
    if (s.kind === 'switch') {
      if (v === 'true') args.push(`--${s.flag}`);
    } else if (!(s.optional && v === '')) args.push(`--${s.flag}`, v);
  }
  args.push('--modes', form.modes.join(','));
  return args;
}

/** The command that builds and compares the same scenario in the CLI (which streams its trace). */
export function formCommand(form: WhatIfForm): string {
  return ['npm run sim -- whatif', ...formArgs(form)].join(' ');
}

/** Longest value a link's field may carry (a size such as 2147483647 or 1.5GiB is far shorter). */
const MAX_VALUE_CHARS = 40;

/**
 * Reads a link's `whatif=` text (whatif's flags). A flag that is not a field, or is given
 * twice, or a value too long, is a problem and left out; fields not given keep the defaults;
 * values are kept as typed (the form shows a bad one with its message).
 */
export function parseFormArgs(text: string): { form: WhatIfForm; problems: string[] } {
  const form = defaultForm();
  const problems: string[] = [];
  const words = text.trim().split(/\s+/).filter((w) => w !== '');
  const seen = new Set<string>();
  for (let i = 0; i < words.length; i++) {
    const w = words[i];
    const v = words[i + 1];
    if (!w.startsWith('--')) {
      problems.push(`whatif: expected an option such as --tiered, got "${w.slice(0, MAX_VALUE_CHARS)}"`);
      continue;
    }
    const name = w.slice(2);
    const switchSpec = SPEC_BY_FLAG.get(name);
    if (switchSpec?.kind === 'switch') {
      // A switch takes no value (as in the CLI).
      form.values[switchSpec.field] = 'true';
      continue;
    }
    i++;
    if (v === undefined || v.startsWith('--')) {
      problems.push(`whatif: ${w} needs a value`);
      if (v !== undefined) i--;
      continue;
    }
    if (seen.has(name)) {
      problems.push(`whatif: ${w} is given twice; the first is used`);
      continue;
    }
    seen.add(name);
    if (v.length > MAX_VALUE_CHARS) {
      problems.push(`whatif: ${w}: a value of at most ${MAX_VALUE_CHARS} characters, got ${v.length}`);
      continue;
    }
    if (name === 'modes') {
      const list = v.split(',').filter((m) => m !== '');
      const bad = list.filter((m) => !(MODES as readonly string[]).includes(m));
      if (list.length === 0 || bad.length > 0) problems.push(`whatif: --modes expects a comma-separated list of ${MODES.join(', ')}, got "${v}"`);
      else form.modes = MODES.filter((m) => list.includes(m));
      continue;
    }
    const spec = SPEC_BY_FLAG.get(name);
    if (spec === undefined) {
      problems.push(`whatif: ${w.slice(0, MAX_VALUE_CHARS)} is not one of the form's options (${FORM_FIELDS.map((f) => `--${f.flag}`).join(', ')}, --modes)`);
      continue;
    }
    form.values[spec.field] = v;
  }
  return { form, problems };
}

/** Sets the fields `flags` names (a suggestion such as `--local 50MiB --produce 0`) in `form`. */
export function applyFlags(form: WhatIfForm, flags: string): void {
  const given = parseFormArgs(flags).form;
  const words = flags.trim().split(/\s+/);
  for (let i = 0; i < words.length; i++) {
    const spec = SPEC_BY_FLAG.get(words[i].replace(/^--/, ''));
    if (spec !== undefined) form.values[spec.field] = given.values[spec.field];
    if (spec?.kind !== 'switch') i++;
  }
}

/** The pairs of the chosen designs, for the side-by-side view (which shows two). */
export function modePairs(modes: readonly Mode[]): Array<[Mode, Mode]> {
  const pairs: Array<[Mode, Mode]> = [];
  for (let a = 0; a < modes.length; a++) for (let b = a + 1; b < modes.length; b++) pairs.push([modes[a], modes[b]]);
  return pairs;
}

export type FormBuild =
  | { ok: false; errors: FormErrors }
  | {
      ok: true;
      whatIf: WhatIf;
      modes: Mode[];
      /** The builder's assumptions, as the CLI prints them. */
      assumptions: string[];
      command: string;
      /** The page's work budget refuses the scenario (it keeps the whole trace): why, or null. */
      refused: InputProblem[] | null;
      /** When refused: a change the page would run, as flags, or null. */
      suggestion: string | null;
    };

export { SIZE_UNITS };
