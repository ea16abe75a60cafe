// Sign-in through WeChat, WeCom, DingTalk and Feishu on the sign-in screen, against a mocked API
// (docs/federation-design.md §5.2): the "Or sign in with" row only for the providers the server
// offers, never started by itself; the way back: a `<p>Code` redeemed once with this tab's bind,
// every `<p>Error` reason said in words naming the provider (never words from the address), in
// both languages.
import { cleanup, fireEvent, screen, waitFor } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import * as mfa from '../../../lib/mfa';
import * as toast from '../../../lib/toast';
import { BASE } from '../../../lib/api-url';
import { type Answer, type Call, fakeApi, NOT_FOUND } from '../../../testing/fake-api';
import { renderApp, settle } from '../../../testing/render-app';
import SignIn from '../signin';
import { bindHash } from '../staff-signin';
import { FED_BIND_KEY, readBack, startUrl } from './shared';

let calls: Call[] = [];
let answers: Record<string, Answer> = {};

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
const redeemed = () => calls.filter((c) => c.path === '/auth/login/federation');
const offer = (...names: string[]) => {
  answers['GET /auth/federation'] = () => [200, { providers: names.map((name) => ({ name })) }];
};

beforeEach(() => {
  answers = { 'POST /auth/login/federation': () => [200, { token: 'u1.wechat', userId: 'u1', expiresAt: 1 }] };
});
afterEach(() => {
  cleanup();
  mfa.close();
  for (const t of toast.current()) toast.dismiss(t.id);
  vi.unstubAllGlobals();
  localStorage.clear();
  sessionStorage.clear();
});

describe('the address of a provider', () => {
  it('starts at the server with the language, the bind hash and the query, encoded once', () => {
    expect(startUrl('wechat', 'zh-CN', '?wechatError=X&appId=a1&serviceUrl=https://p.example/cb', 'h-1_')).toBe(
      `${BASE}/auth/wechat/start?lang=zh-CN&bindHash=h-1_&query=appId%3Da1%26serviceUrl%3Dhttps%3A%2F%2Fp.example%2Fcb`,
    );
  });

  it('reads the way back of any provider but staff', () => {
    expect(readBack('?appId=a&wechatCode=c1')).toEqual({ provider: 'wechat', kind: 'Code', value: 'c1' });
    expect(readBack('?feishuPending=p1')).toEqual({ provider: 'feishu', kind: 'Pending', value: 'p1' });
    expect(readBack('?dingtalkError=FEDERATION_CANCELLED')).toEqual({ provider: 'dingtalk', kind: 'Error', value: 'FEDERATION_CANCELLED' });
    expect(readBack('?staffCode=c1')).toBeNull();
    expect(readBack('?appId=a1')).toBeNull();
    expect(readBack('?inviteCode=x1'), 'a partner\'s own parameter').toBeNull();
  });

  it('leaves a partner\'s own parameter that ends like a way back alone', async () => {
    const router = await show('/en-US/passport/signin?inviteCode=x1&appId=a1');
    await settle();
    expect(at(router)).toBe('/en-US/passport/signin?inviteCode=x1&appId=a1');
    expect(screen.queryByTestId('federation-error')).toBeNull();
    expect(redeemed()).toHaveLength(0);
  });
});

