/**
 * The page (figure 6): scripts/measure-page.mjs builds the site, serves it and plays a
 * scenario at full speed in Chromium (found by scripts/find-browser.mjs), reporting the frame work per
 * animation frame; this adds the size of the JavaScript the first load needs, gzipped:
 * the entry module of dist/index.html and the chunks it preloads (chunks loaded later on
 * demand, such as the Stately inspector's, are reported apart).
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

const root = resolve(fileURLToPath(import.meta.url), '../..');

export interface PageFigures {
  scenario: string;
  steps: number;
  frames: number;
  frameWorkMsP50: number;
  frameWorkMsP95: number;
  frameWorkMsMax: number;
  rafIntervalMsP95: number;
  /** p95 of each part of a frame's work: stepping the session, refreshing the state, the DOM update, layout. */
  p95Parts: { stepping: number; refresh: number; domUpdate: number; layout: number };
  /** Gzipped bytes of the JavaScript of the first load. */
  firstLoadJsGzipBytes: number;
  /** Gzipped bytes of the other JavaScript chunks (loaded on demand). */
  lazyJsGzipBytes: number;
  files: Array<{ file: string; gzipBytes: number; firstLoad: boolean }>;
}

/** Gzipped sizes of dist/'s JavaScript, split by whether index.html loads it at once. */
export function jsSizes(dist = join(root, 'dist')): Pick<PageFigures, 'firstLoadJsGzipBytes' | 'lazyJsGzipBytes' | 'files'> {
  const html = readFileSync(join(dist, 'index.html'), 'utf8');
  const first = new Set<string>();
  for (const m of html.matchAll(/<script[^>]*\ssrc="([^"]+\.js)"/g)) first.add(m[1].replace(/^\.\//, ''));
  for (const m of html.matchAll(/<link[^>]*rel="modulepreload"[^>]*href="([^"]+\.js)"/g)) first.add(m[1].replace(/^\.\//, ''));
  const files: PageFigures['files'] = [];
  const walk = (dir: string, rel: string): void => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      if (e.isDirectory()) walk(join(dir, e.name), `${rel}${e.name}/`);
      else if (e.name.endsWith('.js')) {
        const file = `${rel}${e.name}`;
        files.push({ file, gzipBytes: gzipSync(readFileSync(join(dir, e.name)), { level: 9 }).length, firstLoad: first.has(file) });
      }
    }
  };
  walk(dist, '');
  if (!files.some((f) => f.firstLoad)) throw new Error('dist/index.html loads no JavaScript file found in dist/');
  return {
    firstLoadJsGzipBytes: files.filter((f) => f.firstLoad).reduce((n, f) => n + f.gzipBytes, 0),
    lazyJsGzipBytes: files.filter((f) => !f.firstLoad).reduce((n, f) => n + f.gzipBytes, 0),
    files,
  };
}

export function measurePage(scenario: string): PageFigures {
  const out = execFileSync(process.execPath, [join(root, 'scripts/measure-page.mjs'), scenario], { cwd: root, encoding: 'utf8', maxBuffer: 1 << 24, timeout: 15 * 60_000 });
  const line = out.trim().split('\n').filter((l) => l.startsWith('{')).pop();
  if (line === undefined) throw new Error(`measure-page printed no result: ${out}`);
  const m = JSON.parse(line) as Omit<PageFigures, 'firstLoadJsGzipBytes' | 'lazyJsGzipBytes' | 'files'>;
  return {
    scenario: m.scenario,
    steps: m.steps,
    frames: m.frames,
    frameWorkMsP50: m.frameWorkMsP50,
    frameWorkMsP95: m.frameWorkMsP95,
    frameWorkMsMax: m.frameWorkMsMax,
    rafIntervalMsP95: m.rafIntervalMsP95,
    p95Parts: m.p95Parts,
    ...jsSizes(),
  };
}
