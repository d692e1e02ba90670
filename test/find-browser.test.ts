/**
 * scripts/find-browser.mjs: which Chromium the browser tests and the page benchmark launch
 * (README, "Set up"). Each case runs the resolver in a child process whose PATH, Playwright
 * browser cache and CHROMIUM_PATH the test controls, so the machine's own browsers play no part.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, test } from 'vitest';
import { ROOT } from './support/run.js';

const RESOLVER = pathToFileURL(join(ROOT, 'scripts', 'find-browser.mjs')).href;
const work = mkdtempSync(join(tmpdir(), 'tierscope-find-browser-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

let n = 0;
function dir(): string {
  const d = join(work, String(n++));
  mkdirSync(d, { recursive: true });
  return d;
}

function fakeExecutable(path: string): string {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, '#!/bin/sh\nexit 0\n');
  chmodSync(path, 0o755);
  return path;
}

/** The resolver's answer under the given environment: { path, source } or { error }. */
function resolve(env: { PATH?: string; CHROMIUM_PATH?: string; cache?: string }): { path?: string; source?: string; error?: string } {
  const script = `import(${JSON.stringify(RESOLVER)}).then(async (m) => {
    try { console.log(JSON.stringify(await m.findChromium())); }
    catch (e) { console.log(JSON.stringify({ error: e.message })); }
  })`;
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
    cwd: ROOT,
    encoding: 'utf8',
    env: {
      HOME: process.env.HOME,
      TMPDIR: process.env.TMPDIR,
      PATH: env.PATH ?? dir(),
      PLAYWRIGHT_BROWSERS_PATH: env.cache ?? dir(),
      ...(env.CHROMIUM_PATH !== undefined ? { CHROMIUM_PATH: env.CHROMIUM_PATH } : {}),
    },
  });
  expect(r.status, r.stderr).toBe(0);
  return JSON.parse(r.stdout.trim().split('\n').pop()!);
}

/** Where Playwright's cache would hold its Chromium, for a given cache folder. */
function cachedChromiumPath(cache: string): string {
  const script = `import('@playwright/test').then((m) => console.log(m.chromium.executablePath()))`;
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
    cwd: ROOT,
    encoding: 'utf8',
    env: { HOME: process.env.HOME, PATH: '', PLAYWRIGHT_BROWSERS_PATH: cache },
  });
  expect(r.status, r.stderr).toBe(0);
  return r.stdout.trim();
}

describe('find-browser: the order Chromium is looked for in', () => {
  test('CHROMIUM_PATH comes first, before Playwright cache and PATH', () => {
    const chosen = fakeExecutable(join(dir(), 'my-chrome'));
    const bin = dir();
    fakeExecutable(join(bin, 'chromium'));
    const cache = dir();
    fakeExecutable(cachedChromiumPath(cache));
    expect(resolve({ CHROMIUM_PATH: chosen, PATH: bin, cache })).toEqual({ path: chosen, source: 'CHROMIUM_PATH' });
  });

  test('a CHROMIUM_PATH that is not an executable file is an error naming it, not a fallback', () => {
    const notExec = join(dir(), 'chrome.txt');
    writeFileSync(notExec, 'text');
    const bin = dir();
    fakeExecutable(join(bin, 'chromium'));
    expect(resolve({ CHROMIUM_PATH: notExec, PATH: bin }).error).toBe(`CHROMIUM_PATH=${notExec} is not an executable file`);
    expect(resolve({ CHROMIUM_PATH: join(work, 'missing'), PATH: bin }).error).toMatch(/missing is not an executable file/);
  });

  test("Playwright's own browser comes before a system Chromium on PATH", () => {
    const cache = dir();
    const cached = fakeExecutable(cachedChromiumPath(cache));
    const bin = dir();
    fakeExecutable(join(bin, 'chromium'));
    expect(resolve({ PATH: bin, cache })).toEqual({ path: cached, source: "Playwright's browser cache" });
  });

  test('then chromium, chromium-browser, google-chrome, google-chrome-stable on PATH, in that order', () => {
    const a = dir();
    const b = dir();
    const chrome = fakeExecutable(join(a, 'google-chrome'));
    const chromiumBrowser = fakeExecutable(join(b, 'chromium-browser'));
    expect(resolve({ PATH: `${a}:${b}` })).toEqual({ path: chromiumBrowser, source: 'chromium-browser on PATH' });
    expect(resolve({ PATH: a })).toEqual({ path: chrome, source: 'google-chrome on PATH' });
    // A file on PATH that cannot be executed is passed over.
    const c = dir();
    writeFileSync(join(c, 'chromium'), 'not a program');
    expect(resolve({ PATH: `${c}:${a}` })).toEqual({ path: chrome, source: 'google-chrome on PATH' });
  });

  test.runIf(process.platform === 'linux' && process.arch === 'x64')(
    'with no other browser, Linux x64 gets the Chromium inside @sparticuz/chromium, unpacked and executable',
    () => {
      const r = resolve({});
      expect(r.source).toBe('the @sparticuz/chromium package');
      const v = spawnSync(r.path!, ['--version'], { encoding: 'utf8' });
      expect(v.stdout).toMatch(/^Chromium \d+\./);
    },
    60_000,
  );
});
