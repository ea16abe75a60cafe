// A provider's new subject (`<p>Pending`) on the sign-in screen, against a mocked API
// (docs/federation-design.md §4.1): a mainland number proven with Ciam's own code (purpose
// `link`, the captcha), then signed in (the number's account), the second step, or the sign-up
// with the spec's fields; refusals said where they belong, in stable words, in both languages.
import { cleanup, fireEvent, screen, waitFor } from '@testing-library/react';
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import * as mfa from '../../../lib/mfa';
import * as toast from '../../../lib/toast';
import { type Answer, type Call, fakeApi, NOT_FOUND, type Reply } from '../../../testing/fake-api';
import { renderApp, settle } from '../../../testing/render-app';
import SignIn from '../signin';
import { FED_BIND_KEY } from './shared';

let calls: Call[] = [];
let answers: Record<string, Answer> = {};

// A captcha challenge whose answer is 3: solved at once.
const salt = 'salt-';
let hash = '';
beforeAll(async () => {
  const h = new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(`${salt}3`)));
  hash = Array.from(h, (b) => b.toString(16).padStart(2, '0')).join('');
});
const challenge = (): Reply => [200, { algorithm: 'SHA-256', challenge: hash, maxnumber: 10, salt, signature: 'sig' }];
const refusal = (status: number, reason: string): Answer => () => [status, { reason, message: '', code: status }];

function show(path: string, locale: 'en-US' | 'zh-CN' = 'en-US') {
  ({ calls, answers } = fakeApi(answers, NOT_FOUND));
  return renderApp(
    [
      { path: '/:language/passport/signin', element: <SignIn /> },
      { path: '/:language/passport/authorize', element: <p>consent screen</p> },
      { path: '/:language/personal/info', element: <p>personal centre</p> },
    ],
    path,
    { locale, onNeedTotp: (c) => mfa.open(c) },
  );
}

const at = (router: Awaited<ReturnType<typeof show>>) => router.state.location.pathname + router.state.location.search;
const to = (path: string) => calls.filter((c) => c.path === path);
const form = async (id: string) => (await screen.findByTestId(id)).querySelector('form')!;
const field = (f: HTMLFormElement, name: string) => f.elements.namedItem(name) as HTMLInputElement;
const type = (f: HTMLFormElement, name: string, value: string) => fireEvent.change(field(f, name), { target: { value } });

/** Sends the code to `phone` and types it, then submits the phone proof. */
async function prove(phone = '13800138000', code = '123456') {
  const f = await form('federation-phone');
  type(f, 'account', phone);
  fireEvent.click(screen.getByTestId('send-code'));
  await waitFor(() => expect(to('/auth/identity')).toHaveLength(1));
  type(f, 'code', code);
  fireEvent.submit(f);
  await settle();
  return f;
}

beforeEach(() => {
  answers = {
    'GET /auth/captcha': challenge,
    'POST /auth/identity': () => [200, { resendAfter: 60 }],
    'POST /auth/federation/phone': () => [202, { next: 'signUp' }],
    'POST /auth/federation/register': () => [200, { token: 'u9.new', userId: 'u9', expiresAt: 1 }],
  };
  sessionStorage.setItem(FED_BIND_KEY, 'b1');
  localStorage.setItem('country', 'CN');
});
afterEach(() => {
  cleanup();
  mfa.close();
  for (const t of toast.current()) toast.dismiss(t.id);
  vi.unstubAllGlobals();
  localStorage.clear();
  sessionStorage.clear();
});

