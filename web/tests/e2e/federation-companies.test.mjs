// Sign in with the company platforms in real Chromium (issue 33 "Must show", docs/federation-design.md
// §3.2-§3.4, §4): `ciam-fakes` plays each platform (its authorize page and its API, answering as
// the platform documents; who approves is set through its control API), one `ciam serve` is pointed
// at all of them through the environment, and every provider of PROVIDERS runs the same flow in
// both locales:
//  - a new person signs in from the "Or sign in with" row, proves a mainland phone with Ciam's own
//    code, completes the sign-up and lands signed in; the next sign-in goes straight in;
//  - a person whose proven phone has an account is linked to it after that proof; once that
//    account is suspended the provider is refused in the words a refused code gets (the
//    provider's "wrong secret", docs/federation-design.md §4.2), nobody signed in;
//  - the platform's API down: said in words naming the provider;
//  - the platform's page the browser is sent to: WeCom's web login on a desktop and its in-client
//    authorization inside WeCom (a `wxwork` user agent), DingTalk's consent, Feishu's with a PKCE
//    S256 challenge; Feishu as Lark (its own `ciam serve`) says Lark and goes to Lark's host;
//  - axe with every rule on what differs from WeChat's screens (federation-wechat.test.mjs and
//    federation-screens.test.mjs check those at both widths, light and dark): the row with every
//    provider's mark at both widths (more buttons wrap), light and dark; the screens whose words
//    name the provider (the phone proof, the sign-up, the platform down) at 1280 px, light in
//    zh-CN and dark in en-US.
// WeChat has its own file (its QR and in-WeChat flows, the snapshot user).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { flowKit, startFakes } from './fakes.mjs';
import { createAccount, LOCALES, ROOT, setStorage, settled, startServer, storage, suite, where } from './harness.mjs';

const messages = Object.fromEntries(LOCALES.map((l) => [l, JSON.parse(readFileSync(join(ROOT, `web/src/i18n/messages/${l}.json`), 'utf8'))]));
const fakes = await startFakes();
const DESKTOP = [{ width: 1280, height: 800 }];
// WeCom's own browser on a phone (its user agent says `wxwork`, and MicroMessenger too).
const WXWORK =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 wxwork/4.1.22 MicroMessenger/7.0.1 Language/zh ColorScheme/Light';
/** The scheme of the screens whose only difference from WeChat's is the provider's name. */
const SCHEME = { 'zh-CN': ['light'], 'en-US': ['dark'] };

/**
 * One entry per provider: its name (the button's `federation-<name>`, the words
 * `federation.<name>`), the platform of ciam-fakes that plays it, the environment `ciam serve`
 * gets (the fake's registered app: functions/fakes/src/<platform>.rs; the pages on the fake, the
 * API through the relay), the person who approves next (fields of the fakes' `Person`), the
 * platform's page the browser is sent to on a desktop in locale L (`desktop(L)`: its path below
 * the platform's base, then strings its address holds) and, for a platform with an app of its
 * own, that app's browser (its user agent) and the page it is sent to there (`inClient`).
 */
const PROVIDERS = [
  {
    name: 'wecom',
    platform: 'wecom',
    env: {
      CIAM_WECOM_CORP_ID: 'wwfakecorp0000001',
      CIAM_WECOM_AGENT_ID: '1000002',
      CIAM_WECOM_CORP_SECRET: 'fake-wecom-corp-secret',
      CIAM_WECOM_LOGIN_BASE: fakes.page('wecom'),
      CIAM_WECOM_OPEN_BASE: fakes.page('wecom'),
      CIAM_WECOM_API_BASE: fakes.api('wecom'),
    },
    // A member inside the app's visible range: the user_ticket's detail gives the phone.
    person: (subject, phone) => ({ userid: subject, unionid: subject, member: true, visible: true, phone, nickname: '企业微信用户' }),
    desktop: (L) => ['/wwlogin/sso/login?', 'login_type=CorpApp', 'agentid=1000002', `lang=${L === 'zh-CN' ? 'zh' : 'en'}`],
    inClient: [{ label: 'WeCom', userAgent: WXWORK, visits: ['/connect/oauth2/authorize?', 'scope=snsapi_privateinfo', 'agentid=1000002'] }],
  },
  {
    name: 'dingtalk',
    platform: 'dingtalk',
    env: {
      CIAM_DINGTALK_CLIENT_ID: 'dingfakeclient00001',
      CIAM_DINGTALK_CLIENT_SECRET: 'fake-dingtalk-client-secret',
      CIAM_DINGTALK_LOGIN_BASE: fakes.page('dingtalk'),
      CIAM_DINGTALK_API_BASE: fakes.api('dingtalk'),
    },
    person: (subject, phone) => ({ unionid: subject, userid: subject, phone, nickname: '钉钉用户' }),
    desktop: () => ['/oauth2/auth?', 'prompt=consent', 'scope=openid'],
  },
  {
    name: 'feishu',
    platform: 'feishu',
    env: {
      CIAM_FEISHU_APP_ID: 'cli_fakefeishu00001',
      CIAM_FEISHU_APP_SECRET: 'fake-feishu-app-secret',
      CIAM_FEISHU_ACCOUNTS_BASE: fakes.page('feishu'),
      CIAM_FEISHU_OPEN_BASE: fakes.api('feishu'),
    },
    person: (subject, phone) => ({ unionid: subject, userid: subject, phone: phone && `+86${phone}`, nickname: '飞书用户' }),
    // The current authorization with a PKCE S256 challenge (never the passport flow).
    desktop: () => ['/open-apis/authen/v1/authorize?', 'code_challenge=', 'code_challenge_method=S256'],
  },
];

