// The fields of a partner app (create and edit): the names per language, description, logo,
// service URLs, frame origins, the sign-out addresses (OpenID Connect post-logout redirects and
// back-channel logout, a ticket app's logout URL), scopes, the organization setting and the recommended flag. The server checks every value
// (an error names its field and is shown there).
import { type FormEvent, useId, useState } from 'react';
import { defineMessages, FormattedMessage, type MessageDescriptor, useIntl } from 'react-intl';
import { ErrorText } from '../../components/field';
import type { AppDetail, AppFields } from './api';
import { scopeNames } from './labels';

const m = defineMessages({
  nameZh: { id: 'admin.appForm.nameZh', defaultMessage: 'Name in Chinese' },
  nameEn: { id: 'admin.appForm.nameEn', defaultMessage: 'Name in English' },
  description: { id: 'admin.appForm.description', defaultMessage: 'Description' },
  logo: { id: 'admin.appForm.logo', defaultMessage: 'Logo (an https address)' },
  privacyUrl: { id: 'admin.appForm.privacyUrl', defaultMessage: 'Privacy policy (an https address, linked from the consent screen)' },
  serviceUrls: { id: 'admin.appForm.serviceUrls', defaultMessage: 'Service URLs (one a line)' },
  serviceUrlsHint: { id: 'admin.appForm.serviceUrlsHint', defaultMessage: 'The exact addresses tickets and OpenID Connect codes may be sent to.' },
  frameOrigins: { id: 'admin.appForm.frameOrigins', defaultMessage: 'Frame origins (one a line)' },
  frameOriginsHint: { id: 'admin.appForm.frameOriginsHint', defaultMessage: 'The sites allowed to embed the sign-in, e.g. https://app.example.com' },
  postLogoutRedirectUris: { id: 'admin.appForm.postLogoutRedirectUris', defaultMessage: 'Addresses after sign-out (one a line)' },
  postLogoutRedirectUrisHint: {
    id: 'admin.appForm.postLogoutRedirectUrisHint',
    defaultMessage: 'The exact addresses an OpenID Connect sign-out may return to (post_logout_redirect_uri).',
  },
  backchannelLogoutUri: { id: 'admin.appForm.backchannelLogoutUri', defaultMessage: 'Back-channel logout URI (OpenID Connect, https)' },
  logoutUrl: { id: 'admin.appForm.logoutUrl', defaultMessage: 'Logout notice URL (ticket apps, https)' },
  ownerMail: { id: 'admin.appForm.ownerMail', defaultMessage: "Owner's e-mail (told when Ciam disables a webhook endpoint)" },
  scopes: { id: 'admin.appForm.scopes', defaultMessage: 'What the app may ask to see' },
  recommended: { id: 'admin.appForm.recommended', defaultMessage: 'Recommended to customers' },
  organization: { id: 'admin.appForm.organization', defaultMessage: "The person's organization (org_id, org_roles)" },
  orgNone: { id: 'admin.appForm.orgNone', defaultMessage: 'Only when an OpenID Connect request asks for it' },
  orgOptional: { id: 'admin.appForm.orgOptional', defaultMessage: 'Always, when the person has one (tickets too)' },
  orgRequired: { id: 'admin.appForm.orgRequired', defaultMessage: 'Required: a person without one is refused' },
  required: { id: 'admin.appForm.required', defaultMessage: 'Required' },
  cancel: { id: 'admin.cancel', defaultMessage: 'Cancel' },
});

const SCOPES = ['avatar', 'nickname', 'company', 'phone', 'email'] as const;
type Scope = (typeof SCOPES)[number];
type OrgSetting = NonNullable<AppDetail['organization']>;
const ORG_SETTINGS: readonly OrgSetting[] = ['none', 'optional', 'required'];
const orgLabels: Record<OrgSetting, MessageDescriptor> = { none: m.orgNone, optional: m.orgOptional, required: m.orgRequired };

