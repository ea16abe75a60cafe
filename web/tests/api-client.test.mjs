// One typed web client (issue 31): every API call of web/src goes through lib/api.ts's `call`,
// named by its route key ("METHOD /path"), typed by the generated operations
// (src/lib/api-types.gen.ts, from docs/openapi.json). Plain text checks over web/src, tests and
// the test kit included:
//   - the API's prefix (/ciam/v1) is spelled in lib/api-url.ts alone (ESLint says the same of
//     string and template literals; this also catches comments and files ESLint skips);
//   - no call names its answer type by hand (`call<...>`), and nothing else fetches an API path;
//   - no hand-written operation type: an object type declared in web/src whose properties are
//     those of an object of the generated file (an answer, a body, a component, a query) is a hand
//     copy; use `Answer<R>`, `Body<R>` or the generated name instead.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const SRC = join(dirname(fileURLToPath(import.meta.url)), '..', 'src');
const CLIENT = ['lib/api-url.ts', 'lib/api.ts'];
const GENERATED = 'lib/api-types.gen.ts';

function files(dir) {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) return files(p);
    return /\.tsx?$/.test(name) ? [p] : [];
  });
}

const all = files(SRC).map((p) => ({ name: relative(SRC, p).split('\\').join('/'), text: readFileSync(p, 'utf8') }));
const own = all.filter((f) => f.name !== GENERATED);

/**
 * The direct property names of every `{ ... }` object type in `text`: a property is `name:` or
 * `name?:` (quoted or not) at the block's own depth. Method bodies and values give blocks too;
 * the comparison below only looks at blocks of three or more names.
 */
export function objectShapes(text) {
  const body = text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/\/\/[^\n]*/g, '');
  const shapes = [];
  const stack = [];
  for (let i = 0; i < body.length; i++) {
    const c = body[i];
    if (c === '{') stack.push({ start: i, keys: new Set() });
    if (c === '}') {
      const top = stack.pop();
      if (top && top.keys.size >= 3) shapes.push({ at: top.start, keys: top.keys });
    } else if (stack.length && /[\n{;,]/.test(c)) {
      const m = /^[\s]*(?:readonly\s+)?("[^"]+"|'[^']+'|[A-Za-z_$][\w$]*)\??:\s*[^:]/.exec(body.slice(i + 1, i + 200));
      if (m) stack[stack.length - 1].keys.add(m[1].replace(/^["']|["']$/g, ''));
    }
  }
  return shapes;
}

/** Object types declared by hand: `interface X {` and `type X = {` blocks of a source file. */
export function declaredShapes(text) {
  const out = [];
  const re = /(?:^|\n)\s*(?:export\s+)?(?:interface\s+(\w+)(?:<[^>]*>)?(?:\s+extends\s+[^{]+)?|type\s+(\w+)(?:<[^>]*>)?\s*=)\s*\{/g;
  for (let m; (m = re.exec(text)); ) {
    const open = m.index + m[0].length - 1;
    let depth = 0;
    let end = open;
    for (; end < text.length; end++) {
      if (text[end] === '{') depth++;
      else if (text[end] === '}' && --depth === 0) break;
    }
    const shapes = objectShapes(text.slice(open, end + 1));
    const whole = shapes.find((s) => s.at === 0);
    if (whole) out.push({ name: m[1] ?? m[2], keys: whole.keys });
  }
  return out;
}

const generatedShapes = objectShapes(all.find((f) => f.name === GENERATED).text);

/** The generated object a declared shape copies: same names, or all of its names among three or more of a generated one's. */
function copied(keys) {
  return generatedShapes.find((g) => [...keys].every((k) => g.keys.has(k)) && keys.size >= Math.max(3, g.keys.size - 2));
}

test('the API prefix is spelled in lib/api-url.ts alone', () => {
  const found = all.filter((f) => f.name !== 'lib/api-url.ts' && f.text.includes('/ciam/v1')).map((f) => f.name);
  assert.deepEqual(found, [], 'use `call` (lib/api.ts) or `url` (lib/api-url.ts): the route key is "METHOD /path" without the prefix');
  assert.match(all.find((f) => f.name === 'lib/api-url.ts').text, /export const BASE = '\/ciam\/v1';/);
});

test('no call names its answer type, and only the client fetches API paths', () => {
  const typed = own.filter((f) => /(?<!function )\bcall\s*</.test(f.text)).map((f) => f.name);
  assert.deepEqual(typed, [], 'the answer of `call` comes from the document: no type argument');
  const untyped = own.filter((f) => /\bapi\.(get|post|patch|put|delete)\s*[<(]|\brequest\s*</.test(f.text));
  assert.deepEqual(untyped.map((f) => f.name), [], 'the untyped request helpers are gone: use `call`');
  // A fetch of its own only where `call` cannot serve: the boot (before the client), the error
  // report (keepalive, no Authorization) and the staff sign-in's probe (a redirect, not JSON),
  // each at an address made by `url`.
  const fetching = own
    .filter((f) => !/\.test\.tsx?$/.test(f.name) && !f.name.startsWith('testing/') && !CLIENT.includes(f.name))
    .filter((f) => /(?<![\w.])fetch\(/.test(f.text))
    .map((f) => f.name)
    .sort();
  assert.deepEqual(fetching, ['features/auth/staff-signin.tsx', 'lib/error-report.ts', 'main.tsx']);
  for (const name of fetching) {
    const text = own.find((f) => f.name === name).text;
    for (const m of text.matchAll(/(?<![\w.])fetch\(([^,)]+)/g)) assert.match(m[1], /^(url\(|ENDPOINT)/, `${name}: fetch(${m[1]}...) must fetch an address of \`url\``);
  }
});

test('no hand-written operation type: object types come from the generated file', () => {
  const copies = [];
  for (const f of own) {
    for (const d of declaredShapes(f.text)) {
      const g = copied(d.keys);
      if (g) copies.push(`${f.name}: ${d.name} {${[...d.keys].join(', ')}}`);
    }
  }
  assert.deepEqual(copies, [], 'use Answer<R>, Body<R> (lib/api.ts) or the generated type instead of a copy');
});

test('the check sees a hand copy (a scratch declaration of a generated answer)', () => {
  const scratch = 'export interface ConsentContext {\n  appId: string;\n  name: string;\n  logo: string;\n  scopes: string[];\n  granted: boolean;\n  cancelUrl: string;\n  privacyUrl: string;\n}\n';
  const [d] = declaredShapes(scratch);
  assert.equal(d?.name, 'ConsentContext');
  assert.ok(copied(d.keys), 'a copy of the generated ConsentContext is found');
  const own = declaredShapes('interface Steps {\n  ask: () => void;\n  creating?: boolean;\n  signal?: AbortSignal;\n}\n');
  assert.equal(copied(own[0].keys), undefined, 'a type of the web\'s own is not');
});