describe('proving a mobile number for a new subject', () => {
  it('asks for the number, removes the pending token from the address, and sends the code for purpose link with the captcha', async () => {
    const router = await show('/en-US/passport/signin?wechatPending=p1&appId=a1');
    const section = await screen.findByTestId('federation-phone');
    expect(section.querySelector('h2')?.textContent).toBe('Prove your mobile number');
    expect(section.textContent).toContain('Your WeChat account is not linked to a Ciam account yet.');
    expect(at(router)).toBe('/en-US/passport/signin?appId=a1');
    const f = await form('federation-phone');
    type(f, 'account', '13800138000');
    fireEvent.click(screen.getByTestId('send-code'));
    await waitFor(() => expect(to('/auth/identity')).toHaveLength(1));
    const sent = to('/auth/identity')[0]!.body as { account: string; purpose: string; captcha: string };
    expect(sent).toMatchObject({ account: '13800138000', purpose: 'link' });
    expect(JSON.parse(atob(sent.captcha))).toMatchObject({ number: 3, salt, signature: 'sig' });
    expect(document.activeElement).toBe(field(f, 'code'));
  });

  it('refuses a number outside mainland China at the field, before anything is sent', async () => {
    await show('/en-US/passport/signin?wechatPending=p1');
    const f = await form('federation-phone');
    type(f, 'account', '+1 555 0100');
    fireEvent.click(screen.getByTestId('send-code'));
    await settle();
    expect(to('/auth/identity')).toHaveLength(0);
    expect(field(f, 'account').getAttribute('aria-invalid')).toBe('true');
    expect(document.activeElement).toBe(field(f, 'account'));
  });

  it('the number\'s account: linked and signed in, then on like any sign-in', async () => {
    answers['POST /auth/federation/phone'] = () => [200, { token: 'u1.linked', userId: 'u1', expiresAt: 1 }];
    const router = await show('/en-US/passport/signin?wechatPending=p1&from=x');
    await prove();
    expect(to('/auth/federation/phone')[0]!.body).toEqual({ pending: 'p1', bind: 'b1', phone: '13800138000', code: '123456' });
    await waitFor(() => expect(at(router)).toBe('/en-US/personal/info?from=x'));
    expect(localStorage.getItem('ciam_token')).toBe('u1.linked');
    expect(sessionStorage.getItem(FED_BIND_KEY), 'the bind is done').toBeNull();
  });

  it('the number\'s account with two-factor on: its second step', async () => {
    answers['POST /auth/federation/phone'] = () => [403, { reason: 'NEED_TOTP_VERIFY', message: '', code: 403, challenge: 'ch1' }];
    await show('/en-US/passport/signin?wechatPending=p1');
    await prove();
    await waitFor(() => expect(mfa.current()).toBe('ch1'));
    expect(mfa.pendingAccount()).toBe('13800138000');
    expect(localStorage.getItem('ciam_token')).toBeNull();
  });

  it('a wrong code is said at the code field; the form stays', async () => {
    answers['POST /auth/federation/phone'] = refusal(400, 'CODE_ERROR');
    await show('/en-US/passport/signin?wechatPending=p1');
    const f = await prove();
    expect(field(f, 'code').getAttribute('aria-invalid')).toBe('true');
    expect(screen.getByText('Invalid verification code')).toBeTruthy();
    expect(sessionStorage.getItem(FED_BIND_KEY), 'the bind is kept for the next try').toBe('b1');
  });

  it('a pending sign-in gone (expired, used, another tab\'s): said once, the form put away, in both languages', async () => {
    answers['POST /auth/federation/phone'] = refusal(401, 'AUTHORIZATION_FAILED');
    const router = await show('/en-US/passport/signin?dingtalkPending=p1');
    await prove();
    expect((await screen.findByTestId('federation-refused')).textContent).toBe('This sign-in with DingTalk has expired. Please start again.');
    expect(screen.getByTestId('federation-phone').querySelector('form')).toBeNull();
    expect(at(router), 'no navigation away').toBe('/en-US/passport/signin');
    expect(sessionStorage.getItem(FED_BIND_KEY)).toBeNull();
    cleanup();
    sessionStorage.setItem(FED_BIND_KEY, 'b1');
    await show('/zh-CN/passport/signin?dingtalkPending=p1', 'zh-CN');
    await prove();
    expect((await screen.findByTestId('federation-refused')).textContent).toBe('本次钉钉登录已失效，请重新开始。');
  });

  it('the number\'s account has this provider already: said atop the form', async () => {
    answers['POST /auth/federation/phone'] = refusal(409, 'FEDERATION_LINK_EXISTS');
    await show('/en-US/passport/signin?wechatPending=p1');
    await prove();
    expect((await screen.findByTestId('federation-refused')).textContent).toBe('This account of the provider is already linked to a Ciam account');
    expect(toast.current()).toHaveLength(0);
  });

  it('a pending token this tab did not start is never used', async () => {
    sessionStorage.clear();
    await show('/en-US/passport/signin?wechatPending=p1');
    expect((await screen.findByTestId('federation-error')).textContent).toBe('Sign-in with WeChat failed. Please try again.');
    expect(screen.queryByTestId('federation-phone')).toBeNull();
  });

  it('speaks Chinese in zh-CN', async () => {
    await show('/zh-CN/passport/signin?feishuPending=p1', 'zh-CN');
    const section = await screen.findByTestId('federation-phone');
    expect(section.querySelector('h2')?.textContent).toBe('验证您的手机号');
    expect(section.textContent).toContain('您的飞书账号尚未关联 Ciam 账号。');
    expect(section.querySelector('label')?.textContent).toBe('手机号（中国大陆）');
  });
});

