// The Personal Center (/{lang}/personal/info): who I am and my photo, the profile form, binding
// the mail and the phone, my applications, and the FAQ.
import { type FormEvent, useEffect, useId, useMemo, useState } from 'react';
import { defineMessages, FormattedMessage, type MessageDescriptor, useIntl } from 'react-intl';
import { Link } from 'react-router';
import { useTitle } from '../../components/use-title';
import { paths } from '../../config/paths';
import { titles } from '../../i18n/titles';
import { asLocale } from '../../i18n/locale';
import { errorText, handleError } from '../../lib/api';
import { patchInfo } from './api';
import { FormStatus, useFormStatus } from '../../components/form-status';
import { FormError } from '../../components/form-error';
import { ErrorText, Field, type Msg } from '../../components/field';
import * as t from '../../lib/validate-text';
import { countryOptions, regionName } from '../../lib/countries';
import { Apps } from './apps';
import { Avatar } from './avatar';
import { BindIdentity } from './bind-identity';
import { Fold } from './fold';
import { LoadState } from './load-state';
import { learnName, signedInAs } from '../../lib/account-picker';
import { CentreNav, CentreSection, useSectionFocus } from './centre-nav';
import { PersonalNav } from './personal-nav';
import { useReauth } from '../../components/reauth';
import { useUserInfo } from '../../components/use-user-info';
import type { UserInfo } from '../../lib/api-types.gen';
import './personal.css';

const m = defineMessages({
  about: { id: 'info.about', defaultMessage: 'About me' },
  userName: { id: 'info.userName', defaultMessage: 'Username' },
  countryShown: { id: 'info.countryShown', defaultMessage: 'Country or region' },
  notSet: { id: 'info.notSet', defaultMessage: 'Not set' },
  accountType: { id: 'info.accountType', defaultMessage: 'Account type' },
  customer: { id: 'info.customer', defaultMessage: 'Customer' },
  staff: { id: 'info.staff', defaultMessage: 'Internal staff' },
  incomplete: {
    id: 'info.missing',
    defaultMessage: 'Your profile lacks: {fields}.',
  },
  completeLink: { id: 'info.completeLink', defaultMessage: 'Complete my profile' },
  update: { id: 'info.update', defaultMessage: 'Update personal info' },
  edit: { id: 'info.edit', defaultMessage: 'Edit profile' },
  company: { id: 'info.company', defaultMessage: 'Company name' },
  duty: { id: 'info.duty', defaultMessage: 'Position' },
  address: { id: 'info.address', defaultMessage: 'Address' },
  displayName: { id: 'info.displayName', defaultMessage: 'Display name' },
  country: { id: 'info.country', defaultMessage: 'Country or region' },
  chooseCountry: { id: 'info.chooseCountry', defaultMessage: 'Choose a country or region' },
  save: { id: 'info.save', defaultMessage: 'Save' },
  saved: { id: 'info.saved', defaultMessage: 'Your profile has been saved' },
  unchanged: { id: 'info.unchanged', defaultMessage: 'Nothing has changed' },
  securityHeading: { id: 'info.securityHeading', defaultMessage: 'Account security' },
  security: { id: 'info.security', defaultMessage: 'Password, two-factor authentication and account deactivation are in the Security Center.' },
  securityLink: { id: 'info.securityLink', defaultMessage: 'Go to the Security Center' },
  faq: { id: 'info.faq', defaultMessage: 'Frequently asked questions' },
  faqForgotQ: { id: 'info.faq.forgotQ', defaultMessage: 'I forgot my password. What can I do?' },
  faqForgotA: {
    id: 'info.faq.forgotA',
    defaultMessage: 'Reset it with a verification code sent to your email or mobile number. Resetting signs you out on every device.',
  },
  faqForgotLink: { id: 'info.faq.forgotLink', defaultMessage: 'Retrieve my password' },
});

const FIELDS = ['company', 'duty', 'address', 'displayName', 'country'] as const;
type FieldName = (typeof FIELDS)[number];
type Values = Record<FieldName, string>;
type Errors = Partial<Record<FieldName, Msg>>;

const LABELS: Record<FieldName, MessageDescriptor> = {
  company: m.company,
  duty: m.duty,
  address: m.address,
  displayName: m.displayName,
  country: m.country,
};
// The server's limits (functions/core/src/validate.rs), so typing stops rather than failing.
const MAX: Record<Exclude<FieldName, 'country'>, number> = { company: 100, duty: 100, address: 200, displayName: 50 };
const AUTOCOMPLETE: Record<Exclude<FieldName, 'country'>, string> = {
  company: 'organization',
  duty: 'organization-title',
  address: 'street-address',
  displayName: 'nickname',
};

