// Measures the walkthrough in Chromium: frame time while playing a scenario at full speed.
// Usage: node scripts/measure-page.mjs [scenario] [baseUrl]
// Without baseUrl it builds the site in test mode and serves it with `vite preview` itself
// (port 4179). It drives the page through `window.tierscope` (the page's RunState), which
// only the dev server (`npm start`) and a test-mode build (`vite build --mode test`) set, so a
// baseUrl must serve one of those.
import { spawn, execSync } from 'node:child_process';
import { chromium } from '@playwright/test';
import { findChromium } from './find-browser.mjs';

const scenario = process.argv[2] ?? 'steady-state-upload';
let base = process.argv[3];
let server = null;
if (!base) {
  execSync('npx vite build --mode test', { stdio: 'ignore' });
  server = spawn('npx', ['vite', 'preview', '--port', '4179', '--strictPort', '--host', '127.0.0.1'], { stdio: 'ignore', detached: true });
  base = 'http://127.0.0.1:4179/';
  for (let i = 0; i < 50; i++) {
    try { if ((await fetch(base)).ok) break; } catch {}
    await new Promise((r) => setTimeout(r, 200));
  }
}
const browser = await chromium.launch({
  executablePath: (await findChromium()).path,
  args: (process.env.CHROME_ARGS ?? '--no-sandbox --disable-gpu --disable-background-networking --disable-component-update --disable-sync').split(' '),
});
const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
await page.goto(`${base}?scenario=${scenario}`);
await page.waitForSelector('[data-testid=narration]');
if (!(await page.evaluate(() => 'tierscope' in window))) throw new Error(`${base} sets no window.tierscope: serve the dev server or a test-mode build (vite build --mode test)`);
await page.selectOption('[data-testid=speed]', '0');
const deltas = await page.evaluate(async () => {
  const run = window.tierscope;
  const out = [];
  let last = performance.now();
  const tick = (t) => { out.push(t - last); last = t; if (run.playing) requestAnimationFrame(tick); };
  run.frameTimes = [];
  run.play();
  requestAnimationFrame(tick);
  while (run.playing) await new Promise((r) => setTimeout(r, 50));
  return out;
});
const frameTimes = await page.evaluate(() => window.tierscope.frameTimes);
const steps = await page.evaluate(() => window.tierscope.step);
const parts = await page.evaluate(() => window.tierscope.refreshTimes);
const partP95 = [0, 1, 2, 3].map((i) => { const s = parts.map((p) => p[i]).sort((a, b) => a - b); return +s[Math.min(s.length - 1, Math.ceil(0.95 * s.length) - 1)].toFixed(2); });
const p = (xs, q) => { const s = [...xs].sort((a, b) => a - b); return s[Math.min(s.length - 1, Math.ceil(q * s.length) - 1)]; };
console.log(JSON.stringify({
  scenario, steps, frames: frameTimes.length,
  frameWorkMsP50: +p(frameTimes, 0.5).toFixed(2), frameWorkMsP95: +p(frameTimes, 0.95).toFixed(2), frameWorkMsMax: +Math.max(...frameTimes).toFixed(2),
  p95Parts: { stepping: partP95[0], refresh: partP95[1], domUpdate: partP95[2], layout: partP95[3] },
  rafIntervalMsP50: +p(deltas, 0.5).toFixed(2), rafIntervalMsP95: +p(deltas, 0.95).toFixed(2),
}));
await browser.close();
if (server) process.kill(-server.pid);
