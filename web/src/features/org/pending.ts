// The invitation's token between the link and the accept (docs/web-experience.md "My company"):
// read once from the landing's address, which is then replaced by the address without it (so no
// later request's Referer, no history entry and no error report carries it), and kept in this
// tab's sessionStorage across sign-in or sign-up, never in localStorage, a log or the address.
const KEY = 'ciam_org_invitation';

/** The token of an invitation link's query (`?token=`), when it looks like one (base64url). */
export function tokenOf(search: string): string | null {
  const t = new URLSearchParams(search).get('token')?.trim() ?? '';
  return /^[A-Za-z0-9_-]{16,100}$/.test(t) ? t : null;
}

export function keep(token: string): void {
  try {
    sessionStorage.setItem(KEY, token);
  } catch {
    // Storage blocked: the landing keeps it in its state for this page only.
  }
}

export function pending(): string | null {
  try {
    return sessionStorage.getItem(KEY);
  } catch {
    return null;
  }
}

export function forget(): void {
  try {
    sessionStorage.removeItem(KEY);
  } catch {
    // see keep()
  }
}