export interface FieldError {
  field: string;
  text: string;
}

const lines = (s: string) =>
  s
    .split('\n')
    .map((x) => x.trim())
    .filter(Boolean);

/** The form's values from an app (edit) or empty (create). */
function initial(app?: AppDetail) {
  return {
    zh: app?.name['zh-CN'] ?? '',
    en: app?.name['en-US'] ?? '',
    description: app?.description ?? '',
    logo: app?.logo ?? '',
    privacyUrl: app?.privacyUrl ?? '',
    serviceUrls: (app?.serviceUrls ?? []).join('\n'),
    frameOrigins: (app?.frameOrigins ?? []).join('\n'),
    postLogoutRedirectUris: (app?.postLogoutRedirectUris ?? []).join('\n'),
    backchannelLogoutUri: app?.backchannelLogoutUri ?? '',
    logoutUrl: app?.logoutUrl ?? '',
    ownerMail: app?.ownerMail ?? '',
    scopes: new Set<Scope>(app?.scopes ?? []),
    recommended: app?.recommended ?? false,
    organization: (app?.organization ?? 'none') as OrgSetting,
  };
}

export function AppForm({
  app,
  submitLabel,
  error,
  onSubmit,
  onCancel,
  busy,
}: {
  app?: AppDetail;
  submitLabel: MessageDescriptor;
  error: FieldError | null;
  onSubmit: (fields: AppFields) => void;
  onCancel?: () => void;
  busy?: boolean;
}) {
  const id = useId();
  const intl = useIntl();
  const [v, setV] = useState(() => initial(app));
  const [missing, setMissing] = useState<Set<string>>(new Set());
  const set = <K extends keyof typeof v>(k: K, x: (typeof v)[K]) => setV((old) => ({ ...old, [k]: x }));
  const errorOf = (field: string): string | null =>
    missing.has(field) ? intl.formatMessage(m.required) : error && (error.field === field || error.field.startsWith(`${field}.`) || error.field.startsWith(`${field}[`)) ? error.text : null;
  const submit = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const need = new Set<string>();
    if (!v.zh.trim()) need.add('name.zh-CN');
    if (!v.en.trim()) need.add('name.en-US');
    if (lines(v.serviceUrls).length === 0) need.add('serviceUrls');
    setMissing(need);
    if (need.size) {
      const first = e.currentTarget.querySelector<HTMLElement>('[aria-invalid="true"], [data-field="' + [...need][0] + '"]');
      first?.focus();
      return;
    }
    onSubmit({
      name: { 'zh-CN': v.zh.trim(), 'en-US': v.en.trim() },
      description: v.description.trim(),
      ...(v.logo.trim() ? { logo: v.logo.trim() } : {}),
      ...(v.privacyUrl.trim() ? { privacyUrl: v.privacyUrl.trim() } : {}),
      serviceUrls: lines(v.serviceUrls),
      frameOrigins: lines(v.frameOrigins),
      postLogoutRedirectUris: lines(v.postLogoutRedirectUris),
      backchannelLogoutUri: v.backchannelLogoutUri.trim(),
      logoutUrl: v.logoutUrl.trim(),
      ownerMail: v.ownerMail.trim(),
      scopes: SCOPES.filter((s) => v.scopes.has(s)),
      recommended: v.recommended,
      organization: v.organization,
    });
  };
  const text = (key: 'zh' | 'en' | 'logo' | 'privacyUrl' | 'backchannelLogoutUri' | 'logoutUrl' | 'ownerMail', field: string, label: MessageDescriptor, type = 'text') => (
    <>
      <label htmlFor={`${id}${key}`}>
        <FormattedMessage {...label} />
      </label>
      <input
        id={`${id}${key}`}
        data-field={field}
        name={field}
        type={type}
        value={v[key]}
        autoComplete="off"
        aria-invalid={!!errorOf(field)}
        aria-describedby={`${id}${key}e`}
        onChange={(e) => set(key, e.target.value)}
      />
      <ErrorText id={`${id}${key}e`} error={errorOf(field)} />
    </>
  );
  const area = (key: 'description' | 'serviceUrls' | 'frameOrigins' | 'postLogoutRedirectUris', label: MessageDescriptor, hint?: MessageDescriptor) => (
    <>
      <label htmlFor={`${id}${key}`}>
        <FormattedMessage {...label} />
      </label>
      <textarea
        id={`${id}${key}`}
        data-field={key}
        name={key}
        rows={key === 'description' ? 2 : 3}
        value={v[key]}
        spellCheck={key === 'description'}
        aria-invalid={!!errorOf(key)}
        aria-describedby={`${hint ? `${id}${key}h ` : ''}${id}${key}e`}
        onChange={(e) => set(key, e.target.value)}
      />
      {hint && (
        <p id={`${id}${key}h`} className="hint muted">
          <FormattedMessage {...hint} />
        </p>
      )}
      <ErrorText id={`${id}${key}e`} error={errorOf(key)} />
    </>
  );
  return (
    <form className="console-form app-form" onSubmit={submit} noValidate data-testid="app-form">
      {text('zh', 'name.zh-CN', m.nameZh)}
      {text('en', 'name.en-US', m.nameEn)}
      {area('description', m.description)}
      {text('logo', 'logo', m.logo, 'url')}
      {text('privacyUrl', 'privacyUrl', m.privacyUrl, 'url')}
      {area('serviceUrls', m.serviceUrls, m.serviceUrlsHint)}
      {area('frameOrigins', m.frameOrigins, m.frameOriginsHint)}
      {area('postLogoutRedirectUris', m.postLogoutRedirectUris, m.postLogoutRedirectUrisHint)}
      {text('backchannelLogoutUri', 'backchannelLogoutUri', m.backchannelLogoutUri, 'url')}
      {text('logoutUrl', 'logoutUrl', m.logoutUrl, 'url')}
      {text('ownerMail', 'ownerMail', m.ownerMail, 'email')}
      <fieldset className="choice">
        <legend>
          <FormattedMessage {...m.scopes} />
        </legend>
        {SCOPES.map((s) => (
          <label key={s} className="radio">
            <input
              type="checkbox"
              name="scopes"
              value={s}
              checked={v.scopes.has(s)}
              onChange={(e) => {
                const next = new Set(v.scopes);
                if (e.target.checked) next.add(s);
                else next.delete(s);
                set('scopes', next);
              }}
            />
            <FormattedMessage {...scopeNames[s]} />
          </label>
        ))}
      </fieldset>
      <fieldset className="choice">
        <legend>
          <FormattedMessage {...m.organization} />
        </legend>
        {ORG_SETTINGS.map((o) => (
          <label key={o} className="radio">
            <input type="radio" name="organization" value={o} checked={v.organization === o} onChange={() => set('organization', o)} />
            <FormattedMessage {...orgLabels[o]} />
          </label>
        ))}
      </fieldset>
      <label className="radio">
        <input type="checkbox" name="recommended" checked={v.recommended} onChange={(e) => set('recommended', e.target.checked)} />
        <FormattedMessage {...m.recommended} />
      </label>
      <ErrorText id={`${id}other`} error={error && !['name', 'description', 'logo', 'privacyUrl', 'serviceUrls', 'frameOrigins', 'postLogoutRedirectUris', 'backchannelLogoutUri', 'logoutUrl', 'ownerMail'].some((f) => error.field.startsWith(f)) ? error.text : null} />
      <div className="actions">
        {onCancel && (
          <button type="button" onClick={onCancel}>
            <FormattedMessage {...m.cancel} />
          </button>
        )}
        <button type="submit" className="primary" disabled={busy} data-testid="app-form-submit">
          <FormattedMessage {...submitLabel} />
        </button>
      </div>
    </form>
  );
}
