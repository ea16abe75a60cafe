#!/usr/bin/env python3
"""Uploads the built web app (web/dist) to the web bucket without breaking tabs that are open
on the previous build.

Why the order and the headers (docs/operations.md §7):
- `assets/*` first, `Cache-Control: public, max-age=31536000, immutable`: their names carry a
  content hash, so a name never changes meaning and browsers and CloudFront may keep them for a
  year. They go first so that every chunk the new index.html names already exists when it lands.
- every other file (favicon, robots.txt, ...) `no-cache`: its name is stable, so browsers must
  revalidate it.
- `index.html` LAST, `no-cache`: the moment it changes, new page loads (and the embedded sign-in,
  which reads it from the bucket on every request) use the new build.
- files of the previous build that the new one lacks are NOT deleted: a tab opened before the
  deploy still lazy-loads its old chunks. They are copied onto themselves with the tag
  `ciam-stale=true`, which the bucket's lifecycle rule (template.yaml, WebBucket) expires
  STALE_LIFETIME_DAYS after that copy. A file the new build has again is put without tags, so it
  loses the mark. A file already marked keeps its first mark date: redeploying often must not
  keep a stale chunk alive forever.

Importable (`upload(s3, bucket, dist)`) and a command line tool:
    python infra/upload_web.py --bucket BUCKET [--dist web/dist] [--region R]
                               [--endpoint-url URL] [--dry-run]
"""

from __future__ import annotations

import argparse
import fnmatch
import html
import os
import re
import pathlib
import sys
from dataclasses import dataclass, field
from typing import Callable
from urllib.parse import quote, urlsplit

ROOT = pathlib.Path(__file__).resolve().parents[1]
DEFAULT_DIST = ROOT / "web" / "dist"
DEFAULT_WEB_SRC = ROOT / "web" / "src"
DEFAULT_CN_TEMPLATE = ROOT / "infra" / "cn.yaml"
CELLS = ("global", "cn")

ENTRY = "index.html"
ASSET_PREFIX = "assets/"
IMMUTABLE = "public, max-age=31536000, immutable"
NO_CACHE = "no-cache"
# The lifecycle rule of the web bucket matches this tag; infra/tests check that template.yaml
# expires it after STALE_LIFETIME_DAYS.
STALE_TAG_KEY = "ciam-stale"
STALE_TAG_VALUE = "true"
STALE_LIFETIME_DAYS = 7
# vite's build metadata (the manifest the size budget reads): not part of the site.
SKIPPED_DIRS = frozenset({".vite"})
# Precompressed siblings the web build writes for `ciam serve`; not uploaded.
PRECOMPRESSED = (".br", ".gz")

# By file name only: the type is never sniffed from the content (a stray file must not become
# HTML on our origin) nor taken from the machine's mime.types (the same build must upload the
# same way everywhere). Text types carry their charset so no browser guesses it.
CONTENT_TYPES = {
    ".html": "text/html; charset=utf-8",
    ".htm": "text/html; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".mjs": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".json": "application/json",
    ".map": "application/json",
    ".webmanifest": "application/manifest+json",
    ".txt": "text/plain; charset=utf-8",
    ".xml": "application/xml",
    ".svg": "image/svg+xml",
    ".png": "image/png",
    ".jpg": "image/jpeg",
    ".jpeg": "image/jpeg",
    ".gif": "image/gif",
    ".webp": "image/webp",
    ".avif": "image/avif",
    ".ico": "image/x-icon",
    ".woff2": "font/woff2",
    ".woff": "font/woff",
    ".ttf": "font/ttf",
    ".otf": "font/otf",
    ".wasm": "application/wasm",
    ".pdf": "application/pdf",
}
UNKNOWN_TYPE = "application/octet-stream"

# Object headers a stale copy must keep (S3 drops them unless given again with REPLACE).
_KEPT_HEADERS = ("ContentType", "CacheControl", "ContentEncoding", "ContentDisposition", "ContentLanguage")


class UploadError(Exception):
    """The build cannot be uploaded as it is (nothing was written)."""


@dataclass(frozen=True)
class Upload:
    key: str
    path: pathlib.Path
    cache_control: str
    content_type: str
    # The bytes to write when they are not the file's own (index.html with the cell's tags).
    body: bytes | None = None

    def data(self) -> bytes:
        return self.body if self.body is not None else self.path.read_bytes()


