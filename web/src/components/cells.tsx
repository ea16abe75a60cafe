// The cells as users see them (docs/multi-region.md §14): the header names this service and links
// the other's same page; a refused sign-in or sign-up says where else the account may live. All
// of it only when index.html names another cell (lib/cells.ts), loaded then only (cells-lazy.tsx)
// with its message bundle `cells`.
import { useEffect, useMemo, useState } from 'react';
import { createIntl, defineMessages, type IntlShape, useIntl } from 'react-intl';
import { useLocation } from 'react-router';
import type { Messages } from '../i18n/load';
import { type Locale, normalize } from '../i18n/locale';
import { cells, otherPage } from '../lib/cells';
import { type AnyReason, hasReason } from '../lib/reasons';

// The bundle `cells` (scripts/i18n.mjs), loaded here rather than by i18n/load.ts so that nothing of
// it is in the entry chunk.
const load = (l: Locale) => import(`../i18n/compiled/${l}.cells.json`).then((m: { default: Messages }) => m.default);

/** The page's intl with the `cells` bundle; null while it loads (or when it cannot: then nothing is drawn). */
function useCellsIntl(): IntlShape | null {
  const outer = useIntl();
  const locale = normalize(outer.locale);
  const [extra, setExtra] = useState<Messages | null>(null);
  useEffect(() => {
    let live = true;
    load(locale).then((m) => live && setExtra(m), () => {});
    return () => {
      live = false;
    };
  }, [locale]);
  return useMemo(
    () => extra && createIntl({ locale: outer.locale, defaultLocale: outer.defaultLocale, messages: { ...(outer.messages as Messages), ...extra }, onError: () => {} }),
    [outer, extra],
  );
}

const m = defineMessages({
  global: { id: 'cell.global', defaultMessage: 'International service' },
  cn: { id: 'cell.cn', defaultMessage: 'Mainland China service' },
  services: { id: 'cell.services', defaultMessage: 'Services' },
  signIn: { id: 'cell.signInThere', defaultMessage: 'Registered with the {other}? Sign in there' },
  signUp: { id: 'cell.signUpThere', defaultMessage: 'Sign up with the {other}' },
});

/** The header's: this service (current) and a link to the other's same page, same language. */
function CellSwitch() {
  const intl = useCellsIntl();
  const { pathname } = useLocation();
  const c = cells();
  if (!c || !intl) return null;
  return (
    <nav className="cells" aria-label={intl.formatMessage(m.services)} data-testid="cells">
      <span aria-current="true" data-testid="cell-here">{intl.formatMessage(m[c.here])}</span>
      <a href={otherPage(c, pathname)} data-testid="cell-other">{intl.formatMessage(m[c.other])}</a>
    </nav>
  );
}

/** Which refusals point at the other cell, and to which of its pages. */
const HINTS: [readonly AnyReason[], 'signin' | 'register', typeof m.signIn][] = [
  // Said alike for every account (unknown, wrong password, known): it tells nothing.
  [['PASSWORD_ERROR', 'MAIL_NOT_FOUND', 'PHONE_NOT_FOUND'], 'signin', m.signIn],
  [['PHONE_MAINLAND_SERVICE_ONLY'], 'register', m.signUp],
];

/** Under a refusal: the link to the other cell's sign-in (or sign-up), when the refusal may mean "not here". */
function CellHint({ reason }: { reason: string }) {
  const intl = useCellsIntl();
  const c = cells();
  const hit = c ? HINTS.find(([rs]) => hasReason({ reason }, ...rs)) : undefined;
  if (!c || !hit || !intl) return null;
  return (
    <p className="cell-hint">
      <a href={otherPage(c, `/${intl.locale}/passport/${hit[1]}`)} data-testid="cell-hint">
        {intl.formatMessage(hit[2], { other: intl.formatMessage(m[c.other]) })}
      </a>
    </p>
  );
}

/** The switch without `reason`, the hint with one (cells-lazy.tsx). */
export default function Cells({ reason }: { reason?: string | null }) {
  return reason ? <CellHint reason={reason} /> : <CellSwitch />;
}
