// Sign-up (spec §2, every rule of §5 checked here and again on the server), in the order people
// think (issue 34 item 1): the account (mail or phone) and its code first, then the rest (user
// name, company, country, the password twice, the agreement). DOM order is the visual and the
// tab order.
import { lazy, Suspense, useState } from 'react';
import { defineMessages, FormattedMessage, useIntl } from 'react-intl';
import { Link, useLocation, useNavigate } from 'react-router';
import { ErrorText, Field, FormAlert } from '../../components/field';
import { useTitle } from '../../components/use-title';
import { paths } from '../../config/paths';
import type { Locale } from '../../i18n/locale';
import { titles } from '../../i18n/titles';
import { type ApiError, call, errorText, SKIP } from '../../lib/api';
import { hasReason } from '../../lib/reasons';
import { keepQuery } from '../../lib/redirect';
import * as v from '../../lib/validate';
import * as t from '../../lib/validate-text';
import { CodeField } from '../../components/code-field';
import { CountryField, initialCountry } from './country-field';
import { labels } from './messages';
import { useForm } from '../../components/use-form';
import { Cell } from '../../components/cells-lazy';
import { UsernameStatus, useUsernameCheck } from './username-status';

// "To continue to <app>" (its logo, its name) when a partner's query names the app: loaded then
// only; a chunk that fails to load shows nothing.
const Partner = lazy(() => import('./partner-banner').catch(() => ({ default: () => null })));

const m = defineMessages({
  userName: { id: 'register.userName', defaultMessage: 'Username' },
  company: { id: 'register.company', defaultMessage: 'Company name' },
  terms: { id: 'register.terms', defaultMessage: 'I have read and accept the {protocols} and the {privacy}' },
  submit: { id: 'register.submit', defaultMessage: 'Sign up' },
  haveAccount: { id: 'register.haveAccount', defaultMessage: 'Already have an account? Sign in' },
});

export default function Register() {
  useTitle(titles.register);
  const intl = useIntl();
  const lang = intl.locale as Locale;
  const navigate = useNavigate();
  const { search, state } = useLocation();
  const q = keepQuery(search);
  // Sent here by a page to come back to (an organization's invitation): sign-in keeps it.
  const origin = (state as { origin?: unknown } | null)?.origin === true || undefined;
  const appId = new URLSearchParams(search).get('appId');
  const f = useForm({
    account: '', code: '', userName: '', company: '', password: '', confirmPassword: '', country: initialCountry(), acceptTerms: false as boolean,
  });
  const [busy, setBusy] = useState(false);
  // A mainland phone on the global cell (docs/multi-region.md §14): said at the account, with the
  // mainland service's sign-up under it, until the account changes.
  const [elsewhere, setElsewhere] = useState<string | null>(null);
  const refuse = (e: ApiError) => {
    if (!hasReason(e, 'PHONE_MAINLAND_SERVICE_ONLY')) return f.refuse(e);
    setElsewhere(e.reason);
    f.flag('account', errorText(e));
  };
  const x = f.values;
  const nameCheck = useUsernameCheck(x.userName);
  const submit = async (e: React.FormEvent) => {
    e.preventDefault();
    const ok = f.check({
      account: v.identity(x.account),
      code: v.code(x.code),
      userName: t.username(x.userName),
      company: t.company(x.company),
      country: t.country(x.country),
      password: v.password(x.password),
      confirmPassword: v.confirm(x.password, x.confirmPassword),
      acceptTerms: t.terms(x.acceptTerms),
    });
    if (!ok) return;
    setBusy(true);
    const body = { ...x, userName: x.userName.trim(), company: x.company.trim(), account: x.account.trim(), code: x.code.trim() };
    const res = await call('POST /auth/register', { body }, SKIP);
    setBusy(false);
    if (!res.success) return refuse(res.error);
    navigate(paths.signin(lang) + q, { state: { account: body.account, notice: 'registered', origin } });
  };
  const doc = (to: string, title: typeof m.terms) => (
    <Link to={to} target="_blank" rel="noopener">
      <FormattedMessage {...title} />
    </Link>
  );
  return (
    <div className="card">
      <h1>
        <FormattedMessage {...titles.register} />
      </h1>
      {appId && (
        <Suspense fallback={null}>
          <Partner appId={appId} />
        </Suspense>
      )}
      <form ref={f.ref} data-testid="register" noValidate onSubmit={submit}>
        <FormAlert {...f.alert} />
        <Field {...f.bind('account')} onChange={(a) => { f.set('account', a); setElsewhere(null); }} label={labels.account} autoComplete="username" />
        <Cell reason={elsewhere} />
        <CodeField {...f.bind('code')} onRefused={refuse} purpose="register"
          account={() => (f.flag('account', v.identity(x.account)) ? x.account.trim() : null)} />
        <Field {...f.bind('userName')} error={f.errors.userName ?? (nameCheck?.state === 'refused' ? nameCheck.problem : null)}
          label={m.userName} autoComplete="nickname" />
        <UsernameStatus said={nameCheck} onUse={(name) => f.set('userName', name)} />
        <Field {...f.bind('company')} label={m.company} autoComplete="organization" />
        <CountryField value={x.country} error={f.errors.country} onChange={(c) => f.set('country', c)} />
        <Field {...f.bind('password')} label={labels.password} type="password" autoComplete="new-password" />
        <Field {...f.bind('confirmPassword')} label={labels.confirmPassword} type="password" autoComplete="new-password" />
        <div className="check">
          <input id="reg-terms" type="checkbox" name="acceptTerms" checked={x.acceptTerms} onChange={(e) => f.set('acceptTerms', e.target.checked)}
            aria-invalid={!!f.errors.acceptTerms} aria-describedby="reg-terms-e" />
          <label htmlFor="reg-terms">
            <FormattedMessage {...m.terms} values={{ protocols: doc(paths.protocols(lang), titles.protocols), privacy: doc(paths.privacy(lang), titles.privacy) }} />
          </label>
        </div>
        <ErrorText id="reg-terms-e" error={f.errors.acceptTerms} />
        <button type="submit" className="primary" disabled={busy || f.locked}>
          <FormattedMessage {...m.submit} />
        </button>
      </form>
      <div className="links">
        <Link to={paths.signin(lang) + q}>
          <FormattedMessage {...m.haveAccount} />
        </Link>
      </div>
    </div>
  );
}
