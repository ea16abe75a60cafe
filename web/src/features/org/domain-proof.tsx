// The proof of a pending domain in "My company" (docs/organizations-domains.md §1): for `dns`, the
// TXT record to publish (its name and value, each with a copy button) and "Check now" (one lookup
// on the server; "not found" is said here, at the record); for `mail`, an administrative address at
// the domain, "Send code" (the captcha solves itself in the background from the form's first use,
// its row shown only when the server or the solver needs the person, as in components/code-field.tsx)
// and the code. A newly added claim's proof takes the focus, so the keyboard goes on from there.
import { type FormEvent, useEffect, useId, useRef, useState } from 'react';
import { defineMessages, FormattedMessage, useIntl } from 'react-intl';
import { Captcha, useCaptcha } from '../../components/code-field';
import { Field, FormAlert } from '../../components/field';
import { useForm } from '../../components/use-form';
import { errorText } from '../../lib/api';
import { RESEND_SECONDS, useCountdown } from '../../lib/countdown';
import type { OrgDomain } from '../../lib/api-types.gen';
import { hasReason } from '../../lib/reasons';
import * as v from '../../lib/validate';
import { sendDomainCode, verifyDomain } from './api';

const m = defineMessages({
  dnsIntro: { id: 'org.domainProof.dnsIntro', defaultMessage: 'Publish this TXT record in the DNS of {domain}, then check it. Other TXT records there may stay.' },
  name: { id: 'org.domainProof.name', defaultMessage: 'Name' },
  type: { id: 'org.domainProof.type', defaultMessage: 'Type' },
  value: { id: 'org.domainProof.value', defaultMessage: 'Value' },
  copyName: { id: 'org.domainProof.copyName', defaultMessage: "Copy the record's name" },
  copyValue: { id: 'org.domainProof.copyValue', defaultMessage: "Copy the record's value" },
  copy: { id: 'org.domainProof.copy', defaultMessage: 'Copy' },
  copied: { id: 'org.domainProof.copied', defaultMessage: 'Copied.' },
  copyFailed: { id: 'org.domainProof.copyFailed', defaultMessage: 'Could not copy: select the text and copy it.' },
  check: { id: 'org.domainProof.check', defaultMessage: 'Check now' },
  checking: { id: 'org.domainProof.checking', defaultMessage: 'Looking the record up…' },
  notFound: {
    id: 'org.domainProof.notFound',
    defaultMessage: 'Not found yet: {record}. Publish it, wait for DNS to update (minutes, sometimes a day), then check again.',
  },
  mailIntro: { id: 'org.domainProof.mailIntro', defaultMessage: 'Send a code to an administrative mailbox of {domain} and type it here.' },
  mail: { id: 'org.domainProof.mail', defaultMessage: 'Administrative address' },
  mailHint: { id: 'org.domainProof.mailHint', defaultMessage: 'admin, administrator, webmaster, hostmaster or postmaster at the domain' },
  send: { id: 'org.domainProof.send', defaultMessage: 'Send code' },
  resendIn: { id: 'org.domainProof.resendIn', defaultMessage: '{n, plural, one {Resend in # second} other {Resend in # seconds}}' },
  sent: { id: 'org.domainProof.sent', defaultMessage: 'A code was sent to {mail}. It is valid for 10 minutes.' },
  code: { id: 'org.domainProof.code', defaultMessage: 'Code' },
  verify: { id: 'org.domainProof.verify', defaultMessage: 'Verify' },
});

type Props = { orgId: string; d: OrgDomain; fresh: boolean; onVerified: (d: OrgDomain) => void };

/** Focuses the proof's introduction once, when its claim was just added. */
function useFocusWhen(fresh: boolean) {
  const ref = useRef<HTMLParagraphElement>(null);
  useEffect(() => {
    if (fresh) ref.current?.focus();
  }, [fresh]);
  return ref;
}

