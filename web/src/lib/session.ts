// The session in the browser (spec §4): the token and the time of the last action. Local
// storage is shared by every tab of the origin, so activity in one tab counts for the others.
import { KEYS, read, remove, write } from './storage';

export const IDLE_MS = 30 * 60 * 1000;

/**
 * The memory-only session of the embedded sign-in (a third-party frame may have no storage, and
 * must never share the first-party session): while on, the token lives here and storage is
 * neither read nor written. Null when off.
 */
let memory: { token: string | null } | null = null;

/** Switches the memory-only mode on (with no token yet) or off (forgetting its token). */
export function memoryOnly(on: boolean): void {
  memory = on ? { token: null } : null;
}

export function token(): string | null {
  return memory ? memory.token : read(KEYS.token);
}

export function touch(now = Date.now()): void {
  if (!memory) write(KEYS.lastActionTime, String(now));
}

export function start(newToken: string | undefined, now = Date.now()): void {
  if (memory) {
    if (newToken) memory.token = newToken;
    return;
  }
  if (newToken) write(KEYS.token, newToken);
  touch(now);
}

export function clear(): void {
  if (memory) {
    memory.token = null;
    return;
  }
  remove(KEYS.token);
  remove(KEYS.lastActionTime);
}

export function isLoggedIn(): boolean {
  return token() !== null;
}

/** True when the last action is more than 30 minutes old (the session must end). */
export function isIdleExpired(now = Date.now()): boolean {
  // The memory-only session has no shared time of the last action; it ends with the frame.
  if (memory) return false;
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
