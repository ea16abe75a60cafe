// Linked accounts in the security centre (docs/federation-design.md §4.3): the accounts of other
// services (WeChat, WeCom, DingTalk, Feishu) that sign in to this one, the company sign-in of a
// staff account (shown, managed by the company), a company's sign-in through an organization's
// connection (named by its connection and organization; the company's: no "Remove"), "Link" for each configured provider not linked
// yet and "Remove" after a confirmation. Linking and removing need a fresh proof (REAUTH_REQUIRED:
// the re-authentication dialog, then once more). Linking leaves for the provider, which sends the
// browser back here with `?<provider>Link=<token>` (confirmed with this tab's bind) or
// `?<provider>LinkError=<REASON>`; either is said in the section, and the address is cleaned.
// The section is absent when nothing is linked and no provider is configured.
import { useCallback, useEffect, useRef, useState } from 'react';
import { defineMessages, FormattedMessage, type IntlShape, useIntl } from 'react-intl';
import { useLocation, useNavigate } from 'react-router';
import { type Answer, type ApiError, errorText, handleError, type Result } from '../../lib/api';
import { keepNewBind, takeKeptBind } from '../../lib/bind';
import { hasReason } from '../../lib/reasons';
import { Dialog } from '../../components/dialog';
import { When } from '../../components/when';
import { confirmIdentityLink, listIdentities, startIdentityLink, unlinkIdentity } from './api';
import { LoadState } from './load-state';

const m = defineMessages({
  heading: { id: 'secure.linked.heading', defaultMessage: 'Linked accounts' },
  intro: {
    id: 'secure.linked.intro',
    defaultMessage: 'Sign in with your account of another service. Adding or removing one asks you to confirm it is you first.',
  },
  none: { id: 'secure.linked.none', defaultMessage: 'No account of another service is linked.' },
  staff: { id: 'secure.linked.staff', defaultMessage: 'Company sign-in' },
  staffText: { id: 'secure.linked.staffText', defaultMessage: 'Managed by your company; it cannot be removed here.' },
  orgText: { id: 'secure.linked.orgText', defaultMessage: 'Company sign-in of {org}: managed by your company; it cannot be removed here.' },
  linkedAt: { id: 'secure.linked.linkedAt', defaultMessage: 'Linked {when}' },
  lastDay: { id: 'secure.linked.lastDay', defaultMessage: 'Last used on {date}' },
  link: { id: 'secure.linked.link', defaultMessage: 'Link {provider}' },
  linked: { id: 'secure.linked.done', defaultMessage: 'Your {provider} account is linked.' },
  notLinked: { id: 'secure.linked.notLinked', defaultMessage: 'The {provider} account was not linked. Try again.' },
  remove: { id: 'secure.linked.remove', defaultMessage: 'Remove' },
  removeOf: { id: 'secure.linked.removeOf', defaultMessage: 'Remove {provider}' },
  removeTitle: { id: 'secure.linked.removeTitle', defaultMessage: 'Remove the linked {provider} account?' },
  removeText: { id: 'secure.linked.removeText', defaultMessage: 'You will no longer be able to sign in with it.' },
  removed: { id: 'secure.linked.removed', defaultMessage: 'The {provider} account was removed.' },
  cancel: { id: 'secure.linked.cancel', defaultMessage: 'Cancel' },
  loading: { id: 'secure.linked.loading', defaultMessage: 'Loading…' },
  failed: { id: 'secure.linked.failed', defaultMessage: 'Your linked accounts could not be loaded.' },
  retry: { id: 'secure.linked.retry', defaultMessage: 'Try again' },
});

const names = defineMessages({
  wechat: { id: 'secure.provider.wechat', defaultMessage: 'WeChat' },
  wecom: { id: 'secure.provider.wecom', defaultMessage: 'WeCom' },
  dingtalk: { id: 'secure.provider.dingtalk', defaultMessage: 'DingTalk' },
  feishu: { id: 'secure.provider.feishu', defaultMessage: 'Feishu' },
});

