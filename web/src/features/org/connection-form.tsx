// The form of one of the organization's own sign-in connections in "My company"
// (docs/organizations-connections.md §5): a new one or a change of one. The protocol select lists
// what the API accepts (OpenID Connect, WeCom, DingTalk, Feishu/Lark; protocols.ts holds each
// one's settings, their words and checks); a connection's protocol is not changed. Its names in
// both languages, the protocol's settings (OpenID Connect: the issuer, the client id, the scopes,
// the ACR that proves a second factor; WeCom: the CorpID and the app's AgentID; DingTalk: the
// Client ID and the CorpId; Feishu: the App ID, the tenant key and the edition), the secret in the
// platform's words (write-only: "a secret is set" when there is one, empty keeps it), who may come
// in (members only, or anybody it vouches for joins), and the redirect URI to register at the
// identity provider with a copy button. The server's refusals are said at the field they name
// (its own words), else atop the form.
import { type FormEvent, useEffect, useId, useState } from 'react';
import { defineMessages, FormattedMessage, useIntl } from 'react-intl';
import { Field, FormAlert } from '../../components/field';
import { useForm } from '../../components/use-form';
import { errorText } from '../../lib/api';
import type { OrgConnection } from '../../lib/api-types.gen';
import { createConnection, patchConnection } from './api';
import { isProtocol, PROTOCOLS, protocolWords, SECRET, type SettingKey, SETTINGS, settingProblems, settingsOf, settingValues } from './protocols';
import { SettingChoice } from './setting-choice';

const m = defineMessages({
  newHeading: { id: 'org.conn.form.newHeading', defaultMessage: 'Add a sign-in connection' },
  editHeading: { id: 'org.conn.form.editHeading', defaultMessage: 'Change {name}' },
  protocol: { id: 'org.conn.form.protocol', defaultMessage: 'Protocol' },
  nameZh: { id: 'org.conn.form.nameZh', defaultMessage: 'Name in Chinese' },
  nameEn: { id: 'org.conn.form.nameEn', defaultMessage: 'Name in English' },
  nameHint: { id: 'org.conn.form.nameHint', defaultMessage: 'Shown on the sign-in page\'s button: "Continue with" and the name. One of the two is enough.' },
  nameEmpty: { id: 'org.conn.form.nameEmpty', defaultMessage: 'Give a name in at least one language' },
  secretHint: { id: 'org.conn.form.secretHint', defaultMessage: 'Kept sealed; nobody can read it back.' },
  secretSet: { id: 'org.conn.form.secretSet', defaultMessage: 'A secret is set: leave this empty to keep it, or type a new one to replace it.' },
  jit: { id: 'org.conn.form.jit', defaultMessage: 'Who may sign in through it?' },
  jitOff: { id: 'org.conn.jit.off', defaultMessage: 'Members of the organization only' },
  jitJoin: { id: 'org.conn.jit.join', defaultMessage: 'Anybody it vouches for, who joins the organization with its default role' },
  redirect: { id: 'org.conn.form.redirect', defaultMessage: 'Redirect URI to register at your identity provider' },
  copy: { id: 'org.conn.form.copy', defaultMessage: 'Copy' },
  copyRedirect: { id: 'org.conn.form.copyRedirect', defaultMessage: 'Copy the redirect URI' },
  copied: { id: 'org.conn.form.copied', defaultMessage: 'Copied.' },
  copyFailed: { id: 'org.conn.form.copyFailed', defaultMessage: 'Could not copy: select the text and copy it.' },
  create: { id: 'org.conn.form.create', defaultMessage: 'Add connection' },
  save: { id: 'org.conn.form.save', defaultMessage: 'Save' },
  cancel: { id: 'org.conn.form.cancel', defaultMessage: 'Cancel' },
  retested: { id: 'org.conn.form.retested', defaultMessage: 'A new issuer, client or secret is not what the last test proved: test it again.' },
  limit: { id: 'org.conn.form.limit', defaultMessage: 'An organization has at most 10 sign-in connections: delete one first.' },
});

export const jitWords = { off: m.jitOff, join: m.jitJoin };

type Values = Record<SettingKey, string> & { nameZh: string; nameEn: string; protocol: string; secret: string; jit: string };

const initial = (c: OrgConnection | null): Values => ({
  ...settingValues(c?.settings),
  nameZh: c?.nameZh ?? '',
  nameEn: c?.nameEn ?? '',
  protocol: c?.protocol ?? 'oidc',
  secret: '',
  jit: c?.jit ?? 'off',
});

/** The redirect URI with its copy button. */
export function RedirectUri({ uri }: { uri: string }) {
  const intl = useIntl();
  const id = useId();
  const [said, setSaid] = useState<string | null>(null);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(uri);
      setSaid(intl.formatMessage(m.copied));
    } catch {
      setSaid(intl.formatMessage(m.copyFailed));
    }
  };
  return (
    <div className="redirect-uri">
      <p id={`${id}l`}>
        <FormattedMessage {...m.redirect} />
      </p>
      <div className="row">
        <code aria-labelledby={`${id}l`} data-testid="org-conn-redirect">
          {uri}
        </code>
        <button type="button" aria-label={intl.formatMessage(m.copyRedirect)} onClick={() => void copy()} data-testid="org-conn-copy">
          <FormattedMessage {...m.copy} />
        </button>
      </div>
      <p className="muted" aria-live="polite">
        {said}
      </p>
    </div>
  );
}

