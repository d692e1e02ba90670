/**
 * No orphans (src/cli/orphan.ts): `kill -9` of whoever started the CLI (npm, the bin
 * wrapper) ends the CLI too, instead of leaving it running at full CPU. Linux only (the
 * launcher chain is read from /proc; the test finds the CLI's process there too).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { isLauncher, launcherChain } from '../src/cli/orphan.js';
import { ROOT } from './support/run.js';

const linux = existsSync('/proc/self/stat');
const dir = mkdtempSync(join(tmpdir(), 'tierscope-orphan-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A run that would take minutes: idle partitions for 400,000 s of simulated time. */
function longScenario(name: string): string {
  const file = join(dir, `${name}.yaml`);
  writeFileSync(file, `name: ${name}\nbrokers: 3\ntopics:\n  - name: t\n    partitions: 10\n    replicas: [${Array.from({ length: 10 }, (_, p) => `[${p % 3}, ${(p + 1) % 3}, ${(p + 2) % 3}]`).join(', ')}]\nuntil: 400000000\n`);
  return file;
}

/** Pids whose command line names `marker` and runs the CLI's main.ts (not a launcher). */
function cliPids(marker: string): number[] {
  const out: number[] = [];
  for (const e of readdirSync('/proc')) {
    if (!/^\d+$/.test(e)) continue;
    try {
      const cmd = readFileSync(`/proc/${e}/cmdline`, 'utf8').split('\0').join(' ');
      if (cmd.includes(marker) && cmd.includes('main.ts') && cmd.includes('--import')) out.push(Number(e));
    } catch {
      // gone meanwhile
    }
  }
  return out;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until(what: () => boolean, ms: number): Promise<boolean> {
  for (let waited = 0; waited < ms; waited += 100) {
    if (what()) return true;
    await sleep(100);
  }
  return what();
}

async function killLauncherAndWatch(launcher: ChildProcess, marker: string): Promise<void> {
  // The CLI is up and watching (it has printed its first line, the work-budget note, which
  // comes after the watch starts) before its launcher is killed.
  let err = '';
  launcher.stderr?.on('data', (d) => (err += d));
  expect(await until(() => err.includes('the scenario work budget is off') && cliPids(marker).length === 1, 30_000), `the CLI started: ${err}`).toBe(true);
  const [pid] = cliPids(marker);
  launcher.kill('SIGKILL');
  // Gone well within this bound (it acts within a quarter second, then a second at most).
  const gone = await until(() => !existsSync(`/proc/${pid}`) || readFileSync(`/proc/${pid}/stat`, 'utf8').includes(') Z '), 20_000);
  if (!gone) process.kill(pid, 'SIGKILL');
  expect(gone, `the CLI (pid ${pid}) outlived its launcher`).toBe(true);
}

describe.skipIf(!linux)('no orphans', () => {
  test('the launcher chain: npm, sh -c, tsx and the bin wrapper are launchers; a shell is not', () => {
    expect(isLauncher('npm run sim run x.yaml')).toBe(true);
    expect(isLauncher('sh -c tsx src/cli/main.ts run x.yaml')).toBe(true);
    expect(isLauncher('node /work/node_modules/.bin/tsx src/cli/main.ts run x.yaml')).toBe(true);
    expect(isLauncher('/usr/bin/node /work/bin/tierscope.mjs run x.yaml')).toBe(true);
    expect(isLauncher('-bash')).toBe(false);
    expect(isLauncher('/usr/bin/zsh')).toBe(false);
    // This test process's chain starts at its parent.
    expect(launcherChain()[0]).toBe(process.ppid);
  });

  test('kill -9 of npm run sim ends the CLI', async () => {
    const file = longScenario('orphan-npm');
    const npm = spawn('npm', ['run', '-s', 'sim', '--', 'run', file, '--no-work-budget', '--max-steps', '1000000000'], { cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe'] });
    await killLauncherAndWatch(npm, 'orphan-npm');
  }, 60_000);

  test('kill -9 of bin/tierscope.mjs ends the CLI', async () => {
    const file = longScenario('orphan-bin');
    const bin = spawn(process.execPath, [join(ROOT, 'bin', 'tierscope.mjs'), 'run', file, '--no-work-budget', '--max-steps', '1000000000'], { cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe'] });
    await killLauncherAndWatch(bin, 'orphan-bin');
  }, 60_000);
});
