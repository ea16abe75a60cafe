// Mail and phone as the server stores and masks them (functions/core/src/validate.rs), for the
// client's "new must differ from the current one" check (spec §5). The page only knows the
// current value masked; the identifier last used to sign in on this browser (the "choose account"
// list of lib/accounts, read here from storage so that the sign-in chunk stays whole) tells the
// rest when it masks the same. When unsure, the server decides (INVALID_PARAMETER).
import { KEYS, read } from '../../lib/storage';

export type IdentityKind = 'mail' | 'phone';

export function normalizeIdentity(kind: IdentityKind, raw: string): string {
  const s = raw.trim();
  if (kind === 'mail') return s.toLowerCase();
  return s.replace(/[ -]/g, '').replace(/^(\+86|0086)/, '');
}

/** `ab***@example.com` (one kept character when the local part is 1 or 2 long), `138****8000`. */
export function maskIdentity(kind: IdentityKind, value: string): string {
  if (kind === 'phone') return value.length === 11 ? `${value.slice(0, 3)}****${value.slice(7)}` : value;
  const at = value.lastIndexOf('@');
  const local = at < 0 ? value : value.slice(0, at);
  const domain = at < 0 ? '' : value.slice(at + 1);
  const chars = [...local];
  return `${chars.slice(0, chars.length > 2 ? 2 : 1).join('')}***@${domain}`;
}

/**
 * True only when `raw` certainly is the current value: it masks like the current one and it is
 * the identifier this browser last signed in with.
 */
export function sameAsCurrent(kind: IdentityKind, raw: string, currentMasked: string | null, lastSignIn: string | null): boolean {
  if (!currentMasked || !lastSignIn) return false;
  const n = normalizeIdentity(kind, raw);
  return maskIdentity(kind, n) === currentMasked && normalizeIdentity(kind, lastSignIn) === n;
}

/** The identifier most recently used to sign in on this browser, if any. */
export function lastSignIn(): string | null {
  try {
    const list: unknown = JSON.parse(read(KEYS.accounts) ?? '[]');
    if (!Array.isArray(list)) return null;
    let best: { account: string; lastUsed: number } | null = null;
    for (const x of list) {
      if (typeof x?.account === 'string' && typeof x.lastUsed === 'number' && (!best || x.lastUsed > best.lastUsed)) best = x;
    }
    return best?.account ?? null;
  } catch {
    return null;
  }
}
