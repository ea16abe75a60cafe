// Client error reports (spec §7): the part that ships in the entry chunk. It only listens; the
// reporter (error-report.ts, its own chunk) loads when the first error happens. A build made
// with CIAM_ERROR_REPORTS=off compiles all of it away, the reporter chunk included.

export type ErrorKind = 'error' | 'rejection' | 'route';

/** Reports `error` (never throws, never waits). */
export function reportError(kind: ErrorKind, error: unknown): void {
  if (!__CIAM_ERROR_REPORTS__) return;
  import('./error-report').then(
    (m) => m.send(kind, error),
    () => {},
  );
}

/** Uncaught errors and unhandled rejections of the page. */
export function watchErrors(): void {
  if (!__CIAM_ERROR_REPORTS__) return;
  addEventListener('error', (e) => reportError('error', e.error ?? e.message));
  addEventListener('unhandledrejection', (e) => reportError('rejection', e.reason));
}
