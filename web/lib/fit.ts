/**
 * How the walkthrough fits the window, measured on what is drawn: presenter mode's zoom, and
 * whether the wide layout's offset lanes keep only the label rows they use now ("fit") and
 * leave out the keys and the WAL object's table ("tight") so the request lane keeps room.
 */
import type { PartitionView } from '../../core/session/view.js';
import { fixedLanesHeight, lanesLayout } from './layout.js';

/** The wide layout's breakpoint (the stylesheet's 1100 px) and the request lane's least height there. */
export const WIDE_FROM = 1100;
const REQUESTS_MIN_PX = 190;

/** An element's drawn height in px (0 for none). */
const boxHeight = (el: Element | null | undefined) => (el ? el.getBoundingClientRect().height : 0);

/**
 * The zoom at which presenter mode's two columns fit the window: the pictures and a few
 * rows of requests in the centre, the chapter's stop and some narration at the right.
 * Heights are measured unzoomed (divided by the zoom in force), so the answer does not
 * depend on it. NaN or Infinity when nothing could be measured.
 */
export function presenterFit(centerCol: HTMLElement, rightCol: HTMLElement, zoom: number, winH: number): number {
  const h = (el: Element | null) => boxHeight(el) / zoom;
  const pictures = h(centerCol.querySelector(':scope > .offsets')) + h(centerCol.querySelector(':scope > .wal'));
  const centre = pictures + 170 + 2 * 10 + 16;
  const story = h(rightCol.querySelector('[data-testid="chapter"]')) + 140 + 10 + 16;
  return Math.floor(Math.min(winH / centre, winH / story) * 50) / 50;
}

/**
 * Whether the offset lanes keep only the label rows they use now instead of the fixed rows
 * that hold them still between steps: in presenter mode, and in the wide layout when the
 * fixed rows would leave the request lane less than its minimum under the pictures (at
 * 1280x800 already with two replicas). A function of the window and of what the step shows,
 * not of the run's history, so a link gives the same picture. It keeps the heights of the
 * parts tight mode leaves out, as last measured while shown.
 */
export class LaneFit {
  private legendPx = 80;
  private walDetailsPx = 0;
  private walLegendPx = 50;

  /** `zoom`: the squeeze in force on the pictures (squeezeFit); heights are measured unzoomed, so the answer does not depend on it. */
  measure(centerCol: HTMLElement | undefined, partition: PartitionView | null, winW: number, presenter: boolean, zoom = 1): { fit: boolean; tight: boolean } {
    const panel = centerCol?.querySelector(':scope > .offsets');
    const svg = panel?.querySelector('[data-testid="offset-lanes"]');
    if (presenter || !centerCol || !panel || !svg || !partition || winW < WIDE_FROM) return { fit: presenter, tight: false };
    const height = (el: Element | null | undefined) => boxHeight(el) / zoom;
    const legend = panel.querySelector('.legend');
    if (height(legend) > 0) this.legendPx = height(legend);
    const wal = centerCol.querySelector(':scope > .wal');
    const details = wal?.querySelector('[data-testid="wal-object-details"]');
    const walLegend = wal?.querySelector('.legend');
    if (height(details) > 0) this.walDetailsPx = height(details);
    else if (!wal) this.walDetailsPx = 0;
    if (height(walLegend) > 0) this.walLegendPx = height(walLegend);
    // Every part at its full height, whatever is shown now, so the answer does not flip back.
    const chrome = height(panel) - height(svg) - height(legend) + this.legendPx;
    const walPx = wal ? height(wal) - height(details) + this.walDetailsPx - height(walLegend) + this.walLegendPx + 10 : 0;
    const rest = chrome + walPx + 10 + REQUESTS_MIN_PX;
    const room = centerCol.clientHeight;
    const fit = rest + fixedLanesHeight(svg.clientWidth, partition.replicas.length) > room;
    return { fit, tight: fit && rest + lanesLayout(partition, svg.clientWidth, true).height > room };
  }
}

/** The request lane's height the squeeze keeps: its heading, column names and a handful of rows. */
const REQUESTS_KEEP_PX = 190;
/** The smallest zoom the squeeze gives the pictures (their 11 px labels stay above 7 px). */
export const SQUEEZE_MIN = 0.66;

/**
 * The wide layout's last resort, after the lanes fit their rows and the keys went (tight):
 * the zoom at which the pictures (offsets and fast store) leave the request lane its room in
 * the centre column, so a stop's request is on screen with its picture (three replicas and a
 * full fast-store lane at 1280x800). 1 when they fit as drawn. Measured unzoomed (divided by
 * the zoom in force), so the answer does not depend on it; rounded down to 0.02 so it
 * settles. NaN when nothing could be measured.
 */
export function squeezeFit(centerCol: HTMLElement | undefined, zoom: number, winW: number, presenter: boolean): number {
  if (presenter || winW < WIDE_FROM) return 1;
  if (!centerCol) return Number.NaN;
  const pictures = (boxHeight(centerCol.querySelector(':scope > .offsets')) + boxHeight(centerCol.querySelector(':scope > .wal'))) / zoom;
  if (pictures <= 0) return Number.NaN;
  const gaps = centerCol.querySelector(':scope > .wal') ? 20 : 10;
  const room = centerCol.clientHeight - gaps - REQUESTS_KEEP_PX;
  const z = Math.floor(Math.min(1, room / pictures) * 50) / 50;
  return Math.max(SQUEEZE_MIN, z);
}