describe('the "Or sign in with" row', () => {
  it('shows the offered providers under the other ways in, and starts none by itself', async () => {
    offer('wechat', 'wecom', 'dingtalk');
    await show('/en-US/passport/signin?appId=a1');
    const row = await screen.findByTestId('federation-row');
    expect(row.querySelector('h2')?.textContent).toBe('Or sign in with');
    const buttons = [...row.querySelectorAll('button')];
    expect(buttons.map((b) => b.textContent)).toEqual(['WeChat', 'WeCom', 'DingTalk']);
    // Native buttons, in the tab order, each with its provider's name as its accessible name.
    for (const b of buttons) {
      expect(b.type).toBe('button');
      expect(b.tabIndex).toBe(0);
      expect(b.querySelector('svg')?.getAttribute('aria-hidden')).toBe('true');
    }
    expect(row.compareDocumentPosition(screen.getByTestId('signin-password')) & Node.DOCUMENT_POSITION_PRECEDING).toBeTruthy();
    expect(sessionStorage.getItem(FED_BIND_KEY), 'nothing started').toBeNull();
    expect(calls.filter((c) => c.path.includes('/start'))).toHaveLength(0);
  });

  it('a pressed button keeps a new bind for this tab and leaves for the provider\'s start with its hash', async () => {
    offer('wechat');
    await show('/en-US/passport/signin?appId=a1');
    const assign = vi.fn();
    vi.stubGlobal('location', { ...window.location, assign });
    fireEvent.click(await screen.findByTestId('federation-wechat'));
    await waitFor(() => expect(assign).toHaveBeenCalledTimes(1));
    const bind = sessionStorage.getItem(FED_BIND_KEY) ?? '';
    expect(bind).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(assign).toHaveBeenCalledWith(startUrl('wechat', 'en-US', '?appId=a1', await bindHash(bind)));
  });

  it('speaks Chinese in zh-CN', async () => {
    offer('wechat', 'wecom', 'dingtalk', 'feishu');
    await show('/zh-CN/passport/signin', 'zh-CN');
    const row = await screen.findByTestId('federation-row');
    expect(row.querySelector('h2')?.textContent).toBe('其他登录方式');
    expect([...row.querySelectorAll('button')].map((b) => b.textContent)).toEqual(['微信', '企业微信', '钉钉', '飞书']);
  });

  it('names Feishu after the brand the server says it goes by here (Lark), in both languages', async () => {
    answers['GET /auth/federation'] = () => [200, { providers: [{ name: 'wechat' }, { name: 'feishu', brand: 'lark' }] }];
    await show('/en-US/passport/signin');
    let row = await screen.findByTestId('federation-row');
    expect([...row.querySelectorAll('button')].map((b) => b.textContent)).toEqual(['WeChat', 'Lark']);
    expect(screen.getByTestId('federation-feishu').textContent).toBe('Lark');
    cleanup();
    await show('/zh-CN/passport/signin', 'zh-CN');
    row = await screen.findByTestId('federation-row');
    expect([...row.querySelectorAll('button')].map((b) => b.textContent)).toEqual(['微信', 'Lark']);
    cleanup();
    answers['GET /auth/federation'] = () => [200, { providers: [{ name: 'feishu', brand: 'unknown' }] }];
    await show('/en-US/passport/signin');
    expect((await screen.findByTestId('federation-feishu')).textContent, 'an unknown brand: the provider\'s name').toBe('Feishu');
  });

  it('is not there when no provider is offered, or the server does not answer', async () => {
    offer();
    await show('/en-US/passport/signin');
    await settle();
    expect(screen.queryByTestId('federation-row')).toBeNull();
    cleanup();
    delete answers['GET /auth/federation'];
    await show('/en-US/passport/signin');
    await settle();
    expect(screen.queryByTestId('federation-row')).toBeNull();
    expect(toast.current(), 'no toast for an old server').toHaveLength(0);
  });
});

