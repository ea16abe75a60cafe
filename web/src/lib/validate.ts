// The client's copy of the rules of spec §5. The server (functions/core/src/validate.rs and
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
  company: { id: 'validate.company', defaultMessage: 'Please enter the company name' },
  empty: { id: 'validate.empty', defaultMessage: 'The field cannot be empty' },
  special: { id: 'validate.special', defaultMessage: 'It cannot contain special characters' },
  tooLong: { id: 'validate.tooLong', defaultMessage: 'Too long' },
  username: { id: 'validate.username', defaultMessage: 'Username: 2 to 32 characters, no spaces' },
  codeEmpty: { id: 'validate.codeEmpty', defaultMessage: 'Verification code cannot be empty' },
  codeDigits: { id: 'validate.codeDigits', defaultMessage: 'Please enter 6 digits' },
  country: { id: 'validate.country', defaultMessage: 'Please choose a country or region' },
  terms: { id: 'validate.terms', defaultMessage: 'You have to accept the above terms' },
});

export type Problem = MessageDescriptor | null;

const chars = (s: string) => [...s].length;

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

// What a reader cannot see (the server's validate/unicode.rs): controls, format and bidi
// characters, line and paragraph separators, private-use and unassigned code points, every
// default-ignorable code point and the blank braille pattern. A variation selector is allowed
// only right after a visible character (the emoji or ideograph it selects a glyph for).
const INVISIBLE = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Co}\p{Cn}\p{Default_Ignorable_Code_Point}\u2800]/u;
const SELECTOR = /\p{Variation_Selector}/u;
const SPACE = /\p{White_Space}/u;

/** Whether `s` holds a character a reader cannot see, or one that reorders the text around it. */
export function hasInvisible(s: string): boolean {
  let afterVisible = false;
  for (const c of s) {
    if (SELECTOR.test(c)) {
      if (!afterVisible) return true;
      afterVisible = false;
    } else if (INVISIBLE.test(c)) {
      return true;
    } else {
      afterVisible = !SPACE.test(c);
    }
  }
  return false;
}

/**
 * The server's trim (White_Space only: String.prototype.trim also drops U+FEFF, which the server
 * refuses rather than hides) and NFC, the form text is counted and stored in.
 */
function tidy(raw: string): string {
  return raw.replace(/^\p{White_Space}+|\p{White_Space}+$/gu, '').normalize('NFC');
}

export function noSpecial(s: string): Problem {
  return hasInvisible(s) || /[<>"`\\/{}[\]|;$%^*=~!?@#+]/u.test(s) ? rules.special : null;
}

/** A required free-text field: not blank, at most `max` characters, nothing invisible, no special characters. */
export function requiredText(raw: string, max: number): Problem {
  const s = tidy(raw);
  if (!s) return rules.empty;
  if (chars(s) > max) return rules.tooLong;
  return noSpecial(s);
}

/**
 * Spec §5: required ("Please enter the company name" when nothing is typed), and spaces only are
 * "The field cannot be empty" (the server answers the same for a blank company).
 */
export function company(raw: string): Problem {
  return raw === '' ? rules.company : requiredText(raw, 100);
}

/**
 * 2 to 32 characters, no spaces, nothing invisible, no special characters, also once fullwidth
 * and other compatibility forms are folded (NFKC: "ann＠home" reads as "ann@home").
 */
export function username(raw: string): Problem {
  const s = tidy(raw);
  return requiredText(s, 32) ?? (chars(s) < 2 || SPACE.test(s) ? rules.username : noSpecial(s.normalize('NFKC')));
}

export function code(raw: string): Problem {
  const s = raw.trim();
  if (!s) return rules.codeEmpty;
  return /^\d{6}$/.test(s) ? null : rules.codeDigits;
}

export function country(value: string): Problem {
  return value ? null : rules.country;
}

export function terms(accepted: boolean): Problem {
  return accepted ? null : rules.terms;
}
