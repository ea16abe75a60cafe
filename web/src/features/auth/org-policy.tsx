// The organization's sign-in policy in the authorize flow (docs/oidc.md "Organizations"), loaded
// only when the organization the app will see asks something of this session (its choice's
// `need`): a second factor to prove (`stepUp`: the authenticator's code, or a passkey, on this
// same session, then the request goes on), a second factor to turn on first (`secondFactor`: the
// security centre), or another way to sign in (`method`: the organization's allowedMethods).
// Nothing is sent to the app from here but the cancel address (error=access_denied).
import { type FormEvent, useEffect, useRef, useState } from 'react';
import { defineMessages, FormattedMessage, type MessageDescriptor, useIntl } from 'react-intl';
import { Link } from 'react-router';
import { OtpField, type Msg } from '../../components/field';
import { paths } from '../../config/paths';
import type { Locale } from '../../i18n/locale';
import { getInfo } from '../../lib/account-api';
import { call, errorText, handleError, SKIP } from '../../lib/api';
import type { ConsentContext, OrgStep } from '../../lib/partner';
import { usePasskeys } from '../../lib/passkey-gate';
import { hasReason } from '../../lib/reasons';
import * as v from '../../lib/validate';

const m = defineMessages({
  stepUpTitle: { id: 'authorize.policy.stepUpTitle', defaultMessage: '{org} asks you to confirm with two-factor authentication' },
  stepUpLead: {
    id: 'authorize.policy.stepUpLead',
    defaultMessage: 'The administrators of {org} require two-factor authentication before {app} sees the organization. Confirm it is you to continue.',
  },
  code: { id: 'authorize.policy.code', defaultMessage: '6-digit code from your authenticator app' },
  verify: { id: 'authorize.policy.verify', defaultMessage: 'Verify and continue' },
  passkey: { id: 'authorize.policy.passkey', defaultMessage: 'Use a passkey' },
  passkeyCancelled: { id: 'authorize.policy.passkeyCancelled', defaultMessage: 'The passkey was not used. Try again, or enter the code.' },
  mfaTitle: { id: 'authorize.policy.mfaTitle', defaultMessage: '{org} requires two-factor authentication' },
  mfaLead: {
    id: 'authorize.policy.mfaLead',
    defaultMessage:
      'The administrators of {org} require two-factor authentication, and this account does not have it on. Turn on an authenticator app or add a passkey in your security centre, then come back to this page and try again.',
  },
  secure: { id: 'authorize.policy.secure', defaultMessage: 'Open the security centre' },
  retry: { id: 'authorize.policy.retry', defaultMessage: 'Try again' },
  methodTitle: { id: 'authorize.policy.methodTitle', defaultMessage: '{org} does not allow this sign-in' },
  methodLead: { id: 'authorize.policy.methodLead', defaultMessage: '{org} allows only these ways to sign in: {methods}. Sign in again with one of them.' },
  company: { id: 'authorize.policy.company', defaultMessage: 'Sign in with your company' },
  again: { id: 'authorize.policy.again', defaultMessage: 'Sign in again' },
  back: { id: 'authorize.policy.back', defaultMessage: 'Back to {app}' },
  password: { id: 'authorize.policy.method.password', defaultMessage: 'password' },
  codeMethod: { id: 'authorize.policy.method.code', defaultMessage: 'one-time code by mail or SMS' },
  passkeyMethod: { id: 'authorize.policy.method.passkey', defaultMessage: 'passkey' },
  wechat: { id: 'authorize.policy.method.wechat', defaultMessage: 'WeChat' },
  wecom: { id: 'authorize.policy.method.wecom', defaultMessage: 'WeCom' },
  dingtalk: { id: 'authorize.policy.method.dingtalk', defaultMessage: 'DingTalk' },
  feishu: { id: 'authorize.policy.method.feishu', defaultMessage: 'Feishu' },
  organization: { id: 'authorize.policy.method.organization', defaultMessage: 'the company sign-in' },
});

const methodNames: Record<string, MessageDescriptor> = {
  password: m.password,
  code: m.codeMethod,
  passkey: m.passkeyMethod,
  wechat: m.wechat,
  wecom: m.wecom,
  dingtalk: m.dingtalk,
  feishu: m.feishu,
  organization: m.organization,
};

type Choice = OrgStep['choices'][number];

interface Props {
  ctx: ConsentContext;
  choice: Choice;
  lang: Locale;
  busy: boolean;
  onCancel: () => void;
  /** Sign out and sign in again (the same request). */
  onSwitch: () => void;
  /** The session changed (a step-up) or may have: read the request again. */
  onReload: () => void;
}

