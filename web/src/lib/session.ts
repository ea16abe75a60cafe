// The session in the browser (spec §4): the token and the time of the last action. Local
// storage is shared by every tab of the origin, so activity in one tab counts for the others.
import { KEYS, read, remove, write } from './storage';

export const IDLE_MS = 30 * 60 * 1000;

export function token(): string | null {
  return read(KEYS.token);
}

export function touch(now = Date.now()): void {
  write(KEYS.lastActionTime, String(now));
}

export function start(newToken: string | undefined, now = Date.now()): void {
  if (newToken) write(KEYS.token, newToken);
  touch(now);
}

export function clear(): void {
  remove(KEYS.token);
  remove(KEYS.lastActionTime);
}

export function isLoggedIn(): boolean {
  return token() !== null;
}

/** True when the last action is more than 30 minutes old (the session must end). */
export function isIdleExpired(now = Date.now()): boolean {
  const last = Number(read(KEYS.lastActionTime));
  return token() !== null && (!Number.isFinite(last) || last <= 0 || now - last > IDLE_MS);
}

/**
 * Ends an idle session: clears it and returns true when it had expired. Called on activity and on
 * a timer; `onExpired` shows 'Your session has expired. Please log in again'.
 */
export function checkIdle(onExpired: () => void, now = Date.now()): boolean {
  if (!isIdleExpired(now)) return false;
  clear();
  onExpired();
  return true;
}