function valuesOf(u: UserInfo): Values {
  return { company: u.company ?? '', duty: u.duty ?? '', address: u.address ?? '', displayName: u.displayName ?? '', country: u.country ?? '' };
}

/** Only the fields whose (trimmed) value differs from the stored one. */
function changedFields(u: UserInfo, x: Values): Partial<Values> {
  const out: Partial<Values> = {};
  for (const f of FIELDS) {
    const next = x[f].trim();
    if (next !== (u[f] ?? '')) out[f] = next;
  }
  return out;
}

/** The client's checks of the changed fields (the server checks again). */
function problems(diff: Partial<Values>, typed: Values): Errors {
  const out: Errors = {};
  const optional = (s: string, max: number) => (s ? t.requiredText(s, max) : null);
  // As typed: spaces only are "The field cannot be empty", nothing is "Please enter the company name".
  if (diff.company !== undefined) out.company = t.company(typed.company);
  if (diff.duty !== undefined) out.duty = optional(diff.duty, MAX.duty);
  if (diff.address !== undefined) out.address = optional(diff.address, MAX.address);
  if (diff.displayName !== undefined) out.displayName = optional(diff.displayName, MAX.displayName);
  if (diff.country !== undefined) out.country = t.country(diff.country);
  return out;
}

/** What the profile really lacks of the fields that make it complete (spec: address, company, duty). */
export function missingFields(u: UserInfo): ('company' | 'duty' | 'address')[] {
  return (['company', 'duty', 'address'] as const).filter((f) => !u[f]?.trim());
}

function isField(f: string | undefined): f is FieldName {
  return f !== undefined && (FIELDS as readonly string[]).includes(f);
}

export default function Info() {
  useTitle(titles.info);
  const { info, setInfo, failed, reload } = useUserInfo();
  useSectionFocus(Boolean(info));
  // The picker on the sign-in screen shows this name over the masked account.
  useEffect(() => {
    if (info) learnName(info);
  }, [info]);
  return (
    <div className="personal centre">
      <PersonalNav />
      <CentreNav page="info" />
      <div className="centre-main">
        <h1>
          <FormattedMessage {...titles.info} />
        </h1>
        {info ? (
          <Profile info={info} onSaved={setInfo} />
        ) : (
          <CentreSection id="profile">
            <LoadState failed={failed} onRetry={reload} />
          </CentreSection>
        )}
      </div>
    </div>
  );
}

function Profile({ info, onSaved }: { info: UserInfo; onSaved: (u: UserInfo) => void }) {
  const intl = useIntl();
  const lang = asLocale(intl.locale) ?? 'zh-CN';
  const formTitle = useId();
  const { guard, dialog } = useReauth(info.enableTotp);
  // The banner names only what is missing (the company given at sign-up is not); its button opens the form.
  const missing = missingFields(info);
  const [openProfile, setOpenProfile] = useState(0);
  return (
    <>
      <CentreSection id="profile">
        {missing.length > 0 && (
          <p className="notice incomplete" data-testid="profile-incomplete">
            <FormattedMessage {...m.incomplete} values={{ fields: intl.formatList(missing.map((f) => intl.formatMessage(LABELS[f]))) }} />{' '}
            <button type="button" className="link" data-testid="complete-profile" onClick={() => setOpenProfile((n) => n + 1)}>
              {intl.formatMessage(m.completeLink)}
            </button>
          </p>
        )}
        <section className="card" aria-labelledby="about-title">
          <h2 id="about-title">
            <FormattedMessage {...m.about} />
          </h2>
          <Avatar info={info} onInfo={onSaved} />
          <dl className="facts">
            <div>
              <dt>
                <FormattedMessage {...m.userName} />
              </dt>
              <dd data-testid="info-username">{info.userName}</dd>
            </div>
            <div>
              <dt>
                <FormattedMessage {...m.countryShown} />
              </dt>
              <dd>{info.country ? regionName(info.country, intl.locale) : <span className="muted">{intl.formatMessage(m.notSet)}</span>}</dd>
            </div>
            <div>
              <dt>
                <FormattedMessage {...m.accountType} />
              </dt>
              <dd>
                <FormattedMessage {...(info.isEiamUser ? m.staff : m.customer)} />
              </dd>
            </div>
          </dl>
          {/* Rows, each a form closed behind it (fold.tsx): the profile, the mail, the phone. */}
          <div className="rows">
            <Fold
              name="profile-form"
              saidTestId="profile-status"
              action={m.edit}
              openRequest={openProfile}
              summary={
                <>
                  <h3 id={formTitle}>
                    <FormattedMessage {...m.update} />
                  </h3>
                  <ProfileSummary info={info} />
                </>
              }
            >
              {({ close }) => <ProfileForm info={info} onSaved={onSaved} onDone={close} />}
            </Fold>
            <BindIdentity kind="mail" info={info} onInfo={onSaved} guard={guard} />
            <BindIdentity kind="phone" info={info} onInfo={onSaved} guard={guard} />
          </div>
        </section>
        <section className="card" aria-labelledby="security-title">
          <h2 id="security-title">
            <FormattedMessage {...m.securityHeading} />
          </h2>
          <p>
            <FormattedMessage {...m.security} />{' '}
            <Link to={paths.secure(lang)}>
              <FormattedMessage {...m.securityLink} />
            </Link>
          </p>
          <h3 id="faq-title">
            <FormattedMessage {...m.faq} />
          </h3>
          <details className="faq">
            <summary>
              <FormattedMessage {...m.faqForgotQ} />
            </summary>
            <p>
              <FormattedMessage {...m.faqForgotA} />
            </p>
            <p>
              <Link to={paths.findPassword(lang)} state={{ account: signedInAs(info) ?? '' }} data-testid="faq-forgot">
                <FormattedMessage {...m.faqForgotLink} />
              </Link>
            </p>
          </details>
        </section>
      </CentreSection>
      <CentreSection id="apps">
        <Apps />
      </CentreSection>
      {dialog}
    </>
  );
}

