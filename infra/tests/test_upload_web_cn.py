"""The cell in the web upload (infra/upload_web.py --cell, issue 32 items 1 and 4): both cells'
index.html name the cell and the other cell's portal in two <meta> tags; the cn cell, whose
CloudFront has no Functions to rewrite a deep link, gets a copy of index.html at each of the
SPA's paths, read from the web app's route table (never retyped), uploaded just before
index.html with its headers. Against moto_server, as test_upload_web.py."""

import html
import pathlib
import shutil
import subprocess
import sys

import pytest
from samcli.yamlhelper import yaml_parse

from test_upload_web import FIRST, SECOND, bucket, calls, endpoint, s3, site_keys, tags, write_build  # noqa: F401

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "infra"))
import upload_web  # noqa: E402

HEAD_PAGE = '<!doctype html><html lang="zh-CN"><head><meta charset="UTF-8" /><title>Ciam</title></head><body></body></html>'
OTHER = "https://login.example.com"


def build(tmp_path, name, files=FIRST):
    return write_build(tmp_path / name, {**files, "index.html": HEAD_PAGE})


def upload(s3, bucket, dist, cell, other=OTHER, **kw):  # noqa: F811
    return upload_web.upload(s3, bucket, dist, log=lambda _: None, cell=cell, other_cell=other, **kw)