/** A provider's name as people read it (`wechat` → WeChat); one this build does not name, as it is. */
export function providerName(intl: IntlShape, provider: string): string {
  return Object.prototype.hasOwnProperty.call(names, provider) ? intl.formatMessage(names[provider as keyof typeof names]) : provider;
}

/** A name given in both languages, in the page's (the other when it is empty). */
function localName(intl: IntlShape, zh: string, en: string): string {
  const [first, other] = intl.locale.startsWith('zh') ? [zh, en] : [en, zh];
  return first || other;
}

type Identities = Answer<'GET /auth/identities'>;
type Guard = <T>(action: () => Promise<Result<T>>) => Promise<Result<T> | null>;

/** Where this tab keeps its bind while it is at the provider. */
export const LINK_BIND_KEY = 'ciam_link_bind';

/** Leaving for the provider (replaced in tests: jsdom does not navigate). */
export const leave = { to: (url: string) => window.location.assign(url) };

const listOf = <T,>(x: T[] | undefined): T[] => (Array.isArray(x) ? x : []);

/** The way back's `<provider>Link` / `<provider>LinkError`, if the address has one. */
export function wayBack(search: string): { provider: string; token?: string; error?: string } | null {
  for (const [k, v] of new URLSearchParams(search)) {
    const link = /^([a-z]+)Link$/.exec(k);
    if (link?.[1]) return { provider: link[1], token: v };
    const error = /^([a-z]+)LinkError$/.exec(k);
    if (error?.[1]) return { provider: error[1], error: v };
  }
  return null;
}

