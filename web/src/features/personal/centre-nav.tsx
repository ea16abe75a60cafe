// The account centre's sections' menu (beside the sections from 960 px wide, above them on a
// phone, where it shows one section at a time: see personal.css): one link per section, each a
// real address under the two personal pages (`/{lang}/personal/secure#two-factor`).
// The link of the section in view by address carries aria-current; arriving at an address with a
// section (or a hash change) scrolls that section into view and moves the focus to its heading.
import { type ReactNode, useEffect } from 'react';
import { defineMessages, FormattedMessage, type MessageDescriptor, useIntl } from 'react-intl';
import { Link, useLocation } from 'react-router';
import { paths } from '../../config/paths';
import { asLocale, type Locale } from '../../i18n/locale';
import { useServerPasskeys } from '../../lib/passkey-gate';
import { FormError } from '../../components/form-error';

const m = defineMessages({
  nav: { id: 'personal.sections.nav', defaultMessage: 'Account centre sections' },
  profile: { id: 'personal.sections.profile', defaultMessage: 'Profile' },
  security: { id: 'personal.sections.security', defaultMessage: 'Sign-in and security' },
  passkeys: { id: 'personal.sections.passkeys', defaultMessage: 'Passkeys' },
  twoFactor: { id: 'personal.sections.twoFactor', defaultMessage: 'Two-factor authentication' },
  sessions: { id: 'personal.sections.sessions', defaultMessage: 'Devices and activity' },
  privacy: { id: 'personal.sections.privacy', defaultMessage: 'Privacy' },
  apps: { id: 'personal.sections.apps', defaultMessage: 'Apps' },
});

type Page = 'info' | 'secure';
export type SectionId = 'profile' | 'security' | 'passkeys' | 'two-factor' | 'sessions' | 'privacy' | 'apps';

/** The sections in the order of the navigation, each with its page. */
export const SECTIONS: readonly { id: SectionId; page: Page; label: MessageDescriptor }[] = [
  { id: 'profile', page: 'info', label: m.profile },
  { id: 'security', page: 'secure', label: m.security },
  { id: 'passkeys', page: 'secure', label: m.passkeys },
  { id: 'two-factor', page: 'secure', label: m.twoFactor },
  { id: 'sessions', page: 'secure', label: m.sessions },
  { id: 'privacy', page: 'secure', label: m.privacy },
  { id: 'apps', page: 'info', label: m.apps },
];

export const sectionHref = (lang: Locale, page: Page, id: SectionId) => `${paths[page](lang)}#${id}`;

/** The section a page's address points at: its hash when it names a section of `page`, else the page's first. */
export function currentSection(page: Page, hash: string): SectionId {
  const id = decodeURIComponent(hash.replace(/^#/, ''));
  const own = SECTIONS.filter((s) => s.page === page);
  return (own.find((s) => s.id === id) ?? own[0]!).id;
}

export function CentreNav({ page }: { page: Page }) {
  const intl = useIntl();
  const lang = asLocale(intl.locale) ?? 'zh-CN';
  const { hash } = useLocation();
  const current = currentSection(page, hash);
  // Passkeys leave the navigation once the server says it has none (lib/passkey-gate.ts).
  const passkeys = useServerPasskeys();
  return (
    <nav className="centre-nav" aria-label={intl.formatMessage(m.nav)} data-testid="centre-nav">
      <ul>
        {SECTIONS.filter((s) => passkeys || s.id !== 'passkeys').map((s) => (
          <li key={s.id}>
            <Link
              to={sectionHref(lang, s.page, s.id)}
              data-section={s.id}
              aria-current={s.page === page && s.id === current ? 'location' : undefined}
            >
              <FormattedMessage {...s.label} />
            </Link>
          </li>
        ))}
      </ul>
    </nav>
  );
}

/**
 * A group of cards that the navigation can point at. Below 960 px only the section the address
 * names (its page's first without one) is shown: each section is a screen of its own, reached
 * from the sections' menu (personal.css; issue 34 item 2). From 960 px every section shows.
 */
export function CentreSection({ id, children }: { id: SectionId; children: ReactNode }) {
  const { hash } = useLocation();
  const page = SECTIONS.find((s) => s.id === id)!.page;
  const current = currentSection(page, hash) === id;
  return (
    <div id={id} className="centre-section" data-section={id} data-current={current || undefined}>
      {/* The default handler's errors from a control of this section (not of a form with its own). */}
      <FormError testId={`${id}-error`} />
      {children}
    </div>
  );
}

/**
 * On arrival at an address with a section, and on every change of the hash (a navigation link,
 * the back button, an edited address), scrolls that section into view and focuses its first
 * heading (made focusable by script: tabindex -1), so keyboard and screen-reader users land there.
 * Again once the page's account has loaded (`ready`): the sections' headings come with it.
 */
const USER_MOVES = ['wheel', 'touchstart', 'keydown', 'pointerdown'] as const;

export function useSectionFocus(ready: boolean) {
  const location = useLocation();
  useEffect(() => {
    const id = decodeURIComponent(location.hash.replace(/^#/, ''));
    if (!id || !SECTIONS.some((s) => s.id === id)) return;
    const section = document.getElementById(id);
    if (!section) return;
    const heading = section.querySelector<HTMLElement>('h2');
    const target = heading ?? section;
    if (!target.hasAttribute('tabindex')) target.setAttribute('tabindex', '-1');
    target.focus({ preventScroll: true });
    const scroll = () => section.scrollIntoView?.({ block: 'start' });
    scroll();
    // Lists that load after arrival change the page's height: keep the section in place for a
    // moment, until the user scrolls or types.
    if (typeof ResizeObserver !== 'function') return;
    const watch = new ResizeObserver(scroll);
    watch.observe(document.body);
    const stop = () => {
      watch.disconnect();
      clearTimeout(timer);
      for (const e of USER_MOVES) window.removeEventListener(e, stop);
    };
    const timer = setTimeout(stop, 2000);
    for (const e of USER_MOVES) window.addEventListener(e, stop, { passive: true });
    return stop;
  }, [location.hash, location.key, ready]);
}
