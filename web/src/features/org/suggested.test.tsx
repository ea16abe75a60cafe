// "My company"'s suggested organizations in jsdom: the suggestion in both languages, Join (the
// page then shows the organization joined), Not now (said, and gone), and a suggestion no longer
// open (DOMAIN_NOT_FOUND) said in the card's own words.
import { fireEvent, screen, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type FakeApi, fakeApi } from '../../testing/fake-api';
import { at, renderApp, resetApp, settle, signIn } from '../../testing/render-app';
import Company from './company';

const ACME = {
  orgId: 'org_acme0123456789ab', nameZh: '极致公司', nameEn: 'Acme', status: 'active', members: 3, owners: 1,
  createdAt: 1_760_000_000, createdBy: 'u0', requestedBy: null,
  settings: { allowedMethods: [], defaultRole: 'member', eventApps: [], mfaRequired: false },
};
const SUGGESTION = { orgId: ACME.orgId, nameZh: ACME.nameZh, nameEn: ACME.nameEn, domain: 'acme.com', at: 1_760_000_000 };
const routes = [{ path: '/:language/personal/company', element: <Company /> }];

let api: FakeApi;
let mine: unknown[];

beforeEach(() => {
  signIn();
  mine = [];
  api = fakeApi({
    'GET /auth/info': () => [200, { userId: 'u1' }],
    'GET /org/mine': () => [200, { organizations: mine }],
    'GET /org/suggested': () => [200, { suggestions: [SUGGESTION] }],
    [`GET /org/${ACME.orgId}`]: () => [200, { organization: ACME, role: 'member', next: null, members: [], invitations: [] }],
  });
});
afterEach(() => resetApp());

describe('suggested organizations', () => {
  it.each([
    ['en-US', 'Your address at acme.com lets you join Acme.', 'Join Acme', 'Join', 'Not now: do not suggest Acme again', 'Not now'],
    ['zh-CN', '您在 acme.com 的邮箱地址可以加入极致公司。', '加入极致公司', '加入', '暂不加入：不再推荐极致公司', '暂不加入'],
  ] as const)('says which address lets the person join (%s)', async (locale, lead, joinName, join, declineName, decline) => {
    await renderApp(routes, `/${locale}/personal/company`, { locale });
    const row = screen.getByTestId('org-suggestion');
    expect(row.querySelector('p')?.textContent).toBe(lead);
    // Each button's name starts with its visible words (WCAG 2.5.3) and names the organization.
    expect(within(row).getByRole('button', { name: joinName }).textContent).toBe(join);
    expect(within(row).getByRole('button', { name: declineName }).textContent).toBe(decline);
  });

  it('joins: accepts, then shows the organization joined', async () => {
    const router = await renderApp(routes, '/en-US/personal/company');
    expect(screen.getByTestId('org-none')).toBeTruthy();
    api.answers[`POST /org/suggested/${ACME.orgId}`] = () => {
      mine = [{ organization: ACME, role: 'member' }];
      return [200, { membership: { userId: 'u1', orgId: ACME.orgId, role: 'member', by: 'u1', joinedAt: 1_760_000_100 } }];
    };
    fireEvent.click(screen.getByTestId('org-suggestion-join'));
    await settle();
    expect(api.callsTo('POST', `/org/suggested/${ACME.orgId}`)[0]?.body).toEqual({ accept: true });
    expect(at(router)).toBe(`/en-US/personal/company?org=${ACME.orgId}`);
    expect(screen.getByTestId('org-joined').textContent).toBe('You joined Acme.');
    expect(screen.getByTestId('org-item').textContent).toContain('Acme');
    expect(screen.queryByTestId('org-suggested'), 'the suggestion is gone').toBeNull();
  });

  it('not now: declines, says it will not be suggested again', async () => {
    await renderApp(routes, '/en-US/personal/company');
    api.answers[`POST /org/suggested/${ACME.orgId}`] = () => [200, { membership: null }];
    fireEvent.click(screen.getByTestId('org-suggestion-decline'));
    await settle();
    expect(api.callsTo('POST', `/org/suggested/${ACME.orgId}`)[0]?.body).toEqual({ accept: false });
    expect(screen.queryByTestId('org-suggestion')).toBeNull();
    expect(screen.getByTestId('org-suggested-said').textContent).toBe('Acme will not be suggested again.');
    expect(api.callsTo('GET', '/org/mine'), 'nothing joined: the list is not read again').toHaveLength(1);
  });

  it('a suggestion no longer open is said in its own words and leaves the list', async () => {
    await renderApp(routes, '/en-US/personal/company');
    api.answers[`POST /org/suggested/${ACME.orgId}`] = () => [404, { reason: 'DOMAIN_NOT_FOUND', message: '', code: 404 }];
    fireEvent.click(screen.getByTestId('org-suggestion-join'));
    await settle();
    const said = screen.getByTestId('org-suggested-said');
    expect(said.getAttribute('role')).toBe('alert');
    expect(said.textContent).toBe('This suggestion is no longer open.');
    expect(screen.queryByTestId('org-suggestion')).toBeNull();
  });

  it('shows nothing without a suggestion', async () => {
    api.answers['GET /org/suggested'] = () => [200, { suggestions: [] }];
    await renderApp(routes, '/en-US/personal/company');
    expect(api.callsTo('GET', '/org/suggested')).toHaveLength(1);
    expect(screen.queryByTestId('org-suggested')).toBeNull();
  });
});
