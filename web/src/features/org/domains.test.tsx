// The verified domains' card of "My company" in jsdom: the list as the server gives it, a claim
// added and proven by DNS (the TXT record shown, "Check now" and its "not found" answer) and by
// mail (the code sent with the captcha solved in the background, then verified), the enrolment,
// the removal after a confirmation, each refusal in the server's words, and members not offered it.
import { fireEvent, screen, within } from '@testing-library/react';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type FakeApi, fakeApi } from '../../testing/fake-api';
import { renderApp, resetApp, settle, signIn } from '../../testing/render-app';
import Company from './company';

const ORG = {
  orgId: 'org_0123456789abcdef', nameZh: '示例公司', nameEn: 'Example Ltd', status: 'active', members: 2, owners: 1,
  createdAt: 1_760_000_000, createdBy: 'u0', requestedBy: null,
  settings: { allowedMethods: [], defaultRole: 'member', eventApps: [], mfaRequired: false },
};
const P = `/org/${ORG.orgId}`;
const domain = (name: string, over: Record<string, unknown> = {}) => ({
  domain: name, display: name, status: 'pending', method: 'dns', enrolment: 'off', addedAt: 1_760_000_000, addedBy: 'u1',
  expiresAt: 1_762_592_000, verifiedAt: null,
  record: { name: `_ciam-verify.${name}`, type: 'TXT', value: 'ciam-verify=abcdefghijklmnopqrstuvwxyz' },
  ...over,
});
const VERIFIED = domain('xn--fsqu00a.xn--55qx5d', { display: '例子.公司', status: 'verified', verifiedAt: 1_760_000_100, enrolment: 'suggest', expiresAt: null, record: null, method: 'mail' });

let api: FakeApi;
const routes = [{ path: '/:language/personal/company', element: <Company /> }];
function serve(role: string, domains: unknown[] = [VERIFIED]) {
  api = fakeApi({
    'GET /auth/info': () => [200, { userId: 'u1' }],
    'GET /org/mine': () => [200, { organizations: [{ organization: ORG, role }] }],
    [`GET ${P}`]: () => [200, { organization: ORG, role, next: null, members: [], invitations: [] }],
    [`GET ${P}/audit`]: () => [200, { entries: [] }],
    [`GET ${P}/domains`]: () => [200, { domains }],
    [`GET ${P}/connections`]: () => [200, { connections: [] }],
  });
}
const card = () => screen.getByTestId('org-domains');
const item = (name: string) => card().querySelector<HTMLElement>(`[data-testid="org-domain"][data-domain="${name}"]`)!;

// A captcha challenge whose answer is 3, so it is solved at once.
const salt = 'salt-';
let hash = '';
beforeAll(async () => {
  const h = new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(`${salt}3`)));
  hash = Array.from(h, (b) => b.toString(16).padStart(2, '0')).join('');
});
beforeEach(() => signIn());
afterEach(() => {
  resetApp();
  sessionStorage.clear();
});

