// The multi-factor step: NEED_TOTP_VERIFY opens it with the server's single-use challenge.
import type { ApiError } from './api';

/**
 * Where a step ends that is not the full page's: the embedded sign-in's own success (its consent
 * step and ticket) and refusals (told to the host page); `passkey`: whether the frame may ask.
 */
export interface StepHost {
  done(token: string): void;
  refused(e: ApiError): void;
  passkey: boolean;
  /** The embedding app: the passkey step names it (the server checks the framing page). */
  appId: string;
}

/** Dispatched on window when a server answer says two-factor is already on (app.tsx wires lib/api.ts to it). */
export const TOTP_ENABLED_EVENT = 'ciam:totp-enabled';

let challenge: string | null = null;
/** The account whose password step is under way, remembered when its second step succeeds. */
let account: string | null = null;
let stepHost: StepHost | null = null;

/** Called when a first step starts: the modal's chunk loads then, not on every screen's first load. */
let prepare: (() => void) | null = null;

export function signingIn(a: string): void {
  account = a;
  prepare?.();
}

/** Set by the modal's host: what to do when a first step starts (load the modal's code). */
export function whenSigningIn(f: (() => void) | null): void {
  prepare = f;
}

export function pendingAccount(): string | null {
  return account;
}
const listeners = new Set<() => void>();

export function open(c: string | undefined, h: StepHost | null = null): void {
  challenge = c ?? '';
  stepHost = h;
  listeners.forEach((l) => l());
}

export function close(): void {
  challenge = null;
  stepHost = null;
  listeners.forEach((l) => l());
}

export function current(): string | null {
  return challenge;
}

export function subscribe(l: () => void): () => void {
  listeners.add(l);
  return () => listeners.delete(l);
}

/** The embedded sign-in's handling of the open step, if it opened it. */
export const host = (): StepHost | null => stepHost;
