/**
 * The design modes a workload is compared in, in one table: what each switches and what
 * it is called. `compare` (core/study/compare.ts) sets the switches; the CLI's help, the
 * Markdown report, the side-by-side page and whatif take their names and descriptions from
 * here, so a new mode is one row (and the switch it sets, if it is new, one entry of
 * MODE_SWITCHES).
 *
 * The switches are Kafka's `follower.fetch.last.tiered.offset.enable` (KIP-1023, a broker
 * config, Kafka 4.3) and the model's `wal.enable` (KIP-1176, withdrawn, so the name is the
 * model's), set on every topic.
 */

export const MODES = ['classic', 'kip1023', 'wal'] as const;
export type Mode = (typeof MODES)[number];

/** The configs a mode sets (a timeline event turning one would undo the mode). */
export const MODE_SWITCHES = ['follower.fetch.last.tiered.offset.enable', 'wal.enable'] as const;

export interface DesignMode {
  id: Mode;
  /** Its design, as the KIP names it. */
  design: string;
  /** Its name in a table or legend: "classic KIP-405". */
  label: string;
  /** On a chart line: "classic". */
  short: string;
  /** A report's heading: "classic (KIP-405)". */
  title: string;
  /** follower.fetch.last.tiered.offset.enable: on, off, or as the scenario sets it (null). */
  kip1023: boolean | null;
  /** wal.enable on every topic. */
  wal: boolean;
  /** A note after the switches (the WAL's names are the model's). */
  note?: string;
}

export const DESIGN_MODES: Record<Mode, DesignMode> = {
  classic: { id: 'classic', design: 'KIP-405 only', label: 'classic KIP-405', short: 'classic', title: 'classic (KIP-405)', kip1023: false, wal: false },
  kip1023: { id: 'kip1023', design: 'KIP-1023', label: 'KIP-1023', short: 'KIP-1023', title: 'kip1023 (KIP-1023)', kip1023: true, wal: false },
  wal: {
    id: 'wal',
    design: 'KIP-1176',
    label: 'KIP-1176 WAL',
    short: 'WAL',
    title: 'wal (KIP-1176)',
    kip1023: null,
    wal: true,
    note: "the model's reconstruction of a withdrawn KIP; wal.* are the model's names",
  },
};

/**
 * What a mode switches, in words: "follower.fetch.last.tiered.offset.enable on, wal.enable
 * off"; `code` wraps the config names in backticks (Markdown).
 */
export function modeSwitches(mode: Mode, code = false): string {
  const m = DESIGN_MODES[mode];
  const name = (n: string) => (code ? `\`${n}\`` : n);
  if (m.wal) return `${name('wal.enable')} on for every topic${m.kip1023 === null ? ' (KIP-1023 as the scenario sets it)' : `, ${name('follower.fetch.last.tiered.offset.enable')} ${m.kip1023 ? 'on' : 'off'}`}`;
  const flag = m.kip1023 === null ? 'as the scenario sets it' : m.kip1023 ? 'on' : 'off';
  return `${name('follower.fetch.last.tiered.offset.enable')} ${flag}, ${name('wal.enable')} off`;
}

/** One line per mode, for the CLI's help: "  classic   KIP-405 only: follower.fetch... off, wal.enable off". */
export function modesHelp(indent = '  '): string {
  return MODES.map((id) => `${indent}${id.padEnd(9)} ${DESIGN_MODES[id].design}: ${modeSwitches(id)}`).join('\n');
}
