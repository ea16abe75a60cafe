// The example partner's events endpoint (examples/partner-app, POST /webhooks, docs/partners.md
// §10): started as a partner runs it, with its secret in CIAM_WEBHOOK_SECRET, and sent requests
// signed by the `standardwebhooks` reference library (not our code). It accepts a signed event
// once per webhook-id and logs it; a tampered body, another secret, a timestamp 10 minutes old
// are refused. The by-hand verifications printed in docs/partners.md §10 (Node.js and Python) are
// run against the library's signatures too. Needs Node and python3 (no package): it never skips.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { freePort, ROOT } from './harness.mjs';

const newSecret = () => `whsec_${randomBytes(32).toString('base64')}`;
const newId = () => `msg_${randomBytes(12).toString('hex')}`;
const userId = () => randomBytes(16).toString('hex');

/** Starts the example with only the webhook secret; resolves when it listens. */
async function startExample(secret) {
  const port = await freePort();
  const child = spawn(process.execPath, [join(ROOT, 'examples/partner-app/server.mjs')], {
    env: { ...process.env, APP_ID: '', APP_SECRET: '', CIAM_WEBHOOK_SECRET: secret, PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const ex = {
    base: `http://127.0.0.1:${port}`,
    log: '',
    stop() {
      if (child.exitCode === null) child.kill('SIGTERM');
    },
    /** How many log lines contain `text`. */
    count(text) {
      return ex.log.split('\n').filter((l) => l.includes(text)).length;
    },
    /** Waits (5 s at most) until the log has `text`. */
    async waitFor(text) {
      for (let i = 0; i < 100 && !ex.log.includes(text); i++) await sleep(50);
      assert.ok(ex.log.includes(text), `the log has no "${text}":\n${ex.log}`);
    },
  };
  child.stdout.on('data', (c) => (ex.log += c));
  child.stderr.on('data', (c) => (ex.log += c));
  try {
    await new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`the example did not start:\n${ex.log}`)), 15_000);
      child.stdout.on('data', () => {
        if (ex.log.includes('listening')) {
          clearTimeout(timer);
          resolve();
        }
      });
      child.once('exit', (code) => reject(new Error(`the example exited (${code}):\n${ex.log}`)));
    });
  } catch (e) {
    ex.stop();
    throw e;
  }
  return ex;
}

/** An event body as Ciam sends it (docs/openapi.json `webhooks`). */
const eventBody = (type, data) => JSON.stringify({ type, timestamp: new Date().toISOString().replace(/\.\d+Z$/, 'Z'), data });

/** The Standard Webhooks headers for `body`, signed by the library with each of `secrets`. */
function signed(secrets, id, body, at = new Date()) {
  const signature = secrets.map((s) => new Webhook(s).sign(id, at, body)).join(' ');
  return {
    'content-type': 'application/json',
    'webhook-id': id,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': signature,
  };
}

const post = (ex, headers, body) => fetch(`${ex.base}/webhooks`, { method: 'POST', headers, body });

describe('the example partner receives events (POST /webhooks, standardwebhooks)', () => {
  const secret = newSecret();
  let ex = null;
  before(async () => {
    ex = await startExample(secret);
  });
  after(() => ex?.stop());

  it('accepts an event signed with its secret: 204 and one log line', async () => {
    const id = newId();
    const user = userId();
    const body = eventBody('user.updated', { userId: user, nickname: 'Lin' });
    const res = await post(ex, signed([secret], id, body), body);
    assert.equal(res.status, 204);
    await ex.waitFor(`verified event user.updated ${id} for ${user}`);
  });

  it('counts a redelivery of the same webhook-id once (a retry is signed anew)', async () => {
    const id = newId();
    const user = userId();
    const body = eventBody('session.ended', { userId: user, reason: 'signed_out', sid: 'abc' });
    assert.equal((await post(ex, signed([secret], id, body), body)).status, 204);
    await sleep(1100); // the retry comes later, with a new timestamp and signature
    assert.equal((await post(ex, signed([secret], id, body), body)).status, 204);
    await ex.waitFor(`duplicate ${id} ignored`);
    assert.equal(ex.count(`verified event session.ended ${id} for ${user}`), 1);
  });

  it('refuses a tampered body, another secret and a timestamp 10 minutes old (401), missing headers (400)', async () => {
    const user = userId();
    const body = eventBody('user.mail_changed', { userId: user, email: 'lin@example.com', email_verified: true });

    const tamperedId = newId();
    const tampered = body.replace('lin@example.com', 'eve@example.com');
    assert.equal((await post(ex, signed([secret], tamperedId, body), tampered)).status, 401);

    const otherId = newId();
    assert.equal((await post(ex, signed([newSecret()], otherId, body), body)).status, 401);

    const oldId = newId();
    const tenMinutesAgo = new Date(Date.now() - 10 * 60 * 1000);
    const old = await post(ex, signed([secret], oldId, body, tenMinutesAgo), body);
    assert.equal(old.status, 401);
    assert.match(await old.text(), /too old/);

    const bare = await post(ex, { 'content-type': 'application/json' }, body);
    assert.equal(bare.status, 400);

    await ex.waitFor(`refused ${oldId}`);
    assert.equal(ex.count(`for ${user}`), 0, 'nothing refused is logged as verified');

    // The refusals burned nothing: the genuine delivery of a refused id is still accepted.
    assert.equal((await post(ex, signed([secret], tamperedId, body), body)).status, 204);
    await ex.waitFor(`verified event user.mail_changed ${tamperedId} for ${user}`);
  });

  it('accepts either of two signatures, as during a secret rotation', async () => {
    const id = newId();
    const user = userId();
    const body = eventBody('two_factor.changed', { userId: user, enabled: true });
    // Ciam signs with the new and the old secret; this endpoint still holds the old one.
    assert.equal((await post(ex, signed([newSecret(), secret], id, body), body)).status, 204);
    await ex.waitFor(`verified event two_factor.changed ${id} for ${user}`);
  });

  it('only POST: a GET is 405', async () => {
    assert.equal((await fetch(`${ex.base}/webhooks`)).status, 405);
  });
});

