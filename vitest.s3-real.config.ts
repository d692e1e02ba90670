/**
 * `npm run test:s3-real`: the S3 suite against a store that checks signatures, Ceph's RADOS
 * Gateway, started on 127.0.0.1 by test/s3-real/global-setup.ts (scripts/ceph-rgw.sh) and
 * stopped by PID afterwards, even when a test fails. With S3_REAL_ENDPOINT set it runs
 * against that endpoint instead (S3_REAL_ACCESS_KEY, S3_REAL_SECRET_KEY; a usage log is then
 * read only if S3_REAL_CEPH_DIR names the cluster's directory).
 */
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const root = fileURLToPath(new URL('.', import.meta.url));

export default defineConfig({
  test: {
    root,
    include: ['test/s3-real/**/*.test.ts'],
    environment: 'node',
    globalSetup: ['test/s3-real/global-setup.ts'],
    // One cluster, one file at a time: the usage log is per bucket, but the cluster is small.
    fileParallelism: false,
    testTimeout: 300000,
    hookTimeout: 180000,
    reporters: ['default', 'json'],
    outputFile: { json: 'test-results/vitest-s3-real.json' },
  },
});