@dataclass
class Report:
    uploaded: list[str] = field(default_factory=list)
    marked_stale: list[str] = field(default_factory=list)
    already_stale: list[str] = field(default_factory=list)


def content_type_for(key: str) -> str:
    name = key.rsplit("/", 1)[-1].lower()
    dot = name.rfind(".")
    return CONTENT_TYPES.get(name[dot:], UNKNOWN_TYPE) if dot > 0 else UNKNOWN_TYPE


# -- the cell: its tags in index.html, and the cn cell's deep links -------------------------------

_HOST = re.compile(r"^[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?(\.[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?)*(:[0-9]{1,5})?$")
_CELL_TAGS = re.compile(r"<meta\s+name=([\"']?)ciam-(?:other-)?cell\1(?=[\s/>])[^>]*>", re.I)


def other_cell_origin(url: str) -> str:
    """The other cell's portal origin as the tag carries it (`https://host[:port]`), or an
    UploadError: only https (the portal's session cookies and passkeys need it), no path, query,
    fragment or user name, so the page can only ever link a whole other portal."""
    parts = urlsplit(url.strip())
    if parts.scheme != "https":
        raise UploadError(f"--other-cell {url!r}: not an https URL (the other cell's portal origin, https://login.example.cn)")
    if not _HOST.match(parts.netloc) or parts.path not in ("", "/") or parts.query or parts.fragment:
        raise UploadError(f"--other-cell {url!r}: an origin only, such as https://login.example.cn (no path, query or user)")
    return f"https://{parts.netloc.lower()}"


def cell_tags(cell: str, other_cell: str | None) -> str:
    """The two <meta> tags the SPA reads (escaped as HTML attributes whatever was validated)."""
    tags = f'<meta name="ciam-cell" content="{html.escape(cell, quote=True)}">'
    if other_cell:
        tags += f'<meta name="ciam-other-cell" content="{html.escape(other_cell, quote=True)}">'
    return tags


def with_cell(page: bytes, cell: str, other_cell: str | None) -> bytes:
    """index.html with the cell's tags before </head> (any tags of an earlier upload removed).
    Without </head> (HTML lets it be implied) they go right after the doctype, still in the head."""
    text = _CELL_TAGS.sub("", page.decode("utf-8"))
    tags = cell_tags(cell, other_cell)
    end = re.search(r"</head\s*>", text, re.I)
    if end:
        at = end.start()
    else:
        doctype = re.match(r"\s*<!doctype[^>]*>", text, re.I)
        at = doctype.end() if doctype else 0
    return (text[:at] + tags + text[at:]).encode("utf-8")


def _block(text: str, start: str, source: pathlib.Path) -> str:
    """The value assigned to `start` (`start ... = [ ... ]` or `{ ... }`), brackets balanced."""
    at = text.find(start)
    if at < 0 or "=" not in text[at:]:
        raise UploadError(f"{source}: no `{start} = ...` (the SPA's route table moved: update upload_web.spa_paths)")
    eq = text.index("=", at)
    i = min((k for k in (text.find("[", eq), text.find("{", eq)) if k >= 0), default=-1)
    if i < 0:
        raise UploadError(f"{source}: `{start}` is not a list or an object")
    depth = 0
    for j in range(i, len(text)):
        depth += {"[": 1, "{": 1, "]": -1, "}": -1}.get(text[j], 0)
        if depth == 0:
            return text[i : j + 1]
    raise UploadError(f"{source}: `{start}` is not closed")


def _expand(pattern: str, locales: list[str]) -> list[str]:
    """`/${l}/passport/signin` or `/:language/passport` for each locale; [] for a path with a
    parameter or a wildcard (it has no one object to be)."""
    out = []
    for locale in locales:
        path = re.sub(r"\$\{\w+\}|:language\b", locale, pattern)
        if path.endswith("/*"):
            path = path[:-2]
        if "${" in path or ":" in path or "*" in path:
            return []
        out.append(path.rstrip("/") or "/")
    return sorted(set(out))


