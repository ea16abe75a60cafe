// The organization's policy in the authorize flow (docs/oidc.md "Organizations") against a mocked
// API: a step-up by the authenticator's code reads the request again and goes on; a person
// without a second factor and a sign-in method the organization does not allow get a page that
// says why, and Allow is never called.
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
const CTX = { appId: 'a1', name: 'Factory Portal', logo: '', privacyUrl: '', scopes: ['nickname'], granted: true, serviceUrl: SERVICE, cancelUrl: CANCEL };
const ACME = { orgId: 'org_00000000000000a1', name: 'Acme', role: 'member' };
const stepOf = (need: string | null, allowedMethods?: string[]) => ({ required: false, refused: null, choices: [{ ...ACME, need, ...(allowedMethods ? { allowedMethods } : {}) }] });
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
    'GET /auth/info': () => [200, { userId: 'u1', userName: 'ann', enableTotp: true }],
    [VIEW]: () => [200, { ...CTX, organization: stepOf('stepUp') }],
    [ALLOW]: () => [200, { redirect: `${SERVICE}?code=C1&state=s1` }],
    'POST /auth/totp/verify': () => [200, { ok: true }],
  };
  ({ calls, answers } = fakeApi(answers, NOT_FOUND));
  left.mockClear();
});
afterEach(() => {
  cleanup();
  localStorage.clear();
});

describe("the organization's policy", () => {
  it('a step-up: the code on this session, then the request is read again and goes on', async () => {
    await show();
    const page = await screen.findByTestId('org-policy');
    expect(page.querySelector('h1')?.textContent).toBe('Acme asks you to confirm with two-factor authentication');
    expect(allows()).toHaveLength(0);
    fireEvent.change(await screen.findByLabelText('6-digit code from your authenticator app'), { target: { value: '123456' } });
    answers[VIEW] = () => [200, { ...CTX, organization: stepOf(null) }];
    fireEvent.click(screen.getByTestId('org-policy-verify'));
    await waitFor(() => expect(allows()).toHaveLength(1));
    expect(calls.find((c) => c.path === '/auth/totp/verify')?.body).toEqual({ code: '123456' });
    await waitFor(() => expect(left).toHaveBeenCalledWith(`${SERVICE}?code=C1&state=s1`));
  });

  it('no second factor: why, the security centre, and back to the app only when asked', async () => {
    answers[VIEW] = () => [200, { ...CTX, organization: stepOf('secondFactor') }];
    await show('zh-CN');
    const why = await screen.findByTestId('org-policy-why');
    expect(why.textContent).toMatch(/^Acme 的管理员要求两步验证/);
    expect(screen.getByTestId('org-policy-secure').getAttribute('href')).toBe('/zh-CN/personal/secure#two-factor');
    expect(allows()).toHaveLength(0);
    fireEvent.click(screen.getByTestId('org-policy-back'));
    expect(left).toHaveBeenCalledWith(CANCEL);
  });

  it('a method not allowed: the methods it allows, and the company sign-in', async () => {
    answers[VIEW] = () => [200, { ...CTX, organization: stepOf('method', ['code', 'organization']) }];
    await show();
    expect((await screen.findByTestId('org-policy-why')).textContent).toBe(
      'Acme allows only these ways to sign in: one-time code by mail or SMS or the company sign-in. Sign in again with one of them.',
    );
    expect(screen.getByTestId('org-policy-again').textContent).toBe('Sign in with your company');
    expect(allows()).toHaveLength(0);
  });
});
