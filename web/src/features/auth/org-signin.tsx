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
//
// In a partner's frame (`framed`, embedded-signin.tsx; docs/partners.md §5, docs/web-experience.md
// "Embedded sign-in"), nothing navigates the frame or the partner's page: the button opens the
// company's sign-in in a popup (a top-level window of Ciam's own, opened at once on the press, so
// no pop-up blocker stops it), with a bind kept in this frame's memory (a framed page may have no
// storage) and `orgFrame=1` in the query to return to. The popup comes back to Ciam's sign-in page
// (`orgCode`/`orgError`/`orgPending`), which redeems nothing: `FrameReturn` hands the way back to
// the frame that opened it (postMessage to `window.opener`, at Ciam's own origin only) and closes;
// the frame redeems the code with its bind (POST /auth/login/federation, provider `org`) and goes
// on as after a password (two-factor, consent, the ticket posted to the host page). A refusal of
// the password for ORG_SIGN_IN_REQUIRED (`refused`) is said here in its own words, with the
// button; the words are also handed to the frame (`onSaid`) to tell the host page.
import { type ReactElement, useEffect, useMemo, useRef, useState } from 'react';
import { createIntl, defineMessages, FormattedMessage, RawIntlProvider, useIntl } from 'react-intl';
import { useLocation } from 'react-router';
import type { Messages } from '../../i18n/load';
import { titles } from '../../i18n/titles';
import { type Locale, normalize } from '../../i18n/locale';
import { type Answer, type ApiError, call, errorText, SKIP } from '../../lib/api';
import { BASE } from '../../lib/api-url';
import { keepQuery } from '../../lib/redirect';

const m = defineMessages({
  continueWith: { id: 'orgSignIn.continue', defaultMessage: 'Continue with {company}' },
  required: { id: 'orgSignIn.required', defaultMessage: '{company} asks you to sign in with its own account.' },
  refused: { id: 'error.ORG_SIGN_IN_REQUIRED', defaultMessage: 'Your company asks you to sign in with its own account.' },
  newWindow: { id: 'orgSignIn.newWindow', defaultMessage: 'Continue with {company} (opens a new window)' },
  blocked: { id: 'orgSignIn.blocked', defaultMessage: 'The browser blocked the sign-in window. Allow pop-ups for this site, then press the button again.' },
  waiting: { id: 'orgSignIn.waiting', defaultMessage: 'Sign in with {company} in the window that opened.' },
  redeeming: { id: 'orgSignIn.redeeming', defaultMessage: 'Signing you in with {company}…' },
  cancelled: { id: 'orgSignIn.cancelled', defaultMessage: 'You cancelled at {company}. Try again or choose another way.' },
  notPermitted: { id: 'orgSignIn.notPermitted', defaultMessage: '{company} lets only its members sign in this way. Ask its administrator to add you.' },
  failed: { id: 'orgSignIn.failed', defaultMessage: 'Sign-in with {company} failed. Please try again.' },
  pending: {
    id: 'orgSignIn.pending',
    defaultMessage: 'Your {company} account is not linked to a Ciam account yet. Sign in with {company} once on Ciam’s own page, then here again.',
  },
  openPage: { id: 'orgSignIn.openPage', defaultMessage: 'Open Ciam’s sign-in (opens a new window)' },
  handedOff: { id: 'orgSignIn.handedOff', defaultMessage: 'Back to the page you came from: the sign-in goes on there.' },
  lost: { id: 'orgSignIn.lost', defaultMessage: 'This window lost its link to the page that opened it. Close it and start again there.' },
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
/** Where this tab keeps the company it left for (federation/shared.ts `FED_ORG_KEY`). */
const ORG_KEY = 'ciam_fed_org';

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

// A framed sign-in's bind: in this frame's memory only (reloading the frame starts over).
let frameBind: string | null = null;

/** A new random bind (256 bits) kept in this tab (framed: in memory); answers its SHA-256 (base64url). */
async function newBind(framed = false): Promise<string> {
  const bind = base64url(crypto.getRandomValues(new Uint8Array(32)));
  if (framed) frameBind = bind;
  else sessionStorage.setItem(BIND_KEY, bind);
  return base64url(new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(bind))));
}

/** The query marker of a company sign-in opened from a frame (before `serviceUrl`, which ends a query). */
export const FRAME_MARK = 'orgFrame=1';
/** The popup's name (one at a time: a second press reuses it). */
export const POPUP = 'ciam-org-signin';

/** What the popup hands the frame: the way back's kind and value (`org<Kind>` of the address). */
export type HandOff = { type: 'ciam:org-back'; kind: 'Code' | 'Error' | 'Pending'; value: string };

/** Where the button goes: the server's start with the connection, the language, the bind's hash and the query to return to. */
export function orgStartUrl(connection: string, lang: Locale, search: string, bindHash: string, framed = false): string {
  const kept = keepQuery(search).replace(/^\?/, '');
  const query = framed ? (kept ? `${FRAME_MARK}&${kept}` : FRAME_MARK) : kept;
  return `${BASE}/auth/org/start?${new URLSearchParams({ connection, lang, bindHash, query })}`;
}