def _router_paths(router: str) -> list[str]:
    """Every path the route tree of app/router.tsx declares (react-router objects: `path`,
    `index`, `children`), joined with its parents' paths: the pages the server itself redirects
    to (the OpenID end-session page) live only here."""
    found, stack = [], [{"path": None, "index": False}]
    for m in re.finditer(r"path:\s*'([^']*)'|index:\s*true|'[^'\n]*'|\"[^\"\n]*\"|[{}]", router):
        token = m.group(0)
        if m.group(1) is not None and stack[-1]["path"] is None:
            stack[-1]["path"] = m.group(1)
        elif token.startswith("index"):
            stack[-1]["index"] = True
        elif token == "{":
            stack.append({"path": None, "index": False})
        elif token == "}" and len(stack) > 1:
            node = stack.pop()
            parents = "/".join(p["path"].strip("/") for p in stack if p["path"] and p["path"] != "/")
            if node["index"]:
                found.append("/" + parents)
            if node["path"] is not None:
                mine = node["path"]
                found.append(mine if mine.startswith("/") else f"/{parents}/{mine}".replace("//", "/"))
    return found


def spa_paths(web_src: pathlib.Path = DEFAULT_WEB_SRC) -> list[str]:
    """The SPA's pages without a parameter, as absolute paths, from the web app's own route table:
    the hrefs config/paths.ts builds, the console screens of config/console-paths.ts under
    /{lang}/admin, and the route tree of app/router.tsx, each in every locale of i18n/locale.ts.
    `/` is left out (CloudFront's DefaultRootObject serves it), and so are paths with a parameter
    (`admin/accounts/:userId`) and wildcards: no object can stand for them."""
    web_src = pathlib.Path(web_src)
    files = {n: web_src / n for n in ("i18n/locale.ts", "config/paths.ts", "config/console-paths.ts", "app/router.tsx")}
    missing = [str(f) for f in files.values() if not f.is_file()]
    if missing:
        raise UploadError(f"the SPA's route table is not there: {', '.join(missing)}")
    text = {n: f.read_text(encoding="utf-8") for n, f in files.items()}
    locales = re.findall(r"'([^']+)'", _block(text["i18n/locale.ts"], "LOCALES", files["i18n/locale.ts"]))
    hrefs = re.findall(r"`(/[^`]*)`|'(/[^']*)'", _block(text["config/paths.ts"], "export const paths", files["config/paths.ts"]))
    screens = re.findall(r"\w+:\s*'([^']*)'", _block(text["config/console-paths.ts"], "consoleScreens", files["config/console-paths.ts"]))
    routes = _router_paths(_block(text["app/router.tsx"], "const ROUTES", files["app/router.tsx"]))
    if not locales or not hrefs or not screens or not routes:
        raise UploadError(f"the SPA's route table under {web_src} did not parse (locales, paths, console screens, routes)")
    patterns = [a or b for a, b in hrefs] + [f"/:language/admin/{s}" for s in screens] + routes
    paths = {p for pattern in patterns for p in _expand(pattern, locales)}
    return sorted(paths - {"/"})


def routed_elsewhere(template: pathlib.Path) -> list[str]:
    """The distribution's path patterns that go to another origin than the bucket (the API, the
    embedded sign-in page): a copy there would never be served."""
    text = pathlib.Path(template).read_text(encoding="utf-8")
    return [p for p, origin in re.findall(r"PathPattern:\s*(\S+)\s*\n\s*TargetOriginId:\s*(\S+)", text) if origin != "web"]


def deep_link_keys(web_src: pathlib.Path = DEFAULT_WEB_SRC, template: pathlib.Path = DEFAULT_CN_TEMPLATE) -> list[str]:
    """The keys of the cn cell's index.html copies: every SPA path the bucket serves."""
    elsewhere = routed_elsewhere(template)
    return [p.lstrip("/") for p in spa_paths(web_src) if not any(fnmatch.fnmatchcase(p, e) for e in elsewhere)]


def invalidation_paths(keys: list[str]) -> list[str]:
    """What a deploy invalidates: index.html, the root, and each deep link's first segment (a
    wildcard counts as one path against CloudFront's free 1,000 a month)."""
    tops = sorted({k.split("/", 1)[0] + ("/*" if "/" in k else "") for k in keys})
    return ["/index.html", "/", *(f"/{t}" for t in tops)]


