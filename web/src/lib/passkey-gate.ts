// Whether this page offers passkeys (tiny: it ships with the sign-in screen; the ceremonies are
// the lazy lib/passkey.ts). Off without `PublicKeyCredential`, and for the page's life once the
// server says it has no passkeys (PASSKEY_UNAVAILABLE, or a 404 from an older server).
import { useSyncExternalStore } from 'react';

let off = false;
const listeners = new Set<() => void>();

export function turnOff(): void {
  off = true;
  listeners.forEach((l) => l());
}

/** Whether passkeys can be offered now. */
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

/** Tests: back to the page's first state. */
export function resetGate(): void {
  off = false;
}
