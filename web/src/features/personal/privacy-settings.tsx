// Cookies and privacy settings: the choices (GET/PATCH /auth/privacy) and the history of every
// change, newest first, with its local date and time. Closed behind its row (the choices in one
// line and "Change", fold.tsx); saving keeps the form open, said by the form.
import { type FormEvent, useCallback, useEffect, useState } from 'react';
import { defineMessages, FormattedMessage, type MessageDescriptor, useIntl } from 'react-intl';
import { Link } from 'react-router';
import { paths } from '../../config/paths';
import { asLocale } from '../../i18n/locale';
import { handleError } from '../../lib/api';
import { getPrivacy, setPrivacy } from './api';
import { FormStatus, useFormStatus } from '../../components/form-status';
import { When } from '../../components/when';
import { hasReason } from '../../lib/reasons';
import { Fold } from './fold';
import { LoadState } from './load-state';
import { FormError } from '../../components/form-error';

const m = defineMessages({
  heading: { id: 'secure.cookies.heading', defaultMessage: 'Cookies and privacy' },
  intro: {
    id: 'secure.cookies.intro',
    defaultMessage: 'Choose how we may use data about your visits. Cookies needed for signing in are always on.',
  },
  link: { id: 'secure.cookies.link', defaultMessage: 'Read the privacy policy' },
  choices: { id: 'secure.cookies.choices', defaultMessage: 'Your choices' },
  analytics: { id: 'secure.cookies.analytics', defaultMessage: 'Analytics: help us improve the portal with usage statistics' },
  marketing: { id: 'secure.cookies.marketing', defaultMessage: 'Marketing: personalised content and offers' },
  save: { id: 'secure.cookies.save', defaultMessage: 'Save choices' },
  saved: { id: 'secure.cookies.saved', defaultMessage: 'Your privacy choices have been saved' },
  unchanged: { id: 'secure.cookies.unchanged', defaultMessage: 'Nothing has changed' },
  history: { id: 'secure.cookies.history', defaultMessage: 'History of your choices' },
  noHistory: { id: 'secure.cookies.noHistory', defaultMessage: 'You have not changed your choices yet.' },
  analyticsOn: { id: 'secure.cookies.analyticsOn', defaultMessage: 'Analytics turned on' },
  analyticsOff: { id: 'secure.cookies.analyticsOff', defaultMessage: 'Analytics turned off' },
  marketingOn: { id: 'secure.cookies.marketingOn', defaultMessage: 'Marketing turned on' },
  marketingOff: { id: 'secure.cookies.marketingOff', defaultMessage: 'Marketing turned off' },
  loading: { id: 'secure.cookies.loading', defaultMessage: 'Loading your choices…' },
  failed: { id: 'secure.cookies.failed', defaultMessage: 'Your privacy choices could not be loaded.' },
  retry: { id: 'secure.cookies.retry', defaultMessage: 'Try again' },
  summary: { id: 'secure.cookies.summary', defaultMessage: 'Analytics: {analytics} · Marketing: {marketing}' },
  on: { id: 'secure.cookies.on', defaultMessage: 'on' },
  off: { id: 'secure.cookies.off', defaultMessage: 'off' },
  change: { id: 'secure.cookies.change', defaultMessage: 'Change choices' },
});

export const CHOICES = ['analytics', 'marketing'] as const;
export type Choice = (typeof CHOICES)[number];
type Settings = Record<Choice, boolean>;
export interface Privacy {
  settings: Settings;
  history: { at: number; changes: Partial<Settings> }[];
}

const LABEL: Record<Choice, MessageDescriptor> = { analytics: m.analytics, marketing: m.marketing };
const CHANGE: Record<Choice, [MessageDescriptor, MessageDescriptor]> = {
  analytics: [m.analyticsOff, m.analyticsOn],
  marketing: [m.marketingOff, m.marketingOn],
};

/** The answer, with absent fields as "off" and no history (an old server, a partial answer). */
export function readPrivacy(raw: unknown): Privacy {
  const r = (raw ?? {}) as Partial<Privacy>;
  const s = (r.settings ?? {}) as Partial<Settings>;
  const history = Array.isArray(r.history) ? r.history.filter((h) => h && typeof h.at === 'number') : [];
  return { settings: { analytics: s.analytics === true, marketing: s.marketing === true }, history };
}