def _files(dist: pathlib.Path) -> list[tuple[str, pathlib.Path]]:
    """Every file under dist as (key, path), refusing any that resolves outside dist."""
    root = dist.resolve()
    found = []
    for current, dirs, names in os.walk(root):
        here = pathlib.Path(current)
        if here == root:
            dirs[:] = [d for d in dirs if d not in SKIPPED_DIRS]
        dirs.sort()
        for name in sorted(names):
            # The .br/.gz siblings are for `ciam serve` (web/scripts/precompress.mjs); CloudFront
            # compresses by itself, so the bucket holds only the originals.
            if name.endswith(PRECOMPRESSED):
                continue
            path = here / name
            real = path.resolve()
            if not real.is_relative_to(root):
                raise UploadError(f"{path} points outside {root} ({real}); refusing to upload it")
            if real.is_file():
                found.append((path.relative_to(root).as_posix(), real))
        for d in dirs:
            if not (here / d).resolve().is_relative_to(root):
                raise UploadError(f"{here / d} points outside {root}; refusing to upload it")
    return found


def plan(
    dist: pathlib.Path,
    cell: str | None = None,
    other_cell: str | None = None,
    web_src: pathlib.Path = DEFAULT_WEB_SRC,
    template: pathlib.Path = DEFAULT_CN_TEMPLATE,
) -> list[Upload]:
    """The uploads in the order they must happen: assets, other files, (cn: the deep links'
    copies of index.html,) index.html. With a cell every index.html carries its tags."""
    dist = pathlib.Path(dist)
    if cell is not None and cell not in CELLS:
        raise UploadError(f"--cell {cell!r}: one of {', '.join(CELLS)}")
    if other_cell and cell is None:
        raise UploadError("--other-cell goes with --cell")
    origin = other_cell_origin(other_cell) if other_cell else None
    if not (dist / ENTRY).is_file():
        raise UploadError(f"{dist / ENTRY} is missing: build the web app first (npm run build --workspace web)")
    assets, others, entry = [], [], []
    for key, path in _files(dist):
        if key == ENTRY:
            entry.append(Upload(key, path, NO_CACHE, content_type_for(key)))
        elif key.startswith(ASSET_PREFIX):
            assets.append(Upload(key, path, IMMUTABLE, content_type_for(key)))
        else:
            others.append(Upload(key, path, NO_CACHE, content_type_for(key)))
    if cell is None:
        return assets + others + entry
    page = with_cell(entry[0].path.read_bytes(), cell, origin)
    entry = [Upload(ENTRY, entry[0].path, NO_CACHE, content_type_for(ENTRY), page)]
    copies = []
    if cell == "cn":
        taken = {u.key for u in assets + others}
        keys = deep_link_keys(web_src, template)
        clash = sorted(taken.intersection(keys))
        if clash:
            raise UploadError(f"the build has files where the SPA's pages are: {', '.join(clash)}")
        copies = [Upload(key, entry[0].path, NO_CACHE, content_type_for(ENTRY), page) for key in keys]
    return assets + others + copies + entry


def _current_keys(s3, bucket: str) -> list[str]:
    keys = []
    for page in s3.get_paginator("list_objects_v2").paginate(Bucket=bucket):
        keys.extend(o["Key"] for o in page.get("Contents", []))
    return keys


def _mark_stale(s3, bucket: str, key: str) -> bool:
    """Copies key onto itself tagged stale, headers and other tags kept. False when it already
    carries the mark (its expiry date must not move)."""
    head = s3.head_object(Bucket=bucket, Key=key)
    version = head.get("VersionId")
    versioned = {"VersionId": version} if version and version != "null" else {}
    tags = s3.get_object_tagging(Bucket=bucket, Key=key, **versioned)["TagSet"]
    if any(t["Key"] == STALE_TAG_KEY and t["Value"] == STALE_TAG_VALUE for t in tags):
        return False
    kept_tags = [t for t in tags if t["Key"] != STALE_TAG_KEY]
    tagging = "&".join(f"{_q(t['Key'])}={_q(t['Value'])}" for t in kept_tags + [{"Key": STALE_TAG_KEY, "Value": STALE_TAG_VALUE}])
    headers = {h: head[h] for h in _KEPT_HEADERS if head.get(h)}
    # REPLACE with the same headers: S3 refuses a copy onto itself that "changes nothing", and a
    # tag change alone does not count; the copy also gives the object a fresh date, from which
    # the lifecycle rule counts its days.
    s3.copy_object(
        Bucket=bucket,
        Key=key,
        CopySource={"Bucket": bucket, "Key": key, **versioned},
        MetadataDirective="REPLACE",
        Metadata=head.get("Metadata", {}),
        TaggingDirective="REPLACE",
        Tagging=tagging,
        **headers,
    )
    return True