const { skip: missing, ctx } = suite({ server: { env: Object.assign({}, ...PROVIDERS.map((p) => p.env)) } });
const skip = missing || fakes.skip;
const { everyWay, newPhone, provePhone, say, signInPage, unique } = flowKit(ctx);

/** The addresses of the pages `page` navigates to while `fn` runs. */
async function visits(page, fn) {
  const seen = [];
  const record = (r) => r.isNavigationRequest() && seen.push(r.url());
  page.on('request', record);
  try {
    await fn();
  } finally {
    page.off('request', record);
  }
  return seen;
}

/** Whether one of `seen` is the page `path` below `base` and holds every string of `holds`. */
const went = (seen, base, [path, ...holds]) => seen.some((u) => u.startsWith(`${base}${path}`) && holds.every((w) => u.includes(w)));

/** The signed-in user's name (GET /auth/info with the page's token). */
async function signedInAs(page) {
  const token = await storage(page, 'ciam_token');
  assert.ok(token, 'signed in');
  const res = await fetch(`${ctx.server.base}/ciam/v1/auth/info`, { headers: { authorization: `Bearer ${token}` } });
  assert.equal(res.status, 200);
  return (await res.json()).userName;
}

for (const L of LOCALES) {
  const t = messages[L];

  describe(`the company providers' row (${L})`, { skip }, () => {
    it('offers every provider by its name, started only when pressed', async () => {
      const page = await signInPage(L, { query: '?from=e2e' });
      const row = page.locator('[data-testid="federation-row"]');
      await row.waitFor();
      assert.equal(await row.locator('h2').textContent(), t['federation.row']);
      for (const p of PROVIDERS) assert.equal(await row.locator(`[data-testid="federation-${p.name}"]`).textContent(), t[`federation.${p.name}`]);
      await everyWay(page, `the row of every company provider (${L})`);
      assert.equal(where(page), `/${L}/passport/signin?from=e2e`, 'nothing started by itself');
    });
  });

  for (const p of PROVIDERS) {
    const provider = t[`federation.${p.name}`];
    const approves = (person) => fakes.control(p.platform, 'next-user', person);
    const button = (page) => page.locator(`[data-testid="federation-${p.name}"]`);

    describe(`sign in with ${p.name} (${L})`, { skip }, () => {
      it('a new person proves a phone and signs up; the next sign-in goes straight in', async () => {
        const subject = unique(p.name);
        await approves(p.person(subject, null));
        const page = await signInPage(L, { query: '?from=e2e' });
        const phoneStep = page.locator('[data-testid="federation-phone"]');
        const seen = await visits(page, async () => {
          await button(page).click();
          await phoneStep.waitFor();
        });
        assert.ok(went(seen, fakes.page(p.platform), p.desktop(L)), `the desktop's page ${p.desktop(L).join(' ')}: ${seen.join(' ')}`);
        assert.ok((await phoneStep.textContent()).includes(say(t['federation.phoneIntro'], { provider })), 'the proof names the provider');
        assert.equal(where(page), `/${L}/passport/signin?from=e2e`, 'the pending token left the address');
        await everyWay(page, `the phone proof after ${p.name} (${L})`, DESKTOP, SCHEME[L]);
        const phone = newPhone();
        await provePhone(page, phone);
        const signUp = page.locator('[data-testid="federation-signup"]');
        await signUp.waitFor();
        assert.equal(await signUp.locator('h2').textContent(), t['federation.signUpTitle']);
        assert.equal(await signUp.locator('input[name="userName"]').inputValue(), '', 'the nickname is not the name');
        await signUp.locator('button[type="submit"]').click();
        await signUp.locator('[aria-invalid="true"]').first().waitFor();
        await everyWay(page, `the sign-up with errors after ${p.name} (${L})`, DESKTOP, SCHEME[L]);
        const userName = unique(p.name.slice(0, 2));
        await signUp.locator('input[name="userName"]').fill(userName);
        await signUp.locator('input[name="company"]').fill('Acme Ltd');
        await signUp.locator('input[name="acceptTerms"]').check();
        await signUp.locator('button[type="submit"]').click();
        await page.waitForURL(`**/${L}/personal/info?from=e2e`);
        assert.equal(await signedInAs(page), userName);
        // Signed out, the same person comes straight back in (a linked subject: a login code).
        const again = await signInPage(L);
        await button(again).click();
        await again.waitForURL(`**/${L}/personal/info`);
        assert.equal(await signedInAs(again), userName);
      });

      it('an account is linked after its phone is proven; suspended, it is refused as a refused code is', async () => {
        const phone = newPhone();
        const user = await createAccount(ctx.server, { account: phone });
        const subject = unique(p.name);
        // The platform names the number too: never a reason to link without the proof.
        await approves(p.person(subject, phone));
        const page = await signInPage(L);
        await button(page).click();
        await provePhone(page, phone);
        await page.waitForURL(`**/${L}/personal/info`);
        assert.equal(await signedInAs(page), user.userName, 'signed in as the phone\'s account');

        ctx.server.suspend(phone);
        const refused = await signInPage(L);
        await button(refused).click();
        const error = refused.locator('[data-testid="federation-error"]');
        await error.waitFor();
        const said = await error.textContent();
        assert.equal(said, say(t['federation.failed'], { provider }));
        assert.equal(await storage(refused, 'ciam_token'), null, 'nobody signed in');
        assert.equal(where(refused), `/${L}/passport/signin`, 'the refusal left the address');
        // The same words as a code the server refuses (a forged one, this tab's bind kept).
        await refused.evaluate(() => sessionStorage.setItem('ciam_fed_bind', 'e2e-bind'));
        await refused.goto(`${ctx.server.base}/${L}/passport/signin?${p.name}Code=forged${Date.now()}`);
        await error.waitFor();
        assert.equal(await error.textContent(), said);
      });

      for (const client of p.inClient ?? []) {
        it(`inside ${client.label}: its own authorization, then the phone proof`, async () => {
          await approves(p.person(unique(p.name), null));
          const page = await signInPage(L, { userAgent: client.userAgent });
          const seen = await visits(page, async () => {
            await button(page).click();
            await page.locator('[data-testid="federation-phone"]').waitFor();
          });
          assert.ok(went(seen, fakes.page(p.platform), client.visits), `the page ${client.visits.join(' ')}: ${seen.join(' ')}`);
          assert.ok(!went(seen, fakes.page(p.platform), p.desktop(L)), `not the desktop's page: ${seen.join(' ')}`);
          await page.close();
        });
      }

      it('a person who declines, and the platform\'s API down: said in words naming the provider', async () => {
        await approves({ ...p.person(unique(p.name), null), decline: true });
        let page = await signInPage(L);
        await button(page).click();
        const error = page.locator('[data-testid="federation-error"]');
        await error.waitFor();
        assert.equal(await error.textContent(), say(t['federation.cancelled'], { provider }));
        // The platform's pages answer the browser; its API is down when Ciam exchanges the code.
        await approves(p.person(unique(p.name), null));
        page = await signInPage(L);
        await fakes.apiDown(p.platform, async () => {
          await button(page).click();
          const down = page.locator('[data-testid="federation-error"]');
          await down.waitFor();
          assert.equal(await down.textContent(), say(t['federation.down'], { provider }));
        });
        assert.equal(await storage(page, 'ciam_token'), null, 'nobody signed in');
        await everyWay(page, `${p.name} down (${L})`, DESKTOP, SCHEME[L]);
      });
    });
  }
}

