// The organization step of the authorize flow (issue 35 item 5) against a mocked API: several
// organizations, the person picks one and Allow sends it (even with the consent remembered);
// one: no page; a refusal: the page says why and Allow is never called.
import { cleanup, fireEvent, screen, waitFor } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { leave } from '../../lib/partner';
import Authorize from './authorize';
import { type Answer, type Call, fakeApi, NOT_FOUND } from '../../testing/fake-api';
import { renderApp } from '../../testing/render-app';

vi.mock('../../lib/partner', async (original) => ({ ...(await original<typeof import('../../lib/partner')>()), leave: vi.fn(() => true) }));
const left = vi.mocked(leave);

let calls: Call[] = [];
let answers: Record<string, Answer> = {};
const SERVICE = 'https://app.example.com/cb';
const CANCEL = `${SERVICE}?error=access_denied&state=s1`;
const CTX = { appId: 'a1', name: 'Factory Portal', logo: '', privacyUrl: '', scopes: ['nickname'], granted: false, serviceUrl: SERVICE, cancelUrl: CANCEL };
const TWO = {
  required: false,
  refused: null,
  choices: [
    { orgId: 'org_00000000000000a1', name: 'Acme', role: 'owner' },
    { orgId: 'org_00000000000000b2', name: 'Beta', role: 'member' },
  ],
};
const VIEW = 'GET /oidc/requests/r1';
const ALLOW = 'POST /oidc/requests/r1';
const allows = () => calls.filter((c) => `${c.method} ${c.path}` === ALLOW);

function show(locale: 'en-US' | 'zh-CN' = 'en-US') {
  return renderApp([{ path: '/:language/passport/authorize', element: <Authorize /> }], `/${locale}/passport/authorize?oidcRequest=r1`, { locale });
}

beforeEach(() => {
  localStorage.setItem('ciam_token', 'u1.token');
  localStorage.setItem('lastActionTime', String(Date.now()));
  answers = {
    'GET /auth/info': () => [200, { userId: 'u1', userName: 'ann' }],
    [VIEW]: () => [200, { ...CTX, organization: TWO }],
    [ALLOW]: () => [200, { redirect: `${SERVICE}?code=C1&state=s1` }],
  };
  ({ calls, answers } = fakeApi(answers, NOT_FOUND));
  left.mockClear();
});
afterEach(() => {
  cleanup();
  localStorage.clear();
});

describe('the organization step', () => {
  it('asks which of several organizations, then Allow sends the one picked', async () => {
    await show();
    const picker = await screen.findByTestId('org-picker');
    expect(picker.querySelector('h1')?.textContent).toBe('Which organization?');
    const choices = screen.getAllByTestId('org-choice') as HTMLInputElement[];
    expect(choices.map((c) => c.closest('label')?.textContent)).toEqual(['Acme (owner)', 'Beta (member)']);
    expect(choices[0].checked).toBe(true);
    fireEvent.click(choices[1]);
    fireEvent.click(screen.getByTestId('org-next'));
    expect((await screen.findByTestId('authorize-org')).textContent).toBe('Factory Portal will also see your organization, Beta, and your role in it.');
    fireEvent.click(await screen.findByTestId('authorize-allow'));
    await waitFor(() => expect(allows()).toHaveLength(1));
    expect(allows()[0].body).toEqual({ organization: 'org_00000000000000b2' });
    await waitFor(() => expect(left).toHaveBeenCalledWith(`${SERVICE}?code=C1&state=s1`));
  });

  it('a remembered consent does not skip the picker; after the pick it goes straight on', async () => {
    answers[VIEW] = () => [200, { ...CTX, granted: true, organization: TWO }];
    await show('zh-CN');
    await screen.findByTestId('org-picker');
    expect(screen.getByRole('heading', { level: 1 }).textContent).toBe('选择组织');
    expect(allows()).toHaveLength(0);
    fireEvent.click(screen.getByTestId('org-next'));
    await waitFor(() => expect(allows()).toHaveLength(1));
    expect(allows()[0].body).toEqual({ organization: 'org_00000000000000a1' });
  });

  it('one organization: no picker; the consent says which organization the app will see', async () => {
    answers[VIEW] = () => [200, { ...CTX, organization: { ...TWO, choices: TWO.choices.slice(1) } }];
    await show('zh-CN');
    expect((await screen.findByTestId('authorize-org')).textContent).toBe('Factory Portal 还将看到您的组织 Beta 以及您在其中的角色。');
    expect(screen.queryByTestId('org-picker')).toBeNull();
  });

  it('one organization: no page, Allow sends nothing to pick', async () => {
    answers[VIEW] = () => [200, { ...CTX, granted: true, organization: { ...TWO, choices: TWO.choices.slice(0, 1) } }];
    await show();
    await waitFor(() => expect(allows()).toHaveLength(1));
    expect(allows()[0].body).toEqual({});
    expect(screen.queryByTestId('org-picker')).toBeNull();
  });

  it('a ticket app: the ticket is asked for with the organization picked', async () => {
    const q = `?appId=a1&serviceUrl=${SERVICE}`;
    answers[`GET /auth/consent?appId=a1&serviceUrl=${encodeURIComponent(SERVICE)}`] = () => [200, { ...CTX, granted: true, cancelUrl: `${SERVICE}?cError=access_denied`, organization: TWO }];
    answers['POST /auth/login/token'] = () => [200, { cTicket: 'ST-1', redirect: `${SERVICE}?cTicket=ST-1` }];
    await renderApp([{ path: '/:language/passport/authorize', element: <Authorize /> }], `/en-US/passport/authorize${q}`, { locale: 'en-US' });
    fireEvent.click((await screen.findAllByTestId('org-choice'))[1]);
    fireEvent.click(screen.getByTestId('org-next'));
    const tickets = () => calls.filter((c) => c.method === 'POST' && c.path === '/auth/login/token');
    await waitFor(() => expect(tickets()).toHaveLength(1));
    expect(tickets()[0].body).toEqual({ appId: 'a1', serviceUrl: SERVICE, scopes: ['nickname'], organization: 'org_00000000000000b2' });
    await waitFor(() => expect(left).toHaveBeenCalledWith(`${SERVICE}?cTicket=ST-1`));
  });

  it('a refusal says why, never allows, and goes back to the app only when asked', async () => {
    answers[VIEW] = () => [200, { ...CTX, granted: true, organization: { required: true, refused: 'required', choices: [] } }];
    await show();
    const why = await screen.findByTestId('org-refused-why');
    expect(why.getAttribute('role')).toBe('alert');
    expect(why.textContent).toMatch(/^Factory Portal is only for members of an organization/);
    expect(screen.getByRole('heading', { level: 1 }).textContent).toBe('Factory Portal needs an organization');
    expect(allows()).toHaveLength(0);
    expect(left).not.toHaveBeenCalled();
    fireEvent.click(screen.getByTestId('org-back'));
    expect(left).toHaveBeenCalledWith(CANCEL);
  });

  it('a named organization that is not theirs is told in Chinese too', async () => {
    answers[VIEW] = () => [200, { ...CTX, organization: { required: false, refused: 'notMember', choices: [] } }];
    await show('zh-CN');
    const why = await screen.findByTestId('org-refused-why');
    expect(why.textContent).toMatch(/^Factory Portal 要求的组织中没有此账号/);
    expect(screen.getByTestId('org-back').textContent).toBe('返回 Factory Portal');
  });
});
