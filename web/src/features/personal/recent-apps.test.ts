import { describe, expect, it } from 'vitest';
import { type RecentApp, recentApps, safeHref, splitCatalogue } from './recent-apps';

const app = (appId: string, lastLoginTime: number): RecentApp => ({ appId, name: appId, url: `https://${appId}.example.com`, lastLoginTime });

describe('the recent applications', () => {
  it('keeps the 2 most recent by lastLoginTime, newest first, whatever order arrives', () => {
    const out = recentApps([app('a', 100), app('b', 300), app('c', 200), app('d', 50)]);
    expect(out.map((a) => a.appId)).toEqual(['b', 'c']);
  });

  it('keeps the server order for equal times', () => {
    expect(recentApps([app('x', 5), app('y', 5), app('z', 5)]).map((a) => a.appId)).toEqual(['x', 'y']);
  });

  it('shows fewer when there are fewer, and none for a missing list', () => {
    expect(recentApps([app('only', 1)]).map((a) => a.appId)).toEqual(['only']);
    expect(recentApps(undefined)).toEqual([]);
    expect(recentApps(null)).toEqual([]);
  });

  it('ignores entries without a numeric time', () => {
    const bad = { ...app('bad', 0), lastLoginTime: 'yesterday' } as unknown as RecentApp;
    expect(recentApps([bad, app('ok', 1)]).map((a) => a.appId)).toEqual(['ok']);
  });

  it('does not change the list it is given', () => {
    const list = [app('a', 1), app('b', 2), app('c', 3)];
    recentApps(list);
    expect(list.map((a) => a.appId)).toEqual(['a', 'b', 'c']);
  });
});

describe('the catalogue', () => {
  it('puts the recommended apps apart from the common ones', () => {
    const s = splitCatalogue([
      { appId: '1', name: 'One', url: 'https://1.example.com', recommended: true },
      { appId: '2', name: 'Two', url: 'https://2.example.com', recommended: false },
    ]);
    expect(s.recommended.map((a) => a.appId)).toEqual(['1']);
    expect(s.common.map((a) => a.appId)).toEqual(['2']);
    expect(splitCatalogue(undefined)).toEqual({ recommended: [], common: [] });
  });

  it('links only http and https addresses', () => {
    expect(safeHref('https://app.example.com/x', 'https://ciam.example.com/')).toBe('https://app.example.com/x');
    expect(safeHref('/demo', 'https://ciam.example.com/a/b')).toBe('https://ciam.example.com/demo');
    expect(safeHref('javascript:alert(1)')).toBeNull();
    expect(safeHref('data:text/html,hi')).toBeNull();
    expect(safeHref('')).toBeNull();
  });
});
