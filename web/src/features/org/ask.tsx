// "Ask for an organization" (POST /org/requests): the company's names in both languages (one is
// enough); Ciam's operators approve (the asker becomes its owner) or refuse. The server lists no
// request before it is approved, so what was asked on this page is said here as waiting.
import { type FormEvent, useState } from 'react';
import { defineMessages, FormattedMessage, useIntl } from 'react-intl';
import { Field, FormAlert } from '../../components/field';
import { useForm } from '../../components/use-form';
import type { Organization } from '../../lib/api-types.gen';
import { asLocale } from '../../i18n/locale';
import { askForOrganization } from './api';
import { orgName } from './labels';

const m = defineMessages({
  heading: { id: 'org.ask.heading', defaultMessage: 'Ask for an organization' },
  intro: {
    id: 'org.ask.intro',
    defaultMessage: 'Your company is not on Ciam yet? Ask for an organization for it: once Ciam approves, you are its owner and can invite your colleagues.',
  },
  nameZh: { id: 'org.ask.nameZh', defaultMessage: 'Name in Chinese' },
  nameEn: { id: 'org.ask.nameEn', defaultMessage: 'Name in English' },
  oneName: { id: 'org.ask.oneName', defaultMessage: 'Give at least one of the two names' },
  tooLong: { id: 'org.ask.tooLong', defaultMessage: 'At most 100 characters' },
  submit: { id: 'org.ask.submit', defaultMessage: 'Ask for the organization' },
  waiting: { id: 'org.ask.waiting', defaultMessage: '{org}: waiting for review' },
  sent: { id: 'org.ask.sent', defaultMessage: 'Your request for {org} was sent. Ciam reviews it; you become its owner once it is approved.' },
});

export function AskForOrganization() {
  const intl = useIntl();
  const lang = asLocale(intl.locale) ?? 'zh-CN';
  const f = useForm({ nameZh: '', nameEn: '' });
  const [busy, setBusy] = useState(false);
  const [asked, setAsked] = useState<Organization[]>([]);
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const zh = f.values.nameZh.trim();
    const en = f.values.nameEn.trim();
    const long = (s: string) => (s.length > 100 ? m.tooLong : null);
    if (!f.check({ nameZh: !zh && !en ? m.oneName : long(zh), nameEn: long(en) })) return;
    setBusy(true);
    const r = await askForOrganization(zh, en);
    setBusy(false);
    if (!r.success) return f.refuse(r.error);
    setAsked((a) => [r.data, ...a]);
    f.set('nameZh', '');
    f.set('nameEn', '');
  };
  return (
    <section className="card" aria-labelledby="org-ask-title" data-testid="org-ask">
      <h2 id="org-ask-title">
        <FormattedMessage {...m.heading} />
      </h2>
      <p className="muted">
        <FormattedMessage {...m.intro} />
      </p>
      <p role="status" className={asked.length ? 'notice' : 'sr-only'} data-testid="org-ask-sent">
        {asked[0] && <FormattedMessage {...m.sent} values={{ org: orgName(asked[0], lang) }} />}
      </p>
      {asked.length > 0 && (
        <ul className="items" data-testid="org-ask-waiting">
          {asked.map((o) => (
            <li key={o.orgId}>
              <FormattedMessage {...m.waiting} values={{ org: orgName(o, lang) }} />
            </li>
          ))}
        </ul>
      )}
      <form ref={f.ref} onSubmit={(e) => void submit(e)} noValidate data-testid="org-ask-form">
        <FormAlert {...f.alert} />
        <Field {...f.bind('nameZh')} label={m.nameZh} lang="zh-CN" maxLength={100} autoComplete="organization" />
        <Field {...f.bind('nameEn')} label={m.nameEn} lang="en" maxLength={100} autoComplete="off" />
        <button type="submit" className="primary" disabled={busy}>
          <FormattedMessage {...m.submit} />
        </button>
      </form>
    </section>
  );
}
