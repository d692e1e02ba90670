/**
 * The play loop both views share: a requestAnimationFrame loop that says, each frame, how
 * many steps are due at `perSecond()` steps a second (0 = full speed: one step every
 * frame). The caller takes up to that many steps and says whether to go on; steps it could
 * not take are not owed later.
 */
export class Ticker {
  private raf = 0;
  private lastFrame = 0;
  private carry = 0;
  running = false;

  /** `frame(due)` returns the steps it took, or null to stop the loop. */
  start(perSecond: () => number, frame: (due: number) => number | null): void {
    this.stop();
    this.running = true;
    this.lastFrame = performance.now();
    this.carry = 0;
    const tick = (t: number) => {
      if (!this.running) return;
      const rate = perSecond();
      this.carry = rate === 0 ? 1 : this.carry + ((t - this.lastFrame) / 1000) * rate;
      this.lastFrame = t;
      const due = Math.floor(this.carry);
      const taken = frame(due);
      if (taken === null || !this.running) {
        this.running = false;
        return;
      }
      this.carry = taken < due ? 0 : this.carry - taken;
      this.raf = requestAnimationFrame(tick);
    };
    this.raf = requestAnimationFrame(tick);
  }

  stop(): void {
    this.running = false;
    cancelAnimationFrame(this.raf);
  }
}