def _q(text: str) -> str:
    return quote(text, safe="")


def upload(
    s3,
    bucket: str,
    dist: pathlib.Path = DEFAULT_DIST,
    log: Callable[[str], None] = print,
    cell: str | None = None,
    other_cell: str | None = None,
    web_src: pathlib.Path = DEFAULT_WEB_SRC,
    template: pathlib.Path = DEFAULT_CN_TEMPLATE,
) -> Report:
    """Uploads dist to bucket (see the module doc for the order and the cell) and marks the
    previous build's leftovers stale. Never deletes anything."""
    uploads = plan(dist, cell, other_cell, web_src, template)
    report = Report()
    for u in uploads:
        # put_object without Tagging: a file the new build has again loses any stale mark.
        s3.put_object(
            Bucket=bucket,
            Key=u.key,
            Body=u.data(),
            CacheControl=u.cache_control,
            ContentType=u.content_type,
        )
        report.uploaded.append(u.key)
        log(f"put   {u.key}  [{u.content_type}; {u.cache_control}]")
    fresh = {u.key for u in uploads}
    for key in _current_keys(s3, bucket):
        if key in fresh:
            continue
        if _mark_stale(s3, bucket, key):
            report.marked_stale.append(key)
            log(f"stale {key}  (kept {STALE_LIFETIME_DAYS} days for open tabs, then expired by the lifecycle rule)")
        else:
            report.already_stale.append(key)
    log(
        f"uploaded {len(report.uploaded)} files to s3://{bucket} ({ENTRY} last); "
        f"marked {len(report.marked_stale)} stale, {len(report.already_stale)} were already stale"
    )
    return report


def _parse(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description="Upload web/dist to the Ciam web bucket (docs/operations.md §7).")
    p.add_argument("--bucket", help="the stack's WebBucketName output (needed but for --invalidation-paths)")
    p.add_argument("--dist", type=pathlib.Path, default=DEFAULT_DIST, help="the built web app (default: web/dist)")
    p.add_argument("--region", default=None, help="the bucket's region (default: the AWS configuration's)")
    p.add_argument("--endpoint-url", default=None, help="an S3-compatible endpoint (tests: moto_server)")
    p.add_argument("--dry-run", action="store_true", help="print the uploads in order; touch nothing")
    p.add_argument("--cell", choices=CELLS, default=None, help="write the cell's tags into index.html (cn: and its deep links)")
    p.add_argument("--other-cell", default=None, metavar="URL", help="the other cell's portal origin (https), for the page to link")
    p.add_argument("--web-src", type=pathlib.Path, default=DEFAULT_WEB_SRC, help="the web app's sources (its route table)")
    p.add_argument("--template", type=pathlib.Path, default=DEFAULT_CN_TEMPLATE, help="the cn stack (its other origins' paths)")
    p.add_argument("--invalidation-paths", action="store_true", help="print the paths a deploy of this cell invalidates; touch nothing")
    args = p.parse_args(argv)
    if not args.bucket and not args.invalidation_paths:
        p.error("the following arguments are required: --bucket")
    return args


def main(argv: list[str] | None = None) -> int:
    args = _parse(argv)
    try:
        if args.invalidation_paths:
            print(" ".join(invalidation_paths(deep_link_keys(args.web_src, args.template)) if args.cell == "cn" else ["/index.html"]))
            return 0
        if args.dry_run:
            for u in plan(args.dist, args.cell, args.other_cell, args.web_src, args.template):
                print(f"would put s3://{args.bucket}/{u.key}  [{u.content_type}; {u.cache_control}]")
            print(f"would tag {STALE_TAG_KEY}={STALE_TAG_VALUE} every other object of s3://{args.bucket} not yet tagged")
            return 0
        import boto3
        from botocore.exceptions import BotoCoreError, ClientError

        s3 = boto3.client("s3", region_name=args.region, endpoint_url=args.endpoint_url)
        try:
            upload(s3, args.bucket, args.dist, cell=args.cell, other_cell=args.other_cell,
                   web_src=args.web_src, template=args.template)
        except (BotoCoreError, ClientError) as e:
            print(f"upload_web: S3 refused or failed: {e}", file=sys.stderr)
            return 1
    except UploadError as e:
        print(f"upload_web: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
