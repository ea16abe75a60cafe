// Query-string rules of spec §2: serviceUrl is preserved on every redirect unless its value
// contains an encoded '=' or '/'.

/** The raw (still encoded) value of serviceUrl in a query string, if any. */
function rawServiceUrl(search: string): string | null {
  for (const part of search.replace(/^\?/, '').split('&')) {
    const [k, ...rest] = part.split('=');
    if (k === 'serviceUrl') return rest.join('=');
  }
  return null;
}

export function serviceUrlIsKept(search: string): boolean {
  const raw = rawServiceUrl(search);
  return raw === null || !/%3d|%2f/i.test(raw);
}

/**
 * The query to carry over on a redirect. The parameters are kept as they came (still encoded):
 * re-encoding would turn the '/' of a kept serviceUrl into %2F and a second redirect would drop it.
 */
export function keepQuery(search: string, opts: { dropServiceUrl?: boolean } = {}): string {
  const drop = opts.dropServiceUrl || !serviceUrlIsKept(search);
  const parts = search
    .replace(/^\?/, '')
    .split('&')
    .filter((p) => p !== '' && !(drop && p.split('=')[0] === 'serviceUrl'));
  return parts.length ? `?${parts.join('&')}` : '';
}

export interface Embedded {
  embedded: boolean;
  serviceUrl: string | null;
  validateMsg: string | null;
}

export function embeddedInfo(pathname: string, search: string): Embedded {
  const params = new URLSearchParams(search);
  return {
    embedded: /^\/(zh-CN|en-US)\/embedded\//.test(pathname),
    serviceUrl: params.get('serviceUrl'),
    validateMsg: params.get('validateMsg'),
  };
}

/** The origin of a serviceUrl, when it is an absolute http(s) URL. */
export function originOf(url: string | null): string | null {
  if (!url) return null;
  try {
    const u = new URL(url);
    return u.protocol === 'https:' || u.protocol === 'http:' ? u.origin : null;
  } catch {
    return null;
  }
}