/** The profile in one line: the values set, or "Not set". */
function ProfileSummary({ info }: { info: UserInfo }) {
  const intl = useIntl();
  const set = (['displayName', 'company', 'duty', 'address'] as const).map((f) => info[f]?.trim()).filter(Boolean);
  return <p data-testid="profile-summary">{set.length ? set.join(' · ') : <span className="muted">{intl.formatMessage(m.notSet)}</span>}</p>;
}

function ProfileForm({ info, onSaved, onDone }: { info: UserInfo; onSaved: (u: UserInfo) => void; onDone: (said: string) => void }) {
  const intl = useIntl();
  const [values, setValues] = useState<Values>(() => valuesOf(info));
  const [errors, setErrors] = useState<Errors>({});
  const [busy, setBusy] = useState(false);
  const status = useFormStatus();
  const countryId = useId();
  const set = (f: FieldName) => (value: string) => {
    setValues((x) => ({ ...x, [f]: value }));
    setErrors((er) => ({ ...er, [f]: undefined }));
  };
  const submit = async (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const form = e.currentTarget;
    const focus = (f: FieldName) => (form.elements.namedItem(f) as HTMLElement | null)?.focus();
    const diff = changedFields(info, values);
    const found = problems(diff, values);
    const first = FIELDS.find((f) => found[f]);
    if (first) {
      setErrors(found);
      focus(first);
      return;
    }
    if (Object.keys(diff).length === 0) {
      status.say(intl.formatMessage(m.unchanged));
      return;
    }
    setBusy(true);
    const res = await patchInfo(diff);
    setBusy(false);
    if (res.success) {
      setErrors({});
      onSaved(res.data);
      onDone(intl.formatMessage(m.saved));
    } else if (isField(res.error.field)) {
      const f = res.error.field;
      setErrors({ [f]: errorText(res.error) });
      focus(f);
    } else {
      handleError(res.error);
    }
  };
  const options = useMemo(() => countryOptions(intl.locale, info.country), [intl.locale, info.country]);
  return (
    <form id="profile-form" data-testid="profile-form" onSubmit={(e) => void submit(e)} noValidate onInput={status.clear}>
      <FormError />
      {(['company', 'duty', 'address', 'displayName'] as const).map((f) => (
        <Field
          key={f}
          name={f}
          label={LABELS[f]}
          value={values[f]}
          onChange={set(f)}
          error={errors[f]}
          maxLength={MAX[f]}
          autoComplete={AUTOCOMPLETE[f]}
          required={f === 'company'}
        />
      ))}
      <div>
        <label htmlFor={countryId}>
          <FormattedMessage {...m.country} />
        </label>
        <select
          id={countryId}
          name="country"
          value={values.country}
          onChange={(e) => set('country')(e.target.value)}
          aria-invalid={errors.country ? true : undefined}
          aria-describedby={`${countryId}-error`}
        >
          {!info.country && <option value="">{intl.formatMessage(m.chooseCountry)}</option>}
          {options.map((o) => (
            <option key={o.code} value={o.code}>
              {o.name}
            </option>
          ))}
        </select>
        <ErrorText id={`${countryId}-error`} error={errors.country} />
      </div>
      {/* Beside the button just pressed ("Nothing has changed"). */}
      <FormStatus text={status.text} testId="profile-form-status" />
      <button type="submit" className="primary" disabled={busy}>
        <FormattedMessage {...m.save} />
      </button>
    </form>
  );
}
