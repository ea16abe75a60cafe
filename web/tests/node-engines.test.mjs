// The Node versions the project promises (package.json "engines", README "Needs:") are ones every
// installed dependency accepts (issue 31 item 6): no `npm warn EBADENGINE` on a fresh install with
// a promised Node, and the Node running the tests is one of them. Reads package-lock.json (every
// package's declared engines.node); the small range reader below covers the forms npm packages
// use (`||`, `>=`, `>`, `<`, `<=`, `=`, `^`, `~`, partial versions like `20`, `x`, `*`), and fails
// on anything else rather than guess.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const ROOT = join(import.meta.dirname, '..', '..');
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8'));
const readme = readFileSync(join(ROOT, 'README.md'), 'utf8').split(/\s+/).join(' ');

const cmp = (a, b) => a[0] - b[0] || a[1] - b[1] || a[2] - b[2];
const parts = (v) => {
  const m = /^v?(\d+|[xX*])(?:\.(\d+|[xX*]))?(?:\.(\d+|[xX*]))?(?:[-+].*)?$/.exec(v);
  if (!m) throw new Error(`cannot read the version "${v}"`);
  return [m[1], m[2], m[3]].map((p) => (p === undefined || /^[xX*]$/.test(p) ? null : Number(p)));
};
const floor = (p) => p.map((x) => x ?? 0);
/** The next version above everything `p` (a partial version) names: `20` -> 21.0.0, `20.1` -> 20.2.0. */
const above = (p) => (p[1] === null ? [p[0] + 1, 0, 0] : p[2] === null ? [p[0], p[1] + 1, 0] : null);

/** One comparator as [low (inclusive) or null, high (exclusive) or null, exact or null]. */
function comparator(c) {
  const m = /^(>=|<=|>|<|=|\^|~)?(.*)$/.exec(c);
  const [op = '', v] = [m[1], m[2]];
  if (v === '' || /^[xX*]$/.test(v)) return [null, null];
  const p = parts(v);
  const f = floor(p);
  const partial = p[1] === null || p[2] === null;
  switch (op ?? '') {
    case '':
    case '=':
      return partial ? [f, above(p)] : [f, null, f];
    case '>=':
      return [f, null];
    case '>':
      return [partial ? above(p) : [f[0], f[1], f[2] + 1], null];
    case '<':
      return [null, f];
    case '<=':
      return [null, partial ? above(p) : [f[0], f[1], f[2] + 1]];
    case '^':
      return [f, f[0] > 0 ? [f[0] + 1, 0, 0] : f[1] > 0 || p[1] === null ? [0, f[1] + 1, 0] : [0, 0, f[2] + 1]];
    case '~':
      return [f, p[1] === null ? [f[0] + 1, 0, 0] : [f[0], f[1] + 1, 0]];
    default:
      throw new Error(`cannot read "${c}"`);
  }
}

/** Whether version `v` ([major, minor, patch]) is in the npm range `range`. */
export function satisfies(v, range) {
  const alternatives = range.replace(/(>=|<=|>|<|=|\^|~)\s+/g, '$1').split('||');
  return alternatives.some((alt) => {
    const cs = alt.trim().split(/\s+/).filter(Boolean);
    if (cs.includes('-')) throw new Error(`hyphen ranges are not read: "${range}"`);
    return cs.every((c) => {
      const [low, high, exact] = comparator(c);
      if (exact) return cmp(v, exact) === 0;
      return (!low || cmp(v, low) >= 0) && (!high || cmp(v, high) < 0);
    });
  });
}

/** Every declared engines.node of the installed tree (optional packages may be skipped by npm). */
const declared = Object.entries(lock.packages)
  .filter(([path, p]) => path && p.engines?.node && !p.optional)
  .map(([path, p]) => [`${path.replace(/^.*node_modules\//, '')}@${p.version}`, p.engines.node]);

/** The versions worth trying: every version any range names, one patch either side, and x.y.0 for
 * each Node minor line from 18 to 30. */
function probes() {
  const out = new Map();
  const add = (v) => v.every((x) => x >= 0) && out.set(v.join('.'), v);
  for (const [, range] of [...declared, ['package.json', pkg.engines.node]]) {
    for (const m of range.matchAll(/(\d+)(?:\.(\d+))?(?:\.(\d+))?/g)) {
      const v = [Number(m[1]), Number(m[2] ?? 0), Number(m[3] ?? 0)];
      add(v);
      add([v[0], v[1], v[2] + 1]);
      add([v[0], v[1], v[2] - 1]);
      add([v[0], v[1] - 1, 99]);
    }
  }
  for (let major = 18; major <= 30; major++) for (let minor = 0; minor <= 40; minor++) add([major, minor, 0]);
  return [...out.values()].filter((v) => satisfies(v, pkg.engines.node));
}

test('the range reader reads what npm packages write', () => {
  assert.ok(satisfies([20, 20, 2], '>=20'));
  assert.ok(!satisfies([20, 20, 2], '>=22.22.2'));
  assert.ok(satisfies([20, 19, 0], '^20.19.0 || ^22.13.0 || >=24'));
  assert.ok(!satisfies([22, 12, 0], '^20.19.0 || ^22.13.0 || >=24'));
  assert.ok(satisfies([20, 12, 0], '>= 20.12.0'));
  assert.ok(satisfies([20, 5, 1], '18 || 20 || >=22') && !satisfies([21, 0, 0], '18 || 20 || >=22'));
  assert.ok(satisfies([21, 1, 0], '^18.18.0 || ^20.9.0 || >=21.1.0'));
  assert.ok(satisfies([16, 0, 0], '*') && satisfies([20, 0, 0], '>=14.x'));
});

test('every dependency accepts every Node version package.json promises', () => {
  assert.ok(declared.length > 10, 'package-lock.json declares engines');
  const refused = [];
  for (const v of probes()) {
    for (const [name, range] of declared) {
      if (!satisfies(v, range)) refused.push(`Node ${v.join('.')}: ${name} wants ${range}`);
    }
  }
  assert.deepEqual(refused.slice(0, 20), [], `package.json engines.node is "${pkg.engines.node}"`);
});

test('the Node running the tests is one package.json promises', () => {
  assert.ok(satisfies(parts(process.versions.node), pkg.engines.node), `${process.versions.node} vs ${pkg.engines.node}`);
});

test('README says the same versions as package.json', () => {
  // "^20.19.0 || ^22.13.0 || >=24" reads "Node 20.19+, 22.13+ or 24+".
  const said = pkg.engines.node.split('||').map((alt) => {
    const m = /^\s*(?:\^|>=)\s*(\d+)(?:\.(\d+))?(?:\.\d+)?\s*$/.exec(alt);
    assert.ok(m, `write package.json engines.node as ^a.b.c or >=a alternatives, not "${alt}"`);
    return m[2] && m[2] !== '0' ? `${m[1]}.${m[2]}+` : `${m[1]}+`;
  });
  const text = `Node ${said.length > 1 ? `${said.slice(0, -1).join(', ')} or ${said.at(-1)}` : said[0]}`;
  assert.ok(readme.includes(text), `README.md should say "${text}" (package.json engines.node "${pkg.engines.node}")`);
});
