#!/usr/bin/env node
// The `tierscope` bin: runs the TypeScript CLI through tsx, passing arguments and exit code.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const cli = fileURLToPath(new URL('../src/cli/main.ts', import.meta.url));
const loader = import.meta.resolve('tsx');
const r = spawnSync(process.execPath, ['--import', loader, cli, ...process.argv.slice(2)], { stdio: 'inherit' });
process.exit(r.status ?? 1);
