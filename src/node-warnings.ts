/**
 * The AWS SDK warns on every start that its releases after January 2027 need Node 22; the
 * README says so once, so the Node entry points (CLI, benchmark) leave it out of stderr.
 */
export function hideNodeVersionWarning(): void {
  const emitWarning = process.emitWarning.bind(process);
  process.emitWarning = ((warning: string | Error, ...rest: unknown[]) => {
    const opts = rest[0] as string | { type?: string } | undefined;
    const type = typeof opts === 'string' ? opts : opts?.type;
    if (type === 'NodeVersionSupportWarning' || String(warning).includes('NodeVersionSupportWarning')) return;
    (emitWarning as (...a: unknown[]) => void)(warning, ...rest);
  }) as typeof process.emitWarning;
}
