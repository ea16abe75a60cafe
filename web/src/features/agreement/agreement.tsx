// The three documents of /{lang}/agreement/:doc: privacy policy, service agreement, user manual.
// An unknown document goes to the privacy policy, keeping the query string.
import { defineMessages, FormattedMessage, useIntl } from 'react-intl';
import { Link, Navigate, useLocation, useParams } from 'react-router';
import { useTitle } from '../../components/use-title';
import { paths } from '../../config/paths';
import { titles } from '../../i18n/titles';
import { asLocale, type Locale } from '../../i18n/locale';
import { keepQuery } from '../../lib/redirect';
import * as session from '../../lib/session';
import type { Doc } from './doc';
import { manual } from './manual-doc';
import { privacy } from './privacy-doc';
import { protocols } from './protocols-doc';
import './agreement.css';

const m = defineMessages({
  nav: { id: 'agreement.nav', defaultMessage: 'Documents' },
  backSignIn: { id: 'agreement.backSignIn', defaultMessage: 'Back to sign in' },
  backInfo: { id: 'agreement.backInfo', defaultMessage: 'Back to the Personal Center' },
});

const DOCS = {
  privacy: { title: titles.privacy, doc: privacy, href: paths.privacy },
  protocols: { title: titles.protocols, doc: protocols, href: paths.protocols },
  manual: { title: titles.manual, doc: manual, href: paths.manual },
} as const;
type DocName = keyof typeof DOCS;
const NAMES = Object.keys(DOCS) as DocName[];

function isDocName(v: string | undefined): v is DocName {
  return v !== undefined && (NAMES as string[]).includes(v);
}

export default function Agreement() {
  const intl = useIntl();
  const { doc, language } = useParams();
  const { search } = useLocation();
  const lang: Locale = asLocale(language) ?? asLocale(intl.locale) ?? 'zh-CN';
  const name = isDocName(doc) ? doc : null;
  useTitle(name ? DOCS[name].title : null);
  if (!name) return <Navigate replace to={`${paths.privacy(lang)}${keepQuery(search)}`} />;
  const { title, doc: content } = DOCS[name];
  const query = keepQuery(search);
  const back = session.isLoggedIn() ? { to: paths.info(lang), text: m.backInfo } : { to: paths.signin(lang), text: m.backSignIn };
  return (
    <article className="card doc" aria-labelledby="doc-title">
      <nav className="doc-nav" aria-label={intl.formatMessage(m.nav)}>
        <ul>
          {NAMES.map((n) => (
            <li key={n}>
              <Link to={`${DOCS[n].href(lang)}${query}`} aria-current={n === name ? 'page' : undefined}>
                <FormattedMessage {...DOCS[n].title} />
              </Link>
            </li>
          ))}
        </ul>
      </nav>
      <h1 id="doc-title">
        <FormattedMessage {...title} />
      </h1>
      <DocBody doc={content} />
      <p className="doc-back">
        <Link to={`${back.to}${query}`}>
          <FormattedMessage {...back.text} />
        </Link>
      </p>
    </article>
  );
}

function DocBody({ doc }: { doc: Doc }) {
  return (
    <>
      {doc.intro.map((p) => (
        <p key={p.id} className="doc-intro">
          <FormattedMessage {...p} />
        </p>
      ))}
      {doc.sections.map((s) => (
        <section key={s.heading.id} aria-labelledby={s.heading.id}>
          <h2 id={s.heading.id}>
            <FormattedMessage {...s.heading} />
          </h2>
          {s.paras?.map((p) => (
            <p key={p.id}>
              <FormattedMessage {...p} />
            </p>
          ))}
          {s.items && (
            <ul>
              {s.items.map((p) => (
                <li key={p.id}>
                  <FormattedMessage {...p} />
                </li>
              ))}
            </ul>
          )}
          {s.keys && (
            <dl className="doc-keys">
              {s.keys.map((k) => (
                <div key={k.key}>
                  <dt>
                    <code>{k.key}</code>
                  </dt>
                  <dd>
                    <FormattedMessage {...k.text} />
                  </dd>
                </div>
              ))}
            </dl>
          )}
          {s.after?.map((p) => (
            <p key={p.id}>
              <FormattedMessage {...p} />
            </p>
          ))}
        </section>
      ))}
    </>
  );
}
