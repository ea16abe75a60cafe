// A partner application in one file, with no dependencies: it sends people to Ciam to sign in,
// receives the ticket (cTicket) on its callback, verifies it server to server with its app
// secret, and shows who signed in. See README.md here and docs/partners.md.
//
//   CIAM_URL=http://127.0.0.1:8080 APP_ID=… APP_SECRET=… PORT=3000 node examples/partner-app/server.mjs
import { createHash } from 'node:crypto';
import { createServer } from 'node:http';

const CIAM_URL = (process.env.CIAM_URL ?? 'http://127.0.0.1:8080').replace(/\/+$/, '');
const APP_ID = process.env.APP_ID ?? '';
const APP_SECRET = process.env.APP_SECRET ?? '';
const PORT = Number(process.env.PORT ?? 3000);
const LANG = process.env.CIAM_LANG === 'en-US' ? 'en-US' : 'zh-CN';
/** Registered in Ciam exactly like this (exact match: scheme, host, port, path). */
const SERVICE_URL = process.env.SERVICE_URL ?? `http://127.0.0.1:${PORT}/callback`;

if (!APP_ID || !APP_SECRET) {
  console.error('partner-app: set APP_ID and APP_SECRET (from POST /ciam/v1/app)');
  process.exit(2);
}

const escape = (s) =>
  String(s ?? '').replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]);

function page(res, status, title, body) {
  res.writeHead(status, {
    'content-type': 'text/html; charset=utf-8',
    'content-security-policy': "default-src 'none'; img-src https: http:; style-src 'unsafe-inline'; frame-ancestors 'none'",
    'cache-control': 'no-store',
    'referrer-policy': 'no-referrer',
  });
  res.end(`<!doctype html><html lang="en"><meta charset="utf-8"><title>${escape(title)}</title>
<style>body{font:16px system-ui,sans-serif;max-width:40rem;margin:3rem auto;padding:0 1rem}</style>
<h1>${escape(title)}</h1>${body}</html>`);
}

/** The authorize URL: serviceUrl written unencoded and last, as Ciam expects. */
const authorizeUrl = `${CIAM_URL}/${LANG}/passport/authorize?appId=${encodeURIComponent(APP_ID)}&serviceUrl=${SERVICE_URL}`;

/**
 * The embedded sign-in (docs/partners.md §5): Ciam's sign-in in a 380 x 520 frame of this page,
 * compact, in this page's theme (`theme=light|dark`, here the visitor's system setting), with the
 * two-factor step inside the frame and a forgot-password link that opens a new window. The frame
 * posts the ticket; this page hands it to /callback, which verifies it server to server.
 * Register `frameOrigins: ["http://127.0.0.1:$PORT"]` (the serviceUrl's origin) for it.
 */
const embeddedUrl = (theme) =>
  `${CIAM_URL}/${LANG}/embedded/signin?appId=${encodeURIComponent(APP_ID)}&serviceUrl=${SERVICE_URL}&validateMsg=notice&theme=${theme}`;
const EMBED_SCRIPT = `const dark = matchMedia('(prefers-color-scheme: dark)').matches;
const f = document.createElement('iframe');
f.title = 'Sign in with Ciam';
f.width = '380';
f.height = '520';
f.allow = 'publickey-credentials-get';
f.src = ${JSON.stringify(embeddedUrl('THEME'))}.replace('theme=THEME', 'theme=' + (dark ? 'dark' : 'light'));
document.getElementById('frame').append(f);
window.addEventListener('message', (e) => {
  if (e.origin !== ${JSON.stringify(new URL(CIAM_URL).origin)}) return;
  const m = e.data;
  if (m?.type === 'ciam:ticket') location.href = '/callback?cTicket=' + encodeURIComponent(m.cTicket);
  else if (m?.type === 'ciam:error') document.getElementById('said').textContent = m.reason + ': ' + m.errMsg;
  else if (m?.type === 'ciam:cancel') document.getElementById('said').textContent = 'You cancelled: nothing was shared.';
});`;
const EMBED_CSP = [
  "default-src 'none'",
  `script-src 'sha256-${createHash('sha256').update(EMBED_SCRIPT).digest('base64')}'`,
  `frame-src ${new URL(CIAM_URL).origin}`,
  "style-src 'unsafe-inline'",
  "frame-ancestors 'none'",
].join('; ');

