// The local-storage keys of spec §3, in one place.
export const KEYS = {
  token: 'ciam_token',
  originUrl: 'ciam_origin_url',
  locale: 'umi_locale',
  country: 'country',
  lastActionTime: 'lastActionTime',
  accounts: 'ciam_accounts',
} as const;

type Key = (typeof KEYS)[keyof typeof KEYS];

export function read(key: Key): string | null {
  try {
    return window.localStorage.getItem(key);
  } catch {
    return null;
  }
}

export function write(key: Key, value: string): void {
  try {
    window.localStorage.setItem(key, value);
  } catch {
    // Storage disabled (private mode, cookies blocked): the app still works for this page.
  }
}

export function remove(key: Key): void {
  try {
    window.localStorage.removeItem(key);
  } catch {
    // see write()
  }
}

/**
 * Whether the browser lets the app keep anything (false when cookies and site data are blocked:
 * then `localStorage` throws). Without it a sign-in cannot last beyond the page, so the sign-in
 * screen says "Please enable browser cookies" instead of signing in and bouncing back.
 */
export function available(): boolean {
  try {
    const s = window.localStorage;
    s.setItem(KEYS.lastActionTime + '.probe', '1');
    s.removeItem(KEYS.lastActionTime + '.probe');
    return true;
  } catch {
    return false;
  }
}
