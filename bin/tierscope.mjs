#!/usr/bin/env node
// The `tierscope` bin: runs the TypeScript CLI through tsx, passing arguments, signals and
// the exit code. SIGINT, SIGTERM and SIGHUP sent to this process go on to the CLI (which
// stops its run between steps and says where); if the CLI ends by a signal, so does this.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const cli = fileURLToPath(new URL('../src/cli/main.ts', import.meta.url));
const loader = import.meta.resolve('tsx');
// The CLI watches this process and ends if it dies (src/cli/orphan.ts); the pid is passed on
// so that a kill -9 while the CLI is still starting is seen too.
const child = spawn(process.execPath, ['--import', loader, cli, ...process.argv.slice(2)], { stdio: 'inherit', env: { ...process.env, TIERSCOPE_LAUNCHER_PID: String(process.pid) } });
const forward = (sig) => child.kill(sig);
for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(sig, forward);
child.on('error', (e) => {
  process.stderr.write(`tierscope: cannot start the CLI: ${e.message}\n`);
  process.exit(1);
});
child.on('exit', (code, signal) => {
  if (signal !== null) {
    for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.off(sig, forward);
    process.kill(process.pid, signal);
    return;
  }
  process.exit(code ?? 1);
});
