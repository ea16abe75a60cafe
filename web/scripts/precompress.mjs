// Precompression, the last step of `npm run build`: for each text file of the build (JavaScript,
// CSS, HTML, JSON, SVG) a brotli sibling `<file>.br` (quality 11) and a gzip one `<file>.gz`
// (level 9), kept only when smaller than the file. `ciam serve` sends the one the browser's
// Accept-Encoding takes, with `Vary: Accept-Encoding` (functions/local/src/web.rs), so nothing
// is compressed per request. Folders starting with a dot (.vite: the manifest) are left alone.
// CloudFront compresses on its own; the siblings are for `ciam serve`.
//
// Usage: node scripts/precompress.mjs [--dist <dir>] [--quiet]
import { readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';

export const COMPRESSIBLE = /\.(?:js|mjs|css|html|json|svg|txt|xml|webmanifest)$/i;

/** Every file under `dir` (relative paths), skipping dot-folders. */
function files(dir, prefix = '') {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const rel = prefix ? `${prefix}/${e.name}` : e.name;
    if (e.isDirectory()) return e.name.startsWith('.') ? [] : files(join(dir, e.name), rel);
    return e.isFile() ? [rel] : [];
  });
}

/** Writes the siblings of every compressible file of `dist`; answers what was written. */
export function precompress(dist) {
  const out = [];
  for (const rel of files(dist)) {
    if (!COMPRESSIBLE.test(rel)) continue;
    const path = join(dist, rel);
    const raw = readFileSync(path);
    const variants = {
      br: brotliCompressSync(raw, {
        params: {
          [constants.BROTLI_PARAM_QUALITY]: constants.BROTLI_MAX_QUALITY,
          [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
          [constants.BROTLI_PARAM_SIZE_HINT]: raw.length,
        },
      }),
      gz: gzipSync(raw, { level: 9 }),
    };
    for (const [ext, bytes] of Object.entries(variants)) {
      const sibling = `${path}.${ext}`;
      if (bytes.length < raw.length) {
        writeFileSync(sibling, bytes);
        out.push({ file: `${rel}.${ext}`, raw: raw.length, size: bytes.length });
      } else {
        // Not worth it: make sure no stale sibling of an older build is served instead.
        rmSync(sibling, { force: true });
      }
    }
  }
  return out;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const args = process.argv.slice(2);
  const i = args.indexOf('--dist');
  const dist = resolve(i >= 0 ? args[i + 1] : join(new URL('..', import.meta.url).pathname, 'dist'));
  if (!statSync(dist, { throwIfNoEntry: false })?.isDirectory()) {
    console.error(`precompress: no build at ${dist}`);
    process.exit(1);
  }
  const written = precompress(dist);
  if (!args.includes('--quiet')) {
    const sum = (ext) => written.filter((w) => w.file.endsWith(ext)).reduce((n, w) => n + w.size, 0);
    console.log(`precompress: ${written.length} files (${(sum('.br') / 1000).toFixed(1)} KB brotli, ${(sum('.gz') / 1000).toFixed(1)} KB gzip) in ${dist}`);
  }
}
