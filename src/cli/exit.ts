/** The CLI's exit codes (README, "The CLI"). */
export const EXIT = { ok: 0, badInput: 2, storeFailed: 3, violation: 129 } as const;
