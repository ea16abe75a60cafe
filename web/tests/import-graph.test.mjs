// No import circle between the web app's files (issue 11): every relative import and re-export
// of web/src (type-only ones included: a circle of types is a name in the wrong file too), tests
// and the test kit left out. ESLint keeps features apart; this keeps every file apart.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const SRC = join(dirname(fileURLToPath(import.meta.url)), '..', 'src');

function sources(dir) {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) return name === 'testing' ? [] : sources(p);
    return /\.tsx?$/.test(name) && !/\.test\.tsx?$/.test(name) && !name.endsWith('.d.ts') ? [p] : [];
  });
}

/** The file a relative specifier names, or null when it is not one of ours. */
function resolve(from, spec) {
  if (!spec.startsWith('.')) return null;
  const base = join(dirname(from), spec);
  const tries = [base, `${base}.ts`, `${base}.tsx`, join(base, 'index.ts'), join(base, 'index.tsx')];
  return tries.find((p) => existsSync(p) && statSync(p).isFile()) ?? null;
}

/** file -> the files it imports (relative imports, `export … from`, dynamic `import()`). */
export function importGraph(files) {
  const graph = new Map();
  for (const f of files) {
    const text = readFileSync(f, 'utf8');
    const specs = [
      ...text.matchAll(/^\s*(?:import|export)\s[^;]*?\sfrom\s+['"]([^'"]+)['"]/gms),
      ...text.matchAll(/^\s*import\s+['"]([^'"]+)['"]/gm),
      ...text.matchAll(/\bimport\(\s*['"]([^'"]+)['"]\s*\)/g),
    ].map((m) => m[1]);
    graph.set(f, new Set(specs.map((s) => resolve(f, s)).filter((p) => p && files.includes(p))));
  }
  return graph;
}

/** One circle of `graph` as a list of nodes (first = last), or null. */
export function findCircle(graph) {
  const done = new Set();
  const visit = (n, path) => {
    const at = path.indexOf(n);
    if (at >= 0) return [...path.slice(at), n];
    if (done.has(n)) return null;
    path.push(n);
    for (const next of graph.get(n) ?? []) {
      const c = visit(next, path);
      if (c) return c;
    }
    path.pop();
    done.add(n);
    return null;
  };
  for (const n of graph.keys()) {
    const c = visit(n, []);
    if (c) return c;
  }
  return null;
}

test('the circle finder finds a circle of three and none in a chain', () => {
  const g = (edges) => new Map(Object.entries(edges).map(([k, v]) => [k, new Set(v)]));
  assert.equal(findCircle(g({ a: ['b'], b: ['c'], c: [] })), null);
  assert.deepEqual(findCircle(g({ a: ['b'], b: ['c'], c: ['a'] })), ['a', 'b', 'c', 'a']);
});

test('no two files of web/src import each other, directly or round a circle', () => {
  const files = sources(SRC);
  assert.ok(files.length > 50, `the scan finds the sources (${files.length})`);
  const graph = importGraph(files);
  const edges = [...graph.values()].reduce((n, s) => n + s.size, 0);
  assert.ok(edges > 100, `the scan finds the imports (${edges})`);
  const circle = findCircle(graph);
  assert.equal(circle && circle.map((f) => relative(SRC, f)).join(' -> '), null);
});
