// Whether this page offers passkeys (tiny: it ships with the sign-in screen; the ceremonies are
// the lazy lib/passkey.ts). Off for the page's life once the server says it has no passkeys
// (PASSKEY_UNAVAILABLE, or a 404 from an older server); the ceremonies also need the browser's
// `PublicKeyCredential` (the security centre's list does not).
import { useSyncExternalStore } from 'react';

let off = false;
const listeners = new Set<() => void>();

export function turnOff(): void {
  off = true;
  listeners.forEach((l) => l());
}

/** Whether the server may have passkeys (not refused yet on this page). */
export const serverPasskeys = (): boolean => !off;

/** Whether passkeys can be used now: the server's and the browser's. */
export function passkeysOn(): boolean {
  return !off && typeof window !== 'undefined' && typeof window.PublicKeyCredential === 'function';
}

const subscribe = (l: () => void) => {
  listeners.add(l);
  return () => void listeners.delete(l);
};

export function usePasskeys(): boolean {
  return useSyncExternalStore(subscribe, passkeysOn, () => false);
}

export function useServerPasskeys(): boolean {
  return useSyncExternalStore(subscribe, serverPasskeys, () => false);
}

/** Tests: back to the page's first state. */
export function resetGate(): void {
  off = false;
}
