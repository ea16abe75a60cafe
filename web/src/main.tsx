// Boot: settle the locale first (spec §2/§4), then load its catalogue and render.
import { createRoot } from 'react-dom/client';
import { App } from './app/app';
import { asLocale, detect, dirOf, swapLanguage } from './i18n/locale';
import { loadMessages } from './i18n/load';
import type { Answer } from './lib/api';
import { url } from './lib/api-url';
import { watchErrors } from './lib/report-errors';
import { KEYS, read, write } from './lib/storage';
import './styles.css';

watchErrors();

async function boot() {
  const chosen = detect();
  const segment = window.location.pathname.split('/')[1] ?? '';
  const urlLang = segment === 'zh-CN' || segment === 'en-US' ? segment : null;
  if (urlLang && urlLang !== chosen) {
    // The url's language differs from the chosen locale: reload with the language swapped.
    window.location.replace(swapLanguage(window.location.pathname, window.location.search, chosen));
    return;
  }
  document.documentElement.lang = chosen;
  document.documentElement.dir = dirOf(chosen);
  const messages = await loadMessages(chosen);
  const root = document.getElementById('root');
  if (root) createRoot(root).render(<App locale={chosen} messages={messages} />);
  if (!read(KEYS.locale)) void applyLocation(chosen);
}

/** With no stored choice, the server's view of the caller's language may override the guess. */
async function applyLocation(chosen: string) {
  try {
    // Before the client is set up, with the browser's own Accept-Language: the address is the
    // client's (lib/api-url.ts), the fetch its own, to keep lib/api.ts out of the boot.
    // No Referer: the address may carry what the API must not see (an invitation's token).
    const res = await fetch(url('GET /auth/location'), { headers: { 'X-Request-ID': crypto.randomUUID() }, referrerPolicy: 'no-referrer' });
    if (!res.ok) return;
    const body = (await res.json()) as Partial<Answer<'GET /auth/location'>>;
    if (body.country) write(KEYS.country, body.country);
    const lang = asLocale(body.language);
    write(KEYS.locale, lang ?? chosen);
    if (lang && lang !== chosen && /^\/(zh-CN|en-US)(\/|$)/.test(window.location.pathname)) {
      window.location.replace(swapLanguage(window.location.pathname, window.location.search, lang));
    }
  } catch {
    // Offline or blocked: keep the detected locale.
  }
}

void boot();
