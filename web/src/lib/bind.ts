// A browser's random `bind` for a round trip through a provider (docs/federation-design.md §1.3):
// kept in this tab's sessionStorage under a key of its own, the server sees only its hash
// (base64url(SHA-256(bind))) until the way back presents the bind itself.

const base64url = (bytes: Uint8Array) =>
  btoa(String.fromCharCode(...bytes))
    .replace(/=+$/, '')
    .replace(/[+/]/g, (c) => (c === '+' ? '-' : '_'));

/** base64url(SHA-256(bind)). */
export async function hashOfBind(bind: string): Promise<string> {
  return base64url(new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(bind))));
}

/** A new random bind (256 bits) kept under `key`; answers its hash. */
export async function keepNewBind(key: string): Promise<string> {
  const bind = base64url(crypto.getRandomValues(new Uint8Array(32)));
  try {
    sessionStorage.setItem(key, bind);
  } catch {
    // Storage blocked: the way back will be refused as another browser's, which it then is.
  }
  return hashOfBind(bind);
}

/** The bind kept under `key`, removed (it serves once); null when there is none. */
export function takeKeptBind(key: string): string | null {
  try {
    const bind = sessionStorage.getItem(key);
    sessionStorage.removeItem(key);
    return bind;
  } catch {
    return null;
  }
}
