// Renders screens as the app does (not shipped: only tests import it): a memory router with the
// given routes, the intl provider with the compiled catalogue of the locale, and the API client
// configured as app.tsx configures it (server reasons translated, navigation through the router).
// Pair with fake-api.ts for the server, and resetApp() after each test.
import { act, cleanup, render, type RenderResult } from '@testing-library/react';
import { type ReactNode, useLayoutEffect } from 'react';
import { createIntl, createIntlCache, type IntlShape, type MessageFormatElement, RawIntlProvider } from 'react-intl';
import { BrowserRouter, type Location, MemoryRouter, type NavigateOptions, type RouteObject, useLocation, useNavigate, useRoutes } from 'react-router';
import { vi } from 'vitest';
// The two-factor modal is a lazy chunk in the app (components/mfa-host.tsx). Loaded here, before any
// test runs, so opening it waits for no module transform: a test's `settle()` then sees the dialog
// however slow the machine is.
import '../components/mfa-modal';
import type { Locale } from '../i18n/locale';
import * as api from '../lib/api';
import * as toast from '../lib/toast';
import { en, zh } from './messages';

/** Where a test's router is, and a way to move it (what the app's router does, seen from outside). */
export interface TestRouter {
  readonly state: { location: Location };
  navigate(to: string, opts?: NavigateOptions): void;
}

interface Seen {
  location?: Location;
  navigate?: (to: string, opts?: NavigateOptions) => void;
}

function Probe({ seen }: { seen: Seen }) {
  const location = useLocation();
  const navigate = useNavigate();
  useLayoutEffect(() => {
    seen.location = location;
    seen.navigate = (to, opts) => void navigate(to, opts);
  }, [seen, location, navigate]);
  return null;
}

function probe(): { seen: Seen; router: TestRouter } {
  const seen: Seen = {};
  const router: TestRouter = {
    get state() {
      if (!seen.location) throw new Error('the router has not rendered yet');
      return { location: seen.location };
    },
    navigate(to, opts) {
      if (!seen.navigate) throw new Error('the router has not rendered yet');
      seen.navigate(to, opts);
    },
  };
  return { seen, router };
}

function Routes({ routes }: { routes: RouteObject[] }) {
  return useRoutes(routes);
}

/**
 * `children` (the app's routes: `<AppRoutes />`) inside a browser router at the window's address,
 * as app.tsx renders them; answers the element and a view of the router.
 */
export function browserRouter(children: ReactNode): { element: ReactNode; router: TestRouter } {
  const { seen, router } = probe();
  return {
    element: (
      <BrowserRouter>
        <Probe seen={seen} />
        {children}
      </BrowserRouter>
    ),
    router,
  };
}

/** `routes` in a memory router that starts at `path`; answers the element and a view of the router. */
export function memoryRouter(routes: RouteObject[], path: string): { element: ReactNode; router: TestRouter } {
  const { seen, router } = probe();
  return {
    element: (
      <MemoryRouter initialEntries={[path]}>
        <Probe seen={seen} />
        <Routes routes={routes} />
      </MemoryRouter>
    ),
    router,
  };
}

export interface RenderOptions {
  locale?: Locale;
  /** What the client does on NEED_TOTP_VERIFY (app.tsx: open the second-step modal); default nothing. */
  onNeedTotp?: (challenge: string | undefined) => void;
  /** What the client does on USER_TOTP_ENABLED; default nothing. */
  onTotpEnabled?: () => void;
}

/** Lets effects, fetches and timers of a few rounds finish. */
export async function settle(rounds = 5): Promise<void> {
  for (let i = 0; i < rounds; i++) await act(async () => new Promise((r) => setTimeout(r, 5)));
}

/** The intl of `locale` with every compiled catalogue (core and screen bundles), as app.tsx makes it. */
export function testIntl(locale: Locale = 'en-US'): IntlShape {
  const messages = (locale === 'en-US' ? en : zh) as unknown as Record<string, MessageFormatElement[]>;
  return createIntl({ locale, messages, defaultLocale: 'zh-CN', onError: () => {} }, createIntlCache());
}

/** Renders `ui` inside the intl provider of `locale` (no router, API client untouched). */
export function renderWithIntl(ui: ReactNode, locale: Locale = 'en-US'): RenderResult {
  return render(<RawIntlProvider value={testIntl(locale)}>{ui}</RawIntlProvider>);
}

/** Renders `routes` at `path` and waits for them to settle; answers the router. */
export async function renderApp(routes: RouteObject[], path: string, opts: RenderOptions = {}): Promise<TestRouter> {
  const locale = opts.locale ?? 'en-US';
  const { element, router } = memoryRouter(routes, path);
  const intl = testIntl(locale);
  api.configure({
    locale: () => locale,
    translate: (id, values) => {
      const descriptor = { id };
      return intl.messages[id] ? intl.formatMessage(descriptor, values) : null;
    },
    navigate: (to) => void router.navigate(to, { replace: true }),
    onNeedTotp: opts.onNeedTotp ?? (() => {}),
    onTotpEnabled: opts.onTotpEnabled ?? (() => {}),
  });
  render(
    <RawIntlProvider value={intl}>
      {element}
    </RawIntlProvider>,
  );
  await settle();
  return router;
}

/** Where the router is: path and query. */
export const at = (router: TestRouter) => router.state.location.pathname + router.state.location.search;

/** A signed-in browser: a token and recent activity in storage. */
export function signIn(token = 'u1.token'): void {
  localStorage.setItem('ciam_token', token);
  localStorage.setItem('lastActionTime', String(Date.now()));
}

/** After each test: unmount, dismiss toasts, remove the fake API, clear storage. */
export function resetApp(): void {
  cleanup();
  for (const t of toast.current()) toast.dismiss(t.id);
  vi.unstubAllGlobals();
  localStorage.clear();
}