describe('finishing the sign-up of a new subject', () => {
  it('a number without an account goes on to the sign-up; its fields are checked, then the account is created and signed in', async () => {
    const router = await show('/en-US/passport/signin?wechatPending=p1&appId=a1&serviceUrl=https://p.example/cb');
    await prove();
    const section = await screen.findByTestId('federation-signup');
    const heading = section.querySelector('h2')!;
    expect(heading.textContent).toBe('Complete your account');
    expect(document.activeElement, 'the focus moves to the new step').toBe(heading);
    expect(section.textContent).toContain('Your number 13800138000 is proven. Complete your account to sign in with WeChat from now on.');
    const f = section.querySelector('form')!;
    expect(field(f, 'userName').value, 'the name is typed, never the provider\'s nickname').toBe('');
    fireEvent.submit(f);
    await settle();
    expect(to('/auth/federation/register')).toHaveLength(0);
    expect(field(f, 'userName').getAttribute('aria-invalid')).toBe('true');
    expect(field(f, 'acceptTerms').getAttribute('aria-invalid')).toBe('true');
    // Typing keeps the focus where it is (the heading took it once, not on every render).
    field(f, 'userName').focus();
    type(f, 'userName', 'ann');
    await settle();
    expect(document.activeElement).toBe(field(f, 'userName'));
    type(f, 'company', 'ACME');
    fireEvent.click(field(f, 'acceptTerms'));
    fireEvent.submit(f);
    await settle();
    expect(to('/auth/federation/register')[0]!.body).toEqual({ pending: 'p1', bind: 'b1', userName: 'ann', company: 'ACME', country: 'CN', acceptTerms: true });
    await waitFor(() => expect(at(router)).toBe('/en-US/passport/authorize?appId=a1&serviceUrl=https://p.example/cb'));
    expect(localStorage.getItem('ciam_token')).toBe('u9.new');
    expect(sessionStorage.getItem(FED_BIND_KEY)).toBeNull();
  });

  it('a taken user name at its field; a number taken meanwhile atop the form', async () => {
    answers['POST /auth/federation/register'] = refusal(409, 'USERNAME_EXIST');
    await show('/en-US/passport/signin?wechatPending=p1');
    await prove();
    const f = (await screen.findByTestId('federation-signup')).querySelector('form')!;
    type(f, 'userName', 'ann');
    type(f, 'company', 'ACME');
    fireEvent.click(field(f, 'acceptTerms'));
    fireEvent.submit(f);
    await settle();
    expect(field(f, 'userName').getAttribute('aria-invalid')).toBe('true');
    answers['POST /auth/federation/register'] = refusal(409, 'PHONE_EXIST');
    type(f, 'userName', 'ann2');
    fireEvent.submit(f);
    await settle();
    expect(screen.getByTestId('federation-refused').textContent).toBe('The phone number has already been bound');
    expect(localStorage.getItem('ciam_token')).toBeNull();
  });

  it('speaks Chinese in zh-CN', async () => {
    await show('/zh-CN/passport/signin?wechatPending=p1', 'zh-CN');
    await prove();
    const section = await screen.findByTestId('federation-signup');
    expect(section.querySelector('h2')?.textContent).toBe('完善账号信息');
    expect(section.textContent).toContain('您的手机号 13800138000 已验证。完善账号信息后，即可使用微信登录。');
    expect(section.querySelector('button[type=submit]')?.textContent).toBe('创建账号');
  });
});

describe('a company connection that vouched for the person without a company mail (orgPending)', () => {
  const kept = () => sessionStorage.setItem('ciam_fed_org', JSON.stringify({ name: { 'en-US': 'Acme', 'zh-CN': '爱克美' }, protocol: 'dingtalk' }));

  it("names the company and its platform, proves the number with the pending token, and signs in", async () => {
    kept();
    answers['POST /auth/federation/phone'] = () => [200, { token: 'u1.t', userId: 'u1', expiresAt: 1 }];
    const router = await show('/en-US/passport/signin?orgPending=p1&appId=a1');
    const intro = await screen.findByTestId('federation-phone-intro');
    expect(intro.textContent).toContain("Acme's DingTalk vouched for you; prove your phone to finish.");
    expect(at(router)).not.toContain('orgPending');
    await prove();
    expect(to('/auth/federation/phone')[0]?.body).toEqual({ pending: 'p1', bind: 'b1', phone: '13800138000', code: '123456' });
    await waitFor(() => expect(localStorage.getItem('ciam_token')).toBe('u1.t'));
  });

  it('says the organization refused in the catalogue words, and without a kept company still asks in its own words', async () => {
    answers['POST /auth/federation/phone'] = refusal(403, 'FEDERATION_NOT_PERMITTED');
    await show('/en-US/passport/signin?orgPending=p1');
    const intro = await screen.findByTestId('federation-phone-intro');
    expect(intro.textContent).toContain('Your company vouched for you; prove your phone to finish.');
    await prove();
    expect(screen.getByTestId('federation-refused').textContent).not.toBe('');
    expect(localStorage.getItem('ciam_token')).toBeNull();
  });

  it('speaks Chinese in zh-CN', async () => {
    kept();
    await show('/zh-CN/passport/signin?orgPending=p1', 'zh-CN');
    const intro = await screen.findByTestId('federation-phone-intro');
    expect(intro.textContent).toContain('爱克美的钉钉已为您担保；请验证手机号以完成登录。');
  });
});
