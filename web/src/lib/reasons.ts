// Reasons, typed (spec §8). `Reason` is the server's catalogue, generated from docs/openapi.json
// (lib/api-types.gen.ts); `ClientReason` the client's own. Code never compares a reason with a
// plain string: it looks the reason up in a typed map (`ReasonMap`, Logto-style handler maps) or
// asks `hasReason` with typed reasons, so a misspelt or retired reason fails `tsc`.
import type { Reason } from './api-types.gen';

export type { Reason };

/** Reasons the client makes up itself: the request never reached the server. */
export type ClientReason = 'NETWORK_ERROR';
export type AnyReason = Reason | ClientReason;

/** A value (a handler, a message, a field) per reason; reasons left out have none. */
export type ReasonMap<T> = Readonly<Partial<Record<AnyReason, T>>>;

/** The entry of `map` for `reason`; undefined for a reason the map leaves out. */
export function byReason<T>(map: ReasonMap<T>, reason: string): T | undefined {
  return Object.prototype.hasOwnProperty.call(map, reason) ? map[reason as AnyReason] : undefined;
}

/** Whether the error's reason is one of `reasons`. */
export function hasReason(e: { reason: string }, ...reasons: readonly AnyReason[]): boolean {
  return (reasons as readonly string[]).includes(e.reason);
}
