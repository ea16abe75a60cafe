// The client's copy of the free-text rules of spec §5 (user name, company, profile texts),
// country and terms: used by sign-up and the profile only, so kept out of the sign-in's
// JavaScript (lib/validate.ts has the rest). The server (functions/core/src/validate.rs) is the
// source of truth; both sides are tested against functions/core/tests/validation_vectors.json.
import { defineMessages } from 'react-intl';
import { chars, type Problem, rules } from './validate';

export const textRules = defineMessages({
  company: { id: 'validate.company', defaultMessage: 'Please enter the company name' },
  special: { id: 'validate.special', defaultMessage: 'It cannot contain special characters' },
  tooLong: { id: 'validate.tooLong', defaultMessage: 'Too long' },
  username: { id: 'validate.username', defaultMessage: 'Username: 2 to 32 characters, one space at most between words' },
  country: { id: 'validate.country', defaultMessage: 'Please choose a country or region' },
  terms: { id: 'validate.terms', defaultMessage: 'You have to accept the above terms' },
});

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
  return hasInvisible(s) || /[<>"`\\/{}[\]|;$%^*=~!?@#+]/u.test(s) ? textRules.special : null;
}

/** A required free-text field: not blank, at most `max` characters, nothing invisible, no special characters. */
export function requiredText(raw: string, max: number): Problem {
  const s = tidy(raw);
  if (!s) return rules.empty;
  if (chars(s) > max) return textRules.tooLong;
  return noSpecial(s);
}

/**
 * Spec §5: required ("Please enter the company name" when nothing is typed), and spaces only are
 * "The field cannot be empty" (the server answers the same for a blank company).
 */
export function company(raw: string): Problem {
  return raw === '' ? textRules.company : requiredText(raw, 100);
}

/**
 * 2 to 32 characters, nothing invisible, no special characters, also once fullwidth and other
 * compatibility forms are folded (NFKC: "ann＠home" reads as "ann@home"). A space between words
 * ("Zhang Wei"), one at a time: no other white space (docs/validation.md).
 */
export function username(raw: string): Problem {
  const s = tidy(raw);
  const spacedBadly = s.includes('  ') || /(?! )\p{White_Space}/u.test(s);
  return requiredText(s, 32) ?? (chars(s) < 2 || spacedBadly ? textRules.username : noSpecial(s.normalize('NFKC')));
}

export function country(value: string): Problem {
  return value ? null : textRules.country;
}

export function terms(accepted: boolean): Problem {
  return accepted ? null : textRules.terms;
}
