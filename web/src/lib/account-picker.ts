// What "choose an account" shows and forgets, beside the remembered identifiers of lib/accounts.ts
// (which the shell's multi-factor step also loads, so it stays small): the account masked for
// display, the person's name learnt from the personal centre, and the reasons that mean the
// account is gone (deactivated or unknown). Loaded with the sign-in screen and the centre only.
import { createContext } from 'react';
import type { UserInfo } from './api-types.gen';
import * as accounts from './accounts';
import { type AnyReason, hasReason } from './reasons';

const NAMES = 'ciam_account_names';
const key = (account: string) => account.trim().toLowerCase();

/**
 * A sign-in refused with one of these says the account does not exist (any more): a code sign-in
 * answers them once the code is proven (spec §8; a password sign-in answers PASSWORD_ERROR for a
 * deactivated account, like for a wrong password, and says nothing).
 */
export const GONE_REASONS: readonly AnyReason[] = ['MAIL_NOT_FOUND', 'PHONE_NOT_FOUND'];

export const isGone = (e: { reason: string }) => hasReason(e, ...GONE_REASONS);

/** `ann.lee@example.com` -> `an***@example.com`; `13812345678` -> `138****5678`; a user name as it is. */
export function maskAccount(account: string): string {
  const a = account.trim();
  const at = a.lastIndexOf('@');
  if (at > 0) return `${a.slice(0, Math.min(2, at - 1) || 1)}***${a.slice(at)}`;
  const digits = a.replace(/[\s-]/g, '');
  if (/^\+?\d{7,}$/.test(digits)) return `${digits.slice(0, digits.length - 8)}****${digits.slice(-4)}`;
  return a;
}

function readNames(): Record<string, string> {
  try {
    const raw: unknown = JSON.parse(window.localStorage.getItem(NAMES) ?? '{}');
    return raw && typeof raw === 'object' && !Array.isArray(raw) ? (raw as Record<string, string>) : {};
  } catch {
    return {};
  }
}

function writeNames(names: Record<string, string>): void {
  try {
    window.localStorage.setItem(NAMES, JSON.stringify(names));
  } catch {
    // Storage refused: the picker shows the masked account alone.
  }
}

/** The name shown for a remembered account, or null. */
export function nameOf(account: string): string | null {
  const n = readNames()[key(account)];
  return typeof n === 'string' && n ? n : null;
}

/** Whether `account` (as typed at sign-in) is the one that `masked` (as the server shows it) hides. */
export function sameMasked(account: string, masked: string | null | undefined): boolean {
  if (!masked) return false;
  const a = key(account).replace(/[\s-]/g, '');
  const m = masked.trim().toLowerCase().replace(/[\s-]/g, '');
  const parts = m.split(/\*+/);
  if (parts.length === 1) return a === m;
  const [head = '', tail = ''] = [parts[0], parts[parts.length - 1]];
  return a.length >= head.length + tail.length && a.startsWith(head) && a.endsWith(tail);
}

/** After the centre loads the account: its name for the remembered entry that is this account. */
export function learnName(info: Pick<UserInfo, 'userName' | 'displayName' | 'mail' | 'phone'>): void {
  const name = (info.displayName || info.userName || '').trim();
  if (!name) return;
  const hit = accounts
    .list()
    .find((r) => key(r.account) === key(info.userName) || sameMasked(r.account, info.mail) || sameMasked(r.account, info.phone));
  if (!hit) return;
  const names = readNames();
  if (names[key(hit.account)] === name) return;
  writeNames({ ...names, [key(hit.account)]: name });
}

/**
 * The account this user signed in with on this browser, as typed (never the server's masked mail
 * or phone): the one remembered entry that is this account; null when none or more than one is
 * (then a form leaves the account out rather than guess).
 */
export function signedInAs(info: Pick<UserInfo, 'userName' | 'mail' | 'phone'>): string | null {
  const hits = accounts
    .list()
    .filter((r) => key(r.account) === key(info.userName) || sameMasked(r.account, info.mail) || sameMasked(r.account, info.phone));
  return hits.length === 1 ? hits[0]!.account : null;
}

/** Forgets `account` on this browser: the identifier and its name. */
export function forgetAccount(account: string): accounts.Remembered[] {
  const names = readNames();
  if (key(account) in names) {
    delete names[key(account)];
    writeNames(names);
  }
  return accounts.forget(account);
}

/** After this account is deactivated here: every remembered entry that is it (name, mail or phone). */
export function forgetSelf(info: Pick<UserInfo, 'userName' | 'mail' | 'phone'>): void {
  for (const r of accounts.list()) {
    if (key(r.account) === key(info.userName) || sameMasked(r.account, info.mail) || sameMasked(r.account, info.phone)) forgetAccount(r.account);
  }
}

/**
 * Given by the sign-in screen to its forms: called with the account and the error of a refused
 * sign-in, it forgets a remembered account that the server reports as gone.
 */
export const AccountRefused = createContext<(account: string, e: { reason: string }) => void>(() => {});

/** The handler the sign-in screen provides: true when an account was forgotten. */
export function dropIfGone(account: string, e: { reason: string }): boolean {
  if (!isGone(e) || !accounts.list().some((r) => key(r.account) === key(account))) return false;
  forgetAccount(account);
  return true;
}
