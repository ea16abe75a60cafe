// Fetches a captcha challenge from a running Ciam and prints the solved payload to send as
// `captcha` in POST /ciam/v1/auth/identity. Usage: node scripts/solve-captcha.mjs [base-url]
import { createHash } from 'node:crypto';

const base = process.argv[2] ?? 'http://127.0.0.1:8080';
const res = await fetch(`${base}/ciam/v1/auth/captcha`);
if (!res.ok) throw new Error(`captcha: HTTP ${res.status}`);
const c = await res.json();
for (let n = 0; n <= c.maxnumber; n++) {
  if (createHash('sha256').update(c.salt + n).digest('hex') === c.challenge) {
    const payload = { algorithm: c.algorithm, challenge: c.challenge, number: n, salt: c.salt, signature: c.signature };
    console.log(Buffer.from(JSON.stringify(payload)).toString('base64'));
    process.exit(0);
  }
}
throw new Error('no solution found');
