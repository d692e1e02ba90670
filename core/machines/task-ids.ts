/**
 * The id a task machine's event answers (docs/protocol.md §5): the timer it set (`timerId`)
 * or the request it made (`requestId`), -1 for an event that answers neither. The remote log
 * manager's machines and the log retention machine each compare it with what they await.
 */
export function answeredId(event: { type: string }): number {
  if ('requestId' in event) return event.requestId as number;
  if ('timerId' in event) return event.timerId as number;
  return -1;
}
