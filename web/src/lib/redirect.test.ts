// Spec §2: serviceUrl is kept on redirects unless its value contains an encoded '=' or '/'.
import { describe, expect, it } from 'vitest';
import { afterEach } from 'vitest';
import { afterSignIn, embeddedInfo, keepQuery, originOf, ownProtectedPage, partnerRequest, rememberOrigin, serviceUrlIsKept, serviceUrlOf } from './redirect';

describe('serviceUrlIsKept', () => {
  it.each([
    ['', true],
    ['?a=1', true],
    ['?serviceUrl=https://app.example.com/x', true],
    ['?serviceUrl=https%3A%2F%2Fapp.example.com', false],
    ['?serviceUrl=https://app.example.com/cb%3Fx%3D1', false],
    ['?serviceUrl=abc%3d', false],
    ['?serviceUrl=abc%2f', false],
    ['?serviceUrl=https%3A//app.example.com', true],
    ['?serviceUrl=a%20b', true],
    ['?x=%2F&serviceUrl=plain', true],
    ['?serviceUrl=https://a.example.com/?next=1', true],
  ])('%s -> %s', (search, kept) => {
    expect(serviceUrlIsKept(search)).toBe(kept);
  });
});

describe('keepQuery', () => {
  it('is empty for an empty query', () => {
    expect(keepQuery('')).toBe('');
    expect(keepQuery('?')).toBe('');
  });
  it('keeps every parameter, serviceUrl included, when it carries no encoded = or /', () => {
    const q = keepQuery('?serviceUrl=https://app.example.com&lang=1');
    const p = new URLSearchParams(q);
    expect(q.startsWith('?')).toBe(true);
    expect(p.get('serviceUrl')).toBe('https://app.example.com');
    expect(p.get('lang')).toBe('1');
  });
  it('drops serviceUrl (only it) when it contains %3D or %2F, in either case', () => {
    for (const bad of ['https%3A%2F%2Fa.example.com', 'x%3dy', 'x%2fy', 'x%3Dy']) {
      const p = new URLSearchParams(keepQuery(`?a=1&serviceUrl=${bad}&b=2`));
      expect(p.has('serviceUrl')).toBe(false);
      expect(p.get('a')).toBe('1');
      expect(p.get('b')).toBe('2');
    }
  });
  it('drops the parameters named in drop, by the same rule', () => {
    expect(keepQuery('?code=1&a=1&serviceUrl=https://app.example.com/cb?x=1&code=2', { drop: ['code'] })).toBe('?a=1&serviceUrl=https://app.example.com/cb?x=1');
    expect(keepQuery('?code=1', { drop: ['code'] })).toBe('');
    expect(keepQuery('?a=1&serviceUrl=x%2Fy', { drop: ['a'] })).toBe('');
  });
  it('keeps the parameters as they came, so a kept serviceUrl stays kept on the next redirect', () => {
    const once = keepQuery('?serviceUrl=https://app.example.com/cb&q=a%20b&e=%C3%A9');
    expect(once).toBe('?serviceUrl=https://app.example.com/cb&q=a%20b&e=%C3%A9');
    expect(keepQuery(once)).toBe(once);
    expect(serviceUrlIsKept(once)).toBe(true);
  });
  it('drops serviceUrl on request (authorization failure, password unset)', () => {
    const p = new URLSearchParams(keepQuery('?serviceUrl=https://a.example.com&validateMsg=notice', { dropServiceUrl: true }));
    expect(p.has('serviceUrl')).toBe(false);
    expect(p.get('validateMsg')).toBe('notice');
    expect(keepQuery('?serviceUrl=https://a.example.com', { dropServiceUrl: true })).toBe('');
  });
});

describe('serviceUrlOf', () => {
  it('is the decoded value, or the raw one when it does not decode, or null when absent', () => {
    expect(serviceUrlOf('?serviceUrl=https://a.example.com/cb')).toBe('https://a.example.com/cb');
    expect(serviceUrlOf('?serviceUrl=https%3A//a.example.com/a%20b')).toBe('https://a.example.com/a b');
    expect(serviceUrlOf('?serviceUrl=https://a.example.com/%E0%A4%A')).toBe('https://a.example.com/%E0%A4%A');
    expect(serviceUrlOf('?appId=x')).toBeNull();
    expect(serviceUrlOf('?serviceUrl=')).toBe('');
  });
});

describe('partnerRequest', () => {
  it('is an OpenID Connect request when oidcRequest is given (it wins over appId)', () => {
    expect(partnerRequest('?oidcRequest=r1&appId=a&serviceUrl=https://a.example.com')).toEqual({ kind: 'oidc', id: 'r1' });
  });
  it('is a ticket request with appId and serviceUrl', () => {
    expect(partnerRequest('?appId=a1&serviceUrl=https://a.example.com/cb?x=1')).toEqual({
      kind: 'ticket', appId: 'a1', serviceUrl: 'https://a.example.com/cb?x=1',
    });
  });
  it('is nothing when a half is missing or empty', () => {
    for (const q of ['', '?appId=a1', '?serviceUrl=https://a.example.com', '?appId=&serviceUrl=https://a.example.com', '?appId=a1&serviceUrl=', '?oidcRequest=']) {
      expect(partnerRequest(q)).toBeNull();
    }
  });
});

