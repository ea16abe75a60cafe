// Shared by the console's tests (not shipped: only *.test.tsx import it): the console in the test
// app (testing/render-app.tsx) against the fake API (testing/fake-api.ts), and its data.
import { fireEvent, screen, within } from '@testing-library/react';
import { type Answer, type FakeApi, fakeApi, type Reply } from '../../testing/fake-api';
import { renderApp, settle } from '../../testing/render-app';
import type { AccountPage, AppDetail, Me, Overview } from './api';
import { ConsoleRoot } from './console';

export const AT = 1_767_225_600; // 2026-01-01T00:00:00Z

export const me = (role: Me['role']): Me => ({ role, userId: 'op1', mail: 'op@example.com' });

export const account: AccountPage = {
  userId: 'u1',
  userName: 'ann',
  mail: 'a***@example.com',
  phone: '+86 138****0000',
  company: 'Acme',
  status: 'locked',
  lockedUntil: AT + 900,
  suspendedAt: null,
  createdAt: AT - 86_400,
  role: null,
  displayName: 'Ann',
  duty: null,
  address: null,
  country: 'CN',
  staff: false,
  twoFactor: true,
  passkeys: 1,
  lastSignIn: AT - 3600,
  sessions: [{ id: 's1', createdAt: AT - 7200, lastSeen: AT - 3600, device: 'Chrome on Linux', country: 'CN', current: false }],
  recentApps: [{ appId: 'a1', name: 'Mall', url: 'https://mall.example.com', lastLoginTime: AT - 3600 }],
  consents: [{ appId: 'a1', name: 'Mall', logo: '', scopes: ['nickname', 'email'], grantedAt: AT - 7200 }],
  activity: [
    { at: AT - 60, kind: 'signIn', device: 'Chrome on Linux', country: 'CN' },
    { at: AT - 30, kind: 'unlockedBySupport', device: null, country: null },
  ],
  identities: [{ provider: 'wechat', subjectMasked: 'oK3x…9Q', name: 'Zhang', linkedAt: AT - 86_400, lastDay: '2025-12-31', organization: null }],
  failedAttempts: [],
  notes: null,
};

export const app: AppDetail = {
  appId: 'a1',
  name: { 'zh-CN': '商城', 'en-US': 'Mall' },
  description: 'The shop',
  logo: '',
  privacyUrl: '',
  ownerMail: 'owner@mall.example.com',
  serviceUrls: ['https://mall.example.com/cb'],
  frameOrigins: [],
  postLogoutRedirectUris: [],
  backchannelLogoutUri: '',
  logoutUrl: '',
  scopes: ['nickname'],
  organization: 'none',
  recommended: true,
  createdAt: AT - 86_400,
  previousSecretUntil: null,
  secretRotatedAt: null,
};

/** GET /admin/apps/a1's answer. */
export const oneApp = {
  app,
  deleteEnds: ['tickets', 'oidcSignIn', 'embeddedSignIn', 'appList', 'consents'],
  deleteKeeps: ['oidcAccessTokens', 'recentApps'],
};

/** 30 days of numbers ending 2026-01-30, with sign-ins on the last day. */
export function overview(): Overview {
  const days = Array.from({ length: 30 }, (_, i) => ({
    day: `2026-01-${String(i + 1).padStart(2, '0')}`,
    newAccounts: i % 3,
    active: i,
    lockouts: i === 29 ? 2 : 0,
    signIns: {
      total: i === 29 ? 7 : 0,
      byOutcome: i === 29 ? { success: 4, wrongSecret: 2, locked: 1 } : ({} as Record<string, number>),
      byMethod: i === 29 ? { password: 5, code: 1, passkey: 1 } : ({} as Record<string, number>),
    },
  }));
  return { accounts: 1234, days, months: [{ month: '2026-01', active: 88, newAccounts: 29, deactivations: 1 }, { month: '2025-12', active: 70, newAccounts: 20, deactivations: 0 }] };
}

export const REAUTH: Reply = [401, { reason: 'REAUTH_REQUIRED', message: 'Confirm it is you', code: 401 }];

/** The console at `path` as `role`, with `answers` over the defaults; answers the fake API and router. */
export async function open(path: string, role: Me['role'] | null = 'operator', answers: Record<string, Answer> = {}, locale: 'en-US' | 'zh-CN' = 'en-US') {
  localStorage.setItem('ciam_token', 'op1.token');
  localStorage.setItem('lastActionTime', String(Date.now()));
  const fake: FakeApi = fakeApi({
    'GET /auth/info': () => [200, { userId: 'op1', enableTotp: true }],
    ...(role ? { 'GET /admin/me': () => [200, me(role)] } : {}),
    'GET /admin/overview': () => [200, overview()],
    'GET /admin/accounts/u1': () => [200, account],
    'GET /admin/apps': () => [200, { apps: [app] }],
    'GET /admin/apps/a1': () => [200, oneApp],
    'GET /admin/apps/a1/webhooks': () => [200, { endpoints: [] }],
    ...answers,
  });
  const router = await renderApp(
    [
      { path: '/:language/admin/*', element: <ConsoleRoot /> },
      { path: '/:language/passport/signin', element: <p>sign-in page</p> },
      { path: '/:language/personal/*', element: <p>personal page</p> },
    ],
    path,
    { locale },
  );
  await settle();
  return { fake, router };
}

/** Types `text` into the field labelled `label` (within `root`). */
export function type(label: RegExp | string, text: string, root: HTMLElement = document.body) {
  fireEvent.change(within(root).getByLabelText(label), { target: { value: text } });
}

/** The open dialog with `testId`. */
export const dialog = (testId: string) => screen.getByTestId(testId);

/** Fills the reason of the open dialog and confirms it. */
export async function confirmWithReason(testId: string, reason: string) {
  const d = dialog(testId);
  type(/Reason/, reason, d);
  fireEvent.click(within(d).getByTestId('reason-confirm'));
  await settle();
}