export function DnsProof({ orgId, d, fresh, onVerified }: Props) {
  const intl = useIntl();
  const intro = useFocusWhen(fresh);
  const [busy, setBusy] = useState(false);
  const [answer, setAnswer] = useState<string | null>(null);
  const [copied, setCopied] = useState<string | null>(null);
  const r = d.record;
  const copy = async (text: string) => {
    try {
      await navigator.clipboard.writeText(text);
      setCopied(intl.formatMessage(m.copied));
    } catch {
      setCopied(intl.formatMessage(m.copyFailed));
    }
  };
  const check = async () => {
    setBusy(true);
    setAnswer(intl.formatMessage(m.checking));
    const res = await verifyDomain(orgId, d.domain);
    setBusy(false);
    if (res.success) {
      setAnswer(null);
      return onVerified(res.data);
    }
    // The server names the record it looked for; said in this page's words around it.
    setAnswer(hasReason(res.error, 'DOMAIN_TXT_NOT_FOUND') ? intl.formatMessage(m.notFound, { record: res.error.message || r?.value }) : errorText(res.error));
  };
  return (
    <div className="domain-proof" data-testid="org-domain-dns">
      <p ref={intro} tabIndex={-1}>
        <FormattedMessage {...m.dnsIntro} values={{ domain: d.display }} />
      </p>
      {r && (
        <dl className="facts">
          <div>
            <dt>
              <FormattedMessage {...m.name} />
            </dt>
            <dd>
              <code className="mono" data-testid="org-domain-txt-name">{r.name}</code>{' '}
              <button type="button" aria-label={intl.formatMessage(m.copyName)} onClick={() => void copy(r.name)}>
                <FormattedMessage {...m.copy} />
              </button>
            </dd>
          </div>
          <div>
            <dt>
              <FormattedMessage {...m.type} />
            </dt>
            <dd>
              <code className="mono">{r.type}</code>
            </dd>
          </div>
          <div>
            <dt>
              <FormattedMessage {...m.value} />
            </dt>
            <dd>
              <code className="mono" data-testid="org-domain-txt-value">{r.value}</code>{' '}
              <button type="button" aria-label={intl.formatMessage(m.copyValue)} onClick={() => void copy(r.value)}>
                <FormattedMessage {...m.copy} />
              </button>
            </dd>
          </div>
        </dl>
      )}
      <p className="sr-only" role="status">
        {copied}
      </p>
      <button type="button" className="primary" aria-disabled={busy} data-testid="org-domain-check" onClick={() => void (busy || check())}>
        <FormattedMessage {...m.check} />
      </button>
      <p role="alert" className="field-error" data-testid="org-domain-check-answer">
        {answer}
      </p>
    </div>
  );
}

export function MailProof({ orgId, d, fresh, onVerified }: Props) {
  const intro = useFocusWhen(fresh);
  const f = useForm({ mail: `admin@${d.display}`, code: '' });
  const captcha = useCaptcha();
  const [ask, setAsk] = useState(false);
  const [busy, setBusy] = useState(false);
  const [sentTo, setSentTo] = useState<string | null>(null);
  const sentId = useId();
  // As every code: another only after 60 s (the button stays focusable, aria-disabled).
  const { left, start } = useCountdown(RESEND_SECONDS);
  const waiting = busy || left > 0;
  const { start: solve } = captcha;
  const kick = () => void solve();
  const send = async () => {
    if (waiting) return;
    const mail = f.values.mail.trim();
    if (!f.check({ mail: v.mail(mail) })) return;
    setBusy(true);
    setSentTo(null);
    const proof = await captcha.take();
    const res = proof ? await sendDomainCode(orgId, d.domain, mail, proof) : null;
    setBusy(false);
    if (!res || (!res.success && /^VERIFYCAPTCHA_/.test(res.error.reason))) return setAsk(true);
    setAsk(false);
    void solve();
    if (!res.success) {
      if (hasReason(res.error, 'DOMAIN_MAIL_NOT_ADMIN', 'INVALID_MAIL')) return f.flag('mail', errorText(res.error));
      return f.refuse(res.error);
    }
    setSentTo(mail);
    start(RESEND_SECONDS);
    (f.ref.current?.elements.namedItem('code') as HTMLInputElement | null)?.focus();
  };
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const mail = f.values.mail.trim();
    const code = f.values.code.trim();
    if (!f.check({ mail: v.mail(mail), code: v.code(code) })) return;
    setBusy(true);
    const res = await verifyDomain(orgId, d.domain, { mail, code });
    setBusy(false);
    if (res.success) return onVerified(res.data);
    if (hasReason(res.error, 'DOMAIN_MAIL_NOT_ADMIN')) return f.flag('mail', errorText(res.error));
    f.refuse(res.error);
  };
  return (
    <form ref={f.ref} className="domain-proof" data-testid="org-domain-mail" onSubmit={(e) => void submit(e)} onFocus={kick} onInput={kick} noValidate
      aria-labelledby={`${sentId}i`}>
      <p ref={intro} id={`${sentId}i`} tabIndex={-1}>
        <FormattedMessage {...m.mailIntro} values={{ domain: d.display }} />
      </p>
      <FormAlert {...f.alert} />
      <Field {...f.bind('mail')} type="email" label={m.mail} hint={m.mailHint} autoComplete="off" maxLength={254} required
        after={
          <button type="button" className="send" aria-disabled={waiting} aria-busy={busy} data-testid="org-domain-send" onClick={() => void send()}>
            {left > 0 ? <FormattedMessage {...m.resendIn} values={{ n: left }} /> : <FormattedMessage {...m.send} />}
          </button>
        } />
      {ask && <Captcha handle={captcha} />}
      <p role="status" className="hint muted" data-testid="org-domain-sent">
        {sentTo && <FormattedMessage {...m.sent} values={{ mail: sentTo }} />}
      </p>
      <Field {...f.bind('code')} label={m.code} inputMode="numeric" autoComplete="one-time-code" maxLength={6} required />
      <button type="submit" className="primary" disabled={busy} data-testid="org-domain-verify">
        <FormattedMessage {...m.verify} />
      </button>
    </form>
  );
}
