/**
 * WCAG 2.x contrast of the text colours the lanes draw (OffsetLanes, SequenceLane,
 * WalLane), so a test can hold every one of them to AA for small text (4.5:1) against the
 * panel's white. The colours are the page's CSS variables (web/styles.css) plus the few
 * darker text shades the lanes define themselves where a variable is too light for
 * 10-11 px type. Leaves out large text (every label here is small) and opacity: no lane
 * fades its text.
 */

/** The panel behind every lane. */
export const LANE_BACKGROUND = '#ffffff';

/** Relative luminance of a `#rrggbb` colour (WCAG 2.x). */
export function luminance(hex: string): number {
  const m = /^#([0-9a-f]{6})$/i.exec(hex);
  if (m === null) throw new Error(`not a #rrggbb colour: ${hex}`);
  const n = Number.parseInt(m[1], 16);
  const lin = (c: number) => {
    const v = c / 255;
    return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4;
  };
  return 0.2126 * lin((n >> 16) & 255) + 0.7152 * lin((n >> 8) & 255) + 0.0722 * lin(n & 255);
}

/** Contrast ratio of two colours, 1 to 21. */
export function contrastRatio(a: string, b: string): number {
  const la = luminance(a);
  const lb = luminance(b);
  return (Math.max(la, lb) + 0.05) / (Math.min(la, lb) + 0.05);
}

/**
 * Text shades the lanes set for themselves (as CSS custom properties on their root), where
 * the page's variable is meant for fills: `--both` (#2f8f6b, 3.99:1 on white) fills the
 * uploaded segments, and the fetch marker's label uses this darker green.
 */
export const LANE_TEXT_SHADES = {
  '--both-text': '#1f6f52',
} as const;

/**
 * Every text colour in the lanes' SVGs, by the CSS variable the components use, and where.
 * A test reads the variables' values from web/styles.css and the components.
 */
export const LANE_TEXT_COLOURS: ReadonlyArray<{ variable: string; where: string }> = [
  { variable: '--ink', where: 'lane titles, marker labels, requests and responses, chunk labels' },
  { variable: '--muted', where: 'axis ticks, lane subtitles, column names, times, object sizes' },
  { variable: '--remote', where: 'Ry labels, remote segment states, tiered-store requests' },
  { variable: '--warn', where: 'EPUO labels, backoff rows, the WAL objects touched in the step' },
  { variable: '--error', where: 'error answers, a store down' },
  { variable: '--wal', where: 'fast-store requests, chunk appends, metadata notes' },
  { variable: '--both-text', where: "the follower's fetch offset" },
];