interface Props {
  orgId: string;
  /** The connection to change; none: a new one. */
  conn: OrgConnection | null;
  /** The redirect URI (every connection has the same), when one is known. */
  redirectUri: string | null;
  onSaved: (c: OrgConnection, created: boolean) => void;
  onCancel: () => void;
}

export function ConnectionForm({ orgId, conn, redirectUri, onSaved, onCancel }: Props) {
  const intl = useIntl();
  const lang = intl.locale;
  const f = useForm<Values>(() => initial(conn));
  const [busy, setBusy] = useState(false);
  const [note, setNote] = useState<string | null>(null);
  const hid = useId();
  const v = f.values;
  const protocol = isProtocol(v.protocol) ? v.protocol : 'oidc';
  const secret = SECRET[protocol];
  // Opened by a button that goes away with it: the focus moves to its first field.
  useEffect(() => (f.ref.current?.elements.namedItem('nameZh') as HTMLElement | null)?.focus(), [f.ref]);
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setNote(null);
    const t = (k: keyof Values) => v[k].trim();
    const ok = f.check({
      nameZh: t('nameZh') || t('nameEn') ? null : m.nameEmpty,
      ...settingProblems(v.protocol, v),
      secret: conn?.hasSecret || t('secret') ? null : secret.empty,
    });
    if (!ok) return;
    const settings = settingsOf(v.protocol, v);
    const names = { nameZh: t('nameZh') || null, nameEn: t('nameEn') || null };
    setBusy(true);
    const r = conn
      ? await patchConnection(orgId, conn.connId, { ...names, settings, jit: v.jit, secret: t('secret') || null })
      : await createConnection(orgId, { ...names, protocol: v.protocol, settings, secret: t('secret'), jit: v.jit });
    setBusy(false);
    if (r.success) return onSaved(r.data, !conn);
    const err = r.error;
    // The server names the field it refuses: its names are this form's, but for these two.
    if (err.reason === 'INVALID_PARAMETER' && err.field === 'connections') return setNote(intl.formatMessage(m.limit));
    if (err.reason === 'INVALID_PARAMETER' && err.field === 'names') return f.flag('nameZh', err.message || errorText(err));
    if (err.reason === 'INVALID_PARAMETER' && err.field && !(err.field in v)) return setNote(err.message || errorText(err));
    f.refuse(err);
  };
  return (
    <form ref={f.ref} onSubmit={(e) => void submit(e)} noValidate data-testid="org-conn-form" aria-labelledby={`${hid}h`} className="conn-form">
      <h3 id={`${hid}h`}>{conn ? <FormattedMessage {...m.editHeading} values={{ name: lang === 'zh-CN' ? conn.nameZh : conn.nameEn }} /> : <FormattedMessage {...m.newHeading} />}</h3>
      <FormAlert {...f.alert} />
      {note && (
        <p role="alert" className="field-error" data-testid="org-conn-form-note">
          {note}
        </p>
      )}
      <label htmlFor={`${hid}p`}>
        <FormattedMessage {...m.protocol} />
      </label>
      <select id={`${hid}p`} name="protocol" value={v.protocol} disabled={!!conn} onChange={(e) => f.set('protocol', e.target.value)} data-testid="org-conn-protocol">
        {PROTOCOLS.map((p) => (
          <option key={p} value={p}>
            {intl.formatMessage(protocolWords[p])}
          </option>
        ))}
      </select>
      <Field {...f.bind('nameZh')} label={m.nameZh} hint={m.nameHint} lang="zh-CN" maxLength={60} autoComplete="off" />
      <Field {...f.bind('nameEn')} label={m.nameEn} lang="en-US" maxLength={60} autoComplete="off" />
      {SETTINGS[protocol].map((s) =>
        s.choices ? (
          <SettingChoice key={s.key} setting={s} value={v[s.key]} onChange={(x) => f.set(s.key, x)} />
        ) : (
          <Field key={s.key} {...f.bind(s.key)} label={s.label} hint={s.hint} type={s.type} inputMode={s.inputMode} maxLength={s.key === 'issuer' ? 512 : 256}
            autoComplete="off" required={!!s.empty} />
        ),
      )}
      <Field {...f.bind('secret')} label={secret.label} hint={m.secretHint} type="password" maxLength={512} autoComplete="new-password"
        required={!conn?.hasSecret} data-testid="org-conn-secret" />
      {conn?.hasSecret && (
        <p className="muted" data-testid="org-conn-has-secret">
          <FormattedMessage {...m.secretSet} />
        </p>
      )}
      <fieldset className="choice">
        <legend>
          <FormattedMessage {...m.jit} />
        </legend>
        {(['off', 'join'] as const).map((x) => (
          <label key={x} className="radio">
            <input type="radio" name="jit" value={x} checked={v.jit === x} onChange={() => f.set('jit', x)} data-testid={`org-conn-jit-${x}`} /> {intl.formatMessage(jitWords[x])}
          </label>
        ))}
      </fieldset>
      {conn && conn.status !== 'draft' && (
        <p className="muted">
          <FormattedMessage {...m.retested} />
        </p>
      )}
      {redirectUri && <RedirectUri uri={redirectUri} />}
      <div className="actions">
        <button type="button" onClick={onCancel} disabled={busy}>
          <FormattedMessage {...m.cancel} />
        </button>
        <button type="submit" className="primary" disabled={busy} data-testid="org-conn-save">
          <FormattedMessage {...(conn ? m.save : m.create)} />
        </button>
      </div>
    </form>
  );
}
