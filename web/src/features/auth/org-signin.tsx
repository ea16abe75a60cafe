// The company's own sign-in on the sign-in screen (docs/organizations-connections.md §0.4, §5):
// one lazy chunk, loaded on the first mail typed (signin.tsx), so the first download carries
// nothing of it. It asks POST /auth/org/discover for the typed mail (debounced; once per domain)
// and, when the domain is routed to a company's connection, offers "Continue with <company>";
// when the company requires it, it says why and marks the card `org-only`, whose rule
// (styles.css) hides the password and code fields under the account: the server refuses them
// anyway (ORG_SIGN_IN_REQUIRED). The change is announced (aria-live). The words travel in the
// message bundle `orgsignin` (scripts/i18n.mjs), loaded here.
//
// The button leaves for GET /auth/org/start with the connection, the language, the hash of this
// tab's bind and the query to return to, as the other providers' buttons do
// (federation/shared.ts `startUrl`, `newFedBind`: the same sessionStorage key, so the way back
// redeems with it).
import { type ReactElement, useEffect, useMemo, useRef, useState } from 'react';
import { createIntl, defineMessages, FormattedMessage, RawIntlProvider, useIntl } from 'react-intl';
import { useLocation } from 'react-router';
import type { Messages } from '../../i18n/load';
import { type Locale, normalize } from '../../i18n/locale';
import { type Answer, call, SKIP } from '../../lib/api';
import { BASE } from '../../lib/api-url';
import { keepQuery } from '../../lib/redirect';

const m = defineMessages({
  continueWith: { id: 'orgSignIn.continue', defaultMessage: 'Continue with {company}' },
  required: { id: 'orgSignIn.required', defaultMessage: '{company} asks you to sign in with its own account.' },
});

// Each language's file named (not a template: that would add a loader helper to the entry chunk).
const BUNDLE: Record<Locale, () => Promise<{ default: unknown }>> = {
  'en-US': () => import('../../i18n/compiled/en-US.orgsignin.json'),
  'zh-CN': () => import('../../i18n/compiled/zh-CN.orgsignin.json'),
};

/** How long typing must pause before the mail is asked about. */
export const DEBOUNCE_MS = 400;
/** The sessionStorage key of this tab's bind (federation/shared.ts `FED_BIND_KEY`). */
export const BIND_KEY = 'ciam_fed_bind';

type Found = NonNullable<Answer<'POST /auth/org/discover'>['connection']> & { required: boolean };

/** The mail's domain when `typed` looks like a mail, else null (nothing is asked). */
export function domainOf(typed: string): string | null {
  const t = typed.trim().toLowerCase();
  return /^[^\s@]+@([^\s@]+\.[^\s@]+)$/.exec(t)?.[1] ?? null;
}

// One answer per domain for the page's life: retyping asks nothing again.
const asked = new Map<string, Promise<Found | null>>();

/** What POST /auth/org/discover says of `mail` (null: sign in as usual; also when it failed). */
export function discover(mail: string, domain: string): Promise<Found | null> {
  let p = asked.get(domain);
  if (!p) {
    p = call('POST /auth/org/discover', { body: { mail: mail.trim() } }, SKIP).then((r) => {
      // A failure is not remembered: the next mail typed asks again.
      if (!r.success) asked.delete(domain);
      return r.success && r.data.connection ? { ...r.data.connection, required: !!r.data.required } : null;
    });
    asked.set(domain, p);
  }
  return p;
}

/** Forgets the answers (tests). */
export const forget = () => asked.clear();

const base64url = (bytes: Uint8Array) =>
  btoa(String.fromCharCode(...bytes))
    .replace(/=+$/, '')
    .replace(/[+/]/g, (c) => (c === '+' ? '-' : '_'));

/** A new random bind (256 bits) kept in this tab; answers its SHA-256 (base64url). */
async function newBind(): Promise<string> {
  const bind = base64url(crypto.getRandomValues(new Uint8Array(32)));
  sessionStorage.setItem(BIND_KEY, bind);
  return base64url(new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(bind))));
}

/** Where the button goes: the server's start with the connection, the language, the bind's hash and the query to return to. */
export function orgStartUrl(connection: string, lang: Locale, search: string, bindHash: string): string {
  const query = keepQuery(search).replace(/^\?/, '');
  return `${BASE}/auth/org/start?${new URLSearchParams({ connection, lang, bindHash, query })}`;
}

function Offer({ found }: { found: Found }) {
  const intl = useIntl();
  const lang = normalize(intl.locale);
  const { search } = useLocation();
  const company = lang === 'en-US' ? found.name['en-US'] || found.name['zh-CN'] : found.name['zh-CN'] || found.name['en-US'];
  const go = () => void newBind().then((hash) => window.location.assign(orgStartUrl(found.id, lang, search, hash)));
  return (
    <>
      {found.required && (
        <p className="notice" data-testid="org-required">
          <FormattedMessage {...m.required} values={{ company }} />
        </p>
      )}
      <button type="button" className={found.required ? 'primary' : undefined} data-testid="org-continue" onClick={go}>
        <FormattedMessage {...m.continueWith} values={{ company }} />
      </button>
    </>
  );
}

export default function OrgSignIn({ account }: { account: string }): ReactElement | null {
  const outer = useIntl();
  const locale = normalize(outer.locale);
  // The answer with the domain it is about: another domain typed shows nothing until its own.
  const [answer, setAnswer] = useState<{ domain: string; found: Found | null }>();
  const [extra, setExtra] = useState<Messages | null>(null);
  const box = useRef<HTMLDivElement>(null);
  const domain = domainOf(account);
  const found = domain && answer?.domain === domain ? answer.found : null;
  useEffect(() => {
    if (!domain) return;
    let live = true;
    const t = setTimeout(() => void discover(account, domain).then((f) => live && setAnswer({ domain, found: f })), DEBOUNCE_MS);
    return () => {
      live = false;
      clearTimeout(t);
    };
  }, [account, domain]);
  useEffect(() => {
    let live = true;
    BUNDLE[locale]().then(
      (b) => live && setExtra(b.default as Messages),
      // Without its words the offer is left out (the password and code ways stay).
      () => {},
    );
    return () => {
      live = false;
    };
  }, [locale]);
  const intl = useMemo(
    () => extra && createIntl({ locale: outer.locale, defaultLocale: outer.defaultLocale, messages: { ...(outer.messages as Messages), ...extra }, onError: () => {} }),
    [outer, extra],
  );
  const shown = !!found && !!intl;
  // The card gives the password and code fields up only while the offer is on screen.
  const only = !!found?.required && !!intl;
  useEffect(() => {
    const card = box.current?.closest('.card');
    card?.classList.toggle('org-only', only);
    return () => card?.classList.remove('org-only');
  }, [only]);
  return (
    <div ref={box} className="org-signin" aria-live="polite" data-testid="org-signin">
      {shown && intl && found && (
        <RawIntlProvider value={intl}>
          <Offer found={found} />
        </RawIntlProvider>
      )}
    </div>
  );
}
