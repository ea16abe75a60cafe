// The message pipeline, with @formatjs/cli:
//  1. extract: the English defaults in the code -> src/i18n/messages/en-US.json
//  2. merge:   the hand-written Chinese files src/i18n/zh-CN/*.json -> src/i18n/messages/zh-CN.json
//  3. compile: both to ASTs in src/i18n/compiled/ (no ICU parser ships to the browser)
// `--check` only reports ids present in one language and not the other (exit 1 if any).
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const here = new URL('..', import.meta.url).pathname;
const cli = join(here, '..', 'node_modules', '.bin', 'formatjs');
const run = (...args) => execFileSync(cli, args, { cwd: here, stdio: ['ignore', 'inherit', 'inherit'] });
const check = process.argv.includes('--check');

run('extract', 'src/**/*.{ts,tsx}', '--ignore', 'src/**/*.d.ts', '--ignore', 'src/**/*.test.{ts,tsx}', '--format', 'simple', '--out-file', 'src/i18n/messages/en-US.json');
const en = JSON.parse(readFileSync(join(here, 'src/i18n/messages/en-US.json'), 'utf8'));
const zh = {};
for (const f of readdirSync(join(here, 'src/i18n/zh-CN')).filter((f) => f.endsWith('.json')).sort()) {
  for (const [k, v] of Object.entries(JSON.parse(readFileSync(join(here, 'src/i18n/zh-CN', f), 'utf8')))) {
    if (k in zh) throw new Error(`zh-CN id ${k} is defined twice (${f})`);
    zh[k] = v;
  }
}
const missingZh = Object.keys(en).filter((k) => !(k in zh));
const extraZh = Object.keys(zh).filter((k) => !(k in en));
if (missingZh.length || extraZh.length) {
  console.error(`i18n: missing in zh-CN: ${missingZh.join(', ') || '-'}; not in the code: ${extraZh.join(', ') || '-'}`);
  if (check) process.exit(1);
}
const sorted = Object.fromEntries(Object.keys(zh).sort().map((k) => [k, zh[k]]));
writeFileSync(join(here, 'src/i18n/messages/zh-CN.json'), JSON.stringify(sorted, null, 2) + '\n');

// Catalogues are split by bundle, so a screen's long texts travel with its chunk instead of
// with every page: `core` loads at boot; the others load with their screens (WithMessages).
// Page titles (`*.title`) stay in core.
const BUNDLES = {
  docs: ['privacy.', 'protocols.', 'manual.', 'agreement.'],
  // The avatar's reasons and its upload error come only from the personal centre's upload.
  // A linked account's last way in: only the security centre answers it (the console shows the
  // server's own message). An organization's reasons and its domains': only "My company"
  // answers them (its sign-in connections' too). Adding a passkey and setting up or changing the authenticator happen only in the
  // security centre, so their refusals travel with it too.
  // The company's own sign-in offered for a typed mail (features/auth/org-signin.tsx): loaded
  // with its chunk, on the sign-in's first mail typed, with the refusal only it explains (before
  // `personal`, whose `error.ORG_` would take it).
  orgsignin: ['orgSignIn.', 'error.ORG_SIGN_IN_REQUIRED'],
  personal: ['info.', 'secure.', 'personal.', 'logout.', 'signout.', 'error.AVATAR_', 'error.FEDERATION_LAST_WAY_IN', 'error.ORG_', 'error.DOMAIN_', 'error.CONNECTION_', 'app.uploadError',
    'error.PASSKEY_EXISTS', 'error.PASSKEY_LIMIT', 'error.USER_TOTP_ENABLED', 'error.USER_TOTP_NOT_ENABLED', 'error.TOTP_SECRET_ERROR',
    // Deactivation's refusal: only the deactivate page (/{lang}/logout, with this bundle) shows it.
    'error.EIAM_DEACTIVATE_ERROR'],
  // The operator console (/{lang}/admin/...): loaded only when it is opened, with the reasons
  // only the console and the registry answer (nothing before sign-in can show them).
  // A ticket's verification answers a partner's server, never a browser: its two reasons ride here.
  admin: ['admin.', 'error.WEBHOOK_', 'error.CONSOLE_MFA_REQUIRED', 'error.ACCOUNT_NOT_FOUND', 'error.APPNAME_EXIST', 'error.APPSECRET_ERROR', 'error.TICKET_NOT_FOUND'],
  // The partner screens' own words (the consent screen, the embedded sign-in): loaded with them.
  partner: ['embedded.', 'consent.', 'authorize.'],
  // The two cells' names and links (components/cells.tsx): loaded with them, only on a page whose
  // index.html names another cell.
  cells: ['cell.', 'error.PHONE_MAINLAND_SERVICE_ONLY'],
  // Sign-up's own words beyond its form's (the username said as it is typed): loaded with the
  // sign-up page, never with the sign-in.
  signup: ['register.username.'],
  // "My company" and the invitation landing (features/org/): loaded with their chunk, which carries
  // the loader (features/org/messages.ts); the reasons stay in the personal bundle.
  org: ['org.'],
  // Sign-in through WeChat, WeCom, DingTalk, Feishu (features/auth/federation/): loaded with its
  // chunk, only when a provider is offered or the address comes back from one, with the reasons
  // only the way back from a provider answers.
  federation: ['federation.', 'error.FEDERATION_CANCELLED', 'error.FEDERATION_SNAPSHOT_USER', 'error.FEDERATION_OPEN_IN_BROWSER', 'error.FEDERATION_NOT_PERMITTED'],
};
const bundleOf = (id) =>
  id.endsWith('.title') ? 'core' : (Object.entries(BUNDLES).find(([, ps]) => ps.some((p) => id.startsWith(p)))?.[0] ?? 'core');
for (const [l, all] of [['en-US', en], ['zh-CN', sorted]]) {
  for (const b of ['core', ...Object.keys(BUNDLES)]) {
    const part = Object.fromEntries(Object.entries(all).filter(([k]) => bundleOf(k) === b));
    const src = join(tmpdir(), `ciam-i18n-${process.pid}-${l}-${b}.json`);
    writeFileSync(src, JSON.stringify(part));
    const out = b === 'core' ? `src/i18n/compiled/${l}.json` : `src/i18n/compiled/${l}.${b}.json`;
    run('compile', src, '--format', 'simple', '--ast', '--out-file', out);
    rmSync(src);
  }
}
