import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { svelte } from '@sveltejs/vite-plugin-svelte';
import { defineConfig } from 'vitest/config';

const root = fileURLToPath(new URL('.', import.meta.url));

export default defineConfig({
  // The walkthrough lives in web/; the build is a static site that works from any path.
  root: 'web',
  base: './',
  plugins: [
    svelte(),
    // The page links a known finding to its explanation in docs/protocol.md: shipped with the site.
    { name: 'protocol-doc', generateBundle() { this.emitFile({ type: 'asset', fileName: 'docs/protocol.md', source: readFileSync(new URL('docs/protocol.md', import.meta.url), 'utf8') }); } },
  ],
  build: { outDir: '../dist', emptyOutDir: true, chunkSizeWarningLimit: 600 },
  server: { fs: { allow: [root] } },
  test: {
    root,
    include: ['test/**/*.test.ts'],
    // The real-S3 suite starts a Ceph cluster: `npm run test:s3-real` (vitest.s3-real.config.ts).
    exclude: ['test/s3-real/**', '**/node_modules/**'],
    environment: 'node',
    testTimeout: 60000,
    reporters: ['default', 'json'],
    outputFile: { json: 'test-results/vitest.json' },
  },
});