describe('coming back from a provider with a code', () => {
  beforeEach(() => sessionStorage.setItem(FED_BIND_KEY, 'b1'));

  it('redeems the code once with this tab\'s bind, removes it from the address and goes on', async () => {
    const router = await show('/en-US/passport/signin?wechatCode=c1&from=x');
    await waitFor(() => expect(at(router)).toBe('/en-US/personal/info?from=x'));
    expect(redeemed()).toEqual([{ method: 'POST', path: '/auth/login/federation', body: { provider: 'wechat', code: 'c1', bind: 'b1' } }]);
    expect(localStorage.getItem('ciam_token')).toBe('u1.wechat');
    expect(sessionStorage.getItem(FED_BIND_KEY), 'the bind serves once').toBeNull();
  });

  it('redeems a company sign-in\'s code as provider org (routes/org_signin.rs)', async () => {
    const router = await show('/en-US/passport/signin?orgCode=c1&from=x');
    await waitFor(() => expect(at(router)).toBe('/en-US/personal/info?from=x'));
    expect(redeemed()).toEqual([{ method: 'POST', path: '/auth/login/federation', body: { provider: 'org', code: 'c1', bind: 'b1' } }]);
  });

  it('says a company\'s refusal in its own words, never the name the address brings', async () => {
    const router = await show('/en-US/passport/signin?orgError=FEDERATION_NOT_PERMITTED&orgName=Call%20%2B1-555&appId=a1');
    expect((await screen.findByTestId('federation-error')).textContent).toBe(
      'Your company lets only its members sign in this way. Ask its administrator to add you.',
    );
    expect(at(router)).toBe('/en-US/passport/signin?appId=a1');
    expect(document.body.textContent).not.toContain('555');
    cleanup();
    await show('/zh-CN/passport/signin?orgError=AUTHORIZATION_FAILED', 'zh-CN');
    expect((await screen.findByTestId('federation-error')).textContent).toBe('公司账号登录失败，请重试。');
  });

  it('goes on to the consent screen when a partner sent the user', async () => {
    const router = await show('/en-US/passport/signin?dingtalkCode=c1&appId=a1&serviceUrl=https://p.example/cb');
    await waitFor(() => expect(at(router)).toBe('/en-US/passport/authorize?appId=a1&serviceUrl=https://p.example/cb'));
    expect(redeemed()[0]!.body).toMatchObject({ provider: 'dingtalk' });
  });

  it('opens the second step when two-factor is on', async () => {
    answers['POST /auth/login/federation'] = () => [403, { reason: 'NEED_TOTP_VERIFY', message: '', code: 403, challenge: 'ch1' }];
    const router = await show('/en-US/passport/signin?wechatCode=c1');
    await waitFor(() => expect(mfa.current()).toBe('ch1'));
    expect(localStorage.getItem('ciam_token')).toBeNull();
    expect(at(router)).toBe('/en-US/passport/signin');
  });

  it('never redeems a code this tab did not start (a link someone sent)', async () => {
    sessionStorage.clear();
    const router = await show('/en-US/passport/signin?wechatCode=c1&appId=a1');
    expect((await screen.findByTestId('federation-error')).textContent).toBe('Sign-in with WeChat failed. Please try again.');
    expect(redeemed()).toHaveLength(0);
    expect(at(router)).toBe('/en-US/passport/signin?appId=a1');
  });

  it('says a used, expired or forged code on the screen and stays', async () => {
    answers['POST /auth/login/federation'] = () => [401, { reason: 'AUTHORIZATION_FAILED', message: '', code: 401 }];
    const router = await show('/zh-CN/passport/signin?feishuCode=c1&appId=a1', 'zh-CN');
    expect((await screen.findByTestId('federation-error')).textContent).toBe('飞书登录失败，请重试。');
    expect(at(router)).toBe('/zh-CN/passport/signin?appId=a1');
    expect(localStorage.getItem('ciam_token')).toBeNull();
  });
});

