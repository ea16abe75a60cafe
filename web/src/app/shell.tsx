// The frame around every screen: header with the language switch, footer with the company
// website and the release string, toasts, the idle-session watch, and the multi-factor modal
// when a sign-in needs a second step.
import { useEffect } from 'react';
import { useIntl } from 'react-intl';
import { Outlet, useLocation, useNavigate } from 'react-router';
import { Toasts } from '../components/toasts';
import { websiteFor } from '../config/website';
import { common } from '../i18n/common';
import { paths } from '../config/paths';
import { type Locale, normalize, switchTo } from '../i18n/locale';
import { embeddedInfo, rememberOrigin } from '../lib/redirect';
import * as session from '../lib/session';
import { MfaHost } from '../components/mfa-host';
import { RouteFocus } from '../components/route-focus';
import { Cell } from '../components/cells-lazy';

const CHECK_EVERY_MS = 30_000;

function useIdleWatch() {
  const intl = useIntl();
  const navigate = useNavigate();
  useEffect(() => {
    const expire = () => {
      // Back to this page after signing in again, when it is a protected one (ciam_origin_url).
      const { pathname, search, hash } = window.location;
      rememberOrigin(`${pathname}${search}${hash}`);
      navigate(`${paths.signin(normalize(intl.locale))}${window.location.search}`, { state: { origin: true, notice: 'expired' } });
    };
    const onActivity = () => {
      if (!session.isLoggedIn()) return;
      if (!session.checkIdle(expire)) session.touch();
    };
    session.checkIdle(expire);
    const timer = setInterval(() => session.checkIdle(expire), CHECK_EVERY_MS);
    window.addEventListener('click', onActivity);
    window.addEventListener('keydown', onActivity);
    return () => {
      clearInterval(timer);
      window.removeEventListener('click', onActivity);
      window.removeEventListener('keydown', onActivity);
    };
  }, [intl, navigate]);
}

/**
 * Only the embedded sign-in may live in another site's frame (its HTML carries the app's
 * frame-ancestors). A navigation inside the frame to any other screen (find password, the
 * personal centre...) would escape that policy, so those screens refuse to render framed.
 */
function FramedNotice() {
  const intl = useIntl();
  return (
    <div className="card" role="alert">
      <p>{intl.formatMessage(common.framed)}</p>
      <a href={window.location.href} target="_top" rel="noopener">
        {intl.formatMessage(common.openTop)}
      </a>
    </div>
  );
}

export function Shell() {
  const intl = useIntl();
  const { pathname } = useLocation();
  const framed = typeof window !== 'undefined' && window.top !== window.self && !embeddedInfo(pathname, '').embedded;
  useIdleWatch();
  const other: Locale = intl.locale === 'en-US' ? 'zh-CN' : 'en-US';
  return (
    <>
      {/* The first tab stop of every page (WCAG 2.4.1), shown when it has the focus; `main` takes
          the focus when the fragment is followed (tabIndex -1). No script: the sign-in's budget. */}
      <a className="skip-link" href="#main" data-testid="skip-link">
        {intl.formatMessage(common.skip)}
      </a>
      <header className="top">
        <span className="brand">Ciam</span>
        <Cell />
        {/* Its accessible name is the text it shows (WCAG 2.5.3 label in name), in that language. */}
        <button type="button" className="lang" lang={other} onClick={() => switchTo(other)}>
          {other === 'en-US' ? 'English' : '简体中文'}
        </button>
      </header>
      <Toasts />
      <main id="main" tabIndex={-1}>
        {framed ? <FramedNotice /> : <Outlet />}
      </main>
      <footer className="foot">
        <a href={websiteFor(pathname)} data-testid="website">
          {intl.formatMessage(common.website)}
        </a>
        <span data-testid="version">{__CIAM_VERSION__}</span>
      </footer>
      <MfaHost />
      <RouteFocus />
    </>
  );
}
