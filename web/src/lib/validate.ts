// The client's copy of the rules of spec §5 the sign-in screens need (the free-text rules of
// sign-up and the profile are lib/validate-text.ts, out of the sign-in's JavaScript). The server (functions/core/src/validate.rs and
// password.rs) is the source of truth and checks everything again; both sides are tested against
// functions/core/tests/validation_vectors.json. Each validator returns null when the input is
// valid, else the message to show.
import { defineMessages, type MessageDescriptor } from 'react-intl';

export const rules = defineMessages({
  mail: { id: 'validate.mail', defaultMessage: 'Invalid e-mail' },
  phone: { id: 'validate.phone', defaultMessage: 'Invalid phone: only mainland China numbers are supported' },
  password: { id: 'validate.password', defaultMessage: 'The password does not meet the rules' },
  passwordRule: {
    id: 'validate.passwordRule',
    defaultMessage: '8 to 128 characters with upper and lower case letters, digits and special characters, without ` \\ \'\' " /',
  },
  pwLength: { id: 'validate.pwLength', defaultMessage: '8 to 128 characters' },
  pwUpper: { id: 'validate.pwUpper', defaultMessage: 'An upper-case letter' },
  pwLower: { id: 'validate.pwLower', defaultMessage: 'A lower-case letter' },
  pwDigit: { id: 'validate.pwDigit', defaultMessage: 'A digit' },
  pwSpecial: { id: 'validate.pwSpecial', defaultMessage: 'A special character' },
  pwForbidden: { id: 'validate.pwForbidden', defaultMessage: 'None of ` \\ \'\' " /' },
  confirm: { id: 'validate.confirm', defaultMessage: 'Password does not match' },
  empty: { id: 'validate.empty', defaultMessage: 'The field cannot be empty' },
  codeEmpty: { id: 'validate.codeEmpty', defaultMessage: 'Verification code cannot be empty' },
  codeDigits: { id: 'validate.codeDigits', defaultMessage: 'Please enter 6 digits' },
});

export type Problem = MessageDescriptor | null;

export const chars = (s: string) => [...s].length;

// The local part's characters (RFC 5322 atext), dots only between them; lower-case labels of
// letters, digits and inner hyphens; an alphabetic top-level label.
const LOCAL = /^[\w!#$%&'*+\-/=?^`{|}~]+(\.[\w!#$%&'*+\-/=?^`{|}~]+)*$/;
const DOMAIN = /^([a-z\d]([a-z\d-]{0,61}[a-z\d])?\.)+[a-z]{2,63}$/;

export function mail(raw: string): Problem {
  const s = raw.trim().toLowerCase();
  const at = s.lastIndexOf('@');
  const local = s.slice(0, at);
  const ok = at > 0 && s.length <= 254 && local.length <= 64 && LOCAL.test(local) && DOMAIN.test(s.slice(at + 1));
  return ok ? null : rules.mail;
}

/** Mainland-China mobiles: 11 digits 1[3-9]…, with an optional +86/0086, spaces and dashes. */
export function phone(raw: string): Problem {
  const s = raw.trim().replace(/[ -]/g, '').replace(/^(\+86|0086)/, '');
  return /^1[3-9]\d{9}$/.test(s) ? null : rules.phone;
}

/**
 * A sign-in identifier: a mail when it contains '@' or a letter (the message fits what was
 * typed: "ann.example.com" is a mail gone wrong), else a phone number.
 */
export function identity(raw: string): Problem {
  if (!raw.trim()) return rules.empty;
  return /[@\p{L}]/u.test(raw) ? mail(raw) : phone(raw);
}

/**
 * The character rules of a password (the live checklist shows each; `password` needs them all).
 * The character rules only: the server also refuses the 10,000 most common passwords, a list too
 * big to ship to the browser.
 */
export const passwordChecks: readonly (readonly [MessageDescriptor, (pw: string) => boolean])[] = [
  [rules.pwLength, (pw) => chars(pw) >= 8 && chars(pw) <= 128],
  [rules.pwUpper, (pw) => /\p{Uppercase}/u.test(pw)],
  [rules.pwLower, (pw) => /\p{Lowercase}/u.test(pw)],
  [rules.pwDigit, (pw) => /\d/.test(pw)],
  [rules.pwSpecial, (pw) => /[^\p{Alphabetic}\p{N}\p{White_Space}]/u.test(pw)],
  [rules.pwForbidden, (pw) => !/[`\\'"/\p{Cc}]/u.test(pw)],
];

export function password(pw: string): Problem {
  return passwordChecks.every(([, ok]) => ok(pw)) ? null : rules.password;
}

export function confirm(pw: string, again: string): Problem {
  return pw === again ? null : rules.confirm;
}

export function code(raw: string): Problem {
  const s = raw.trim();
  if (!s) return rules.codeEmpty;
  return /^\d{6}$/.test(s) ? null : rules.codeDigits;
}
