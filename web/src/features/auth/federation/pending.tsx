// A provider's subject that no account has yet (`<name>Pending`, docs/federation-design.md §4.1):
// this tab proves a mainland mobile number with Ciam's own code (purpose `link`). The number's
// account is linked and signed in (or asks its second step); a number without an account goes on
// to finish the sign-up (the spec's fields, no password). Nothing the provider said is used as
// the name: the user types it.
import { useEffect, useRef, useState } from 'react';
import { defineMessages, FormattedMessage, useIntl } from 'react-intl';
import { Link } from 'react-router';
import { ErrorText, Field, FormAlert } from '../../../components/field';
import { CodeField } from '../../../components/code-field';
import { INLINE, useForm } from '../../../components/use-form';
import { paths } from '../../../config/paths';
import type { Locale } from '../../../i18n/locale';
import { titles } from '../../../i18n/titles';
import { type ApiError, call, errorText, handleError, SKIP } from '../../../lib/api';
import * as mfa from '../../../lib/mfa';
import { byReason, hasReason } from '../../../lib/reasons';
import * as v from '../../../lib/validate';
import * as t from '../../../lib/validate-text';
import { CountryField, initialCountry } from '../country-field';

const m = defineMessages({
  phoneTitle: { id: 'federation.phoneTitle', defaultMessage: 'Prove your mobile number' },
  phoneIntro: {
    id: 'federation.phoneIntro',
    defaultMessage: 'Your {provider} account is not linked to a Ciam account yet. Enter your mainland China mobile number: if an account has it, {provider} is linked to that account; if not, you create one next.',
  },
  phone: { id: 'federation.phone', defaultMessage: 'Mobile number (mainland China)' },
  continue: { id: 'federation.continue', defaultMessage: 'Continue' },
  signUpTitle: { id: 'federation.signUpTitle', defaultMessage: 'Complete your account' },
  signUpIntro: { id: 'federation.signUpIntro', defaultMessage: 'Your number {phone} is proven. Complete your account to sign in with {provider} from now on.' },
  create: { id: 'federation.create', defaultMessage: 'Create account' },
  userName: { id: 'register.userName', defaultMessage: 'Username' },
  company: { id: 'register.company', defaultMessage: 'Company name' },
  terms: { id: 'register.terms', defaultMessage: 'I have read and accept the {protocols} and the {privacy}' },
});

interface Props {
  /** The provider's name as shown. */
  provider: string;
  /** The phone step's words when not the provider's (a company's connection vouched for the person). */
  intro?: string;
  pending: string;
  bind: string;
  /** What to say when the pending sign-in is gone (expired, used, another tab's). */
  expired: string;
  /** Forgets this tab's bind: the sign-in ended. */
  end: () => void;
  onSignedIn: (account: string, token: string) => void;
}

/**
 * A refusal of this flow, said atop its form: the pending sign-in gone (expired, used, another
 * tab's), the provider's account or the number's account linked meanwhile, or any other reason the
 * form has no field for. `ended`: the pending sign-in cannot go on (the form is put away).
 */
function useRefusal({ expired, end }: Props) {
  const [said, setSaid] = useState<{ text: string; ended: boolean } | null>(null);
  const say = (e: ApiError) => {
    if (hasReason(e, 'AUTHORIZATION_FAILED')) {
      end();
      return setSaid({ text: expired, ended: true });
    }
    setSaid({ text: errorText(e), ended: hasReason(e, 'FEDERATION_LINK_EXISTS') });
  };
  return { said, say, clear: () => setSaid(null) };
}

function Said({ said }: { said: { text: string } | null }) {
  return said ? (
    <p className="field-error" role="alert" data-testid="federation-refused">
      {said.text}
    </p>
  ) : null;
}