describe('afterSignIn', () => {
  it.each([
    ['', '/en-US/personal/info'],
    ['?foo=1', '/en-US/personal/info?foo=1'],
    ['?appId=a1', '/en-US/personal/info?appId=a1'],
    ['?serviceUrl=https://a.example.com/cb', '/en-US/personal/info?serviceUrl=https://a.example.com/cb'],
    ['?appId=a1&serviceUrl=https://a.example.com/cb', '/en-US/passport/authorize?appId=a1&serviceUrl=https://a.example.com/cb'],
    ['?appId=a1&serviceUrl=https://a.example.com/cb?x=1&k=v', '/en-US/passport/authorize?appId=a1&serviceUrl=https://a.example.com/cb?x=1&k=v'],
    ['?oidcRequest=r1', '/en-US/passport/authorize?oidcRequest=r1'],
    // Spec §2: an encoded '/' or '=' drops serviceUrl, and without it there is no partner to go back to.
    ['?appId=a1&serviceUrl=https%3A%2F%2Fa.example.com', '/en-US/personal/info?appId=a1'],
  ])('%s -> %s', (search, to) => {
    expect(afterSignIn('en-US', search)).toBe(to);
  });
  it('keeps the language it is given', () => {
    expect(afterSignIn('zh-CN', '?oidcRequest=r1')).toBe('/zh-CN/passport/authorize?oidcRequest=r1');
  });
});

describe('embeddedInfo', () => {
  it('is embedded only under /{lang}/embedded/', () => {
    expect(embeddedInfo('/zh-CN/embedded/signin', '').embedded).toBe(true);
    expect(embeddedInfo('/en-US/embedded/signin', '').embedded).toBe(true);
    expect(embeddedInfo('/en-US/passport/signin', '').embedded).toBe(false);
    expect(embeddedInfo('/embedded/signin', '').embedded).toBe(false);
  });
  it('reads serviceUrl and validateMsg', () => {
    const i = embeddedInfo('/en-US/embedded/signin', '?serviceUrl=https%3A%2F%2Fhost.example.com%2Fp&validateMsg=notice');
    expect(i.serviceUrl).toBe('https://host.example.com/p');
    expect(i.validateMsg).toBe('notice');
    expect(embeddedInfo('/en-US/embedded/signin', '').serviceUrl).toBeNull();
  });
});

describe('originOf', () => {
  it('is the origin of an absolute http(s) url, else null', () => {
    expect(originOf('https://host.example.com:8443/a?b=c')).toBe('https://host.example.com:8443');
    expect(originOf('http://localhost:3000/')).toBe('http://localhost:3000');
    expect(originOf('javascript:alert(1)')).toBeNull();
    expect(originOf('data:text/html,hi')).toBeNull();
    expect(originOf('/relative/path')).toBeNull();
    expect(originOf('')).toBeNull();
    expect(originOf(null)).toBeNull();
  });
});

describe('ciam_origin_url (spec §3): back to the protected page after sign-in', () => {
  afterEach(() => localStorage.clear());
  const here = window.location.origin;

  it.each([
    ['/en-US/personal/secure#two-factor', '/en-US/personal/secure#two-factor'],
    ['/zh-CN/personal/info?x=1#apps', '/zh-CN/personal/info?x=1#apps'],
    ['/zh-CN/logout', '/zh-CN/logout'],
    ['/en-US/personal', '/en-US/personal'],
    ['/zh-CN/org/invitation', '/zh-CN/org/invitation'],
    ['/zh-CN/org/invitation/x', null],
    ['/zh-CN/org', null],
    ['https://evil.example.com/en-US/personal/info', null],
    [`${here}/en-US/personal/info`, null],
    ['//evil.example.com/en-US/personal/info', null],
    ['/\\evil.example.com/en-US/personal/info', null],
    ['javascript:alert(1)', null],
    ['/en-US/passport/signin', null],
    ['/en-US/agreement/privacy', null],
    ['/en-US/personal/../passport/authorize', null],
    ['', null],
    [null, null],
  ])('%s -> %s', (url, own) => {
    expect(ownProtectedPage(url, here)).toBe(own);
  });

  it('a remembered page is where sign-in goes, once, in the current language', () => {
    rememberOrigin('/zh-CN/personal/secure#two-factor');
    expect(localStorage.getItem('ciam_origin_url')).toBe('/zh-CN/personal/secure#two-factor');
    expect(afterSignIn('en-US', '')).toBe('/en-US/personal/secure#two-factor');
    expect(localStorage.getItem('ciam_origin_url')).toBeNull();
    expect(afterSignIn('en-US', '')).toBe('/en-US/personal/info');
  });

  it('an outside URL is never remembered, nor followed when planted in storage', () => {
    rememberOrigin('https://evil.example.com/');
    expect(localStorage.getItem('ciam_origin_url')).toBeNull();
    localStorage.setItem('ciam_origin_url', '//evil.example.com/en-US/personal/info');
    expect(afterSignIn('en-US', '')).toBe('/en-US/personal/info');
  });

  it('the serviceUrl flow is unchanged: a partner request goes to consent and the page is forgotten', () => {
    rememberOrigin('/en-US/personal/secure');
    expect(afterSignIn('en-US', '?appId=a1&serviceUrl=https://app.example.com/cb')).toBe(
      '/en-US/passport/authorize?appId=a1&serviceUrl=https://app.example.com/cb',
    );
    expect(localStorage.getItem('ciam_origin_url')).toBeNull();
  });
});