describe('the domains of My company', () => {
  it('lists the domains in Unicode with status, method and enrolment, and explains each enrolment', async () => {
    serve('owner');
    await renderApp(routes, '/en-US/personal/company');
    await settle();
    const row = item(VERIFIED.domain);
    expect(within(row).getByTestId('org-domain-name').textContent).toBe('例子.公司');
    expect(row.textContent).toContain('Verified');
    expect(row.textContent).toContain('Administrative mailbox');
    const select = within(row).getByTestId('org-domain-enrolment') as HTMLSelectElement;
    expect(select.value).toBe('suggest');
    expect([...select.options].map((o) => o.value)).toEqual(['off', 'suggest', 'automatic']);
    // Its name says which domain; its description what each choice means.
    expect(select.getAttribute('aria-labelledby')?.split(' ')).toHaveLength(2);
    expect(document.getElementById(select.getAttribute('aria-describedby')!)?.textContent).toContain("joins at once with the organization's default role");
  });

  it('is not offered to a member (the server refuses them the list)', async () => {
    serve('member');
    await renderApp(routes, '/en-US/personal/company');
    await settle();
    expect(screen.queryByTestId('org-domains')).toBeNull();
    expect(api.callsTo('GET', `${P}/domains`)).toHaveLength(0);
  });

  it('adds a domain to prove by DNS: the TXT record to publish, "Check now", and the answer when it is not there yet', async () => {
    serve('admin', []);
    await renderApp(routes, '/en-US/personal/company');
    await settle();
    expect(screen.getByTestId('org-domains-none')).toBeTruthy();
    const form = screen.getByTestId('org-domain-add') as HTMLFormElement;
    fireEvent.submit(form);
    await settle();
    expect(api.callsTo('POST', `${P}/domains`)).toHaveLength(0);
    expect((form.elements.namedItem('domain') as HTMLInputElement).getAttribute('aria-invalid')).toBe('true');
    api.answers[`POST ${P}/domains`] = () => [201, domain('acme.com')];
    fireEvent.change(form.elements.namedItem('domain') as HTMLInputElement, { target: { value: ' acme.com ' } });
    fireEvent.submit(form);
    await settle();
    expect(api.callsTo('POST', `${P}/domains`)[0]?.body).toEqual({ domain: 'acme.com', method: 'dns' });
    expect(screen.getByTestId('org-domains-said').textContent).toBe('acme.com was added: prove it below.');
    const row = item('acme.com');
    expect(within(row).getByTestId('org-domain-txt-name').textContent).toBe('_ciam-verify.acme.com');
    expect(within(row).getByTestId('org-domain-txt-value').textContent).toBe('ciam-verify=abcdefghijklmnopqrstuvwxyz');
    // The new claim's proof has the focus.
    expect(row.querySelector('[data-testid="org-domain-dns"] p')).toBe(document.activeElement);
    api.answers[`POST ${P}/domains/acme.com/verify`] = () => [404, { reason: 'DOMAIN_TXT_NOT_FOUND', message: 'not there', code: 404 }];
    fireEvent.click(within(row).getByTestId('org-domain-check'));
    await settle();
    expect(api.callsTo('POST', `${P}/domains/acme.com/verify`)[0]?.body).toEqual({});
    expect(within(row).getByTestId('org-domain-check-answer').textContent).toBe('Not found yet: not there. Publish it, wait for DNS to update (minutes, sometimes a day), then check again.');
    api.answers[`POST ${P}/domains/acme.com/verify`] = () => [200, domain('acme.com', { status: 'verified', verifiedAt: 1_760_000_200, expiresAt: null })];
    fireEvent.click(within(row).getByTestId('org-domain-check'));
    await settle();
    expect(item('acme.com').dataset.status).toBe('verified');
    expect(screen.getByTestId('org-domains-said').textContent).toBe('acme.com is verified.');
  });

  it('says a refused domain at its field, in the server words', async () => {
    serve('owner', []);
    await renderApp(routes, '/en-US/personal/company');
    await settle();
    const form = screen.getByTestId('org-domain-add') as HTMLFormElement;
    api.answers[`POST ${P}/domains`] = () => [422, { reason: 'DOMAIN_PUBLIC', message: '', code: 422 }];
    fireEvent.change(form.elements.namedItem('domain') as HTMLInputElement, { target: { value: 'qq.com' } });
    fireEvent.click(within(form).getByTestId('org-domain-method-mail'));
    fireEvent.submit(form);
    await settle();
    expect(api.callsTo('POST', `${P}/domains`)[0]?.body).toEqual({ domain: 'qq.com', method: 'mail' });
    expect(form.textContent).toContain('This domain is shared by many companies');
  });

  it('proves a domain by mail: the code sent (the captcha solved itself), then verified; a wrong mailbox said at its field', async () => {
    serve('owner', [domain('acme.com', { method: 'mail', record: null })]);
    api.answers['GET /auth/captcha'] = () => [200, { algorithm: 'SHA-256', challenge: hash, maxnumber: 10, salt, signature: 'sig' }];
    await renderApp(routes, '/en-US/personal/company');
    await settle();
    const f = within(item('acme.com')).getByTestId('org-domain-mail') as HTMLFormElement;
    const mail = f.elements.namedItem('mail') as HTMLInputElement;
    expect(mail.value).toBe('admin@acme.com');
    api.answers[`POST ${P}/domains/acme.com/code`] = () => [400, { reason: 'DOMAIN_MAIL_NOT_ADMIN', message: '', code: 400 }];
    fireEvent.focus(mail);
    fireEvent.change(mail, { target: { value: 'bob@acme.com' } });
    fireEvent.click(within(f).getByTestId('org-domain-send'));
    await settle(10);
    expect(mail.getAttribute('aria-invalid')).toBe('true');
    expect(f.textContent).toContain("Use one of the domain's administrative addresses");
    api.answers[`POST ${P}/domains/acme.com/code`] = () => [200, { ok: true }];
    fireEvent.change(mail, { target: { value: 'admin@acme.com' } });
    fireEvent.click(within(f).getByTestId('org-domain-send'));
    await settle(10);
    const sent = api.callsTo('POST', `${P}/domains/acme.com/code`)[1];
    expect(sent?.body).toMatchObject({ mail: 'admin@acme.com' });
    expect(typeof (sent?.body as { captcha: string }).captcha).toBe('string');
    expect(within(f).getByTestId('org-domain-sent').textContent).toBe('A code was sent to admin@acme.com. It is valid for 10 minutes.');
    expect(document.activeElement).toBe(f.elements.namedItem('code'));
    // Another code only after the countdown, as for every code.
    expect(within(f).getByTestId('org-domain-send').getAttribute('aria-disabled')).toBe('true');
    expect(within(f).getByTestId('org-domain-send').textContent).toMatch(/^Resend in \d+ seconds?$/);
    api.answers[`POST ${P}/domains/acme.com/verify`] = () => [400, { reason: 'CODE_ERROR', message: '', code: 400 }];
    fireEvent.change(f.elements.namedItem('code') as HTMLInputElement, { target: { value: '000000' } });
    fireEvent.submit(f);
    await settle();
    expect((f.elements.namedItem('code') as HTMLInputElement).getAttribute('aria-invalid')).toBe('true');
    api.answers[`POST ${P}/domains/acme.com/verify`] = () => [200, domain('acme.com', { method: 'mail', record: null, status: 'verified', verifiedAt: 1_760_000_300, expiresAt: null })];
    fireEvent.change(f.elements.namedItem('code') as HTMLInputElement, { target: { value: '123456' } });
    fireEvent.submit(f);
    await settle();
    expect(api.callsTo('POST', `${P}/domains/acme.com/verify`).map((c) => c.body)).toEqual([
      { mail: 'admin@acme.com', code: '000000' },
      { mail: 'admin@acme.com', code: '123456' },
    ]);
    expect(item('acme.com').dataset.status).toBe('verified');
    expect(within(item('acme.com')).queryByTestId('org-domain-mail')).toBeNull();
  });

  it('sets the enrolment, and removes a domain only after a confirmation', async () => {
    serve('owner');
    await renderApp(routes, '/en-US/personal/company');
    await settle();
    const d = VERIFIED.domain;
    api.answers[`PATCH ${P}/domains/${d}`] = () => [200, { ...VERIFIED, enrolment: 'automatic' }];
    fireEvent.change(within(item(d)).getByTestId('org-domain-enrolment'), { target: { value: 'automatic' } });
    await settle();
    expect(api.callsTo('PATCH', `${P}/domains/${d}`)[0]?.body).toEqual({ enrolment: 'automatic' });
    expect(item(d).dataset.enrolment).toBe('automatic');
    expect(screen.getByTestId('org-domains-said').textContent).toBe('Enrolment of 例子.公司: Automatic.');
    fireEvent.click(within(item(d)).getByTestId('org-domain-remove'));
    expect(screen.getByTestId('org-domain-dialog').textContent).toContain('Remove 例子.公司?');
    expect(api.callsTo('DELETE', `${P}/domains/${d}`)).toHaveLength(0);
    api.answers[`DELETE ${P}/domains/${d}`] = () => [403, { reason: 'ORG_ROLE_FORBIDDEN', message: '', code: 403 }];
    fireEvent.click(screen.getByTestId('org-domain-confirm'));
    await settle();
    expect(screen.getByTestId('org-domains-error').textContent).toBe('Your role in this organization does not allow this');
    expect(item(d)).toBeTruthy();
    api.answers[`DELETE ${P}/domains/${d}`] = () => [200, { ok: true }];
    fireEvent.click(within(item(d)).getByTestId('org-domain-remove'));
    fireEvent.click(screen.getByTestId('org-domain-confirm'));
    await settle();
    expect(screen.queryByTestId('org-domain')).toBeNull();
    expect(screen.getByTestId('org-domains-said').textContent).toBe('例子.公司 was removed.');
  });
});
