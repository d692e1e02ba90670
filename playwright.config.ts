/**
 * End-to-end tests of the browser walkthrough (test/e2e): build the static site, serve it
 * with `vite preview`, drive it in the system Chromium through the URL and visible controls.
 *
 * Chromium: scripts/find-browser.mjs picks it (CHROMIUM_PATH, then Playwright's own browser
 * cache, then a system Chromium or Chrome, then on Linux the one inside @sparticuz/chromium)
 * and the run says which (never set `channel`).
 *
 * Two optional overrides keep a test run from touching someone else's preview server or
 * dist/ (e.g. when another `vite preview` already holds port 4173):
 *   E2E_PORT=4180 E2E_OUT_DIR=/tmp/tierscope-e2e-dist npx playwright test
 * Without them the site is built into dist/ and served on 127.0.0.1:4173.
 */
import { defineConfig } from '@playwright/test';
import { findChromium } from './scripts/find-browser.mjs';

const browser = await findChromium();
if (process.env.TEST_WORKER_INDEX === undefined) console.log(`browser tests: Chromium from ${browser.source}: ${browser.path}`);

const PORT = Number(process.env.E2E_PORT ?? 4173);
const OUT_DIR = process.env.E2E_OUT_DIR;
const outDirFlag = OUT_DIR ? ` --outDir ${JSON.stringify(OUT_DIR)}` : '';
const BASE_URL = `http://127.0.0.1:${PORT}`;

export default defineConfig({
  testDir: 'test/e2e',
  outputDir: 'test-results/e2e',
  fullyParallel: true,
  workers: 1,
  forbidOnly: Boolean(process.env.CI),
  retries: 0,
  timeout: 60_000,
  expect: { timeout: 10_000 },
  reporter: [['list'], ['json', { outputFile: 'test-results/playwright.json' }]],
  use: {
    baseURL: BASE_URL,
    viewport: { width: 1280, height: 800 },
    screenshot: 'only-on-failure',
    trace: 'off',
    launchOptions: {
      executablePath: browser.path,
      args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    },
  },
  webServer: {
    command: `npx vite build${outDirFlag}${OUT_DIR ? ' --emptyOutDir' : ''} && npx vite preview${outDirFlag} --port ${PORT} --strictPort --host 127.0.0.1`,
    url: BASE_URL,
    // Always build and serve this tree: a server left running could hold an old build.
    reuseExistingServer: false,
    timeout: 120_000,
    stdout: 'ignore',
    stderr: 'pipe',
  },
});
