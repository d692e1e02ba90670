/**
 * Pan and zoom of an SVG drawing, for the statechart view: drag to pan (mouse, pen or one
 * finger), the wheel or a two-finger pinch to zoom about the pointer. A drag of more than a
 * few pixels is a pan, and the click that ends it is swallowed; a press without moving stays
 * a click on what is under it.
 *
 * Not d3-zoom, though d3 is a dependency: d3-zoom brings d3-transition and more of
 * d3-interpolate, modules the page's first load shares through d3-scale, and the bundler then
 * moves them into the first load's chunk (0.8 KB more gzipped JavaScript for every visitor).
 * This is the part of it the view needs, with no imports.
 */
export interface Transform {
  x: number;
  y: number;
  k: number;
}

export const transformString = (t: Transform) => `translate(${t.x.toFixed(2)},${t.y.toFixed(2)}) scale(${t.k.toFixed(4)})`;

/** A drag this far (px) is a pan, not a click. */
const SLOP = 4;

export class PanZoom {
  t: Transform = { x: 0, y: 0, k: 1 };
  private pointers = new Map<number, { x: number; y: number }>();
  private moved = false;
  private pinch: { d: number; mx: number; my: number } | null = null;
  private start: { x: number; y: number } | null = null;
  private readonly off: Array<() => void> = [];

  constructor(
    private readonly el: SVGSVGElement,
    private readonly onChange: (t: Transform) => void,
    private readonly minK = 0.08,
    private readonly maxK = 4,
  ) {
    const on = <K extends keyof SVGElementEventMap>(type: K, fn: (e: SVGElementEventMap[K]) => void, opts?: AddEventListenerOptions) => {
      el.addEventListener(type, fn as EventListener, opts);
      this.off.push(() => el.removeEventListener(type, fn as EventListener, opts));
    };
    on('pointerdown', (e) => this.down(e));
    on('pointermove', (e) => this.move(e));
    on('pointerup', (e) => this.up(e));
    on('pointercancel', (e) => this.up(e));
    on('wheel', (e) => this.wheel(e), { passive: false });
    // A click that ends a pan is not a click on the state under it.
    on('click', (e) => {
      if (this.moved) {
        e.stopPropagation();
        e.preventDefault();
        this.moved = false;
      }
    }, { capture: true });
  }

  destroy(): void {
    for (const f of this.off) f();
  }

  set(t: Transform): void {
    this.t = { x: t.x, y: t.y, k: Math.max(this.minK, Math.min(this.maxK, t.k)) };
    this.onChange(this.t);
  }

  /** Scales by `f` about a point of the element (its centre by default). */
  scaleBy(f: number, px = this.el.clientWidth / 2, py = this.el.clientHeight / 2): void {
    const k = Math.max(this.minK, Math.min(this.maxK, this.t.k * f));
    const r = k / this.t.k;
    this.set({ x: px - (px - this.t.x) * r, y: py - (py - this.t.y) * r, k });
  }

  /** Puts the drawing's point (x, y) at the element's centre, the scale unchanged. */
  translateTo(x: number, y: number): void {
    this.set({ x: this.el.clientWidth / 2 - x * this.t.k, y: this.el.clientHeight / 2 - y * this.t.k, k: this.t.k });
  }

  /** A drawing point on the element. */
  apply(x: number, y: number): [number, number] {
    return [x * this.t.k + this.t.x, y * this.t.k + this.t.y];
  }

  private local(e: PointerEvent | WheelEvent): { x: number; y: number } {
    const r = this.el.getBoundingClientRect();
    return { x: e.clientX - r.left, y: e.clientY - r.top };
  }

  private down(e: PointerEvent): void {
    if (e.pointerType === 'mouse' && e.button !== 0) return;
    this.pointers.set(e.pointerId, this.local(e));
    this.moved = false;
    this.start = this.local(e);
    if (this.pointers.size === 2) this.pinch = this.pinchOf();
  }

  private pinchOf(): { d: number; mx: number; my: number } {
    const [a, b] = [...this.pointers.values()];
    return { d: Math.hypot(a.x - b.x, a.y - b.y) || 1, mx: (a.x + b.x) / 2, my: (a.y + b.y) / 2 };
  }

  private move(e: PointerEvent): void {
    const prev = this.pointers.get(e.pointerId);
    if (!prev) return;
    const p = this.local(e);
    if (!this.moved && this.start && Math.hypot(p.x - this.start.x, p.y - this.start.y) < SLOP && this.pointers.size === 1) return;
    if (!this.moved) {
      this.moved = true;
      this.el.setPointerCapture?.(e.pointerId);
    }
    this.pointers.set(e.pointerId, p);
    if (this.pointers.size >= 2 && this.pinch) {
      const now = this.pinchOf();
      const k = Math.max(this.minK, Math.min(this.maxK, this.t.k * (now.d / this.pinch.d)));
      const r = k / this.t.k;
      // Zoom about the old midpoint, then follow the midpoint's move.
      this.set({ x: now.mx - (this.pinch.mx - this.t.x) * r, y: now.my - (this.pinch.my - this.t.y) * r, k });
      this.pinch = now;
      return;
    }
    this.set({ x: this.t.x + p.x - prev.x, y: this.t.y + p.y - prev.y, k: this.t.k });
  }

  private up(e: PointerEvent): void {
    this.pointers.delete(e.pointerId);
    if (this.pointers.size < 2) this.pinch = null;
    if (this.pointers.size === 0) this.start = null;
  }

  private wheel(e: WheelEvent): void {
    e.preventDefault();
    const p = this.local(e);
    const dy = e.deltaMode === 1 ? e.deltaY * 16 : e.deltaMode === 2 ? e.deltaY * 400 : e.deltaY;
    this.scaleBy(Math.pow(2, -dy * (e.ctrlKey ? 0.01 : 0.002)), p.x, p.y);
  }
}
