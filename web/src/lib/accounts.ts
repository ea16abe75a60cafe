// The accounts remembered on this browser for "choose account" (spec §2): the identifier and when
// it was last used, most recent first, at most 5. Never a password or a token.
import { KEYS, read, write } from './storage';

export interface Remembered {
  account: string;
  lastUsed: number;
}

export const MAX_ACCOUNTS = 5;

export function list(): Remembered[] {
  let raw: unknown;
  try {
    raw = JSON.parse(read(KEYS.accounts) ?? '[]');
  } catch {
    return [];
  }
  if (!Array.isArray(raw)) return [];
  return raw
    .filter((x): x is Remembered => typeof x?.account === 'string' && x.account !== '' && typeof x.lastUsed === 'number')
    .map(({ account, lastUsed }) => ({ account, lastUsed }))
    .sort((a, b) => b.lastUsed - a.lastUsed)
    .slice(0, MAX_ACCOUNTS);
}

function save(items: Remembered[]): void {
  write(KEYS.accounts, JSON.stringify(items.slice(0, MAX_ACCOUNTS)));
}

const same = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();

/** Puts `account` first (once: the same identifier in another case is the same entry). */
export function remember(account: string, now = Date.now()): void {
  const a = account.trim();
  if (a) save([{ account: a, lastUsed: now }, ...list().filter((x) => !same(x.account, a))]);
}

export function forget(account: string): Remembered[] {
  const rest = list().filter((x) => !same(x.account, account));
  save(rest);
  return rest;
}
