// The multi-factor step: NEED_TOTP_VERIFY opens it with the server's single-use challenge.
let challenge: string | null = null;
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
