/** Local facts. A failed assertion is a bug in the model, never bad user input. */
export class AssertionError extends Error {
  override name = 'AssertionError';
}

export function assert(condition: unknown, message: string): asserts condition {
  if (!condition) throw new AssertionError(message);
}

/**
 * A failed assertion whose message is built only when it fails: on a path run millions of
 * times, `assert(x, \`... ${n}\`)` builds its message string at every call.
 */
export function fail(message: string): never {
  throw new AssertionError(message);
}
