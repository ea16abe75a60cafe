// What an error report must never carry (spec §7): query strings and URL fragments (tickets,
// serviceUrl, codes travel there), mail addresses, phone numbers, codes and other long digit
// runs, token-like strings. The server applies the same rules again (the vectors in
// scrub.vectors.json are checked on both sides).

/** Words end at whitespace, quotes and brackets. */
const END = `\\s'"\`()<>,;[\\]{}`;
const QUERY = new RegExp(`\\?[^${END}]*`, 'g');
const FRAGMENT = new RegExp(`(://[^${END}#]*)#[^${END}]*`, 'g');
const MAIL = new RegExp(`[^${END}@]+@[^${END}@]*\\.[^${END}@]*`, 'g');
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
    .replace(RUN, (t) => (/\d/.test(t) && /[A-Za-z]/.test(t) ? '[token]' : t))
    .replace(NUMBER, '[number]');
}
