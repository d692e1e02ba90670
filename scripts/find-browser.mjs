// Which Chromium the browser tests and the page benchmark launch, in this order:
//   1. CHROMIUM_PATH, when set (it must name an executable file);
//   2. the Chromium of Playwright's own cache (`npx playwright install chromium`);
//   3. a system Chromium or Chrome: chromium, chromium-browser, google-chrome,
//      google-chrome-stable on PATH, then the usual macOS application paths;
//   4. on Linux x64, the Chromium inside the @sparticuz/chromium package (a dev dependency,
//      so a fresh machine with nothing but Node has a browser after `npm install`; its first
//      use unpacks it into the temporary directory, about 2 s).
// No path is assumed: when none is found, the error says how to get one.
import { accessSync, constants, existsSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { chromium } from '@playwright/test';

const NAMES = ['chromium', 'chromium-browser', 'google-chrome', 'google-chrome-stable'];
const MAC_APPS = [
  '/Applications/Chromium.app/Contents/MacOS/Chromium',
  '/Applications/Google Chrome.app/Contents/MacOS/Google Chrome',
];

function executable(path) {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

function onPath(name) {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (dir === '') continue;
    const p = join(dir, name);
    if (executable(p)) return p;
  }
  return null;
}

/** The packaged Chromium, unpacked, or null where it does not run or is not installed. */
async function packagedChromium() {
  if (process.platform !== 'linux' || process.arch !== 'x64') return null;
  let mod;
  try {
    mod = await import('@sparticuz/chromium');
  } catch {
    return null;
  }
  const path = await mod.default.executablePath();
  return executable(path) ? path : null;
}

/** { path, source } of the browser to launch; rejects with a message naming what was tried. */
export async function findChromium() {
  const env = process.env.CHROMIUM_PATH;
  if (env !== undefined && env !== '') {
    if (!executable(env)) throw new Error(`CHROMIUM_PATH=${env} is not an executable file`);
    return { path: env, source: 'CHROMIUM_PATH' };
  }
  let bundled = null;
  try {
    bundled = chromium.executablePath();
  } catch {
    bundled = null;
  }
  if (bundled && existsSync(bundled)) return { path: bundled, source: "Playwright's browser cache" };
  for (const name of NAMES) {
    const p = onPath(name);
    if (p !== null) return { path: p, source: `${name} on PATH` };
  }
  for (const p of MAC_APPS) if (executable(p)) return { path: p, source: 'the system' };
  const packaged = await packagedChromium();
  if (packaged !== null) return { path: packaged, source: 'the @sparticuz/chromium package' };
  throw new Error(
    'no Chromium found for the browser tests: run `npx playwright install chromium`, ' +
      'install Chromium or Chrome, or set CHROMIUM_PATH to its executable',
  );
}
