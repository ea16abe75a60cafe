// Passkeys in a partner's frame need `publickey-credentials-get` (docs/passkeys-design.md §4.3,
// docs/partners.md §5): the partner's iframe delegates it with allow="publickey-credentials-get",
// and Ciam's own Permissions-Policy must never switch it off. The header comes from
// infra/security-headers.json (ciam serve and the Lambdas) and template.yaml (CloudFront's
// response headers policy); both are checked, and they must say the same thing.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

/** The policy's directives by feature: `publickey-credentials-get=()` → { 'publickey-credentials-get': '()' }. */
function directives(policy) {
  return Object.fromEntries(
    policy
      .split(',')
      .map((d) => d.trim())
      .filter(Boolean)
      .map((d) => {
        const at = d.indexOf('=');
        return [d.slice(0, at).trim(), d.slice(at + 1).trim()];
      }),
  );
}

function fromJson() {
  const headers = JSON.parse(readFileSync(join(ROOT, 'infra/security-headers.json'), 'utf8'));
  const policy = headers['Permissions-Policy'];
  assert.equal(typeof policy, 'string', 'infra/security-headers.json has a Permissions-Policy');
  return policy;
}

function fromTemplate() {
  const yaml = readFileSync(join(ROOT, 'template.yaml'), 'utf8');
  const found = [...yaml.matchAll(/-\s*Header:\s*Permissions-Policy\s*\n\s*Value:\s*(.+)\n/g)].map((m) => m[1].trim().replace(/^['"]|['"]$/g, ''));
  assert.ok(found.length > 0, 'template.yaml sets a Permissions-Policy');
  return found;
}

for (const [where, policies] of [
  ['infra/security-headers.json', () => [fromJson()]],
  ['template.yaml', fromTemplate],
]) {
  test(`${where}: the Permissions-Policy never turns off publickey-credentials-get`, () => {
    for (const policy of policies()) {
      const d = directives(policy);
      for (const feature of ['publickey-credentials-get', 'publickey-credentials-create']) {
        if (!(feature in d)) continue;
        assert.notEqual(d[feature].replace(/\s/g, ''), '()', `${where} says ${feature}=()`);
      }
      assert.doesNotMatch(policy.replace(/\s/g, ''), /publickey-credentials-get=\(\)/);
    }
  });
}

test('CloudFront and ciam serve send the same Permissions-Policy', () => {
  for (const policy of fromTemplate()) assert.deepEqual(directives(policy), directives(fromJson()));
});
