// Regenerates functions/core/data/common-passwords.txt: the 10,000 most common passwords, most
// common first, lower-cased and de-duplicated, from the frequency-ranked list that ships in the
// npm package @zxcvbn-ts/language-common (MIT). Run: npx -y -p @zxcvbn-ts/language-common@4.1.3 node scripts/gen-common-passwords.mjs <path-to-passwords.json>
import { readFileSync, writeFileSync } from 'node:fs';
const ranked = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const seen = new Set();
for (const p of ranked) {
  const w = String(p).toLowerCase();
  if (w && !seen.has(w)) seen.add(w);
  if (seen.size === 10000) break;
}
writeFileSync(new URL('../functions/core/data/common-passwords.txt', import.meta.url), [...seen].join('\n') + '\n');
console.log(`wrote ${seen.size} passwords`);
