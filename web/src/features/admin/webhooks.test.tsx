// The app page's webhooks against a mocked console API (/admin/apps/{appId}/webhooks...): the
// list and why an endpoint is disabled, adding one (checks in the page, the reason, the server's
// refusals at their fields, the secret shown once), disable / enable, rotation (the new secret
// once, the old one's end from the answer), removal, each with its reason; the delivery log with
// paging and replay (one event, a range, a range sent in parts); the gate's answers (a fresh
// proof, no second factor, no role); what a role below admin sees; a failure to load stays in
// the section.
import { fireEvent, screen, within } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { inTurn } from '../../testing/fake-api';
import { resetApp, settle } from '../../testing/render-app';
import type { Delivery, Endpoint } from './api';
import { AT, confirmWithReason, dialog, open, REAUTH, type } from './test-kit';
import { secondsOf } from './webhook-log';
import { disabledWhy } from './webhooks';

afterEach(() => resetApp());

const endpoint = (over: Partial<Endpoint> = {}): Endpoint => ({
  endpointId: 'ep_1',
  appId: 'a1',
  url: 'https://mall.example.com/hooks',
  events: ['user.updated', 'session.ended'],
  description: 'orders',
  enabled: true,
  createdAt: AT - 3600,
  disabledAt: null,
  failingSince: null,
  lastSuccessAt: AT - 60,
  previousSecretUntil: null,
  ...over,
});

const delivery = (over: Partial<Delivery> = {}): Delivery => ({
  eventId: 'evt_1',
  type: 'user.updated',
  userId: 'u1',
  attempt: 1,
  status: 200,
  outcome: 'delivered',
  latencyMs: 42,
  answer: '',
  error: null,
  at: AT - 30,
  ...over,
});

const SECTION = () => screen.getByRole('region', { name: 'Webhooks' });
const item = (id: string) => SECTION().querySelector<HTMLElement>(`[data-endpoint-id="${id}"]`)!;