export function LinkedAccounts({ guard }: { guard: Guard }) {
  const intl = useIntl();
  const location = useLocation();
  const navigate = useNavigate();
  const [data, setData] = useState<Identities | null>(null);
  const [failed, setFailed] = useState(false);
  const [busy, setBusy] = useState(false);
  const [note, setNote] = useState<{ text: string; quiet: boolean } | null>(null);
  const [asking, setAsking] = useState<string | null>(null);
  const back = useRef(wayBack(location.search));
  const name = (p: string) => providerName(intl, p);

  const load = useCallback(async () => {
    setFailed(false);
    const res = await listIdentities();
    // A malformed answer shows as nothing linked, never as a broken page.
    if (res.success) return setData({ identities: listOf(res.data?.identities), staff: res.data?.staff, available: listOf(res.data?.available) });
    if (hasReason(res.error, 'AUTHORIZATION_FAILED')) handleError(res.error);
    setFailed(true);
  }, []);

  const refused = (e: ApiError) => {
    if (hasReason(e, 'AUTHORIZATION_FAILED')) return handleError(e);
    setNote({ text: errorText(e), quiet: false });
  };

  // The way back from the provider: said once, the address cleaned, then the list loaded.
  useEffect(() => {
    const b = back.current;
    back.current = null;
    if (!b) return void load();
    navigate({ pathname: location.pathname, hash: location.hash }, { replace: true });
    void (async () => {
      const provider = name(b.provider);
      if (b.error) setNote({ text: errorText({ reason: b.error, message: '', code: 0 }), quiet: false });
      else {
        const bind = takeKeptBind(LINK_BIND_KEY) ?? '';
        const res = await confirmIdentityLink(b.provider, b.token ?? '', bind);
        // AUTHORIZATION_FAILED here: another tab's or session's link, not a lost session.
        if (res.success) setNote({ text: intl.formatMessage(m.linked, { provider }), quiet: true });
        else if (hasReason(res.error, 'AUTHORIZATION_FAILED')) setNote({ text: intl.formatMessage(m.notLinked, { provider }), quiet: false });
        else refused(res.error);
      }
      await load();
    })();
    // Once, on arrival.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, []);

  const link = async (p: string) => {
    setNote(null);
    setBusy(true);
    const bindHash = await keepNewBind(LINK_BIND_KEY);
    const res = await guard(() => startIdentityLink(p, bindHash));
    setBusy(false);
    if (!res) return; // the proof was cancelled
    if (!res.success) return refused(res.error);
    leave.to(res.data.url);
  };

  const remove = async (p: string) => {
    setAsking(null);
    setNote(null);
    setBusy(true);
    const res = await guard(() => unlinkIdentity(p));
    setBusy(false);
    if (!res) return;
    if (!res.success) return refused(res.error);
    setNote({ text: intl.formatMessage(m.removed, { provider: name(p) }), quiet: true });
    await load();
  };

  const empty = data && data.identities.length === 0 && !data.staff && data.available.length === 0;
  if (empty && !note) return null;
  return (
    <section className="card" aria-labelledby="linked-title" data-testid="linked-accounts">
      <h2 id="linked-title">
        <FormattedMessage {...m.heading} />
      </h2>
      <p className="muted">
        <FormattedMessage {...m.intro} />
      </p>
      {data ? (
        <>
          {data.identities.length === 0 && !data.staff ? (
            <p className="muted" data-testid="linked-none">
              <FormattedMessage {...m.none} />
            </p>
          ) : (
            <ul className="items" data-testid="linked-list">
              {data.staff && (
                <li data-testid="linked-staff">
                  <div>
                    <strong>
                      <FormattedMessage {...m.staff} />
                    </strong>
                    <p className="muted">
                      <FormattedMessage {...m.staffText} />
                    </p>
                  </div>
                </li>
              )}
              {data.identities.map((i) => (
                <li key={i.provider} data-testid="linked" data-provider={i.provider}>
                  <div>
                    <strong>{i.organization ? localName(intl, i.organization.connectionZh, i.organization.connectionEn) : name(i.provider)}</strong>
                    {i.name && <span className="badge">{i.name}</span>}
                    <p className="muted">
                      {i.organization && (
                        <>
                          <FormattedMessage {...m.orgText} values={{ org: localName(intl, i.organization.nameZh, i.organization.nameEn) }} />
                          <br />
                        </>
                      )}
                      <FormattedMessage {...m.linkedAt} values={{ when: <When at={i.linkedAt} /> }} />
                      {i.lastDay && (
                        <>
                          <br />
                          <FormattedMessage {...m.lastDay} values={{ date: i.lastDay }} />
                        </>
                      )}
                    </p>
                  </div>
                  {!i.organization && (
                    <div className="row-actions">
                      <button type="button" className="danger" data-testid="linked-remove" disabled={busy}
                        aria-label={intl.formatMessage(m.removeOf, { provider: name(i.provider) })} onClick={() => setAsking(i.provider)}>
                        <FormattedMessage {...m.remove} />
                      </button>
                    </div>
                  )}
                </li>
              ))}
            </ul>
          )}
          {data.available.map((p) => (
            <p key={p}>
              <button type="button" data-testid={`link-${p}`} disabled={busy} onClick={() => void link(p)}>
                <FormattedMessage {...m.link} values={{ provider: name(p) }} />
              </button>
            </p>
          ))}
        </>
      ) : (
        <LoadState section failed={failed} onRetry={() => void load()} said={{ loading: m.loading, loadFailed: m.failed, retry: m.retry }} />
      )}
      <p className={note?.quiet ? 'muted' : 'field-error'} role={note?.quiet ? 'status' : 'alert'} data-testid="linked-note">
        {note?.text}
      </p>
      {asking && (
        <Dialog testId="linked-remove-dialog" title={<FormattedMessage {...m.removeTitle} values={{ provider: name(asking) }} />}
          description={<FormattedMessage {...m.removeText} />} onCancel={() => setAsking(null)}>
          <div className="actions">
            <button type="button" data-autofocus onClick={() => setAsking(null)}>
              <FormattedMessage {...m.cancel} />
            </button>
            <button type="button" className="primary danger" data-testid="linked-remove-confirm" onClick={() => void remove(asking)}>
              <FormattedMessage {...m.remove} />
            </button>
          </div>
        </Dialog>
      )}
    </section>
  );
}
