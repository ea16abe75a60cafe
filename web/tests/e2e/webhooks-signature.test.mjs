// Webhook signatures against the Standard Webhooks reference library (`standardwebhooks` from
// npm, not Ciam's code): what the ciam binary signs (`ciam admin webhooks sign`, the signer the
// delivery worker uses) verifies with a receiver's `Webhook.verify`, for a UTF-8 body, and a
// tampered body, id, timestamp or another secret does not. A rotation's two signatures
// (space-separated) verify with either secret. With CI=true a missing binary FAILS the suite;
// elsewhere it is skipped with the reason.
import { existsSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Webhook } from 'standardwebhooks';
import { BIN, CI } from './harness.mjs';

const lacking = existsSync(BIN) ? [] : [`the ciam binary at ${BIN} (cargo build -p ciam-local --bin ciam)`];
const skip = lacking.length && !CI ? `webhook signatures need ${lacking.join('; ')}` : false;

const newSecret = () => `whsec_${randomBytes(32).toString('base64')}`;

function ciamSign(secret, id, timestamp, body) {
  if (lacking.length) throw new Error(`missing ${lacking.join('; ')}`);
  return execFileSync(BIN, ['admin', 'webhooks', 'sign', '--secret', secret, '--id', id, '--timestamp', String(timestamp)], {
    input: body,
  })
    .toString()
    .trim();
}

test('what ciam signs verifies with the standardwebhooks reference library', { skip }, () => {
  const secret = newSecret();
  const id = 'msg_0123456789abcdef01234567';
  const ts = Math.floor(Date.now() / 1000);
  const body = JSON.stringify({ type: 'user.updated', timestamp: new Date(ts * 1000).toISOString(), data: { nickname: '小王', userId: 'u1' } });
  const signature = ciamSign(secret, id, ts, body);
  assert.match(signature, /^v1,[A-Za-z0-9+/]+=*$/);
  const headers = { 'webhook-id': id, 'webhook-timestamp': String(ts), 'webhook-signature': signature };
  const wh = new Webhook(secret);
  assert.deepEqual(wh.verify(body, headers), JSON.parse(body));
  // The library's own signature is the same string.
  assert.equal(wh.sign(id, new Date(ts * 1000), body), signature);
  for (const [what, b, h] of [
    ['body', body.replace('小王', '小李'), headers],
    ['id', body, { ...headers, 'webhook-id': 'msg_other' }],
    ['timestamp', body, { ...headers, 'webhook-timestamp': String(ts - 1) }],
  ]) {
    assert.throws(() => wh.verify(b, h), /signature/i, what);
  }
  assert.throws(() => new Webhook(newSecret()).verify(body, headers), /signature/i, 'another secret');
});

test('during a rotation either secret verifies the two signatures', { skip }, () => {
  const [previous, current] = [newSecret(), newSecret()];
  const id = 'msg_rotation00000000000000';
  const ts = Math.floor(Date.now() / 1000);
  const body = '{"type":"session.ended","data":{"userId":"u1","reason":"signed_out"}}';
  const both = `${ciamSign(current, id, ts, body)} ${ciamSign(previous, id, ts, body)}`;
  const headers = { 'webhook-id': id, 'webhook-timestamp': String(ts), 'webhook-signature': both };
  for (const s of [current, previous]) {
    assert.equal(new Webhook(s).verify(body, headers).type, 'session.ended');
  }
  assert.throws(() => new Webhook(newSecret()).verify(body, headers), /signature/i);
});