/** What a framed sign-in tells the frame that opened it (embedded-signin.tsx). */
export interface Framed {
  /** Signed in: the session's token (the frame goes on as after a password). */
  onSignedIn: (token: string) => void;
  /** Refused after the way back (NEED_TOTP_VERIFY: the frame's second step); true when taken over. */
  onRefused: (e: ApiError) => boolean;
  /** The words said of a refusal, for the host page (`ciam:error`). */
  onSaid: (reason: string, text: string) => void;
}

const companyName = (found: Found, lang: Locale) =>
  lang === 'en-US' ? found.name['en-US'] || found.name['zh-CN'] : found.name['zh-CN'] || found.name['en-US'];

const BACK_WORDS: Record<string, typeof m.failed> = { FEDERATION_CANCELLED: m.cancelled, FEDERATION_NOT_PERMITTED: m.notPermitted };

type FrameState = { at: 'idle' } | { at: 'blocked' } | { at: 'waiting' } | { at: 'redeeming' } | { at: 'said'; text: string } | { at: 'pending' };

/** The frame's side of a company sign-in in a popup: opens it, hears its way back, redeems. */
function useFrameSignIn(found: Found, framed: Framed | undefined) {
  const intl = useIntl();
  const lang = normalize(intl.locale);
  const { search } = useLocation();
  const [state, setState] = useState<FrameState>({ at: 'idle' });
  const popup = useRef<Window | null>(null);
  const company = companyName(found, lang);
  useEffect(() => {
    if (!framed) return;
    const heard = (e: MessageEvent) => {
      // Only Ciam's own page in the popup this frame opened.
      if (e.origin !== window.location.origin || !popup.current || e.source !== popup.current) return;
      const back = e.data as Partial<HandOff> | null;
      if (back?.type !== 'ciam:org-back' || typeof back.value !== 'string') return;
      popup.current = null;
      const say = (reason: string, text: string) => {
        setState({ at: 'said', text });
        framed.onSaid(reason, text);
      };
      if (back.kind === 'Pending') return setState({ at: 'pending' });
      if (back.kind === 'Error') {
        const reason = /^[A-Z_]{1,64}$/.test(back.value) ? back.value : 'AUTHORIZATION_FAILED';
        const words = BACK_WORDS[reason];
        return say(reason, words ? intl.formatMessage(words, { company }) : intl.formatMessage(m.failed, { company }));
      }
      const bind = frameBind;
      frameBind = null;
      if (back.kind !== 'Code' || !bind) return say('AUTHORIZATION_FAILED', intl.formatMessage(m.failed, { company }));
      setState({ at: 'redeeming' });
      void call('POST /auth/login/federation', { body: { provider: 'org', code: back.value, bind } }, SKIP).then((r) => {
        if (r.success) {
          setState({ at: 'idle' });
          return framed.onSignedIn(r.data.token);
        }
        setState({ at: 'idle' });
        if (!framed.onRefused(r.error)) say(r.error.reason, errorText(r.error));
      });
    };
    window.addEventListener('message', heard);
    return () => window.removeEventListener('message', heard);
  }, [framed, intl, company]);
  const open = () => {
    // Opened on the press itself (a pop-up blocker lets a window opened later through only
    // sometimes), then sent to the start once the bind's hash is known.
    const w = window.open('about:blank', POPUP, 'popup,width=520,height=720');
    if (!w) return setState({ at: 'blocked' });
    popup.current = w;
    setState({ at: 'waiting' });
    void newBind(true).then((hash) => {
      w.location.href = orgStartUrl(found.id, lang, search, hash, true);
    });
  };
  return { state, open, company };
}

function Offer({ found, refused, framed }: { found: Found; refused: boolean; framed?: Framed }) {
  const intl = useIntl();
  const lang = normalize(intl.locale);
  const { search } = useLocation();
  const company = companyName(found, lang);
  const frame = useFrameSignIn(found, framed);
  const go = framed ? frame.open : () => void newBind().then((hash) => window.location.assign(orgStartUrl(found.id, lang, search, hash)));
  // The company named on the way back's phone proof (federation/shared.ts `readOrg`).
  const leave = framed
    ? go
    : () => {
        sessionStorage.setItem(ORG_KEY, JSON.stringify({ name: found.name, protocol: found.protocol }));
        go();
      };
  const st = frame.state;
  return (
    <>
      {refused ? (
        <p className="form-alert on" role="alert" data-testid="org-refused">
          <FormattedMessage {...m.refused} />
        </p>
      ) : (
        found.required && (
          <p className="notice" data-testid="org-required">
            <FormattedMessage {...m.required} values={{ company }} />
          </p>
        )
      )}
      <button type="button" className={found.required || refused ? 'primary' : undefined} data-testid="org-continue" onClick={leave}
        disabled={st.at === 'redeeming'}>
        <FormattedMessage {...(framed ? m.newWindow : m.continueWith)} values={{ company }} />
      </button>
      {framed && (
        <p className={st.at === 'waiting' || st.at === 'redeeming' ? 'muted' : 'sr-only'} role="status" data-testid="org-frame-status">
          {st.at === 'waiting' && <FormattedMessage {...m.waiting} values={{ company }} />}
          {st.at === 'redeeming' && <FormattedMessage {...m.redeeming} values={{ company }} />}
        </p>
      )}
      {(st.at === 'blocked' || st.at === 'said') && (
        <p className="form-alert on" role="alert" data-testid="org-frame-error">
          {st.at === 'said' ? st.text : <FormattedMessage {...m.blocked} />}
        </p>
      )}
      {st.at === 'pending' && (
        <p className="notice" role="alert" data-testid="org-frame-pending">
          <FormattedMessage {...m.pending} values={{ company }} />{' '}
          <a href={`/${lang}/passport/signin`} target="_blank" rel="noopener">
            <FormattedMessage {...m.openPage} />
          </a>
        </p>
      )}
    </>
  );
}

