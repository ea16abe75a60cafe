// Spec §4 locale detection and §9 right-to-left scripts.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { asLocale, DEFAULT_LOCALE, detect, dirOf, isRtl, normalize, swapLanguage, switchTo } from './locale';

afterEach(() => {
  localStorage.clear();
  vi.restoreAllMocks();
});

describe('detect', () => {
  it('prefers the stored locale', () => {
    expect(detect('en-US', ['zh-CN'])).toBe('en-US');
    expect(detect('zh-CN', ['en-US'])).toBe('zh-CN');
  });
  it('then the browser language', () => {
    expect(detect(null, ['en-US', 'zh-CN'])).toBe('en-US');
    expect(detect(null, ['zh-CN'])).toBe('zh-CN');
  });
  it('then zh-CN', () => {
    expect(detect(null, [])).toBe('zh-CN');
    expect(DEFAULT_LOCALE).toBe('zh-CN');
  });
  it('has only en-US and zh-CN; any other language is zh-CN', () => {
    expect(detect('fr-FR', ['en-US'])).toBe('zh-CN');
    expect(detect(null, ['ar'])).toBe('zh-CN');
    expect(detect(null, ['fr-FR', 'en-US'])).toBe('zh-CN');
    expect(normalize('EN-us')).toBe('en-US');
    expect(normalize(' zh-cn ')).toBe('zh-CN');
    expect(normalize(undefined)).toBe('zh-CN');
  });
  it.each(['en', 'EN', 'en-US', 'en-us', 'en-GB', 'en-AU', 'en-IN', 'en-Latn-GB', 'en_GB', ' en-gb '])('any English (%s) is en-US', (l) => {
    expect(asLocale(l)).toBe('en-US');
    expect(normalize(l)).toBe('en-US');
    expect(detect(null, [l])).toBe('en-US');
    expect(detect(l, ['zh-CN'])).toBe('en-US');
  });
  it.each(['zh', 'ZH', 'zh-CN', 'zh-cn', 'zh-TW', 'zh-HK', 'zh-SG', 'zh-Hans', 'zh-Hant-HK', 'zh_CN'])('any Chinese (%s) is zh-CN', (l) => {
    expect(asLocale(l)).toBe('zh-CN');
    expect(detect(null, [l, 'en-US'])).toBe('zh-CN');
  });
  it.each(['', 'e', 'eng', 'enx', 'en-', 'english', 'zhx-CN', 'fr', 'de-DE', 'en-GB;q=0.9', 'en/GB', 'passport', 'x-en'])('%j is not a language of ours', (l) => {
    expect(asLocale(l)).toBeNull();
  });
  it('reads umi_locale from local storage by default', () => {
    localStorage.setItem('umi_locale', 'en-US');
    expect(detect()).toBe('en-US');
    localStorage.setItem('umi_locale', 'zh-CN');
    expect(detect()).toBe('zh-CN');
  });
  it('falls back to navigator.languages without a stored locale', () => {
    vi.spyOn(navigator, 'languages', 'get').mockReturnValue(['en-US']);
    expect(detect()).toBe('en-US');
    vi.spyOn(navigator, 'languages', 'get').mockReturnValue(['de-DE']);
    expect(detect()).toBe('zh-CN');
    vi.spyOn(navigator, 'languages', 'get').mockReturnValue(['en-GB', 'en']);
    expect(detect()).toBe('en-US');
    vi.spyOn(navigator, 'languages', 'get').mockReturnValue(['en-AU']);
    expect(detect()).toBe('en-US');
    vi.spyOn(navigator, 'languages', 'get').mockReturnValue(['zh-TW']);
    expect(detect()).toBe('zh-CN');
  });
});

describe('right-to-left', () => {
  it.each(['he', 'ar', 'fa', 'ku', 'he-IL', 'ar-EG', 'fa-IR', 'ku-IQ', 'AR'])('%s is rtl', (l) => {
    expect(isRtl(l)).toBe(true);
    expect(dirOf(l)).toBe('rtl');
  });
  it.each(['zh-CN', 'en-US', 'de', 'ja', 'ur-x', 'hex', 'kur', ''])('%s is ltr', (l) => {
    expect(isRtl(l)).toBe(false);
    expect(dirOf(l)).toBe('ltr');
  });
});

describe('swapLanguage / switchTo', () => {
  it('replaces the language segment and keeps path and query', () => {
    expect(swapLanguage('/zh-CN/passport/signin', '?serviceUrl=x', 'en-US')).toBe('/en-US/passport/signin?serviceUrl=x');
    expect(swapLanguage('/en-US', '', 'zh-CN')).toBe('/zh-CN');
    expect(swapLanguage('/en-US/', '', 'zh-CN')).toBe('/zh-CN/');
  });
  it('prefixes a path without a language', () => {
    expect(swapLanguage('/passport/signin', '', 'en-US')).toBe('/en-US/passport/signin');
    expect(swapLanguage('/zh-CNx/a', '', 'en-US')).toBe('/en-US/zh-CNx/a');
  });
  it('switchTo stores the choice and reloads at the swapped url', () => {
    const assign = vi.fn();
    vi.stubGlobal('location', { ...window.location, pathname: '/zh-CN/personal/info', search: '?a=1', assign });
    try {
      switchTo('en-US');
    } finally {
      vi.unstubAllGlobals();
    }
    expect(localStorage.getItem('umi_locale')).toBe('en-US');
    expect(assign).toHaveBeenCalledWith('/en-US/personal/info?a=1');
  });
  it('switchTo on a page outside the language prefix (/signout) stores the choice and reloads in place', () => {
    const assign = vi.fn();
    const reload = vi.fn();
    vi.stubGlobal('location', { ...window.location, pathname: '/signout', search: '', assign, reload });
    try {
      switchTo('zh-CN');
    } finally {
      vi.unstubAllGlobals();
    }
    expect(localStorage.getItem('umi_locale')).toBe('zh-CN');
    expect(assign).not.toHaveBeenCalled();
    expect(reload).toHaveBeenCalledOnce();
  });
});
