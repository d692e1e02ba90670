/**
 * No orphans: the CLI ends when whoever started it dies. `npm run sim`, `npx tsx` and
 * `bin/tierscope.mjs` start it through a chain of launchers (npm, a shell, tsx's parent
 * process, the bin wrapper); a signal sent to the first of them reaches the CLI, but
 * `kill -9` of one does not, and the CLI would run on at full CPU with nobody to read it.
 *
 * So the CLI watches the launchers that started it, from a worker thread (it keeps watching
 * while the main thread is busy in a synchronous run): when one is gone, it sends the
 * process SIGTERM (a run stops between steps, says where and exits 143) and, if the process
 * is still there a second later (a synchronous phase that lets no signal in), SIGKILL.
 *
 * The chain is read from /proc (Linux): the parent, and its parents while they are
 * launchers (npm, npx, sh, tsx, node running tsx or bin/tierscope.mjs). Elsewhere, or when
 * /proc cannot be read, the parent alone is watched. The bin wrapper also passes its pid
 * (TIERSCOPE_LAUNCHER_PID), so its death while the CLI is still starting is seen; a launcher
 * of npm's chain killed in that first moment (before the watch starts) is not.
 */
import { readFileSync } from 'node:fs';
import { Worker } from 'node:worker_threads';

/** How often the launchers are looked at, ms. */
export const WATCH_EVERY_MS = 250;

/** A process's parent and command line, from /proc; null when it cannot be read. */
function procInfo(pid: number): { ppid: number; cmd: string } | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // pid (comm) state ppid ...: comm may hold spaces and parentheses; the rest follows the last ')'.
    const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ').trim();
    return { ppid: Number(rest[1]), cmd };
  } catch {
    return null;
  }
}

/** A command line that starts the CLI on someone's behalf (not a user's shell or terminal). */
export function isLauncher(cmd: string): boolean {
  return /(^|[/\s])(npm|npx|tsx)(\s|$|\.js|\.cjs|\.mjs)|npm-cli\.js|npx-cli\.js|tierscope\.mjs|tsx\/dist\/cli|^(\/usr\/bin\/|\/bin\/)?(sh|dash) -c /.test(cmd);
}

/** The processes to watch: the parent, and its parents while each is a launcher (at most 6). */
export function launcherChain(startPid = process.ppid): number[] {
  const chain: number[] = [startPid];
  let pid = startPid;
  for (let i = 0; i < 6; i++) {
    const info = procInfo(pid);
    if (info === null || !isLauncher(info.cmd) || info.ppid <= 1) break;
    pid = info.ppid;
    const parent = procInfo(pid);
    if (parent === null) break;
    chain.push(pid);
    if (!isLauncher(parent.cmd)) break;
  }
  return chain;
}

/** The watcher's code, run in a worker thread (plain JavaScript: no loader needed there). */
const WORKER = `
const { workerData } = require('node:worker_threads');
const { pids, self, everyMs } = workerData;
const alive = (pid) => { try { process.kill(pid, 0); return true; } catch (e) { return e.code === 'EPERM'; } };
const timer = setInterval(() => {
  const gone = pids.find((p) => !alive(p));
  if (gone === undefined) return;
  clearInterval(timer);
  try { process.kill(self, 'SIGTERM'); } catch {}
  setTimeout(() => { try { process.kill(self, 'SIGKILL'); } catch {} }, 1000);
}, everyMs);
`;

/**
 * Starts watching the launchers; returns a function that stops it. The worker does not keep
 * the process alive (unref).
 */
export function watchLaunchers(pids = launcherChain()): () => void {
  // The bin wrapper names itself: watched even if it died before this process could look.
  const named = Number(process.env.TIERSCOPE_LAUNCHER_PID);
  const watched = [...new Set([...pids, ...(Number.isInteger(named) && named > 1 ? [named] : [])])].filter((p) => p > 1);
  if (watched.length === 0) return () => {};
  const w = new Worker(WORKER, { eval: true, workerData: { pids: watched, self: process.pid, everyMs: WATCH_EVERY_MS } });
  w.unref();
  return () => void w.terminate();
}