describe('webhooks on the app page', () => {
  it('lists the endpoints: URL, events, enabled or disabled and why', async () => {
    await open('/en-US/admin/apps/a1', 'admin', {
      'GET /admin/apps/a1/webhooks': () => [
        200,
        {
          endpoints: [
            endpoint(),
            endpoint({ endpointId: 'ep_2', url: 'https://b.example.com/h', enabled: false, disabledAt: AT, failingSince: AT - 10 }),
            endpoint({ endpointId: 'ep_3', url: 'https://c.example.com/h', enabled: false, disabledAt: AT, failingSince: null }),
            endpoint({ endpointId: 'ep_4', url: 'https://d.example.com/h', failingSince: AT - 600 }),
          ],
        },
      ],
    });
    const one = item('ep_1');
    expect(within(one).getByRole('heading', { level: 3 }).textContent).toBe('https://mall.example.com/hooks');
    expect(within(one).getByTestId('webhook-state').textContent).toBe('Enabled');
    expect(within(one).getByTestId('webhook-events').textContent).toBe('Profile changed user.updatedSigned out session.ended');
    expect(one.textContent).toContain('orders');
    expect(within(item('ep_2')).getByTestId('webhook-state').textContent).toBe('Disabled');
    expect(within(item('ep_2')).getByTestId('webhook-why').textContent).toMatch(/^Disabled on .* after failed deliveries since .*410 Gone/);
    expect(within(item('ep_2')).getByTestId('webhook-why').textContent).toContain('The app’s owner (owner@mall.example.com) was told by mail.');
    expect(within(item('ep_3')).getByTestId('webhook-why').textContent).toMatch(/^Disabled by an administrator on /);
    expect(within(item('ep_3')).getByTestId('webhook-why').textContent).not.toContain('told');
    expect(within(item('ep_4')).getByTestId('webhook-why').textContent).toMatch(/^Deliveries failing since /);
    expect(within(item('ep_2')).getByTestId('webhook-enable')).toBeTruthy();
    // The rest of the page is there.
    expect(screen.getByTestId('app-id').textContent).toBe('a1');
  });

  it('why an endpoint is disabled, from its dates', () => {
    expect(disabledWhy(endpoint())).toBeNull();
    expect(disabledWhy(endpoint({ enabled: false, disabledAt: AT, failingSince: AT - 3 * 86_400 }))?.id).toBe('admin.webhooks.afterDays');
    expect(disabledWhy(endpoint({ enabled: false, disabledAt: AT, failingSince: AT }))?.id).toBe('admin.webhooks.gone');
    expect(disabledWhy(endpoint({ enabled: false, disabledAt: AT, failingSince: AT - 600 }))?.id).toBe('admin.webhooks.afterFailure');
    expect(disabledWhy(endpoint({ enabled: false, disabledAt: AT, failingSince: null }))?.id).toBe('admin.webhooks.byAdmin');
  });

  it('adds an endpoint: the page asks for the URL and an event, the server’s refusal is said at the URL, then the secret is shown once', async () => {
    const made = endpoint({ endpointId: 'ep_9', url: 'https://new.example.com/h', events: ['user.mail_changed'], lastSuccessAt: null });
    const { fake } = await open('/en-US/admin/apps/a1', 'admin', {
      'POST /admin/apps/a1/webhooks': inTurn(
        [400, { reason: 'WEBHOOK_URL_NOT_HTTPS', message: 'x', code: 400, field: 'url' }],
        [400, { reason: 'WEBHOOK_URL_PRIVATE', message: 'x', code: 400, field: 'url' }],
        [201, { endpoint: made, secret: 'whsec_AAAA' }],
      ),
    });
    expect(screen.getByTestId('webhooks-none').textContent).toBe('No endpoint yet: the app hears no events.');
    fireEvent.click(screen.getByTestId('webhook-add'));
    const f = screen.getByTestId('webhook-form');
    expect(document.activeElement).toBe(within(f).getByLabelText('URL'));
    fireEvent.submit(f);
    await settle();
    expect(within(f).getByLabelText('URL').getAttribute('aria-invalid')).toBe('true');
    expect(f.textContent).toContain('Required');
    type('URL', 'http://new.example.com/h', f);
    fireEvent.submit(f);
    await settle();
    expect(within(f).getByTestId('webhook-events-choice').getAttribute('aria-invalid')).toBe('true');
    expect(f.textContent).toContain('Pick at least one event');
    expect(fake.callsTo('POST', '/admin/apps/a1/webhooks')).toHaveLength(0);
    fireEvent.click(within(f).getByLabelText(/Mail changed/));
    type('Description (optional)', ' the shop ', f);
    fireEvent.submit(f);
    await settle();
    await confirmWithReason('webhook-create-dialog', 'partner onboarding');
    // The refusal closes the dialog and is said at its field, which has the focus.
    expect(screen.queryByTestId('webhook-create-dialog')).toBeNull();
    const url = within(f).getByLabelText('URL');
    expect(document.activeElement).toBe(url);
    expect(url.getAttribute('aria-invalid')).toBe('true');
    expect(document.getElementById(url.getAttribute('aria-describedby')!.split(' ')[1]!)?.textContent).toBe('Webhook URLs must use https');
    type('URL', 'https://10.0.0.1/h', f);
    fireEvent.submit(f);
    await settle();
    await confirmWithReason('webhook-create-dialog', 'partner onboarding');
    expect(f.textContent).toContain('Webhook URLs cannot point at private, loopback, link-local or metadata addresses');
    type('URL', 'https://new.example.com/h', f);
    fireEvent.submit(f);
    await settle();
    // The reason first: asked in its dialog, required.
    expect(dialog('webhook-create-dialog').textContent).toContain('Add https://new.example.com/h? Its signing secret is shown once, next.');
    await confirmWithReason('webhook-create-dialog', ' ');
    expect(dialog('webhook-create-dialog').textContent).toContain('Give a reason');
    await confirmWithReason('webhook-create-dialog', 'partner onboarding');
    expect(fake.callsTo('POST', '/admin/apps/a1/webhooks')[2]?.body).toEqual({
      url: 'https://new.example.com/h',
      events: ['user.mail_changed'],
      description: 'the shop',
      reason: 'partner onboarding',
    });
    expect(screen.queryByTestId('webhook-create-dialog')).toBeNull();
    const once = screen.getByTestId('webhook-secret-once');
    expect((within(once).getByLabelText('Signing secret of https://new.example.com/h') as HTMLInputElement).value).toBe('whsec_AAAA');
    expect(document.activeElement).toBe(screen.getByTestId('webhook-secret'));
    expect(once.textContent).toContain('You will not see it again');
    expect(item('ep_9')).toBeTruthy();
    fireEvent.click(within(once).getByRole('button', { name: 'I have copied it' }));
    expect(screen.queryByTestId('webhook-secret')).toBeNull();
  });

  it('changes an endpoint’s URL, events and description; a refusal is said at its field', async () => {
    const { fake } = await open('/en-US/admin/apps/a1', 'admin', {
      'GET /admin/apps/a1/webhooks': () => [200, { endpoints: [endpoint()] }],
      'PATCH /admin/apps/a1/webhooks/ep_1': inTurn(
        [400, { reason: 'WEBHOOK_URL_FRAGMENT', message: 'x', code: 400, field: 'url' }],
        [200, { endpoint: endpoint({ url: 'https://mall.example.com/v2', events: ['user.updated'], description: '' }) }],
      ),
    });
    fireEvent.click(within(item('ep_1')).getByTestId('webhook-edit'));
    const f = within(item('ep_1')).getByTestId('webhook-form');
    expect((within(f).getByLabelText('URL') as HTMLInputElement).value).toBe('https://mall.example.com/hooks');
    expect((within(f).getByLabelText(/Signed out/) as HTMLInputElement).checked).toBe(true);
    type('URL', 'https://mall.example.com/v2#x', f);
    fireEvent.click(within(f).getByLabelText(/Signed out/));
    type('Description (optional)', '', f);
    fireEvent.submit(f);
    await settle();
    expect(dialog('webhook-save-dialog').textContent).toContain('Save the changes to https://mall.example.com/v2#x?');
    await confirmWithReason('webhook-save-dialog', 'new address');
    expect(f.textContent).toContain('Webhook URLs cannot carry a fragment (#...)');
    type('URL', 'https://mall.example.com/v2', f);
    fireEvent.submit(f);
    await settle();
    await confirmWithReason('webhook-save-dialog', 'new address');
    expect(fake.callsTo('PATCH', '/admin/apps/a1/webhooks/ep_1').map((c) => c.body)).toEqual([
      { url: 'https://mall.example.com/v2#x', events: ['user.updated'], description: '', reason: 'new address' },
      { url: 'https://mall.example.com/v2', events: ['user.updated'], description: '', reason: 'new address' },
    ]);
    expect(within(item('ep_1')).queryByTestId('webhook-form')).toBeNull();
    expect(within(item('ep_1')).getByRole('heading', { level: 3 }).textContent).toBe('https://mall.example.com/v2');
    expect(within(item('ep_1')).getByTestId('webhook-events').textContent).toBe('Profile changed user.updated');
  });

  it('disables, then enables, each with its reason', async () => {
    const off = endpoint({ enabled: false, disabledAt: AT, failingSince: null });
    const { fake } = await open('/en-US/admin/apps/a1', 'admin', {
      'GET /admin/apps/a1/webhooks': () => [200, { endpoints: [endpoint()] }],
      'PATCH /admin/apps/a1/webhooks/ep_1': inTurn([200, { endpoint: off }], [200, { endpoint: endpoint() }]),
    });
    fireEvent.click(within(item('ep_1')).getByTestId('webhook-disable'));
    expect(dialog('webhook-disable-dialog').textContent).toContain('Disable https://mall.example.com/hooks?');
    await confirmWithReason('webhook-disable-dialog', 'partner asked');
    expect(fake.callsTo('PATCH', '/admin/apps/a1/webhooks/ep_1')[0]?.body).toEqual({ enabled: false, reason: 'partner asked' });
    expect(within(item('ep_1')).getByTestId('webhook-state').textContent).toBe('Disabled');
    // Said above the list with the focus, not in a toast at the top of the page.
    expect(document.activeElement).toBe(screen.getByTestId('webhook-done'));
    expect(screen.getByTestId('webhook-done').getAttribute('role')).toBe('status');
    fireEvent.click(within(item('ep_1')).getByTestId('webhook-enable'));
    expect(dialog('webhook-enable-dialog').textContent).toContain('Enable https://mall.example.com/hooks?');
    await confirmWithReason('webhook-enable-dialog', 'partner fixed it');
    expect(fake.callsTo('PATCH', '/admin/apps/a1/webhooks/ep_1')[1]?.body).toEqual({ enabled: true, reason: 'partner fixed it' });
    expect(within(item('ep_1')).getByTestId('webhook-state').textContent).toBe('Enabled');
  });

  it('rotates the secret: the new one shown once, the old one verifying until the time the answer gives', async () => {
    const until = AT + 86_400;
    const { fake } = await open('/en-US/admin/apps/a1', 'admin', {
      'GET /admin/apps/a1/webhooks': () => [200, { endpoints: [endpoint()] }],
      'PATCH /admin/apps/a1/webhooks/ep_1': () => [200, { endpoint: endpoint({ previousSecretUntil: until }), secret: 'whsec_NEW' }],
    });
    fireEvent.click(within(item('ep_1')).getByTestId('webhook-rotate'));
    await confirmWithReason('webhook-rotate-dialog', 'secret leaked');
    expect(fake.callsTo('PATCH', '/admin/apps/a1/webhooks/ep_1')[0]?.body).toEqual({ rotateSecret: true, reason: 'secret leaked' });
    expect((screen.getByTestId('webhook-secret') as HTMLInputElement).value).toBe('whsec_NEW');
    expect(document.activeElement).toBe(screen.getByTestId('webhook-secret'));
    const said = screen.getByTestId('webhook-previous-until');
    expect(said.textContent).toMatch(/^The previous secret keeps verifying until /);
    expect(said.querySelector('time')?.getAttribute('datetime')).toBe(new Date(until * 1000).toISOString());
  });

  it('removes with a reason; a refusal stays in the dialog', async () => {
    const { fake } = await open('/en-US/admin/apps/a1', 'admin', {
      'GET /admin/apps/a1/webhooks': () => [200, { endpoints: [endpoint()] }],
      'DELETE /admin/apps/a1/webhooks/ep_1': inTurn([503, { reason: 'SERVICE_UNAVAILABLE', message: 'Try again', code: 503 }], [200, { ok: true }]),
    });
    fireEvent.click(within(item('ep_1')).getByTestId('webhook-remove'));
    await confirmWithReason('webhook-remove-dialog', 'app retired');
    expect(within(dialog('webhook-remove-dialog')).getByTestId('reason-dialog-error').textContent).toBe('Service busy, please retry');
    fireEvent.submit(within(dialog('webhook-remove-dialog')).getByTestId('reason-confirm').closest('form')!);
    await settle();
    expect(fake.callsTo('DELETE', '/admin/apps/a1/webhooks/ep_1').map((c) => c.body)).toEqual([{ reason: 'app retired' }, { reason: 'app retired' }]);
    expect(screen.queryByTestId('webhook-remove-dialog')).toBeNull();
    expect(screen.getByTestId('webhooks-none')).toBeTruthy();
    expect(document.activeElement).toBe(screen.getByTestId('webhook-done'));
  });

  it('the delivery log: newest first, older pages, replay of one event and of a range', async () => {
    const { fake } = await open('/en-US/admin/apps/a1', 'admin', {
      'GET /admin/apps/a1/webhooks': () => [200, { endpoints: [endpoint({ lastSuccessAt: null })] }],
      'GET /admin/apps/a1/webhooks/ep_1': () => [200, endpoint({ lastSuccessAt: AT - 30 })],
      'GET /admin/apps/a1/webhooks/ep_1/deliveries': () => [
        200,
        { deliveries: [delivery(), delivery({ eventId: 'evt_0', attempt: 2, status: 0, outcome: 'retry', error: 'connection refused', at: AT - 90 })], next: 'k1' },
      ],
      'GET /admin/apps/a1/webhooks/ep_1/deliveries?after=k1': () => [
        200,
        { deliveries: [delivery({ eventId: 'evt_z', status: 410, outcome: 'failed', answer: 'gone for good', error: '410 Gone: endpoint disabled', at: AT - 900 })], next: null },
      ],
      'POST /admin/apps/a1/webhooks/ep_1/replay': inTurn([200, { eventIds: ['evt_0'] }], [200, { eventIds: ['evt_1', 'evt_0', 'evt_z'] }], [200, { eventIds: [] }]),
    });
    const toggle = within(item('ep_1')).getByTestId('webhook-log-toggle');
    expect(toggle.getAttribute('aria-expanded')).toBe('false');
    fireEvent.click(toggle);
    await settle();
    expect(toggle.getAttribute('aria-expanded')).toBe('true');
    // The endpoint is read again with its log: its last delivery moved.
    expect(within(item('ep_1')).getByTestId('webhook-last-success').querySelector('time')?.getAttribute('datetime')).toBe(new Date((AT - 30) * 1000).toISOString());
    const log = screen.getByTestId('webhook-log');
    const rows = () => [...log.querySelectorAll('tbody tr')].map((r) => [r.getAttribute('data-event-id'), r.querySelector('[data-testid="delivery-status"]')?.textContent]);
    expect(rows()).toEqual([
      ['evt_1', '200'],
      ['evt_0', 'No answer'],
    ]);
    expect(log.textContent).toContain('Will be retried');
    expect(log.textContent).toContain('connection refused');
    expect(log.textContent).toContain('42 ms');
    fireEvent.click(within(log).getByTestId('webhook-log-more'));
    await settle();
    expect(rows().map((r) => r[0])).toEqual(['evt_1', 'evt_0', 'evt_z']);
    expect(within(log).queryByTestId('webhook-log-more')).toBeNull();
    const last = log.querySelector('tbody tr:last-child')!;
    expect(within(last as HTMLElement).getByTestId('delivery-answer').textContent).toBe('gone for good');
    expect(last.textContent).toContain('410 Gone: endpoint disabled');
    expect(last.textContent).toContain('user u1');
    // One event, by its id.
    fireEvent.click(within(log).getByRole('button', { name: 'Replay event evt_0' }));
    expect(dialog('webhook-replay-dialog').textContent).toContain('Replay event evt_0?');
    await confirmWithReason('webhook-replay-dialog', 'partner lost it');
    expect(fake.callsTo('POST', '/admin/apps/a1/webhooks/ep_1/replay')[0]?.body).toEqual({ eventId: 'evt_0', reason: 'partner lost it' });
    expect(within(log).getByTestId('webhook-replayed').textContent).toMatch(/^1 event queued again/);
    // A range: checked in the page first.
    const range = within(log).getByTestId('webhook-replay-range');
    type('From', '2026-01-01T10:00', range);
    type('To', '2026-01-01T09:00', range);
    fireEvent.submit(range);
    await settle();
    expect(range.textContent).toContain('Give a start and an end after it');
    expect(fake.callsTo('POST', '/admin/apps/a1/webhooks/ep_1/replay')).toHaveLength(1);
    type('To', '2026-01-01T11:00', range);
    fireEvent.submit(range);
    await settle();
    expect(dialog('webhook-replay-dialog').textContent).toMatch(/^Replay the events attempted from .* to .*\?/);
    await confirmWithReason('webhook-replay-dialog', 'outage');
    expect(fake.callsTo('POST', '/admin/apps/a1/webhooks/ep_1/replay')[1]?.body).toEqual({ from: secondsOf('2026-01-01T10:00'), to: secondsOf('2026-01-01T11:00'), reason: 'outage' });
    expect(within(log).getByTestId('webhook-replayed').textContent).toMatch(/^3 events queued again/);
    // No `next` in the answer: nothing more to replay.
    expect(within(log).queryByTestId('webhook-replay-more')).toBeNull();
    fireEvent.submit(range);
    await settle();
    await confirmWithReason('webhook-replay-dialog', 'outage');
    expect(within(log).getByTestId('webhook-replayed').textContent).toBe('No delivery in that range to replay.');
  });

  it('a range sent in parts: "more to replay" continues from `next` with the same reason until none is left', async () => {
    const from = secondsOf('2026-01-01T10:00')!;
    const to = secondsOf('2026-01-01T11:00')!;
    const { fake } = await open('/en-US/admin/apps/a1', 'admin', {
      'GET /admin/apps/a1/webhooks': () => [200, { endpoints: [endpoint()] }],
      'GET /admin/apps/a1/webhooks/ep_1': () => [200, endpoint()],
      'GET /admin/apps/a1/webhooks/ep_1/deliveries': () => [200, { deliveries: [delivery()], next: null }],
      'POST /admin/apps/a1/webhooks/ep_1/replay': inTurn(
        [200, { eventIds: ['evt_1', 'evt_2'], next: from + 600 }],
        [503, { reason: 'SERVICE_UNAVAILABLE', message: 'Try again', code: 503 }],
        [200, { eventIds: ['evt_3'], next: null }],
      ),
    });
    fireEvent.click(within(item('ep_1')).getByTestId('webhook-log-toggle'));
    await settle();
    const log = screen.getByTestId('webhook-log');
    const range = within(log).getByTestId('webhook-replay-range');
    type('From', '2026-01-01T10:00', range);
    type('To', '2026-01-01T11:00', range);
    fireEvent.submit(range);
    await settle();
    await confirmWithReason('webhook-replay-dialog', 'outage');
    expect(within(log).getByTestId('webhook-replayed').textContent).toMatch(/^2 events queued again/);
    const more = within(log).getByTestId('webhook-replay-more');
    expect(more.textContent).toMatch(/^More to replay: the range has more events than one replay sends\. The next part starts at /);
    expect(more.querySelector('time')?.getAttribute('datetime')).toBe(new Date((from + 600) * 1000).toISOString());
    // A failure of the next part is said; the button stays.
    fireEvent.click(within(more).getByRole('button', { name: 'Replay the next part' }));
    await settle();
    expect(within(log).getByTestId('webhook-replayed').textContent).toBe('Service busy, please retry');
    fireEvent.click(within(log).getByTestId('webhook-replay-continue'));
    await settle();
    expect(fake.callsTo('POST', '/admin/apps/a1/webhooks/ep_1/replay').map((c) => c.body)).toEqual([
      { from, to, reason: 'outage' },
      { from: from + 600, to, reason: 'outage' },
      { from: from + 600, to, reason: 'outage' },
    ]);
    expect(within(log).getByTestId('webhook-replayed').textContent).toMatch(/^1 event queued again/);
    expect(within(log).queryByTestId('webhook-replay-more')).toBeNull();
  });

  it('a refused range is said at its fields', async () => {
    await open('/en-US/admin/apps/a1', 'admin', {
      'GET /admin/apps/a1/webhooks': () => [200, { endpoints: [endpoint()] }],
      'GET /admin/apps/a1/webhooks/ep_1': () => [200, endpoint()],
      'GET /admin/apps/a1/webhooks/ep_1/deliveries': () => [200, { deliveries: [], next: null }],
      'POST /admin/apps/a1/webhooks/ep_1/replay': () => [400, { reason: 'INVALID_PARAMETER', message: 'At most 30 days', code: 400, field: 'to' }],
    });
    fireEvent.click(within(item('ep_1')).getByTestId('webhook-log-toggle'));
    await settle();
    const range = within(screen.getByTestId('webhook-log')).getByTestId('webhook-replay-range');
    type('From', '2025-01-01T10:00', range);
    type('To', '2026-01-01T11:00', range);
    fireEvent.submit(range);
    await settle();
    await confirmWithReason('webhook-replay-dialog', 'outage');
    expect(screen.queryByTestId('webhook-replay-dialog')).toBeNull();
    expect(within(range).getByLabelText('To').getAttribute('aria-invalid')).toBe('true');
    expect(range.textContent).toContain('At most 30 days');
  });

  it('a change that needs a fresh proof: the proof, then the change is sent again with its reason', async () => {
    const { fake } = await open('/en-US/admin/apps/a1', 'admin', {
      'GET /admin/apps/a1/webhooks': () => [200, { endpoints: [endpoint()] }],
      'PATCH /admin/apps/a1/webhooks/ep_1': inTurn(REAUTH, [200, { endpoint: endpoint({ enabled: false, disabledAt: AT }) }]),
    });
    fireEvent.click(within(item('ep_1')).getByTestId('webhook-disable'));
    await confirmWithReason('webhook-disable-dialog', 'partner asked');
    const proof = screen.getByTestId('reauth-dialog');
    fireEvent.change(within(proof).getByLabelText('Authenticator code'), { target: { value: '654321' } });
    fireEvent.submit(proof.querySelector('form')!);
    await settle();
    expect(fake.callsTo('POST', '/auth/totp/verify')[0]?.body).toEqual({ code: '654321' });
    expect(fake.callsTo('PATCH', '/admin/apps/a1/webhooks/ep_1').map((c) => c.body)).toEqual([
      { enabled: false, reason: 'partner asked' },
      { enabled: false, reason: 'partner asked' },
    ]);
    expect(screen.queryByTestId('webhook-disable-dialog')).toBeNull();
    expect(within(item('ep_1')).getByTestId('webhook-state').textContent).toBe('Disabled');
  });

  it('CONSOLE_MFA_REQUIRED on a change: the console asks for two-factor sign-in, as every screen does', async () => {
    await open('/en-US/admin/apps/a1', 'admin', {
      'GET /admin/apps/a1/webhooks': () => [200, { endpoints: [endpoint()] }],
      'PATCH /admin/apps/a1/webhooks/ep_1': () => [403, { reason: 'CONSOLE_MFA_REQUIRED', message: '', code: 403 }],
    });
    fireEvent.click(within(item('ep_1')).getByTestId('webhook-rotate'));
    await confirmWithReason('webhook-rotate-dialog', 'secret leaked');
    expect(screen.getByTestId('console-mfa').textContent).toContain('Turn on two-factor sign-in first');
    expect(screen.queryByTestId('webhook-rotate-dialog')).toBeNull();
  });

  it('PERMISSION_DENIED on the list: no console role, as every screen says it', async () => {
    await open('/en-US/admin/apps/a1', 'admin', { 'GET /admin/apps/a1/webhooks': () => [403, { reason: 'PERMISSION_DENIED', message: '', code: 403 }] });
    expect(screen.getByTestId('console-noRole')).toBeTruthy();
  });

  it('below the admin role: the endpoints and their logs, read only', async () => {
    const { fake } = await open('/en-US/admin/apps/a1', 'viewer', {
      'GET /admin/apps/a1/webhooks': () => [200, { endpoints: [endpoint()] }],
      'GET /admin/apps/a1/webhooks/ep_1': () => [200, endpoint()],
      'GET /admin/apps/a1/webhooks/ep_1/deliveries': () => [200, { deliveries: [delivery()], next: null }],
    });
    expect(within(SECTION()).getByTestId('webhooks-admins-only').textContent).toBe('Only administrators change the endpoints and replay their deliveries.');
    const one = item('ep_1');
    expect(within(one).getByTestId('webhook-state').textContent).toBe('Enabled');
    for (const id of ['webhook-edit', 'webhook-disable', 'webhook-rotate', 'webhook-remove']) expect(within(one).queryByTestId(id)).toBeNull();
    expect(within(SECTION()).queryByTestId('webhook-add')).toBeNull();
    fireEvent.click(within(one).getByTestId('webhook-log-toggle'));
    await settle();
    const log = screen.getByTestId('webhook-log');
    expect(log.querySelectorAll('tbody tr')).toHaveLength(1);
    expect(within(log).queryByTestId('delivery-replay')).toBeNull();
    expect(within(log).queryByTestId('webhook-replay-range')).toBeNull();
    expect(fake.calls.filter((c) => c.method !== 'GET' && c.path !== '/auth/info')).toEqual([]);
  });

  it('a failure to load stays in the section, with a retry', async () => {
    const { fake } = await open('/en-US/admin/apps/a1', 'admin', {
      'GET /admin/apps/a1/webhooks': inTurn([500, { reason: 'INTERNAL_SERVER_ERROR', message: 'boom', code: 500 }], [200, { endpoints: [endpoint()] }]),
    });
    expect(within(SECTION()).getByRole('alert')).toBeTruthy();
    expect(screen.getByTestId('app-id').textContent).toBe('a1');
    expect(screen.getByTestId('rotate-secret')).toBeTruthy();
    fireEvent.click(within(SECTION()).getByRole('button', { name: 'Try again' }));
    await settle();
    expect(fake.callsTo('GET', '/admin/apps/a1/webhooks')).toHaveLength(2);
    expect(item('ep_1')).toBeTruthy();
  });

  it('speaks Chinese', async () => {
    await open('/zh-CN/admin/apps/a1', 'admin', { 'GET /admin/apps/a1/webhooks': () => [200, { endpoints: [endpoint()] }] }, 'zh-CN');
    const s = screen.getByRole('region', { name: 'Webhook' });
    expect(within(s).getByTestId('webhook-state').textContent).toBe('已启用');
    expect(within(s).getByTestId('webhook-events').textContent).toContain('资料已修改');
  });
});

it('reads a local date and time as unix seconds', () => {
  expect(secondsOf('')).toBeNull();
  expect(secondsOf('nonsense')).toBeNull();
  expect(secondsOf('2026-01-01T10:00')).toBe(Math.floor(new Date('2026-01-01T10:00').getTime() / 1000));
});
