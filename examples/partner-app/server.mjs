// A partner application in one file: it sends people to Ciam to sign in, receives the ticket
// (cTicket) on its callback, verifies it server to server with its app secret, and shows who
// signed in. It also receives Ciam's events (webhooks) on POST /webhooks, verified with the
// `standardwebhooks` library (its one dependency, only for that endpoint). See README.md here
// and docs/partners.md §9.
//
//   CIAM_URL=http://127.0.0.1:8080 APP_ID=… APP_SECRET=… CIAM_WEBHOOK_SECRET=whsec_… PORT=3000 \
//     node examples/partner-app/server.mjs
import { createHash } from 'node:crypto';
import { createServer } from 'node:http';
import { Webhook, WebhookVerificationError } from 'standardwebhooks';

const CIAM_URL = (process.env.CIAM_URL ?? 'http://127.0.0.1:8080').replace(/\/+$/, '');
const APP_ID = process.env.APP_ID ?? '';
const APP_SECRET = process.env.APP_SECRET ?? '';
const PORT = Number(process.env.PORT ?? 3000);
const LANG = process.env.CIAM_LANG === 'en-US' ? 'en-US' : 'zh-CN';
/** Registered in Ciam exactly like this (exact match: scheme, host, port, path). */
const SERVICE_URL = process.env.SERVICE_URL ?? `http://127.0.0.1:${PORT}/callback`;

/** The endpoint's signing secret (`whsec_…`, shown once when the endpoint is registered). */
const WEBHOOK_SECRET = process.env.CIAM_WEBHOOK_SECRET ?? '';

if (!(APP_ID && APP_SECRET) && !WEBHOOK_SECRET) {
  console.error(
    'partner-app: set APP_ID and APP_SECRET (register the app in the operator console, or with `ciam admin apps create`), or CIAM_WEBHOOK_SECRET, or both',
  );
  process.exit(2);
}
/** Null when no secret is set: POST /webhooks then answers 404. A bad secret stops the start. */
const webhook = (() => {
  if (!WEBHOOK_SECRET) return null;
  try {
    if (!/^whsec_[A-Za-z0-9+/]+=*$/.test(WEBHOOK_SECRET)) throw new Error('not whsec_ + base64');
    return new Webhook(WEBHOOK_SECRET);
  } catch (e) {
    console.error(`partner-app: CIAM_WEBHOOK_SECRET is not a webhook secret (${e.message})`);
    process.exit(2);
  }
})();

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

// ---- Events (webhooks) ----------------------------------------------------------------------

/** A body larger than this is refused (Ciam's events are a few hundred bytes). */
const MAX_BODY = 64 * 1024;
/**
 * The webhook-ids already received: Ciam delivers at least once (a retry, a replay), always
 * with the same webhook-id. Kept in memory for 48 h here (retries last 24 h); a real partner keeps
 * them in its database, written in the same transaction as the work the event causes.
 */
const seen = new Map();
const KEEP_SEEN_MS = 48 * 3600 * 1000;

function readBody(req) {
  return new Promise((resolve, reject) => {
    const chunks = [];
    let size = 0;
    req.on('data', (c) => {
      size += c.length;
      if (size > MAX_BODY) {
        reject(Object.assign(new Error('body too large'), { status: 413 }));
        req.destroy();
      } else chunks.push(c);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function answer(res, status, text) {
  res.writeHead(status, status === 204 ? {} : { 'content-type': 'text/plain; charset=utf-8' });
  res.end(status === 204 ? undefined : text);
}

/**
 * What the partner does with an event, after it has answered: here, nothing but a note. A real
 * partner would update its copy of the profile (user.updated, user.mail_changed,
 * user.phone_changed: the note says which fields it would write), end its own sessions of the
 * user (session.ended, user.suspended, user.deactivated) and forget the user's data it no longer
 * may keep (consent.revoked: the last event for this user). Never called twice for one webhook-id.
 */
function work(event, id) {
  if (event.type === 'user.updated' || event.type === 'user.mail_changed' || event.type === 'user.phone_changed') {
    const { userId, ...fields } = event.data;
    console.log(`partner-app: updating ${userId} (${event.type}, ${id}): ${JSON.stringify(fields)}`);
  }
  if (event.type === 'consent.revoked' || event.type === 'user.deactivated') {
    console.log(`partner-app: forgetting ${event.data.userId} (${event.type}, ${id})`);
  }
}

/**
 * POST /webhooks: verify the Standard Webhooks signature over the raw body (headers
 * webhook-id, webhook-timestamp, webhook-signature; the library refuses a timestamp more than
 * 5 minutes away and accepts any one of several signatures, as during a secret rotation), then
 * dedupe by webhook-id, answer 204 at once and do the work afterwards.
 */
async function receive(req, res) {
  if (!webhook) return answer(res, 404, 'webhooks are not configured (CIAM_WEBHOOK_SECRET)');
  const body = await readBody(req);
  const id = req.headers['webhook-id'];
  if (!id || !req.headers['webhook-timestamp'] || !req.headers['webhook-signature']) {
    return answer(res, 400, 'missing webhook-id, webhook-timestamp or webhook-signature');
  }
  let event;
  try {
    event = webhook.verify(body, req.headers);
  } catch (e) {
    if (!(e instanceof WebhookVerificationError)) return answer(res, 400, 'not JSON');
    console.log(`partner-app: refused ${id}: ${e.message}`);
    return answer(res, 401, e.message); // a bad signature, or a timestamp out of tolerance
  }
  if (typeof event?.type !== 'string' || typeof event?.data?.userId !== 'string') {
    return answer(res, 400, 'not an event');
  }
  const now = Date.now();
  for (const [old, at] of seen) {
    if (now - at < KEEP_SEEN_MS) break; // insertion order: the rest is newer
    seen.delete(old);
  }
  if (seen.has(id)) {
    console.log(`partner-app: duplicate ${id} ignored`);
    return answer(res, 204);
  }
  seen.set(id, now);
  console.log(`verified event ${event.type} ${id} for ${event.data.userId}`);
  answer(res, 204);
  setImmediate(() => work(event, id));
}

const server = createServer(async (req, res) => {
  const url = new URL(req.url ?? '/', `http://127.0.0.1:${PORT}`);
  try {
    if (url.pathname === '/webhooks') {
      if (req.method !== 'POST') return answer(res, 405, 'POST only');
      return await receive(req, res);
    }
    if (req.method !== 'GET') return page(res, 405, 'Method not allowed', '');
    if (!APP_ID) return page(res, 404, 'Sign-in is not configured (APP_ID, APP_SECRET)', '');
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
    if (e.status === 413) return answer(res, 413, e.message);
    console.error('partner-app:', e);
    if (res.headersSent) return;
    return page(res, 502, 'Ciam is not reachable', `<p>${escape(e.message)}</p>`);
  }
});

server.listen(PORT, '127.0.0.1', () => {
  const port = server.address().port; // PORT=0: a free one
  const hooks = webhook ? `, webhooks on http://127.0.0.1:${port}/webhooks` : '';
  console.log(`partner-app: listening on http://127.0.0.1:${port}/ (Ciam at ${CIAM_URL}, serviceUrl ${SERVICE_URL}${hooks})`);
});
for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => server.close(() => process.exit(0)));