// Lark: Feishu on its international hosts (CIAM_FEISHU_REGION=lark) is another user base, hence
// another deployment: a `ciam serve` of its own for what the browser sees differ, the name on the
// button and in the words of the way back, and the platform's host.
describe('Feishu as Lark', { skip }, () => {
  let lark = null;
  before(async () => {
    if (skip) return;
    lark = await startServer({
      env: {
        CIAM_FEISHU_APP_ID: 'cli_fakefeishu00001',
        CIAM_FEISHU_APP_SECRET: 'fake-feishu-app-secret',
        CIAM_FEISHU_REGION: 'lark',
        CIAM_FEISHU_ACCOUNTS_BASE: fakes.page('lark'),
        CIAM_FEISHU_OPEN_BASE: fakes.api('lark'),
      },
    });
  });
  after(() => lark?.stop());

  for (const L of LOCALES) {
    it(`the button, the platform's page and the phone proof say Lark (${L})`, async () => {
      const t = messages[L];
      await fakes.control('feishu', 'next-user', { unionid: unique('lark'), userid: unique('lark') });
      const page = await ctx.browser.page();
      await setStorage(page, lark.base, { umi_locale: L });
      await page.evaluate(() => sessionStorage.clear());
      await page.goto(`${lark.base}/${L}/passport/signin`);
      await settled(page);
      const button = page.locator('[data-testid="federation-feishu"]');
      assert.equal(await button.textContent(), t['federation.lark']);
      const phoneStep = page.locator('[data-testid="federation-phone"]');
      const seen = await visits(page, async () => {
        await button.click();
        await phoneStep.waitFor();
      });
      assert.ok(went(seen, fakes.page('lark'), ['/open-apis/authen/v1/authorize?', 'code_challenge_method=S256']), `Lark's page: ${seen.join(' ')}`);
      assert.ok((await phoneStep.textContent()).includes(say(t['federation.phoneIntro'], { provider: t['federation.lark'] })), 'the proof names Lark');
    });
  }
});
