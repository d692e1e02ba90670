/**
 * What the browser specs share: `test` fails on any console error or uncaught page error
 * (the auto `pageErrors` fixture), and where screenshots go.
 */
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test as base, expect } from '@playwright/test';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const SHOTS = join(ROOT, 'test-results', 'screenshots');

/** Collects console errors and page errors; a test with any of them fails. */
export const test = base.extend<{ pageErrors: string[] }>({
  pageErrors: [
    async ({ page }, use) => {
      const errors: string[] = [];
      page.on('console', (m) => {
        if (m.type() === 'error') errors.push(`console.error: ${m.text()}`);
      });
      page.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`));
      await use(errors);
      expect(errors, 'console errors or uncaught page errors').toEqual([]);
    },
    { auto: true },
  ],
});

export { expect };