export function OrgPolicy(props: Props) {
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => heading.current?.focus(), []);
  const { choice, ctx } = props;
  const org = <strong>{choice.name}</strong>;
  const title = choice.need === 'stepUp' ? m.stepUpTitle : choice.need === 'method' ? m.methodTitle : m.mfaTitle;
  return (
    <div className="card" data-testid="org-policy" data-need={choice.need ?? ''}>
      <h1 ref={heading} tabIndex={-1}>
        <FormattedMessage {...title} values={{ org: choice.name }} />
      </h1>
      {choice.need === 'stepUp' ? <StepUp {...props} org={org} /> : choice.need === 'method' ? <Method {...props} org={org} /> : <NoSecondFactor {...props} org={org} />}
      <div className="actions">
        <button type="button" onClick={props.onCancel} disabled={props.busy} data-testid="org-policy-back">
          <FormattedMessage {...m.back} values={{ app: ctx.name }} />
        </button>
      </div>
    </div>
  );
}

type Inner = Props & { org: React.ReactNode };

/** The account's own second factor, proved on this session (POST /auth/totp/verify, or a passkey). */
function StepUp({ ctx, org, busy, onReload }: Inner) {
  // The authenticator's field when the account has it; the passkey's button unless passkeys are
  // off or the account has none (PASSKEY_NOT_FOUND hides it).
  const [totp, setTotp] = useState<boolean | null>(null);
  const passkeys = usePasskeys();
  const [noPasskey, setNoPasskey] = useState(false);
  const [code, setCode] = useState('');
  const [error, setError] = useState<Msg>(null);
  const [working, setWorking] = useState(false);
  useEffect(() => {
    let live = true;
    void getInfo({ skipErrorHandler: true }).then((r) => {
      if (live) setTotp(r.success ? r.data.enableTotp : true);
    });
    return () => {
      live = false;
    };
  }, []);
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const problem = v.code(code);
    if (problem) return setError(problem);
    setWorking(true);
    const res = await call('POST /auth/totp/verify', { body: { code: code.trim() } }, SKIP);
    setWorking(false);
    if (res.success) return onReload();
    if (hasReason(res.error, 'AUTHORIZATION_FAILED')) return handleError(res.error);
    setError(errorText(res.error));
  };
  const withPasskey = async () => {
    setError(null);
    setWorking(true);
    const out = await (await import('../../lib/passkey')).reauth();
    setWorking(false);
    if (out.ok) return onReload();
    if (out.cancelled) return setError(m.passkeyCancelled);
    if (hasReason(out.error, 'PASSKEY_NOT_FOUND')) setNoPasskey(true);
    setError(errorText(out.error));
  };
  const off = busy || working;
  return (
    <>
      <p>
        <FormattedMessage {...m.stepUpLead} values={{ org, app: <strong>{ctx.name}</strong> }} />
      </p>
      {totp && (
        <form onSubmit={(e) => void submit(e)} noValidate data-testid="org-policy-stepup">
          <OtpField
            label={m.code}
            value={code}
            onChange={(x) => {
              setCode(x);
              setError(null);
            }}
            error={error}
          />
          <div className="actions">
            <button type="submit" className="primary" disabled={off} data-testid="org-policy-verify">
              <FormattedMessage {...m.verify} />
            </button>
          </div>
        </form>
      )}
      {passkeys && !noPasskey && totp !== null && (
        <p>
          <button type="button" onClick={() => void withPasskey()} disabled={off} data-testid="org-policy-passkey">
            <FormattedMessage {...m.passkey} />
          </button>
        </p>
      )}
      {totp === false && error && (
        <p role="alert">
          {typeof error === 'string' ? error : <FormattedMessage {...error} />}
        </p>
      )}
    </>
  );
}

/** No second factor to give: the security centre, then back here. */
function NoSecondFactor({ lang, org, busy, onReload }: Inner) {
  return (
    <>
      <p role="alert" data-testid="org-policy-why">
        <FormattedMessage {...m.mfaLead} values={{ org }} />
      </p>
      <p>
        <Link to={`${paths.secure(lang)}#two-factor`} data-testid="org-policy-secure">
          <FormattedMessage {...m.secure} />
        </Link>
      </p>
      <p>
        <button type="button" onClick={onReload} disabled={busy} data-testid="org-policy-retry">
          <FormattedMessage {...m.retry} />
        </button>
      </p>
    </>
  );
}

/** A sign-in method the organization does not allow: which ones it does, and sign in again. */
function Method({ choice, org, busy, onSwitch }: Inner) {
  const intl = useIntl();
  const allowed = choice.allowedMethods ?? [];
  const methods = intl.formatList(
    allowed.map((x) => (methodNames[x] ? intl.formatMessage(methodNames[x]) : x)),
    { type: 'disjunction' },
  );
  return (
    <>
      <p role="alert" data-testid="org-policy-why">
        <FormattedMessage {...m.methodLead} values={{ org, methods }} />
      </p>
      <p>
        <button type="button" className="primary" onClick={onSwitch} disabled={busy} data-testid="org-policy-again">
          <FormattedMessage {...(allowed.includes('organization') ? m.company : m.again)} />
        </button>
      </p>
    </>
  );
}
