// The routes of spec §2. Every redirect keeps the query string (serviceUrl unless it carries an
// encoded '=' or '/'). An error while rendering a route shows the error screen (and reports it).
import { Navigate, Outlet, type RouteObject, useLocation, useParams, useRoutes } from 'react-router';
import { Lazy, screen } from '../components/lazy-screen';
import { WithMessages } from '../components/with-messages';
import { asLocale, detect, type Locale } from '../i18n/locale';
import { keepQuery, rememberOrigin } from '../lib/redirect';
import * as session from '../lib/session';
import { Catch, ErrorScreen } from './error-screen';
import { Shell } from './shell';
import { paths } from '../config/paths';

const SignIn = screen('signin', () => import('../features/auth/signin'));
const Register = screen('register', () => import('../features/auth/register'));
const Authorize = screen('authorize', () => import('../features/auth/authorize'));
const FindPassword = screen('find-password', () => import('../features/auth/find-password'));
const EmbeddedSignIn = screen('embedded-signin', () => import('../features/auth/embedded-signin'));
const Info = screen('info', () => import('../features/personal/info'));
const Secure = screen('secure', () => import('../features/personal/secure'));
const Agreement = screen('agreement', () => import('../features/agreement/agreement'));
const Logout = screen('logout', () => import('../features/logout/logout'));
const SignOut = screen('signout', () => import('../features/logout/signout'));
const Console = screen('admin', () => import('../features/admin/console'));
// "My company" and an organization's invitation landing: one chunk (features/org/org-screens.tsx).
const Org = screen('org', () => import('../features/org/org-screens'));

/** Redirects to the page `to` (config/paths.ts) in the address's language, else the detected one. */
function Go({ to }: { to: (l: Locale) => string }) {
  const { search } = useLocation();
  const { language } = useParams();
  const lang = asLocale(language) ?? detect();
  return <Navigate replace to={`${to(lang)}${keepQuery(search)}`} />;
}

/**
 * `/:language/...`: a path without a valid language goes to the same path under the locale. A
 * language segment in another form (`zh-cn`, `EN-us`, `en-GB`, `zh`) is replaced, same page: by the
 * detected locale, which is where the reload rule of spec §2 would take its canonical form anyway
 * (`/zh-cn/passport/register` is `/zh-CN/passport/register` for a Chinese browser, and the same page
 * in English for an English one). `ciam serve` redirects the wrong case before the app loads.
 */
function LanguageRoot() {
  const { language } = useParams();
  const { pathname, search } = useLocation();
  if (language === 'zh-CN' || language === 'en-US') return <Outlet />;
  const rest = asLocale(language) ? pathname.replace(/^\/[^/]*/, '') : pathname;
  return <Navigate replace to={`/${detect()}${rest}${keepQuery(search)}`} />;
}

/**
 * Personal pages need a session; without one, go to sign-in keeping the query string, and
 * remember the page (ciam_origin_url) to come back to it after sign-in.
 */
function RequireSession() {
  const { pathname, search, hash } = useLocation();
  const { language } = useParams();
  if (!session.isLoggedIn()) {
    rememberOrigin(`${pathname}${search}${hash}`);
    return <Navigate replace to={`${paths.signin(asLocale(language) ?? detect())}${keepQuery(search)}`} state={{ origin: true }} />;
  }
  return <Outlet />;
}

const lazy = (el: React.ReactNode) => <Lazy>{el}</Lazy>;

function ScreenCatch() {
  const { pathname } = useLocation();
  return (
    <Catch resetKey={pathname} fallback={(error) => <ErrorScreen error={error} />}>
      <Outlet />
    </Catch>
  );
}

/** Only in a build made with CIAM_TEST_HOOKS=on (end-to-end tests): a route that throws. */
function Throw(): never {
  throw new Error('test hook: route error for ann@example.com, code 123456, /x?cTicket=ST-1');
}
const testRoutes = __CIAM_TEST_HOOKS__ ? [{ path: 'test/throw', element: <Throw /> }] : [];

/**
 * The route tree. Declarative routing (`useRoutes` under a `BrowserRouter`): the app loads no data
 * through the router, and the data router's code would cost 18 KB gzipped on every first paint.
 */
const ROUTES: RouteObject[] = [
  {
    // An error in the shell itself: the screen alone, still inside a landmark.
    element: (
      <Catch fallback={(error) => <main id="main"><ErrorScreen error={error} /></main>}>
        <Shell />
      </Catch>
    ),
    children: [
      {
        // An error in a screen: the screen's place in the shell shows the error screen
        // (cleared by the next navigation).
        element: <ScreenCatch />,
        children: [
          { path: '/', element: <Go to={paths.signin} /> },
          { path: '/signout', element: lazy(<WithMessages bundle="personal"><SignOut /></WithMessages>) },
          {
            path: '/:language',
            element: <LanguageRoot />,
            children: [
              { index: true, element: <Go to={paths.signin} /> },
              {
                path: 'passport',
                children: [
                  { index: true, element: <Go to={paths.signin} /> },
                  { path: 'signin', element: lazy(<SignIn />) },
                  { path: 'register', element: lazy(<Register />) },
                  { path: 'authorize', element: lazy(<WithMessages bundle="partner"><Authorize /></WithMessages>) },
                  // RP-Initiated Logout's page: the sign-out chunk (features/logout/signout.tsx).
                  { path: 'end-session', element: lazy(<WithMessages bundle="personal"><SignOut /></WithMessages>) },
                  { path: '*', element: <Go to={paths.signin} /> },
                ],
              },
              {
                path: 'personal',
                element: <RequireSession />,
                children: [
                  { index: true, element: <Go to={paths.info} /> },
                  { path: 'info', element: lazy(<WithMessages bundle="personal"><Info /></WithMessages>) },
                  { path: 'secure', element: lazy(<WithMessages bundle="personal"><Secure /></WithMessages>) },
                  { path: 'company', element: lazy(<WithMessages bundle="personal"><Org /></WithMessages>) },
                  { path: '*', element: <Go to={paths.info} /> },
                ],
              },
              {
                path: 'agreement',
                children: [
                  { index: true, element: <Go to={paths.privacy} /> },
                  { path: ':doc', element: lazy(<WithMessages bundle="docs"><Agreement /></WithMessages>) },
                  { path: '*', element: <Go to={paths.privacy} /> },
                ],
              },
              // The operator console: one lazy chunk that asks for a session, loads its own
              // messages and routes its own screens (features/admin/console.tsx).
              { path: 'admin/*', element: lazy(<Console />) },
              { path: 'find/password', element: lazy(<FindPassword />) },
              { path: 'logout', element: lazy(<WithMessages bundle="personal"><Logout /></WithMessages>) },
              { path: 'org/invitation', element: lazy(<WithMessages bundle="personal"><Org /></WithMessages>) },
              { path: 'embedded/signin', element: lazy(<WithMessages bundle="partner"><EmbeddedSignIn /></WithMessages>) },
              ...testRoutes,
              { path: '*', element: <Go to={paths.signin} /> },
            ],
          },
        ],
      },
    ],
  },
];

/** The screens of spec §2 for the current location (inside a BrowserRouter or MemoryRouter). */
export function AppRoutes() {
  return useRoutes(ROUTES);
}
