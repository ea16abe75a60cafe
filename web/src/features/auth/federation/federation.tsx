// The sign-in screen's federation parts (docs/federation-design.md §5.2), one lazy chunk loaded
// only when GET /auth/federation offers a provider (`offered`: the "Or sign in with" row) or when
// the address comes back from one (the return: federation/return.tsx). The words travel in the
// message bundle `federation` (scripts/i18n.mjs), loaded here, not with the first screen.
import { useEffect, useMemo, useState } from 'react';
import { createIntl, FormattedMessage, type IntlShape, RawIntlProvider, useIntl } from 'react-intl';
import { useLocation } from 'react-router';
import { ChunkLoadError, Loading, withTimeout } from '../../../components/lazy-screen';
import type { Messages } from '../../../i18n/load';
import { type Locale, normalize } from '../../../i18n/locale';
import * as storage from '../../../lib/storage';
import { ProviderIcon } from './icons';
// In this chunk, not one of its own: a chunk that shared this one's modules would make the
// bundler add a namespace helper to the entry chunk (the sign-in's budget).
import Return from './return';
import { fm, inWechat, newFedBind, providerName, startUrl } from './shared';

// Each language's file named (not a template: that would add a loader helper to the entry chunk).
const BUNDLE: Record<Locale, () => Promise<{ default: unknown }>> = {
  'en-US': () => import('../../../i18n/compiled/en-US.federation.json'),
  'zh-CN': () => import('../../../i18n/compiled/zh-CN.federation.json'),
};
const load = (l: Locale) => BUNDLE[l]().then((m) => m.default as Messages);

/** The page's intl with the `federation` bundle; null while it loads, 'failed' when it could not. */
function useFedIntl(): IntlShape | null | 'failed' {
  const outer = useIntl();
  const locale = normalize(outer.locale);
  const [extra, setExtra] = useState<Messages | 'failed' | null>(null);
  useEffect(() => {
    let live = true;
    withTimeout(load(locale), 'federation-messages').then(
      (m) => live && setExtra(m),
      () => live && setExtra('failed'),
    );
    return () => {
      live = false;
    };
  }, [locale]);
  return useMemo(
    () => (extra === 'failed' ? extra : extra && createIntl({ locale: outer.locale, defaultLocale: outer.defaultLocale, messages: { ...(outer.messages as Messages), ...extra }, onError: () => {} })),
    [outer, extra],
  );
}

/** A provider GET /auth/federation offers, with the name its platform goes by here (`lark`). */
type Offered = { name: string; brand?: string | null };

/** Never started by itself: each button leaves for its provider's start only when pressed. */
function Row({ offered }: { offered: Offered[] }) {
  const intl = useIntl();
  // Cookies and site data blocked: the bind cannot be kept, the sign-in could not end here.
  const [usable] = useState(storage.available);
  const lang = intl.locale as Locale;
  const { search } = useLocation();
  // Inside WeChat its own button comes first (the server picks the in-WeChat authorization).
  const list = inWechat() ? [...offered].sort((a, b) => Number(b.name === 'wechat') - Number(a.name === 'wechat')) : offered;
  const go = (name: string, brand?: string | null) => void newFedBind(name, brand).then((hash) => window.location.assign(startUrl(name, lang, search, hash)));
  if (!usable) return null;
  return (
    <section className="fed-row" aria-labelledby="fed-row-title" data-testid="federation-row">
      <h2 id="fed-row-title">
        <FormattedMessage {...fm.row} />
      </h2>
      <div className="fed-buttons">
        {list.map(({ name, brand }) => (
          <button key={name} type="button" data-testid={`federation-${name}`} onClick={() => go(name, brand)}>
            <ProviderIcon name={name} />
            <span>{providerName(intl, name, brand)}</span>
          </button>
        ))}
      </div>
    </section>
  );
}

export default function Federation({ offered, onSignedIn }: {
  /** The providers GET /auth/federation offers: draws their row. */
  offered?: Offered[];
  /** Without `offered`: the return from a provider, signed in with this continuation. */
  onSignedIn?: (account: string, token: string) => void;
}) {
  const intl = useFedIntl();
  // Without its words nothing is drawn: the row is left out; the way back says its chunk failed
  // (the boundary of <Lazy>, with its retry), never message ids.
  if (intl === 'failed' && !offered) throw new ChunkLoadError('federation-messages', false);
  if (!intl || intl === 'failed') return offered ? null : <Loading />;
  return (
    <RawIntlProvider value={intl}>
      {offered ? <Row offered={offered} /> : <Return onSignedIn={onSignedIn ?? (() => {})} />}
    </RawIntlProvider>
  );
}