describe('coming back from a provider with a refusal', () => {
  const cases: [string, string, string, string][] = [
    ['FEDERATION_CANCELLED', 'wechat', 'You cancelled at WeChat. Try again or choose another way.', '您已在微信取消登录。请重试或选择其他方式。'],
    ['FEDERATION_NOT_PERMITTED', 'wecom', 'Your WeCom account may not use this app; ask your administrator.', '您的企业微信账号无权使用本应用，请联系管理员。'],
    ['AUTHORIZATION_FAILED', 'dingtalk', 'Sign-in with DingTalk failed. Please try again.', '钉钉登录失败，请重试。'],
    ['SERVICE_UNAVAILABLE', 'wechat', 'WeChat did not answer in time. Try again later or choose another way.', '微信未及时响应。请稍后重试或选择其他方式。'],
    ['UNAVAILABLE', 'feishu', 'Sign-in with Feishu is not available. Choose another way.', '暂不支持飞书登录，请选择其他方式。'],
    ['Call%20%2B1-555%20now', 'wechat', 'Sign-in with WeChat failed. Please try again.', '微信登录失败，请重试。'],
  ];
  it.each(cases)('%s from %s, in both languages', async (reason, provider, en, zh) => {
    sessionStorage.setItem(FED_BIND_KEY, 'b1');
    const router = await show(`/en-US/passport/signin?${provider}Error=${reason}&appId=a1`);
    expect((await screen.findByTestId('federation-error')).textContent).toBe(en);
    expect(screen.getByTestId('federation-error').getAttribute('role')).toBe('alert');
    expect(at(router)).toBe('/en-US/passport/signin?appId=a1');
    expect(redeemed()).toHaveLength(0);
    expect(sessionStorage.getItem(FED_BIND_KEY), 'the bind is dropped').toBeNull();
    cleanup();
    await show(`/zh-CN/passport/signin?${provider}Error=${reason}`, 'zh-CN');
    expect((await screen.findByTestId('federation-error')).textContent).toBe(zh);
  });

  it('names Lark on the way back when this tab left for Feishu under that brand', async () => {
    answers['GET /auth/federation'] = () => [200, { providers: [{ name: 'feishu', brand: 'lark' }] }];
    await show('/en-US/passport/signin');
    vi.stubGlobal('location', { ...window.location, assign: vi.fn() });
    fireEvent.click(await screen.findByTestId('federation-feishu'));
    await waitFor(() => expect(sessionStorage.getItem(FED_BIND_KEY)).not.toBeNull());
    cleanup();
    await show('/en-US/passport/signin?feishuError=FEDERATION_CANCELLED');
    expect((await screen.findByTestId('federation-error')).textContent).toBe('You cancelled at Lark. Try again or choose another way.');
    cleanup();
    await show('/en-US/passport/signin?wechatError=FEDERATION_CANCELLED');
    expect((await screen.findByTestId('federation-error')).textContent, 'another provider keeps its name').toBe('You cancelled at WeChat. Try again or choose another way.');
  });

  it('a catalogue reason in the catalogue\'s words', async () => {
    await show('/en-US/passport/signin?wechatError=FEDERATION_LINK_EXISTS');
    expect((await screen.findByTestId('federation-error')).textContent).toBe('This account of the provider is already linked to a Ciam account');
  });

  it('a snapshot-mode user: what to tap, in both languages', async () => {
    await show('/en-US/passport/signin?wechatError=FEDERATION_SNAPSHOT_USER');
    const hint = await screen.findByTestId('federation-snapshot');
    expect(hint.textContent).toBe('You are viewing a preview of this page. Tap 使用完整服务 (Use full service) at the bottom, then sign in with WeChat again.');
    expect(hint.getAttribute('role')).toBe('alert');
    cleanup();
    await show('/zh-CN/passport/signin?wechatError=FEDERATION_SNAPSHOT_USER', 'zh-CN');
    expect((await screen.findByTestId('federation-snapshot')).textContent).toBe('您正在预览本页面。请点击页面底部的“使用完整服务”，然后再次使用微信登录。');
  });

  it('in WeChat without its own authorization: the steps to a browser and a link to copy', async () => {
    const writeText = vi.fn(() => Promise.resolve());
    vi.stubGlobal('navigator', Object.assign(Object.create(navigator), { clipboard: { writeText } }));
    const router = await show('/en-US/passport/signin?wechatError=FEDERATION_OPEN_IN_BROWSER&appId=a1');
    const note = await screen.findByTestId('federation-open-in-browser');
    expect(note.querySelector('p')?.textContent).toBe('Open this page in your browser to sign in with WeChat');
    expect([...note.querySelectorAll('li')].map((li) => li.textContent)).toEqual(['Tap ··· at the top right.', 'Choose Open in Browser.', 'Sign in with WeChat there.']);
    expect(at(router)).toBe('/en-US/passport/signin?appId=a1');
    fireEvent.click(screen.getByTestId('federation-copy-link'));
    await screen.findByText('Link copied. Paste it in your browser.');
    expect(writeText).toHaveBeenCalledWith(window.location.href);
  });

  it('in WeChat, when the link cannot be copied: the link to select, in Chinese', async () => {
    vi.stubGlobal('navigator', Object.assign(Object.create(navigator), { clipboard: { writeText: () => Promise.reject(new Error('denied')) } }));
    await show('/zh-CN/passport/signin?wechatError=FEDERATION_OPEN_IN_BROWSER', 'zh-CN');
    const note = await screen.findByTestId('federation-open-in-browser');
    expect([...note.querySelectorAll('li')].map((li) => li.textContent)).toEqual(['点击右上角的“···”。', '选择“在浏览器中打开”。', '在浏览器中使用微信登录。']);
    fireEvent.click(screen.getByTestId('federation-copy-link'));
    await screen.findByText('请复制以下链接并粘贴到浏览器中打开：');
    expect((screen.getByRole('textbox', { name: '本页链接' }) as HTMLInputElement).readOnly).toBe(true);
  });
});
