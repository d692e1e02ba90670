/** The CLI's exit codes (README, "The CLI"). */
export const EXIT = { ok: 0, badInput: 2, storeFailed: 3, violation: 129 } as const;

/** The exit code of a run stopped by a signal: 128 + its number (130 for SIGINT, 143 for SIGTERM). */
export function signalExit(sig: NodeJS.Signals): number {
  return sig === 'SIGINT' ? 130 : sig === 'SIGTERM' ? 143 : 1;
}