/** The way back of a company sign-in a frame opened (`orgCode|orgError|orgPending`), else null. */
export function frameBack(search: string): HandOff | null {
  const q = new URLSearchParams(search);
  for (const kind of ['Code', 'Error', 'Pending'] as const) {
    const value = q.get(`org${kind}`);
    if (value) return { type: 'ciam:org-back', kind, value };
  }
  return null;
}

/**
 * Ciam's sign-in page in the popup a frame opened (`orgFrame=1`), back from the company: hands
 * the way back to the frame (its opener, at this origin only), takes it out of the address and
 * closes; without an opener (or without a way back), says so.
 */
export function FrameReturn() {
  const [handed] = useState(() => {
    const opener = window.opener as Window | null;
    const back = frameBack(window.location.search);
    if (!opener || !back) return false;
    try {
      opener.postMessage(back, window.location.origin);
      return true;
    } catch {
      return false;
    }
  });
  useEffect(() => {
    window.history.replaceState(null, '', window.location.pathname);
    if (handed) window.close();
  }, [handed]);
  return (
    <div className="card">
      <h1>
        <FormattedMessage {...titles.signin} />
      </h1>
      <Words>{(intl) => <p role="status" data-testid="org-frame-return">{intl.formatMessage(handed ? m.handedOff : m.lost)}</p>}</Words>
    </div>
  );
}

/** This chunk's words (its bundle) over the page's. */
function useWords(): ReturnType<typeof createIntl> | null {
  const outer = useIntl();
  const locale = normalize(outer.locale);
  const [extra, setExtra] = useState<Messages | null>(null);
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
  return useMemo(
    () => extra && createIntl({ locale: outer.locale, defaultLocale: outer.defaultLocale, messages: { ...(outer.messages as Messages), ...extra }, onError: () => {} }),
    [outer, extra],
  );
}

function Words({ children }: { children: (intl: NonNullable<ReturnType<typeof useWords>>) => ReactElement }) {
  const intl = useWords();
  return intl && <RawIntlProvider value={intl}>{children(intl)}</RawIntlProvider>;
}

interface Props {
  account: string;
  /** In a partner's frame: the sign-in opens in a popup and comes back here. */
  framed?: Framed;
  /** The password was refused with ORG_SIGN_IN_REQUIRED: said here, in its own words. */
  refused?: boolean;
}

export default function OrgSignIn(props: Props): ReactElement | null {
  // Ciam's sign-in page in the popup a frame opened (signin.tsx renders this chunk alone then).
  const [popup] = useState(() => new URLSearchParams(window.location.search).get('orgFrame') === '1');
  return popup ? <FrameReturn /> : <Offered {...props} />;
}

function Offered({ account, framed, refused = false }: Props): ReactElement | null {
  // The answer with the domain it is about: another domain typed shows nothing until its own.
  const [answer, setAnswer] = useState<{ domain: string; found: Found | null }>();
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
  const intl = useWords();
  const shown = !!found && !!intl;
  // The card gives the password and code fields up only while the offer is on screen.
  const only = (!!found?.required || refused) && shown;
  useEffect(() => {
    const card = box.current?.closest('.card');
    card?.classList.toggle('org-only', only);
    return () => card?.classList.remove('org-only');
  }, [only]);
  // The refusal's words, for the host page, once they are known.
  const said = useRef(false);
  useEffect(() => {
    if (!refused) {
      said.current = false;
      return;
    }
    if (intl && framed && !said.current) {
      said.current = true;
      framed.onSaid('ORG_SIGN_IN_REQUIRED', intl.formatMessage(m.refused));
    }
  }, [refused, intl, framed]);
  return (
    <div ref={box} className="org-signin" aria-live="polite" data-testid="org-signin">
      {shown && intl && found && (
        <RawIntlProvider value={intl}>
          <Offer found={found} refused={refused} framed={framed} />
        </RawIntlProvider>
      )}
      {refused && !shown && intl && (
        <p className="form-alert on" role="alert" data-testid="org-refused">
          {intl.formatMessage(m.refused)}
        </p>
      )}
    </div>
  );
}
