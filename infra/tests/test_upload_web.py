"""The web upload (infra/upload_web.py) against an S3 emulator (moto_server): headers, order,
the previous build kept and marked stale, nothing deleted; and the bucket lifecycle in
template.yaml that expires what the upload marks."""

import os
import pathlib
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
import uuid

import boto3
import pytest
from samcli.yamlhelper import yaml_parse

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "infra"))
import upload_web  # noqa: E402

CREDENTIALS = {"aws_access_key_id": "testing", "aws_secret_access_key": "testing", "region_name": "us-east-1"}


# -- the emulator ---------------------------------------------------------------------------


def _moto_server_binary():
    beside = pathlib.Path(sys.executable).parent / "moto_server"
    return str(beside) if beside.exists() else shutil.which("moto_server")


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def endpoint():
    binary = _moto_server_binary()
    if binary is None:
        message = "moto_server not found (bash scripts/setup.sh installs moto[server] into .venv)"
        if os.environ.get("CI") == "true":
            pytest.fail(message)
        pytest.skip(message)
    port = _free_port()
    proc = subprocess.Popen(
        [binary, "-H", "127.0.0.1", "-p", str(port)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                urllib.request.urlopen(f"{url}/moto-api/", timeout=1)
                break
            except OSError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    pytest.fail(f"moto_server did not start on {url}")
                time.sleep(0.1)
        yield url
    finally:
        proc.terminate()
        proc.wait(timeout=10)


class Calls:
    """Every S3 operation the client makes, in order, as (operation, key)."""

    def __init__(self):
        self.log = []

    def __call__(self, params, model, **_):
        self.log.append((model.name, params.get("Key")))

    def keys(self, operation):
        return [k for op, k in self.log if op == operation]

    def index(self, operation, key):
        return self.log.index((operation, key))


@pytest.fixture
def s3(endpoint):
    return boto3.client("s3", endpoint_url=endpoint, **CREDENTIALS)


@pytest.fixture
def bucket(s3):
    name = f"ciam-web-{uuid.uuid4().hex[:12]}"
    s3.create_bucket(Bucket=name)
    s3.put_bucket_versioning(Bucket=name, VersioningConfiguration={"Status": "Enabled"})
    return name


@pytest.fixture
def calls(s3):
    recorder = Calls()
    s3.meta.events.register("before-parameter-build.s3", recorder)
    return recorder


# -- fake builds ------------------------------------------------------------------------------


def write_build(root, files):
    root.mkdir(parents=True, exist_ok=True)
    for key, body in files.items():
        path = root / key
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(body if isinstance(body, bytes) else body.encode())
    return root


def build_files(js, css, lazy):
    return {
        "index.html": f'<!doctype html><script type="module" src="/assets/index-{js}.js"></script>',
        f"assets/index-{js}.js": f"import('./Signin-{lazy}.js')",
        f"assets/index-{js}.js.map": '{"version":3}',
        f"assets/index-{css}.css": "body{margin:0}",
        f"assets/Signin-{lazy}.js": "export default 1",
        "assets/logo-C0ffee12.svg": "<svg xmlns='http://www.w3.org/2000/svg'/>",
        "assets/inter-Dd4e5f67.woff2": b"wOF2\x00\x01",
        "assets/hero-E1e2e3e4.webp": b"RIFF\x00\x00\x00\x00WEBP",
        "assets/badge-F1f2f3f4.png": b"\x89PNG\r\n\x1a\n",
        "favicon.ico": b"\x00\x00\x01\x00",
        "manifest.webmanifest": '{"name":"Ciam"}',
        "config.json": "{}",
        # Looks like HTML but has no known extension: must never be served as HTML.
        "LICENSE": "<html><script>alert(1)</script>",
        ".vite/manifest.json": "{}",
    }


FIRST = build_files(js="Aaaa1111", css="Bbbb2222", lazy="Cccc3333")
SECOND = {k: v for k, v in build_files(js="Xxxx7777", css="Yyyy8888", lazy="Zzzz9999").items() if k != "favicon.ico"}
SECOND["robots.txt"] = "User-agent: *"

EXPECTED_TYPES = {
    ".html": "text/html; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".map": "application/json",
    ".css": "text/css; charset=utf-8",
    ".svg": "image/svg+xml",
    ".woff2": "font/woff2",
    ".webp": "image/webp",
    ".png": "image/png",
    ".ico": "image/x-icon",
    ".webmanifest": "application/manifest+json",
    ".json": "application/json",
    ".txt": "text/plain; charset=utf-8",
}


def expected_type(key):
    return next((t for ext, t in EXPECTED_TYPES.items() if key.endswith(ext)), "application/octet-stream")


def expected_cache(key):
    return "public, max-age=31536000, immutable" if key.startswith("assets/") else "no-cache"


def site_keys(files):
    return {k for k in files if not k.startswith(".vite/")}


def tags(s3, bucket, key):
    return {t["Key"]: t["Value"] for t in s3.get_object_tagging(Bucket=bucket, Key=key)["TagSet"]}


def deploy(s3, bucket, tmp_path, name, files):
    return upload_web.upload(s3, bucket, write_build(tmp_path / name, files), log=lambda _: None)


# -- the upload ------------------------------------------------------------------------------


def test_every_object_gets_its_cache_control_and_a_content_type_from_its_name(s3, bucket, tmp_path):
    deploy(s3, bucket, tmp_path, "first", FIRST)
    for key in site_keys(FIRST):
        head = s3.head_object(Bucket=bucket, Key=key)
        assert head["CacheControl"] == expected_cache(key), key
        assert head["ContentType"] == expected_type(key), key
    assert s3.head_object(Bucket=bucket, Key="LICENSE")["ContentType"] == "application/octet-stream"


def test_vite_build_metadata_is_not_uploaded(s3, bucket, tmp_path):
    deploy(s3, bucket, tmp_path, "first", FIRST)
    keys = {o["Key"] for o in s3.list_objects_v2(Bucket=bucket)["Contents"]}
    assert keys == site_keys(FIRST)


def test_the_precompressed_siblings_for_ciam_serve_are_not_uploaded(s3, bucket, tmp_path):
    files = dict(FIRST)
    for key in [k for k in FIRST if k.endswith((".js", ".css", ".html"))]:
        files[key + ".br"] = b"\x8b\x00"
        files[key + ".gz"] = b"\x1f\x8b"
    deploy(s3, bucket, tmp_path, "compressed", files)
    keys = {o["Key"] for o in s3.list_objects_v2(Bucket=bucket)["Contents"]}
    assert keys == site_keys(FIRST)


def test_hashed_assets_go_first_and_index_html_last(s3, bucket, calls, tmp_path):
    deploy(s3, bucket, tmp_path, "first", FIRST)
    calls.log.clear()
    deploy(s3, bucket, tmp_path, "second", SECOND)
    puts = calls.keys("PutObject")
    assert sorted(puts) == sorted(site_keys(SECOND))
    assert puts[-1] == "index.html"
    assets = [i for i, k in enumerate(puts) if k.startswith("assets/")]
    others = [i for i, k in enumerate(puts) if not k.startswith("assets/")]
    assert max(assets) < min(others), puts
    # The old build is only marked once the new index.html is in place.
    last_put = calls.index("PutObject", "index.html")
    assert all(calls.index("CopyObject", k) > last_put for k in calls.keys("CopyObject"))


def test_the_previous_builds_files_stay_marked_stale_with_their_headers_and_nothing_is_deleted(
    s3, bucket, calls, tmp_path
):
    deploy(s3, bucket, tmp_path, "first", FIRST)
    report = deploy(s3, bucket, tmp_path, "second", SECOND)

    gone = site_keys(FIRST) - site_keys(SECOND)
    assert gone == {
        "assets/index-Aaaa1111.js",
        "assets/index-Aaaa1111.js.map",
        "assets/index-Bbbb2222.css",
        "assets/Signin-Cccc3333.js",
        "favicon.ico",
    }
    assert sorted(report.marked_stale) == sorted(gone)
    for key in gone:
        obj = s3.get_object(Bucket=bucket, Key=key)
        assert obj["Body"].read() == write_bytes(FIRST[key]), key
        assert obj["CacheControl"] == expected_cache(key), key
        assert obj["ContentType"] == expected_type(key), key
        assert tags(s3, bucket, key) == {"ciam-stale": "true"}, key
    for key in site_keys(SECOND):
        assert tags(s3, bucket, key) == {}, key
    assert not [op for op, _ in calls.log if op.startswith("Delete")]
    versions = s3.list_object_versions(Bucket=bucket)
    assert "DeleteMarkers" not in versions
    current = {v["Key"] for v in versions["Versions"] if v["IsLatest"]}
    assert current == site_keys(FIRST) | site_keys(SECOND)


def write_bytes(body):
    return body if isinstance(body, bytes) else body.encode()


def test_a_file_the_new_build_has_again_loses_its_stale_mark(s3, bucket, tmp_path):
    deploy(s3, bucket, tmp_path, "first", FIRST)
    deploy(s3, bucket, tmp_path, "second", SECOND)
    assert tags(s3, bucket, "assets/Signin-Cccc3333.js") == {"ciam-stale": "true"}
    deploy(s3, bucket, tmp_path, "rollback", FIRST)
    for key in site_keys(FIRST):
        assert tags(s3, bucket, key) == {}, key
    assert tags(s3, bucket, "robots.txt") == {"ciam-stale": "true"}
    assert tags(s3, bucket, "assets/Signin-Zzzz9999.js") == {"ciam-stale": "true"}


def test_an_already_stale_file_keeps_its_first_mark_so_frequent_deploys_do_not_keep_it_alive(
    s3, bucket, calls, tmp_path
):
    deploy(s3, bucket, tmp_path, "first", FIRST)
    deploy(s3, bucket, tmp_path, "second", SECOND)
    before = s3.head_object(Bucket=bucket, Key="assets/Signin-Cccc3333.js")["VersionId"]
    calls.log.clear()
    report = deploy(s3, bucket, tmp_path, "again", SECOND)
    assert report.marked_stale == []
    assert "assets/Signin-Cccc3333.js" in report.already_stale
    assert calls.keys("CopyObject") == []
    assert s3.head_object(Bucket=bucket, Key="assets/Signin-Cccc3333.js")["VersionId"] == before


def test_a_stale_copy_keeps_user_metadata_and_other_tags(s3, bucket, tmp_path):
    s3.put_object(
        Bucket=bucket,
        Key="legacy.txt",
        Body=b"x",
        ContentType="text/plain; charset=utf-8",
        CacheControl="no-cache",
        ContentLanguage="zh-CN",
        Metadata={"origin": "hand"},
        Tagging="owner=ops",
    )
    deploy(s3, bucket, tmp_path, "first", FIRST)
    head = s3.head_object(Bucket=bucket, Key="legacy.txt")
    assert head["Metadata"] == {"origin": "hand"}
    assert head["ContentLanguage"] == "zh-CN"
    assert head["ContentType"] == "text/plain; charset=utf-8"
    assert tags(s3, bucket, "legacy.txt") == {"owner": "ops", "ciam-stale": "true"}


def test_a_build_without_index_html_is_refused_before_anything_is_written(s3, bucket, calls, tmp_path):
    files = {k: v for k, v in FIRST.items() if k != "index.html"}
    with pytest.raises(upload_web.UploadError, match="index.html is missing"):
        deploy(s3, bucket, tmp_path, "broken", files)
    assert calls.log == []


def test_a_link_out_of_the_build_folder_is_refused(s3, bucket, calls, tmp_path):
    secret = write_build(tmp_path / "outside", {"secret.txt": "do not publish"})
    dist = write_build(tmp_path / "dist", FIRST)
    (dist / "assets" / "leak.txt").symlink_to(secret / "secret.txt")
    with pytest.raises(upload_web.UploadError, match="outside"):
        upload_web.upload(s3, bucket, dist, log=lambda _: None)
    assert calls.log == []


def test_content_types_come_from_the_name_only():
    assert upload_web.content_type_for("assets/a-1.JS") == "text/javascript; charset=utf-8"
    assert upload_web.content_type_for("index.html") == "text/html; charset=utf-8"
    assert upload_web.content_type_for("assets/x.woff2") == "font/woff2"
    for unknown in ("LICENSE", ".htaccess", "page.html.bak", "archive.tar.zst"):
        assert upload_web.content_type_for(unknown) == "application/octet-stream", unknown


def test_the_command_line_uploads_to_the_given_endpoint(endpoint, s3, bucket, tmp_path):
    dist = write_build(tmp_path / "dist", FIRST)
    env = {**os.environ, "AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing"}
    args = [sys.executable, str(ROOT / "infra" / "upload_web.py"), "--bucket", bucket, "--dist", str(dist)]
    done = subprocess.run(
        [*args, "--endpoint-url", endpoint, "--region", "us-east-1"], env=env, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    assert "index.html last" in done.stdout
    assert s3.head_object(Bucket=bucket, Key="index.html")["CacheControl"] == "no-cache"

    (dist / "index.html").unlink()
    refused = subprocess.run([*args, "--dry-run"], env=env, capture_output=True, text=True)
    assert refused.returncode == 2
    assert "index.html is missing" in refused.stderr


# -- the lifecycle that removes what the upload marks -----------------------------------------


def _web_bucket(template):
    return template["Resources"]["WebBucket"]["Properties"]


def _rules(template):
    return _web_bucket(template).get("LifecycleConfiguration", {}).get("Rules", [])


# P2 (wt-template) adds the lifecycle on its own branch. Until it is merged this branch's
# template has none, and these tests are expected to fail; once it is there the mark no longer
# applies and they must pass.
LIFECYCLE_PENDING = pytest.mark.xfail(
    condition=not _rules(yaml_parse((ROOT / "template.yaml").read_text())),
    strict=True,
    reason="WebBucket has no LifecycleConfiguration yet: P2 adds it in template.yaml",
)


def _unfiltered(rule):
    return not rule.get("TagFilters") and not rule.get("Prefix") and "ObjectSizeGreaterThan" not in rule


@LIFECYCLE_PENDING
def test_the_web_bucket_expires_objects_tagged_stale_after_the_days_the_upload_promises(template):
    stale = [
        r
        for r in _rules(template)
        if r.get("TagFilters") == [{"Key": upload_web.STALE_TAG_KEY, "Value": upload_web.STALE_TAG_VALUE}]
    ]
    assert len(stale) == 1, _rules(template)
    rule = stale[0]
    assert rule.get("Status") == "Enabled"
    assert not rule.get("Prefix"), "a prefix would leave stale files outside it forever"
    assert rule.get("ExpirationInDays") == upload_web.STALE_LIFETIME_DAYS


@LIFECYCLE_PENDING
def test_the_web_bucket_is_versioned_and_drops_noncurrent_versions_after_30_days(template):
    assert _web_bucket(template).get("VersioningConfiguration", {}).get("Status") == "Enabled"
    days = [
        r.get("NoncurrentVersionExpiration", {}).get("NoncurrentDays", r.get("NoncurrentVersionExpirationInDays"))
        for r in _rules(template)
        if r.get("Status") == "Enabled" and _unfiltered(r)
    ]
    assert 30 in days, _rules(template)