@pytest.fixture
def web_src(tmp_path):
    """A copy of the SPA's sources that a test may change."""
    src = tmp_path / "src"
    for name in ("i18n/locale.ts", "config/paths.ts", "config/console-paths.ts", "app/router.tsx"):
        (src / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(ROOT / "web" / "src" / name, src / name)
    return src


# -- the SPA's paths, from its route table ------------------------------------------------------


def test_the_paths_come_from_the_route_table_in_every_locale():
    paths = upload_web.spa_paths()
    for locale in ("zh-CN", "en-US"):
        for page in ("passport/signin", "passport/register", "passport/authorize", "personal/info", "personal/secure",
                     "agreement/privacy", "agreement/protocols", "agreement/manual", "find/password", "logout",
                     "embedded/signin", "admin", "admin/accounts", "admin/apps", "admin/audit", "admin/roles"):
            assert f"/{locale}/{page}" in paths, page
        # Only in the router: the OpenID Connect end-session page the API redirects to, and the
        # index routes that redirect (/zh-CN, /zh-CN/passport).
        assert {f"/{locale}/passport/end-session", f"/{locale}", f"/{locale}/passport"} <= set(paths)
    assert "/signout" in paths
    # DefaultRootObject serves /; a parameter or a wildcard has no one object.
    assert "/" not in paths and not [p for p in paths if ":" in p or "*" in p or "$" in p], paths


def test_a_page_added_to_the_route_table_gets_its_copy_and_one_with_a_parameter_does_not(web_src):
    paths_ts = web_src / "config" / "paths.ts"
    paths_ts.write_text(paths_ts.read_text().replace(
        "  signout: () => '/signout',", "  signout: () => '/signout',\n  orders: (l: Locale) => `/${l}/personal/orders`,"))
    router = web_src / "app" / "router.tsx"
    router.write_text(router.read_text().replace(
        "{ path: 'secure', ", "{ path: 'orders/:orderId', element: null },\n{ path: 'wallet', element: null },\n{ path: 'secure', "))
    paths = upload_web.spa_paths(web_src)
    assert {"/zh-CN/personal/orders", "/en-US/personal/orders", "/zh-CN/personal/wallet"} <= set(paths)
    assert not [p for p in paths if "orderId" in p]


def test_a_route_table_that_moved_stops_the_upload_before_anything_is_written(s3, bucket, calls, tmp_path, web_src):  # noqa: F811
    paths_ts = web_src / "config" / "paths.ts"
    paths_ts.write_text(paths_ts.read_text().replace("export const paths", "export const routes"))
    with pytest.raises(upload_web.UploadError, match="export const paths"):
        upload(s3, bucket, build(tmp_path, "dist"), "cn", web_src=web_src)
    assert not calls.keys("PutObject")


def test_the_paths_the_distribution_sends_elsewhere_get_no_copy():
    elsewhere = upload_web.routed_elsewhere(upload_web.DEFAULT_CN_TEMPLATE)
    assert {"/ciam/*", "/zh-CN/embedded/*", "/en-US/embedded/*"} <= set(elsewhere)
    keys = upload_web.deep_link_keys()
    assert "zh-CN/passport/signin" in keys and not [k for k in keys if "/embedded/" in k]


def test_the_cn_distribution_leaves_deep_links_to_the_copies_and_errors_to_the_origins():
    """docs/multi-region.md §12.2: no CustomErrorResponses (they would turn the API's own 403 and
    404 into index.html) and no CloudFront Function; / is the DefaultRootObject. So a page of the
    route table is its copy, and a path with a parameter or an unknown path is S3's 403."""
    distribution = yaml_parse((ROOT / "infra" / "cn.yaml").read_text())["Resources"]["Distribution"]["Properties"]
    config = distribution["DistributionConfig"]
    assert config["DefaultRootObject"] == "index.html"
    assert "CustomErrorResponses" not in config
    assert "FunctionAssociations" not in config["DefaultCacheBehavior"]


# -- the cn upload ------------------------------------------------------------------------------


def test_the_cn_upload_writes_a_copy_of_index_html_at_every_page_just_before_index_html(s3, bucket, calls, tmp_path):  # noqa: F811
    upload(s3, bucket, build(tmp_path, "dist"), "cn")
    pages = upload_web.deep_link_keys()
    puts = calls.keys("PutObject")
    assert sorted(puts) == sorted(site_keys(FIRST) | set(pages))
    assert puts[-1] == "index.html"
    first_page = min(puts.index(k) for k in pages)
    assert puts[first_page:-1] == pages, "the copies come after every other file, and before index.html"
    index = s3.get_object(Bucket=bucket, Key="index.html")
    body = index["Body"].read().decode()
    assert body == HEAD_PAGE.replace(
        "</head>", f'<meta name="ciam-cell" content="cn"><meta name="ciam-other-cell" content="{OTHER}"></head>')
    for key in pages:
        page = s3.get_object(Bucket=bucket, Key=key)
        assert page["Body"].read().decode() == body, key
        assert (page["ContentType"], page["CacheControl"]) == ("text/html; charset=utf-8", "no-cache"), key


def test_a_redeploy_keeps_the_copies_fresh_and_marks_a_page_that_left_the_route_table_stale(s3, bucket, tmp_path, web_src):  # noqa: F811
    upload(s3, bucket, build(tmp_path, "first"), "cn", web_src=web_src)
    paths_ts = web_src / "config" / "paths.ts"
    paths_ts.write_text(paths_ts.read_text().replace("  manual: (l: Locale) => `/${l}/agreement/manual`,\n", ""))
    report = upload(s3, bucket, build(tmp_path, "second", SECOND), "cn", web_src=web_src)
    assert {"zh-CN/agreement/manual", "en-US/agreement/manual"} <= set(report.marked_stale)
    assert not set(report.marked_stale) & set(upload_web.deep_link_keys(web_src))
    assert tags(s3, bucket, "zh-CN/agreement/manual") == {"ciam-stale": "true"}
    assert tags(s3, bucket, "zh-CN/agreement/privacy") == {}


def test_the_global_upload_names_its_cell_and_writes_no_copies(s3, bucket, calls, tmp_path):  # noqa: F811
    upload(s3, bucket, build(tmp_path, "dist"), "global", other=None)
    assert sorted(calls.keys("PutObject")) == sorted(site_keys(FIRST))
    body = s3.get_object(Bucket=bucket, Key="index.html")["Body"].read().decode()
    assert body == HEAD_PAGE.replace("</head>", '<meta name="ciam-cell" content="global"></head>')


def test_without_a_cell_index_html_is_uploaded_as_built(s3, bucket, tmp_path):  # noqa: F811
    upload_web.upload(s3, bucket, build(tmp_path, "dist"), log=lambda _: None)
    assert s3.get_object(Bucket=bucket, Key="index.html")["Body"].read().decode() == HEAD_PAGE


# -- the tags -----------------------------------------------------------------------------------


def test_the_tags_go_before_head_s_end_replacing_an_earlier_upload_s_or_after_the_doctype():
    once = upload_web.with_cell(HEAD_PAGE.encode(), "cn", OTHER)
    again = upload_web.with_cell(once, "global", None).decode()
    assert again == HEAD_PAGE.replace("</head>", '<meta name="ciam-cell" content="global"></head>')
    other = '<meta name="ciam-cells" content="x"><meta name=ciam-cell content=global>'
    assert upload_web.with_cell(other.encode(), "cn", None).decode() == '<meta name="ciam-cell" content="cn"><meta name="ciam-cells" content="x">'
    implied = upload_web.with_cell(b"<!DOCTYPE html><script src=/a.js></script>", "cn", None).decode()
    assert implied == '<!DOCTYPE html><meta name="ciam-cell" content="cn"><script src=/a.js></script>'


def test_the_other_cell_is_an_https_origin_and_its_tag_is_escaped():
    assert upload_web.other_cell_origin("https://Login.Example.cn/") == "https://login.example.cn"
    assert upload_web.other_cell_origin("https://login.example.cn:8443") == "https://login.example.cn:8443"
    for bad in ("http://login.example.cn", "login.example.cn", "javascript:alert(1)", "https://login.example.cn/zh-CN",
                "https://user@login.example.cn", "https://login.example.cn?x=1", 'https://a"><script>'):
        with pytest.raises(upload_web.UploadError, match="--other-cell"):
            upload_web.other_cell_origin(bad)
    hostile = 'https://a"b&c<d>'
    assert upload_web.cell_tags("cn", hostile) == (
        f'<meta name="ciam-cell" content="cn"><meta name="ciam-other-cell" content="{html.escape(hostile, quote=True)}">')
    assert "&quot;" in upload_web.cell_tags("cn", hostile) and '"b' not in upload_web.cell_tags("cn", hostile)


def test_the_command_line_refuses_a_plain_http_other_cell_before_anything_is_written(endpoint, s3, bucket, tmp_path):  # noqa: F811
    dist = build(tmp_path, "dist")
    args = [sys.executable, str(ROOT / "infra" / "upload_web.py"), "--bucket", bucket, "--dist", str(dist),
            "--endpoint-url", endpoint, "--region", "us-east-1", "--cell", "cn"]
    env = {"PATH": "/usr/bin:/bin", "AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing"}
    refused = subprocess.run([*args, "--other-cell", "http://login.example.com"], env=env, capture_output=True, text=True)
    assert refused.returncode == 2 and "not an https URL" in refused.stderr
    assert "Contents" not in s3.list_objects_v2(Bucket=bucket)
    done = subprocess.run([*args, "--other-cell", OTHER], env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert "put   zh-CN/passport/signin  [text/html; charset=utf-8; no-cache]" in done.stdout
    listed = subprocess.run([*args[:2], "--cell", "cn", "--invalidation-paths"], capture_output=True, text=True)
    assert listed.stdout.split() == ["/index.html", "/", "/en-US", "/en-US/*", "/signout", "/zh-CN", "/zh-CN/*"]


def test_the_cn_web_bucket_expires_what_the_upload_marks_as_the_global_one_does():
    def rules(name):
        return yaml_parse((ROOT / name).read_text())["Resources"]["WebBucket"]["Properties"].get("LifecycleConfiguration")

    assert rules("template.yaml"), "the global web bucket has its lifecycle"
    assert rules("infra/cn.yaml") == rules("template.yaml")
