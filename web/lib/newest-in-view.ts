/**
 * A Svelte action for the request lane's scrolling box: it keeps the newest requests (the
 * current step's, at the bottom) in view whenever its argument changes (what it shows), and
 * also when the box changes size (a zoom, a window resized, lanes fitting their rows).
 */
export function newestInView(box: HTMLElement, _shown: unknown) {
  const toBottom = () => { box.scrollTop = box.scrollHeight; };
  queueMicrotask(toBottom);
  const ro = typeof ResizeObserver === 'undefined' ? null : new ResizeObserver(toBottom);
  ro?.observe(box);
  return {
    update: () => queueMicrotask(toBottom),
    destroy: () => ro?.disconnect(),
  };
}
