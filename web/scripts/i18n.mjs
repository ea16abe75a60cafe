// The message pipeline, with @formatjs/cli:
//  1. extract: the English defaults in the code -> src/i18n/messages/en-US.json
//  2. merge:   the hand-written Chinese files src/i18n/zh-CN/*.json -> src/i18n/messages/zh-CN.json
//  3. compile: both to ASTs in src/i18n/compiled/ (no ICU parser ships to the browser)
// `--check` only reports ids present in one language and not the other (exit 1 if any).
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
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
for (const l of ['en-US', 'zh-CN']) {
  run('compile', `src/i18n/messages/${l}.json`, '--format', 'simple', '--ast', '--out-file', `src/i18n/compiled/${l}.json`);
}
