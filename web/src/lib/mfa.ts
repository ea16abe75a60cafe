// The multi-factor step: NEED_TOTP_VERIFY opens it with the server's single-use challenge.

/** Dispatched on window when a server answer says two-factor is already on (app.tsx wires lib/api.ts to it). */
export const TOTP_ENABLED_EVENT = 'ciam:totp-enabled';

let challenge: string | null = null;
/** The account whose password step is under way, remembered when its second step succeeds. */
let account: string | null = null;

export function signingIn(a: string): void {
  account = a;
}

export function pendingAccount(): string | null {
  return account;
}
const listeners = new Set<() => void>();

export function open(c: string | undefined): void {
  challenge = c ?? '';
  listeners.forEach((l) => l());
}

export function close(): void {
  challenge = null;
  listeners.forEach((l) => l());
}

export function current(): string | null {
  return challenge;
}

export function subscribe(l: () => void): () => void {
  listeners.add(l);
  return () => listeners.delete(l);
}
