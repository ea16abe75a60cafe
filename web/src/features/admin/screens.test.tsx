// The console's screens against a mocked API: finding and listing accounts, one account and its
// actions, apps and secret rotation, the audit log and its export, roles.
import { fireEvent, screen, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { inTurn } from '../../testing/fake-api';
import { at as where, resetApp, settle } from '../../testing/render-app';
import { actionsFor } from './account';
import { endOf } from './app';
import { filenameOf } from './api';
import { lastWeek, validRange } from './audit';
import { account, app, AT, confirmWithReason, dialog, open, REAUTH, type } from './test-kit';

let downloads: { name: string; blob: Blob }[];
beforeEach(() => {
  downloads = [];
  let last: Blob | null = null;
  Object.assign(URL, {
    createObjectURL: vi.fn((b: Blob) => {
      last = b;
      return 'blob:test/1';
    }),
    revokeObjectURL: vi.fn(),
  });
  vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(function (this: HTMLAnchorElement) {
    if (this.download && last) downloads.push({ name: this.download, blob: last });
  });
});
afterEach(() => {
  vi.restoreAllMocks();
  resetApp();
});

describe('accounts', () => {
  it('lists a company, newest first, with More', async () => {
    const { fake } = await open('/en-US/admin/accounts', 'viewer', {
      'GET /admin/directory?company=Ac': () => [200, { accounts: [{ userId: 'u2', userName: 'bob', company: 'Acme', createdAt: AT }], next: 'k1' }],
      'GET /admin/directory?company=Ac&after=k1': () => [200, { accounts: [{ userId: 'u1', userName: 'ann', company: 'Acme', createdAt: AT - 10 }] }],
    });
    type('Company name (its beginning)', 'Ac');
    fireEvent.submit(screen.getByTestId('directory-form'));
    await settle();
    fireEvent.click(screen.getByTestId('directory-more'));
    await settle();
    expect(fake.callsTo('GET', '/admin/directory?company=Ac&after=k1')).toHaveLength(1);
    const rows = screen.getByTestId('directory').querySelectorAll('tbody tr');
    expect([...rows].map((r) => r.querySelector('th')?.textContent)).toEqual(['bob', 'ann']);
    expect(screen.queryByTestId('directory-more')).toBeNull();
  });
});

describe('one account', () => {
  it('shows the page, masked, with the lists', async () => {
    await open('/en-US/admin/accounts/u1', 'viewer');
    expect(screen.getByRole('heading', { level: 1 }).textContent).toBe('Account: ann');
    expect(screen.getByTestId('account-status').textContent).toBe('Locked');
    expect(screen.getByTestId('account-mail').textContent).toBe('a***@example.com');
    expect(screen.getByTestId('account-two-factor').textContent).toBe('On');
    expect(screen.getByTestId('account-activity').textContent).toContain('Unlocked by support');
    // A country by its name, never its code (issue 34 item 7).
    expect(screen.getByText('Chrome on Linux · China')).toBeTruthy();
    expect(screen.queryByText(/· CN\b/)).toBeNull();
    // A viewer reads; it cannot act or reveal.
    expect(screen.queryByTestId('action-unlock')).toBeNull();
    expect(screen.queryByTestId('reveal')).toBeNull();
  });

  it('an operator unlocks with a reason; the page reloads', async () => {
    const { fake } = await open('/en-US/admin/accounts/u1', 'operator', {
      'GET /admin/accounts/u1': inTurn([200, account], [200, { ...account, status: 'active', lockedUntil: null }]),
    });
    fireEvent.click(screen.getByTestId('action-unlock'));
    const d = dialog('action-dialog');
    expect(d.textContent).toContain('Unlock: ann');
    fireEvent.click(within(d).getByTestId('reason-confirm'));
    await settle();
    expect(within(d).getByText('Give a reason')).toBeTruthy();
    expect(fake.callsTo('POST', '/admin/accounts/u1/unlock')).toHaveLength(0);
    await confirmWithReason('action-dialog', 'Ticket 42: locked out');
    expect(fake.callsTo('POST', '/admin/accounts/u1/unlock')[0]?.body).toEqual({ reason: 'Ticket 42: locked out' });
    expect(screen.queryByTestId('action-dialog')).toBeNull();
    const done = screen.getByTestId('action-done');
    expect(done.textContent).toBe('The account is unlocked.');
    // Said in the actions' section, where the agent acted, and the focus is on it (not the body).
    expect(done.closest('section')?.id).toBe('actions');
    expect(done.getAttribute('role')).toBe('status');
    expect(document.activeElement).toBe(done);
    expect(screen.getByTestId('account-status').textContent).toBe('Active');
    expect(screen.queryByTestId('action-unlock')).toBeNull();
  });

  it('an action that needs a fresh proof asks for it and is sent again', async () => {
    const { fake } = await open('/en-US/admin/accounts/u1', 'operator', {
      'POST /admin/accounts/u1/reset-two-factor': inTurn(REAUTH, [200, { ok: true }]),
    });
    fireEvent.click(screen.getByTestId('action-reset-two-factor'));
    const pending = confirmWithReason('action-dialog', 'lost phone');
    await pending;
    const proof = screen.getByTestId('reauth-dialog');
    fireEvent.change(within(proof).getByLabelText('Authenticator code'), { target: { value: '654321' } });
    fireEvent.submit(proof.querySelector('form')!);
    await settle();
    expect(fake.callsTo('POST', '/admin/accounts/u1/reset-two-factor')).toHaveLength(2);
    expect(screen.getByTestId('action-done').textContent).toBe('Two-factor authentication is off for the account.');
  });

  it('a refusal stays in the dialog', async () => {
    await open('/en-US/admin/accounts/u1', 'operator', {
      'POST /admin/accounts/u1/suspend': () => [409, { reason: 'INVALID_PARAMETER', message: 'Not now', code: 409 }],
    });
    fireEvent.click(screen.getByTestId('action-suspend'));
    await confirmWithReason('action-dialog', 'fraud report');
    expect(screen.getByTestId('reason-dialog-error').textContent).toBe('Not now');
  });

  it('reveals mail and phone with a reason', async () => {
    const { fake } = await open('/en-US/admin/accounts/u1', 'operator', {
      'POST /admin/accounts/u1/reveal': () => [200, { userId: 'u1', mail: 'ann@example.com', phone: '+8613800000000' }],
    });
    fireEvent.click(screen.getByTestId('reveal'));
    await confirmWithReason('reveal-dialog', 'customer on the phone');
    expect(fake.callsTo('POST', '/admin/accounts/u1/reveal')[0]?.body).toEqual({ reason: 'customer on the phone' });
    expect(screen.getByTestId('account-mail').textContent).toBe('ann@example.com');
    expect(screen.getByTestId('account-phone').textContent).toBe('+8613800000000');
    expect(document.activeElement).toBe(screen.getByTestId('revealed'));
  });

  it('the actions follow the account', () => {
    expect(actionsFor(account)).toEqual(['unlock', 'end-sessions', 'reset-two-factor', 'reset-passkeys', 'send-reset-code', 'suspend']);
    expect(actionsFor({ ...account, status: 'suspended', twoFactor: false, passkeys: 0 })).toEqual(['reactivate', 'end-sessions', 'send-reset-code']);
    expect(actionsFor({ ...account, status: 'deactivated' })).toEqual([]);
  });

  it('an admin replaces the mail; MAIL_EXIST is said at the field', async () => {
    const { fake } = await open('/en-US/admin/accounts/u1', 'admin', {
      'PUT /admin/accounts/u1/identity': inTurn([409, { reason: 'MAIL_EXIST', message: '', code: 409 }], [200, { ok: true }]),
    });
    const f = screen.getByTestId('identity-form');
    type('New mail address', 'new@example.com', f);
    fireEvent.submit(f);
    await confirmWithReason('identity-dialog', 'lost both, checked ID');
    expect(fake.callsTo('PUT', '/admin/accounts/u1/identity')[0]?.body).toEqual({ reason: 'lost both, checked ID', mail: 'new@example.com' });
    const input = within(f).getByLabelText('New mail address');
    expect(input.getAttribute('aria-invalid')).toBe('true');
    expect(f.textContent).toContain('The e-mail address has already been bound');
    fireEvent.submit(f);
    await confirmWithReason('identity-dialog', 'lost both, checked ID');
    const done = screen.getByTestId('identity-done');
    expect(done.textContent).toBe('The new value is bound.');
    expect(done.closest('section')?.id).toBe('identity');
    expect(document.activeElement).toBe(done);
  });

  it("the phone's country is chosen by its name in the page's language, never typed as a code", async () => {
    await open('/zh-CN/admin/accounts/u1', 'admin', {}, 'zh-CN');
    const f = screen.getByTestId('identity-form');
    fireEvent.click(within(f).getByLabelText('手机号'));
    const select = within(f).getByLabelText('手机号所属国家或地区') as HTMLSelectElement;
    expect(select.tagName).toBe('SELECT');
    expect(select.value).toBe('CN');
    expect(select.selectedOptions[0]?.textContent).toBe('中国');
  });

  it('an operator does not see the identity replacement', async () => {
    await open('/en-US/admin/accounts/u1', 'operator');
    expect(screen.queryByTestId('identity-form')).toBeNull();
  });
});

describe('apps', () => {
  it('lists the apps; an admin registers one and sees its secret once', async () => {
    const { fake } = await open('/en-US/admin/apps', 'admin', {
      'POST /admin/apps': () => [200, { app: { ...app, appId: 'a2', name: { 'zh-CN': '新', 'en-US': 'New' } }, appSecret: 'S3CRET' }],
    });
    expect(screen.getByTestId('apps').querySelector('tbody th')?.textContent).toBe('Mall');
    fireEvent.click(screen.getByTestId('new-app'));
    const f = screen.getByTestId('app-form');
    fireEvent.submit(f);
    expect(within(f).getAllByText('Required')).toHaveLength(3);
    type('Name in Chinese', '新', f);
    type('Name in English', 'New', f);
    type('Service URLs (one a line)', 'https://new.example.com/cb\n\nhttps://new.example.com/cb2', f);
    fireEvent.click(within(f).getByLabelText('Mail'));
    fireEvent.click(within(f).getByLabelText('Required: a person without one is refused'));
    fireEvent.submit(f);
    await confirmWithReason('create-app-dialog', 'partner onboarding');
    expect(fake.callsTo('POST', '/admin/apps')[0]?.body).toEqual({
      name: { 'zh-CN': '新', 'en-US': 'New' },
      description: '',
      serviceUrls: ['https://new.example.com/cb', 'https://new.example.com/cb2'],
      frameOrigins: [],
      postLogoutRedirectUris: [],
      backchannelLogoutUri: '',
      logoutUrl: '',
      ownerMail: '',
      scopes: ['email'],
      organization: 'required',
      recommended: false,
      reason: 'partner onboarding',
    });
    expect((screen.getByTestId('app-secret') as HTMLInputElement).value).toBe('S3CRET');
    expect(screen.getByTestId('secret-once').textContent).toContain('You will not see it again');
    expect(document.activeElement).toBe(screen.getByTestId('app-secret'));
  });

  it('an admin gives the sign-out addresses; a refused one is said at its field', async () => {
    const { fake } = await open('/en-US/admin/apps', 'admin', {
      'POST /admin/apps': inTurn(
        [400, { reason: 'INVALID_PARAMETER', message: 'Use an https URL', code: 400, field: 'backchannelLogoutUri' }],
        [200, { app: { ...app, appId: 'a3' }, appSecret: 'S3CRET' }],
      ),
    });
    fireEvent.click(screen.getByTestId('new-app'));
    const f = screen.getByTestId('app-form');
    type('Name in Chinese', '新', f);
    type('Name in English', 'New', f);
    type('Service URLs (one a line)', 'https://new.example.com/cb', f);
    type('Addresses after sign-out (one a line)', 'https://new.example.com/bye\nhttps://new.example.com/bye?x=1', f);
    type('Back-channel logout URI (OpenID Connect, https)', 'http://new.example.com/bc', f);
    type('Logout notice URL (ticket apps, https)', 'https://new.example.com/cas/logout', f);
    type("Owner's e-mail (told when Ciam disables a webhook endpoint)", ' ops@new.example.com ', f);
    fireEvent.submit(f);
    await confirmWithReason('create-app-dialog', 'partner onboarding');
    expect(fake.callsTo('POST', '/admin/apps')[0]?.body).toMatchObject({
      postLogoutRedirectUris: ['https://new.example.com/bye', 'https://new.example.com/bye?x=1'],
      backchannelLogoutUri: 'http://new.example.com/bc',
      logoutUrl: 'https://new.example.com/cas/logout',
      ownerMail: 'ops@new.example.com',
    });
    const input = within(f).getByLabelText('Back-channel logout URI (OpenID Connect, https)');
    expect(input.getAttribute('aria-invalid')).toBe('true');
  });

  it('a viewer only reads', async () => {
    await open('/en-US/admin/apps/a1', 'viewer');
    expect(screen.getByTestId('app-id').textContent).toBe('a1');
    expect(screen.queryByTestId('rotate-secret')).toBeNull();
    expect(screen.queryByTestId('delete-app')).toBeNull();
  });

  it('rotates the secret; the old one works for the chosen time', async () => {
    const until = Math.floor(Date.now() / 1000) + 3600;
    const { fake } = await open('/en-US/admin/apps/a1', 'admin', {
      'POST /admin/apps/a1/secret': () => [200, { app: { ...app, previousSecretUntil: until }, appSecret: 'NEW-SECRET' }],
    });
    fireEvent.click(screen.getByTestId('rotate-secret'));
    fireEvent.click(within(dialog('rotate-dialog')).getByLabelText('1 hour'));
    await confirmWithReason('rotate-dialog', 'scheduled rotation');
    const body = fake.callsTo('POST', '/admin/apps/a1/secret')[0]?.body as { reason: string; previousValidUntil: number };
    expect(body.reason).toBe('scheduled rotation');
    expect(Math.abs(body.previousValidUntil - until)).toBeLessThan(5);
    expect((screen.getByTestId('app-secret') as HTMLInputElement).value).toBe('NEW-SECRET');
    // In place: in the Secret section, beside the button that made it, with the focus.
    expect(screen.getByTestId('app-secret').closest('section')?.id).toBe('secret');
    expect(document.activeElement).toBe(screen.getByTestId('app-secret'));
    expect(screen.getByTestId('previous-secret').textContent).toContain('The previous secret works until');
    expect(screen.getByTestId('retire-secret')).toBeTruthy();
  });

  it('delete spells out what it ends, then goes back to the list', async () => {
    const { fake, router } = await open('/en-US/admin/apps/a1', 'admin', { 'DELETE /admin/apps/a1': () => [200, { ok: true }] });
    fireEvent.click(screen.getByTestId('delete-app'));
    const ends = [...screen.getByTestId('delete-ends').querySelectorAll('li')].map((li) => li.textContent);
    expect(ends).toEqual([
      'Tickets: no new ticket is issued for the app, and one not yet verified can no longer be.',
      'OpenID Connect sign-in: requests for the app are refused, and codes not yet exchanged can no longer be.',
      'The embedded sign-in: the app’s pages may no longer frame it.',
      'The app list: the app leaves the list customers see.',
      'Consents: the app leaves its customers’ list of allowed apps.',
    ]);
    expect(screen.getByTestId('delete-keeps').querySelectorAll('li')).toHaveLength(2);
    await confirmWithReason('delete-dialog', 'contract ended');
    expect(fake.callsTo('DELETE', '/admin/apps/a1')[0]?.body).toEqual({ reason: 'contract ended' });
    expect(where(router)).toBe('/en-US/admin/apps');
    expect(screen.getByTestId('app-deleted').textContent).toBe('Mall is deleted.');
  });

  it('the old secret’s end', () => {
    const now = Date.UTC(2026, 0, 1);
    expect(endOf('hour', '', now)).toBe(now / 1000 + 3600);
    expect(endOf('week', '', now)).toBe(now / 1000 + 7 * 86400);
    expect(endOf('date', '2026-01-03', now)).toBe(Date.UTC(2026, 0, 3, 23, 59, 59) / 1000);
    expect(endOf('date', '2025-12-01', now)).toBeNull();
  });
});

describe('audit', () => {
  const OP = '0123456789abcdef0123456789abcdef';
  const CUSTOMER = 'fedcba9876543210fedcba9876543210';
  const GONE = 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa';
  const APP = '0123456789abcdef';
  const person = (userId: string, userName: string, mail: string) => ({
    userId, userName, mail, phone: null, company: null, status: 'active', lockedUntil: null, suspendedAt: null, createdAt: AT, role: null,
  });
  const row = (over: object) => ({ at: AT, actor: OP, actorRole: 'operator', action: 'account.unlock', target: CUSTOMER, reason: 'Ticket 42', detail: null, requestId: 'r1', ip: '127.0.0.1', device: null, ...over });
  const page = {
    entries: [
      row({}),
      row({ action: 'app.rotateSecret', target: APP, requestId: 'r2' }),
      row({ action: 'account.suspend', target: GONE, requestId: 'r3' }),
      row({ actor: 'cli:ops', actorRole: 'admin', action: 'role.grant', detail: 'viewer -> operator', requestId: 'r4' }),
    ],
    people: { [OP]: person(OP, 'li.support', 'l***@example.com'), [CUSTOMER]: person(CUSTOMER, 'zhang.wei', 'z***@example.com') },
    apps: { [APP]: { 'zh-CN': '设备云', 'en-US': 'Device Cloud' } },
  };

  it('names the action, the people and the app in the reader’s language, each linked', async () => {
    const week = lastWeek();
    await open('/en-US/admin/audit', 'viewer', { [`GET /admin/audit?from=${week.from}&to=${week.to}`]: () => [200, page] });
    const rows = [...screen.getByTestId('audit').querySelectorAll('tbody tr')];
    expect(rows[0]!.textContent).toContain('Unlocked the account');
    expect(rows[0]!.textContent).not.toContain('account.unlock');
    expect(rows[0]!.textContent).not.toContain(CUSTOMER);
    const links = [...rows[0]!.querySelectorAll('a')].map((a) => [a.textContent, a.getAttribute('href')]);
    expect(links).toEqual([
      ['li.support', `/en-US/admin/accounts/${OP}`],
      ['zhang.wei', `/en-US/admin/accounts/${CUSTOMER}`],
    ]);
    expect(rows[0]!.textContent).toContain('z***@example.com');
    expect(rows[1]!.textContent).toContain('Made a new app secret');
    expect(rows[1]!.querySelector(`a[href="/en-US/admin/apps/${APP}"]`)!.textContent).toBe('Device Cloud');
    expect(rows[2]!.textContent).toContain('Deleted account');
    expect(rows[3]!.textContent).toContain('Command line (ops)');
    expect(rows[3]!.textContent).toContain('Gave or changed a console role');
  });

  it('speaks Chinese in the Chinese console', async () => {
    const week = lastWeek();
    await open('/zh-CN/admin/audit', 'viewer', { [`GET /admin/audit?from=${week.from}&to=${week.to}`]: () => [200, page] }, 'zh-CN');
    const rows = [...screen.getByTestId('audit').querySelectorAll('tbody tr')];
    expect(rows[0]!.textContent).toContain('解锁了账号');
    expect(rows[1]!.textContent).toContain('设备云');
    expect(rows[2]!.textContent).toContain('已删除的账号');
    const options = [...screen.getByLabelText('操作').querySelectorAll('option')].map((o) => o.textContent);
    expect(options[0]).toBe('全部操作');
    expect(options).toContain('暂停了账号');
    expect(options.join('')).not.toMatch(/[a-z]+\.[a-z]+/i);
  });

  it('filters by a username and a chosen action, and exports CSV and JSON with the session', async () => {
    const week = lastWeek();
    const { fake } = await open('/en-US/admin/audit', 'viewer', {
      [`GET /admin/audit?from=${week.from}&to=${week.to}`]: () => [200, page],
      [`GET /admin/audit?from=${week.from}&to=${week.to}&target=zhang.wei&action=account.unlock`]: () => [200, { entries: [], people: {}, apps: {} }],
      [`GET /admin/audit?from=${week.from}&to=${week.to}&format=csv`]: () => [200, 'at,actor\n'],
      [`GET /admin/audit?from=${week.from}&to=${week.to}&format=json`]: () => [200, {}],
    });
    fireEvent.click(screen.getByTestId('export-csv'));
    await settle();
    fireEvent.click(screen.getByTestId('export-json'));
    await settle();
    const csv = fake.calls.find((c) => c.path.endsWith('format=csv'))!;
    expect(csv.auth).toBe('Bearer op1.token');
    expect(downloads.map((d) => d.name)).toEqual([`audit-${week.from}-${week.to}.csv`, `audit-${week.from}-${week.to}.jsonl`]);
    expect(screen.getByTestId('export-status').textContent).toContain('downloaded');
    const f = screen.getByTestId('audit-form');
    type(/Acted on/, 'zhang.wei', f);
    type('Action', 'account.unlock', f);
    fireEvent.submit(f);
    await settle();
    expect(screen.getByText('No entries in this range.')).toBeTruthy();
  });

  it('refuses more than 31 days', async () => {
    const { fake } = await open('/en-US/admin/audit', 'viewer');
    const f = screen.getByTestId('audit-form');
    type('From', '2026-01-01', f);
    type('To (at most 31 days)', '2026-03-01', f);
    const before = fake.calls.length;
    fireEvent.submit(f);
    await settle();
    expect(f.textContent).toContain('Choose at most 31 days');
    expect(fake.calls.length).toBe(before);
    expect(validRange({ from: '2026-01-01', to: '2026-01-31' })).toBe(true);
    expect(validRange({ from: '2026-01-01', to: '2026-02-01' })).toBe(false);
    expect(validRange({ from: '2026-01-02', to: '2026-01-01' })).toBe(false);
  });

  it('reads the file name the server gives', () => {
    expect(filenameOf('attachment; filename="audit-2026-01-01-2026-01-07.csv"', 'x')).toBe('audit-2026-01-01-2026-01-07.csv');
    expect(filenameOf(null, 'x.csv')).toBe('x.csv');
  });
});

describe('roles', () => {
  const holders = [
    { userId: 'op1', role: 'admin', grantedBy: 'cli', grantedAt: AT, mail: 'op@example.com' },
    { userId: 'u7', role: 'viewer', grantedBy: 'op1', grantedAt: AT, mail: 'desk@example.com' },
  ];

  it('is for admins only', async () => {
    await open('/en-US/admin/roles', 'operator');
    expect(screen.getByText('Only an administrator manages roles.')).toBeTruthy();
  });

  it('changes, revokes and grants', async () => {
    const { fake } = await open('/en-US/admin/roles', 'admin', {
      'GET /admin/roles': () => [200, { holders }],
      'PUT /admin/roles/u7': () => [200, { userId: 'u7', role: 'operator' }],
      'PUT /admin/roles/u9': () => [200, { userId: 'u9', role: 'operator' }],
      'DELETE /admin/roles/u7': () => [200, { ok: true }],
      'GET /admin/accounts?mail=new%40example.com': () => [200, { account: { ...account, userId: 'u9', mail: 'new@example.com' } }],
    });
    // One's own role cannot be changed here.
    expect((screen.getByLabelText('Role of op@example.com') as HTMLSelectElement).disabled).toBe(true);
    fireEvent.change(screen.getByLabelText('Role of desk@example.com'), { target: { value: 'operator' } });
    await settle();
    expect(fake.callsTo('PUT', '/admin/roles/u7')[0]?.body).toEqual({ role: 'operator' });
    fireEvent.click(screen.getByRole('button', { name: 'Revoke the role of desk@example.com' }));
    fireEvent.click(within(dialog('revoke-dialog')).getByTestId('revoke-confirm'));
    await settle();
    expect(fake.callsTo('DELETE', '/admin/roles/u7')).toHaveLength(1);
    // Said above the holders' table, with the focus (not a toast at the top of the page).
    expect(screen.getByTestId('roles-done').textContent).toContain('desk@example.com');
    expect(document.activeElement).toBe(screen.getByTestId('roles-done'));
    fireEvent.change(screen.getByLabelText('Find by'), { target: { value: 'mail' } });
    type('Value', 'new@example.com');
    fireEvent.submit(screen.getByTestId('find-form'));
    await settle();
    const g = screen.getByTestId('grant-form');
    fireEvent.click(within(g).getByLabelText(/^Operator/));
    fireEvent.submit(g);
    await settle();
    expect(fake.callsTo('PUT', '/admin/roles/u9')[0]?.body).toEqual({ role: 'operator' });
    expect(document.activeElement).toBe(screen.getByTestId('roles-done'));
  });
});
