// Sends one client error report (spec §7) to POST /client-errors: the release string,
// the kind, the message, the page's path and the stack, all scrubbed (scrub.ts) and capped. No
// session token, no query string, no personal data; no Authorization header. At most MAX
// distinct reports per page load; a repeat of one already sent is dropped.
// Its own fetch (keepalive, no Authorization header, no default handling), at the client's address.
import type { Body } from './api';
import { url } from './api-url';
import { scrub } from './scrub';

export const ENDPOINT = url('POST /client-errors');
const MAX = 5;
const STACK_FRAMES = 12;
const sent = new Set<string>();

const cap = (s: string, n: number) => scrub(s).slice(0, n);

/** The body of the report of `error`. */
export function reportOf(kind: Body<'POST /client-errors'>['kind'], error: unknown): Body<'POST /client-errors'> {
  const e = error instanceof Error ? error : null;
  const message = e ? `${e.name}: ${e.message}` : String(error);
  return {
    version: __CIAM_VERSION__,
    kind,
    message: cap(message, 300),
    route: cap(location.pathname, 200),
    stack: cap((e?.stack ?? '').split('\n').slice(0, STACK_FRAMES).join('\n'), 2000),
  };
}

export function send(kind: Body<'POST /client-errors'>['kind'], error: unknown): void {
  try {
    const body = reportOf(kind, error);
    const key = `${kind} ${body.message}`;
    if (sent.has(key) || sent.size >= MAX) return;
    sent.add(key);
    fetch(ENDPOINT, {
      method: 'POST',
      keepalive: true,
      // No Referer: the address may carry what a report must not (an invitation's token).
      referrerPolicy: 'no-referrer',
      headers: { 'content-type': 'application/json', 'X-Request-ID': crypto.randomUUID() },
      body: JSON.stringify(body),
    }).catch(() => {});
  } catch {
    // A report must never become an error of its own.
  }
}