function ProvePhone(p: Props & { onSignUp: (phone: string) => void }) {
  const { provider, pending, bind, end, onSignedIn, onSignUp } = p;
  const f = useForm({ account: '', code: '' });
  const [busy, setBusy] = useState(false);
  const r = useRefusal(p);
  const refuse = (e: ApiError) => (byReason(INLINE, e.reason) ? f.refuse(e) : r.say(e));
  const submit = async (e: React.FormEvent) => {
    e.preventDefault();
    r.clear();
    const { account, code } = f.values;
    if (!f.check({ account: v.phone(account), code: v.code(code) })) return;
    const phone = account.trim();
    setBusy(true);
    mfa.signingIn(phone);
    const res = await call('POST /auth/federation/phone', { body: { pending, bind, phone, code: code.trim() } }, SKIP);
    setBusy(false);
    if (res.success) {
      // 200: the number's account, linked and signed in; 202: `{next: "signUp"}`.
      const data = res.data as { token?: string; next?: string };
      if (data.token) {
        end();
        onSignedIn(phone, data.token);
      } else onSignUp(phone);
    } else if (hasReason(res.error, 'NEED_TOTP_VERIFY')) {
      // Linked; the account's second step, exactly as after a password.
      end();
      handleError(res.error);
    } else refuse(res.error);
  };
  return (
    <section className="fed-pending" aria-labelledby="fed-phone-title" data-testid="federation-phone">
      <h2 id="fed-phone-title">
        <FormattedMessage {...m.phoneTitle} />
      </h2>
      <p className="muted" data-testid="federation-phone-intro">
        {p.intro ?? <FormattedMessage {...m.phoneIntro} values={{ provider }} />}
      </p>
      <Said said={r.said} />
      {!r.said?.ended && (
        <form ref={f.ref} noValidate onSubmit={submit}>
          <FormAlert {...f.alert} />
          <Field {...f.bind('account')} label={m.phone} type="tel" inputMode="tel" autoComplete="tel" />
          <CodeField {...f.bind('code')} onRefused={refuse} purpose="link"
            account={() => (f.flag('account', v.phone(f.values.account)) ? f.values.account.trim() : null)} />
          <button type="submit" className="primary" disabled={busy || f.locked}>
            <FormattedMessage {...m.continue} />
          </button>
        </form>
      )}
    </section>
  );
}

function FinishSignUp(p: Props & { phone: string }) {
  const { provider, pending, bind, phone, end, onSignedIn } = p;
  const lang = useIntl().locale as Locale;
  const f = useForm({ userName: '', company: '', country: initialCountry(), acceptTerms: false as boolean });
  const [busy, setBusy] = useState(false);
  const r = useRefusal(p);
  const x = f.values;
  // The new step takes the focus once, when it appears (not on each render: typing would lose it).
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => heading.current?.focus(), []);
  const submit = async (e: React.FormEvent) => {
    e.preventDefault();
    r.clear();
    const ok = f.check({ userName: t.username(x.userName), company: t.company(x.company), country: t.country(x.country), acceptTerms: t.terms(x.acceptTerms) });
    if (!ok) return;
    setBusy(true);
    const body = { pending, bind, userName: x.userName.trim(), company: x.company.trim(), country: x.country, acceptTerms: x.acceptTerms };
    const res = await call('POST /auth/federation/register', { body }, SKIP);
    setBusy(false);
    if (res.success) {
      end();
      onSignedIn(phone, res.data.token);
    } else if (res.error.field && res.error.field in x) f.refuse(res.error);
    else if (hasReason(res.error, 'USERNAME_EXIST')) f.refuse(res.error);
    else r.say(res.error);
  };
  const doc = (to: string, title: typeof m.terms) => (
    <Link to={to} target="_blank" rel="noopener">
      <FormattedMessage {...title} />
    </Link>
  );
  return (
    <section className="fed-pending" aria-labelledby="fed-signup-title" data-testid="federation-signup">
      <h2 id="fed-signup-title" tabIndex={-1} ref={heading}>
        <FormattedMessage {...m.signUpTitle} />
      </h2>
      <p className="muted">
        <FormattedMessage {...m.signUpIntro} values={{ provider, phone }} />
      </p>
      <Said said={r.said} />
      {!r.said?.ended && (
        <form ref={f.ref} noValidate onSubmit={submit}>
          <FormAlert {...f.alert} />
          <Field {...f.bind('userName')} label={m.userName} autoComplete="nickname" />
          <Field {...f.bind('company')} label={m.company} autoComplete="organization" />
          <CountryField value={x.country} error={f.errors.country} onChange={(c) => f.set('country', c)} />
          <div className="check">
            <input id="fed-terms" type="checkbox" name="acceptTerms" checked={x.acceptTerms} onChange={(e) => f.set('acceptTerms', e.target.checked)}
              aria-invalid={!!f.errors.acceptTerms} aria-describedby="fed-terms-e" />
            <label htmlFor="fed-terms">
              <FormattedMessage {...m.terms} values={{ protocols: doc(paths.protocols(lang), titles.protocols), privacy: doc(paths.privacy(lang), titles.privacy) }} />
            </label>
          </div>
          <ErrorText id="fed-terms-e" error={f.errors.acceptTerms} />
          <button type="submit" className="primary" disabled={busy || f.locked}>
            <FormattedMessage {...m.create} />
          </button>
        </form>
      )}
    </section>
  );
}

/** The phone proof, then (a number without an account) the sign-up. */
export default function Pending(p: Props) {
  const [phone, setPhone] = useState<string | null>(null);
  return phone === null ? <ProvePhone {...p} onSignUp={setPhone} /> : <FinishSignUp {...p} phone={phone} />;
}