/** The choices that differ from the stored ones (the PATCH body). */
export function changedChoices(stored: Settings, wanted: Settings): Partial<Settings> {
  return Object.fromEntries(CHOICES.filter((c) => stored[c] !== wanted[c]).map((c) => [c, wanted[c]]));
}

export function PrivacySettings() {
  const intl = useIntl();
  const lang = asLocale(intl.locale) ?? 'zh-CN';
  const [data, setData] = useState<Privacy | null>(null);
  const [wanted, setWanted] = useState<Settings | null>(null);
  const [failed, setFailed] = useState(false);
  const [busy, setBusy] = useState(false);
  const status = useFormStatus();
  const load = useCallback(async () => {
    setFailed(false);
    const res = await getPrivacy();
    if (res.success) {
      const p = readPrivacy(res.data);
      setData(p);
      setWanted(p.settings);
    } else {
      if (hasReason(res.error, 'AUTHORIZATION_FAILED')) handleError(res.error);
      setFailed(true);
    }
  }, []);
  useEffect(() => void load(), [load]);
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (!data || !wanted) return;
    const diff = changedChoices(data.settings, wanted);
    if (Object.keys(diff).length === 0) {
      status.say(intl.formatMessage(m.unchanged));
      return;
    }
    setBusy(true);
    const res = await setPrivacy(diff);
    setBusy(false);
    if (res.success) {
      const p = readPrivacy(res.data);
      setData(p);
      setWanted(p.settings);
      status.say(intl.formatMessage(m.saved));
    }
  };
  return (
    <section className="card" aria-labelledby="cookies-title" data-testid="privacy">
      <h2 id="cookies-title">
        <FormattedMessage {...m.heading} />
      </h2>
      <p className="muted">
        <FormattedMessage {...m.intro} /> <Link to={paths.privacy(lang)}>{intl.formatMessage(m.link)}</Link>
      </p>
      {data && wanted ? (
        <Fold
          name="privacy-form"
          saidTestId="privacy-said"
          action={m.change}
          summary={
            <p data-testid="privacy-summary">
              <FormattedMessage
                {...m.summary}
                values={{
                  analytics: intl.formatMessage(data.settings.analytics ? m.on : m.off),
                  marketing: intl.formatMessage(data.settings.marketing ? m.on : m.off),
                }}
              />
            </p>
          }
        >
          {() => (
            <>
              <form data-testid="privacy-form" onSubmit={(e) => void submit(e)} onChange={status.clear}>
                <FormError />
                <fieldset>
                  <legend>
                    <FormattedMessage {...m.choices} />
                  </legend>
                  {CHOICES.map((c) => (
                    <div className="check" key={c}>
                      <input
                        id={`privacy-${c}`}
                        type="checkbox"
                        name={c}
                        checked={wanted[c]}
                        onChange={(e) => setWanted({ ...wanted, [c]: e.target.checked })}
                      />
                      <label htmlFor={`privacy-${c}`}>
                        <FormattedMessage {...LABEL[c]} />
                      </label>
                    </div>
                  ))}
                </fieldset>
                {/* Beside the button just pressed. */}
                <FormStatus text={status.text} testId="privacy-status" />
                <button type="submit" className="primary" disabled={busy}>
                  <FormattedMessage {...m.save} />
                </button>
              </form>
              <h3>
                <FormattedMessage {...m.history} />
              </h3>
              {data.history.length === 0 ? (
                <p className="muted">
                  <FormattedMessage {...m.noHistory} />
                </p>
              ) : (
                <ul className="events" data-testid="privacy-history">
                  {data.history.map((h, i) => (
                    <li key={`${h.at}-${i}`}>
                      <When at={h.at} />
                      <span>
                        {intl.formatList(
                          CHOICES.filter((c) => typeof h.changes?.[c] === 'boolean').map((c) => intl.formatMessage(CHANGE[c][h.changes[c] ? 1 : 0])),
                          { type: 'conjunction' },
                        )}
                      </span>
                    </li>
                  ))}
                </ul>
              )}
            </>
          )}
        </Fold>
      ) : (
        <LoadState section failed={failed} onRetry={() => void load()} said={{ loading: m.loading, loadFailed: m.failed, retry: m.retry }} />
      )}
    </section>
  );
}
