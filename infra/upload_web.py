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
import os
import pathlib
import sys
from dataclasses import dataclass, field
from typing import Callable
from urllib.parse import quote

ROOT = pathlib.Path(__file__).resolve().parents[1]
DEFAULT_DIST = ROOT / "web" / "dist"

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


@dataclass
class Report:
    uploaded: list[str] = field(default_factory=list)
    marked_stale: list[str] = field(default_factory=list)
    already_stale: list[str] = field(default_factory=list)


def content_type_for(key: str) -> str:
    name = key.rsplit("/", 1)[-1].lower()
    dot = name.rfind(".")
    return CONTENT_TYPES.get(name[dot:], UNKNOWN_TYPE) if dot > 0 else UNKNOWN_TYPE


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


def plan(dist: pathlib.Path) -> list[Upload]:
    """The uploads in the order they must happen: assets, other files, index.html."""
    dist = pathlib.Path(dist)
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
    return assets + others + entry


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


def upload(s3, bucket: str, dist: pathlib.Path = DEFAULT_DIST, log: Callable[[str], None] = print) -> Report:
    """Uploads dist to bucket (see the module doc for the order) and marks the previous build's
    leftovers stale. Never deletes anything."""
    uploads = plan(dist)
    report = Report()
    for u in uploads:
        # put_object without Tagging: a file the new build has again loses any stale mark.
        s3.put_object(
            Bucket=bucket,
            Key=u.key,
            Body=u.path.read_bytes(),
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
    p.add_argument("--bucket", required=True, help="the stack's WebBucketName output")
    p.add_argument("--dist", type=pathlib.Path, default=DEFAULT_DIST, help="the built web app (default: web/dist)")
    p.add_argument("--region", default=None, help="the bucket's region (default: the AWS configuration's)")
    p.add_argument("--endpoint-url", default=None, help="an S3-compatible endpoint (tests: moto_server)")
    p.add_argument("--dry-run", action="store_true", help="print the uploads in order; touch nothing")
    return p.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = _parse(argv)
    try:
        if args.dry_run:
            for u in plan(args.dist):
                print(f"would put s3://{args.bucket}/{u.key}  [{u.content_type}; {u.cache_control}]")
            print(f"would tag {STALE_TAG_KEY}={STALE_TAG_VALUE} every other object of s3://{args.bucket} not yet tagged")
            return 0
        import boto3
        from botocore.exceptions import BotoCoreError, ClientError

        s3 = boto3.client("s3", region_name=args.region, endpoint_url=args.endpoint_url)
        try:
            upload(s3, args.bucket, args.dist)
        except (BotoCoreError, ClientError) as e:
            print(f"upload_web: S3 refused or failed: {e}", file=sys.stderr)
            return 1
    except UploadError as e:
        print(f"upload_web: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