describe('the example partner refuses to start with a secret that is not one', () => {
  it('CIAM_WEBHOOK_SECRET not whsec_ + base64: exit 2 and a clear message', () => {
    const run = spawnSync(process.execPath, [join(ROOT, 'examples/partner-app/server.mjs')], {
      env: { ...process.env, APP_ID: '', APP_SECRET: '', CIAM_WEBHOOK_SECRET: 'my-password', PORT: '0' },
      encoding: 'utf8',
      timeout: 15_000,
    });
    assert.equal(run.status, 2, run.stdout + run.stderr);
    assert.match(run.stderr, /CIAM_WEBHOOK_SECRET is not a webhook secret/);
  });
});

/** The fenced code block of docs/partners.md §10 in `lang` that contains `marker`. */
function docBlock(lang, marker) {
  const doc = readFileSync(join(ROOT, 'docs/partners.md'), 'utf8');
  const section = doc.slice(doc.indexOf('## 10. Events (webhooks)'));
  const blocks = [...section.matchAll(new RegExp('```' + lang + '\\n([\\s\\S]*?)```', 'g'))].map((m) => m[1]);
  const block = blocks.find((b) => b.includes(marker));
  assert.ok(block, `docs/partners.md §10 has a ${lang} block with ${marker}`);
  return block;
}

/**
 * Cases signed by the library: [name, secret the receiver holds, headers, body, expected].
 * The receiver's secret is `secret`; the others sign with another, tamper or are old.
 */
function cases() {
  const secret = newSecret();
  const id = newId();
  const body = eventBody('consent.revoked', { userId: userId(), note: '中文 ✓' });
  return [
    ['signed with its secret', secret, signed([secret], id, body), body, true],
    ['two signatures (rotation)', secret, signed([newSecret(), secret], id, body), body, true],
    ['a tampered body', secret, signed([secret], id, body), body.replace('consent', 'xonsent'), false],
    ['another secret', secret, signed([newSecret()], id, body), body, false],
    ['10 minutes old', secret, signed([secret], id, body, new Date(Date.now() - 600_000)), body, false],
    ['no signature', secret, { ...signed([secret], id, body), 'webhook-signature': '' }, body, false],
  ];
}

describe('the by-hand verifications printed in docs/partners.md agree with the standardwebhooks library', () => {
  it('Node.js (node:crypto), as printed', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ciam-doc-'));
    try {
      const file = join(dir, 'verify.mjs');
      writeFileSync(file, `${docBlock('js', 'function verify(')}\nexport { verify };\n`);
      const { verify } = await import(file);
      for (const [name, secret, headers, body, ok] of cases()) {
        assert.equal(verify(secret, headers, body), ok, name);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('Python (hmac, hashlib), as printed', () => {
    const all = cases();
    const driver = `${docBlock('python', 'def verify(')}
import json, sys
for secret, headers, body in json.load(sys.stdin):
    print(json.dumps(verify(secret, headers, body.encode())))
`;
    const run = spawnSync('python3', ['-c', driver], {
      input: JSON.stringify(all.map(([, secret, headers, body]) => [secret, headers, body])),
      encoding: 'utf8',
    });
    assert.equal(run.status, 0, `python3: ${run.error ?? ''}${run.stderr}`);
    const got = run.stdout.trim().split('\n').map((l) => JSON.parse(l));
    assert.deepEqual(
      got.map((ok, i) => [all[i][0], ok]),
      all.map(([name, , , , ok]) => [name, ok]),
    );
  });
});
