// What an error report must never carry (spec §7): query strings and URL fragments (tickets,
// serviceUrl, codes travel there), mail addresses, phone numbers, codes and other long digit
// runs, JSON Web Tokens, token-like strings. The server applies the same rules again
// (functions/api/src/routes/client_error.rs); both sides pass the vectors in
// functions/api/tests/scrub-vectors.json.

/** Words end at whitespace, quotes and brackets. */
const END = `\\s'"\`()<>,;[\\]{}`;
const QUERY = new RegExp(`\\?[^${END}]*`, 'g');
const FRAGMENT = new RegExp(`(://[^${END}#]*)#[^${END}]*`, 'g');
const MAIL = new RegExp(`[^${END}@]+@[^${END}@]*\\.[^${END}@]*`, 'g');
/**
 * JSON Web Tokens and other JOSE values, whole: `eyJ` (base64url of `{"`) starting a base64url
 * run, and every `.`-joined run after it. A segment alone may look harmless (the payload of
 * `{"sub":"ann"}` is 18 letters), so they go together.
 */
const JWT = /(?<![A-Za-z0-9_-])eyJ[A-Za-z0-9_-]*(?:\.[A-Za-z0-9_-]*)+/g;
/**
 * Runs of base64url/hex characters mixing letters and digits: a session token is 32 hex digits
 * and 43 base64url characters; identifiers in code rarely mix them at that length.
 */
const RUN = /[A-Za-z0-9_-]{20,}/g;
/** Six digits or more, single spaces or hyphens between them; not a stack's :line:column. */
const NUMBER = /(?<![\w:.])\+?\d(?:[ -]?\d){5,}/g;

export function scrub(text: string): string {
  return text
    .replace(QUERY, '')
    .replace(FRAGMENT, '$1')
    .replace(MAIL, '[email]')
    .replace(JWT, '[token]')
    .replace(RUN, (t) => (/\d/.test(t) && /[A-Za-z]/.test(t) ? '[token]' : t))
    .replace(NUMBER, '[number]');
}