/**
 * `GET /ciam/v1/auth/login/token/verify` with the app's credentials (HTTP Basic). Answers the
 * claims the user allowed, or the error. One attempt per ticket: success or failure burns it.
 */
async function verify(cTicket) {
  const q = new URLSearchParams({ cTicket, serviceUrl: SERVICE_URL });
  const res = await fetch(`${CIAM_URL}/ciam/v1/auth/login/token/verify?${q}`, {
    headers: {
      authorization: `Basic ${Buffer.from(`${APP_ID}:${APP_SECRET}`).toString('base64')}`,
      'accept-language': LANG,
    },
  });
  const body = await res.json().catch(() => null);
  return res.ok ? { ok: true, claims: body } : { ok: false, error: body ?? { reason: `HTTP ${res.status}` } };
}

const server = createServer(async (req, res) => {
  const url = new URL(req.url ?? '/', `http://127.0.0.1:${PORT}`);
  try {
    if (req.method !== 'GET') return page(res, 405, 'Method not allowed', '');
    if (url.pathname === '/') {
      return page(res, 200, 'Example partner', `<p>This site has no accounts of its own.</p>
<p><a id="signin" href="${escape(authorizeUrl)}">Sign in with Ciam</a></p>
<p><a id="embedded" href="/embedded">Sign in here, in a frame</a></p>`);
    }
    if (url.pathname === '/embedded') {
      res.writeHead(200, {
        'content-type': 'text/html; charset=utf-8',
        'content-security-policy': EMBED_CSP,
        'cache-control': 'no-store',
        // The frame checks which page frames it (location.ancestorOrigins, else the referrer).
        'referrer-policy': 'strict-origin-when-cross-origin',
      });
      return res.end(`<!doctype html><html lang="en"><meta charset="utf-8"><title>Example partner: sign in</title>
<style>body{font:16px system-ui,sans-serif;max-width:40rem;margin:3rem auto;padding:0 1rem}iframe{border:0}</style>
<h1>Sign in</h1><div id="frame"></div><p id="said" role="status"></p><script>${EMBED_SCRIPT}</script></html>`);
    }
    if (url.pathname === '/callback') {
      if (url.searchParams.get('cError') === 'access_denied') {
        return page(res, 200, 'Sign-in cancelled', `<p id="cancelled">You cancelled: nothing was shared.</p><p><a href="/">Back</a></p>`);
      }
      const ticket = url.searchParams.get('cTicket');
      if (!ticket) return page(res, 400, 'No ticket', '<p><a href="/">Back</a></p>');
      const r = await verify(ticket);
      if (!r.ok) {
        return page(res, 401, 'Sign-in failed', `<p id="error">${escape(r.error.reason)}: ${escape(r.error.message)}</p><p><a href="/">Try again</a></p>`);
      }
      const c = r.claims;
      const rows = ['nickname', 'company', 'email', 'phone']
        .filter((k) => c[k])
        .map((k) => `<dt>${k}</dt><dd data-claim="${k}">${escape(c[k])}</dd>`)
        .join('');
      // A real partner would start its own session here (a cookie), keyed by c.userId.
      return page(res, 200, 'Signed in', `<p id="who">Signed in as <strong>${escape(c.nickname ?? c.userId)}</strong></p>
<dl><dt>userId</dt><dd data-claim="userId">${escape(c.userId)}</dd>${rows}</dl><p><a href="/">Home</a></p>`);
    }
    return page(res, 404, 'Not found', '');
  } catch (e) {
    console.error('partner-app:', e);
    return page(res, 502, 'Ciam is not reachable', `<p>${escape(e.message)}</p>`);
  }
});

server.listen(PORT, '127.0.0.1', () => {
  console.log(`partner-app: listening on http://127.0.0.1:${PORT}/ (Ciam at ${CIAM_URL}, serviceUrl ${SERVICE_URL})`);
});
for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => server.close(() => process.exit(0)));
