"""The docs point at real things (issue 31 item 6, "Docs true"): every repository path, Rust
item, reason and code constant README.md and docs/*.md name in backticks exists, and every local
markdown link resolves, so a rename or a move in the code fails here instead of leaving the prose
pointing at nothing.

What is read (inline code, and repository paths in plain prose; fenced blocks are examples and
commands, not references):

- repository paths: a backticked word whose first segment is a top-level entry of the repository
  (`functions/core/src/audit.rs`, `infra/waf.yaml`, `template.yaml`), or a word of the prose that
  starts `functions/`, `web/`, `infra/`, `docs/`, `scripts/` or `examples/`, must be a file or
  directory of the checkout. A `:line`, `#anchor` or `§` suffix is taken off first; `file.py::test_x` and
  `file.rs::fn_x` also need the test or function in that file; `{a,b}` is expanded and `*` must
  match something; a `<placeholder>` or `…` makes it a pattern, not checked. What a build makes
  (BUILT: `web/dist`, `target/...`) is not in a checkout and is not checked.
- relative paths and file names: a backticked word with a source file's extension that does not
  start at the root (`totp/settings.rs`, `lib/api.ts`, `hook.rs`) must be the tail of some
  repository file (the doc's context says which folder; the check is that the file still
  exists). Sources of other projects (`webauthn-rs-0.6.2/src/lib.rs`, and the few in
  FOREIGN_FILES) are not ours to check.
- Rust paths: `a::b::item` (`ciam_core::audit::Event`, `console::gate`, `Config::request_budget`)
  is resolved under functions/ by its definition (`fn`, `struct`, `enum`, `const`, `static`,
  `mod`, `trait`, `type`, `macro_rules!`, a `use .. as` alias, an enum variant, a struct field,
  or a module's file). When the segment
  before the item is a module, the item must be defined in that module's files (so a function
  that moved fails); after a type, anywhere (impl blocks live apart from their type). Paths that
  start with an external name (EXTERNAL: std, tokio, axum, AWS::..., webauthn-rs types) are not
  checked.
- SCREAMING_SNAKE words (`PASSWORD_ERROR`, `CIAM_PUBLIC_URL`, `MAX_FAILS`): a reason of the
  catalogue (functions/core/src/reason.rs), or a name the code uses (env variables, constants:
  grep over functions/, web/, infra/, scripts/, examples/ and template.yaml), or one of the
  few AWS words in AWS_WORDS (stream view types, stack states, ...).
- routes: a backticked `METHOD /path` (`POST /auth/login/password`, `GET /ciam/v1/oidc/jwks`; the
  `/ciam/v1` prefix may be left out) is a row of infra/routes.json, a `{param}` of the row matching
  any one segment and `{a,b}` expanded; a `<placeholder>` or `...` makes it a pattern. The few paths
  served by something else are in OTHER_SERVERS with the file that serves them.
- markdown links to local files (`[x](data-model.md)`, `[x](../examples/partner-app/README.md)`)
  resolve from the doc's folder.

Names a doc invents on purpose (a how-to's work example, a proposal's new names) are listed by doc
in INVENTED; a name that was real and went is drift, to fix in the doc, not to list.

NOT_YET names a doc being rewritten, checked once the rewrite lands, or a design written before
its code (its names are the plan: "Status: design" on its third line; it leaves NOT_YET when its
first step lands and from then on is held to the code like any doc)."""

import fnmatch
import functools
import json
import pathlib
import re
import subprocess

from template_facts import ROOT

# Being rewritten, or a design before its code (none now).
NOT_YET: set[str] = set()
DOCS = [ROOT / "README.md", *(p for p in sorted((ROOT / "docs").glob("*.md")) if p.name not in NOT_YET)]

# Made by a build or a run, never committed (.gitignore): named by the docs, not checked
# (`assets/...` is the web build's, web/dist/assets/; `packaged.yaml` is `sam package`'s output,
# `samconfig.toml` the operator's own).
BUILT = (
    "web/dist", "target/", ".aws-sam/", ".venv/", ".ciam", "web/src/i18n/compiled/", "web/.env", "node_modules/",
    "assets/", "packaged.yaml", "samconfig.toml",
)
# Files of other projects' sources a design note quotes by their own relative path (webauthn_rp's,
# docs/passkeys-design.md §8).
FOREIGN_FILES = {"src/request/auth.rs", "src/request/register.rs", "src/request/register/custom.rs", "src/request.rs"}
# Rust paths that start here are other crates' or CloudFormation's, not ours.
EXTERNAL = {
    "std", "alloc", "tokio", "axum", "serde", "serde_json", "schemars", "aws_sdk_dynamodb", "aws_sdk_kms",
    "aws_sdk_sqs", "aws_sdk_s3", "aws_sdk_secretsmanager", "aws_lambda_events", "lambda_runtime", "webauthn_rs",
    "webauthn_rs_core", "webauthn_rp", "http", "hyper", "reqwest", "utoipa",
    # CloudFormation resource types and intrinsic functions (`AWS::S3::Bucket`, `Fn::If`).
    "AWS", "Fn",
    # webauthn-rs and the DynamoDB SDK's types, quoted in design notes.
    "PublicKeyCredentialCreationOptions", "DiscoverableCredentialRequestOptions", "ExtensionInfo",
    "CredProtect", "ReturnValuesOnConditionCheckFailure",
}
# Names a doc invents on purpose, by doc: a how-to's work example and its deliberate failure, and
# what a proposal would add (docs/multi-region.md is "Status: proposed"; its names leave this list
# when they are built).
INVENTED = {
    "howto-sign-in-method.md": {"Method::Wechat"},
    # How test names are written (`file::function`), not a name.
    "adding-a-route.md": {"file::function"},
    "howto-language-string.md": {"FEDERATION_REFUSED"},
    # Issue 33's design, step 1 built: the later steps' names (and the public repositories' files
    # it cites as anchors), leaving this list as they are built.
    "federation-design.md": {
        "CIAM_WECHAT_API_BASE", "CORP_ID", "DELETE /auth/identities/{provider}", "FEDERATION_CANCELLED",
        "FEDERATION_LAST_WAY_IN", "FEDERATION_LINK_EXISTS", "FEDERATION_NOT_PERMITTED", "FEDERATION_OPEN_IN_BROWSER",
        "FEDERATION_SNAPSHOT_USER", "Facts::call_timeout_ms", "Facts::console_host", "FedError::Snapshot",
        "GET /_control/calls", "GET /auth/federation", "GET /auth/identities", "KeyPurpose::Federation",
        "Method::Federated", "Notice::IdentityLinked", "OA_APP_ID", "POST /_control/{next-user,",
        "POST /admin/accounts/{userId}/unlink-identity", "POST /auth/federation/phone",
        "POST /auth/federation/register", "POST /auth/identities/confirm", "POST /auth/identities/link",
        "POST /auth/login/federation", "Purpose::Link", "account-identities.tsx",
        "connector-dingtalk-web/src/constant.ts", "connector-wechat-web/src/constant.ts", "core::staff::flow",
        "docs/federation-operators.md", "federation-wechat.test.mjs", "federation/names.ts", "federation::env_lines",
        "functions/api/src/federation/{oidc,wechat,wecom,dingtalk,feishu}.rs", "functions/api/tests/api/federation",
        "functions/fakes", "functions/fakes/src", "gen/tests/federation.rs", "gen::federation", "gen::waf",
        "lib::Region::WafPaths", "linked-accounts.tsx", "packages/connectors/connector-wechat-web/src/constant.ts",
        "web/src/auth/Provider.js", "web/src/features/auth/federation", "web/src/features/auth/federation/icons.tsx",
        "web/tests/e2e/federation",
    },
    "multi-region.md": {"functions/store/src/lagged.rs", "CIAM_REGION_ROLE", "CIAM_HOME_REGION", "CIAM_NOTIFY_REGION"},
}
# Paths the docs give with a method that are not the API's rows, and the file that serves each.
OTHER_SERVERS = {
    "/webhooks": "examples/partner-app/server.mjs",  # the example partner app's receiver
    "/ciam/dev/outbox": "functions/local/src/lib.rs",  # `ciam serve`'s development outbox
}
# AWS's own constants the docs name (stream view types, stack and alarm states, key specs, ...).
AWS_WORDS = {
    "ALL_OLD", "KEYS_ONLY", "NEW_IMAGE", "TRIM_HORIZON", "CAPABILITY_AUTO_EXPAND", "ANOMALY_DETECTION_BAND",
    "INSUFFICIENT_DATA", "REVIEW_IN_PROGRESS", "UPDATE_ROLLBACK_COMPLETE", "ECC_NIST_P256", "SIGN_VERIFY",
    "INSIGHT_RULE_METRIC", "AWS_LAMBDA_LOG_LEVEL", "AWS_XRAY_DAEMON_ADDRESS", "RUST_LOG", "SSL_CERT_DIR",
    "SSL_CERT_FILE",
}
# Where a SCREAMING_SNAKE name is looked for (the docs themselves are not evidence).
CODE_DIRS = ("functions", "web", "infra", "scripts", "examples", ".ci")
CODE_EXTS = (".rs", ".ts", ".tsx", ".mjs", ".js", ".py", ".sh", ".yaml", ".json", ".toml", ".txt")
CRATES = {
    "ciam_core": "functions/core/", "core": "functions/core/", "ciam_api": "functions/api/", "api": "functions/api/",
    "ciam_store": "functions/store/", "store": "functions/store/", "ciam_lambdas": "functions/lambdas/",
    "lambdas": "functions/lambdas/", "ciam_local": "functions/local/", "ciam_gen": "functions/gen/",
    "ciam_notify": "functions/notify/", "ciam_mail": "functions/mail/", "ciam_fakes": "functions/fakes/",
}
SOURCE_EXTS = ("rs", "ts", "tsx", "mjs", "json", "yaml", "yml", "py", "sh", "md", "css", "toml", "txt")

FENCE = re.compile(r"^\s*```.*?^\s*```", re.MULTILINE | re.DOTALL)
# A code span: within one paragraph (it may wrap), ``double`` ones (which hold a backtick) apart.
CODE = re.compile(r"`([^`]+)`")
DOUBLE = re.compile(r"``[^`].*?``", re.DOTALL)
LINK = re.compile(r"\[[^\]\n]*\]\(([^)\s]+)\)")
RUST_PATH = re.compile(r"(?<![\w:.])((?:[A-Za-z_][A-Za-z0-9_]*::)+[A-Za-z_][A-Za-z0-9_]*)")
SCREAMING = re.compile(r"[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+")
# A repository path written in plain prose ("see docs/operations.md §10"), outside backticks.
PROSE_PATH = re.compile(r"(?<![\w/.`-])((?:functions|web|infra|docs|scripts|examples)/[A-Za-z0-9_./-]*[A-Za-z0-9_])")
ROUTE = re.compile(r"\b(GET|POST|PUT|PATCH|DELETE) (/[^\s`?#]*)")
PLACEHOLDER = re.compile(r"<[^>]*>|…|\.\.\.|\$")


@functools.cache
def repository_files():
    """The checkout's files (tracked, and new ones not ignored) and every folder above them."""
    out = subprocess.run(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard", "-z"],
        cwd=ROOT, capture_output=True, text=True, check=True,
    ).stdout
    files = {f for f in out.split("\0") if f and (ROOT / f).exists()}
    folders = {str(p) for f in files for p in pathlib.PurePosixPath(f).parents if str(p) != "."}
    return files, folders


def top_level():
    files, folders = repository_files()
    return {f.split("/", 1)[0] for f in files}


def exists(path):
    files, folders = repository_files()
    path = path.rstrip("/")
    return path in files or path in folders


def prose(doc):
    """The doc without its fenced blocks and ``double`` spans."""
    return DOUBLE.sub("", FENCE.sub("", doc.read_text()))


def code_spans(doc):
    """Each inline code span of the doc, its line breaks and indentation made one space."""
    for paragraph in re.split(r"\n\s*\n", prose(doc)):
        for span in CODE.findall(paragraph):
            yield " ".join(span.split())


def spans():
    for doc in DOCS:
        for span in code_spans(doc):
            yield doc.relative_to(ROOT), span


def prose_paths():
    for doc in DOCS:
        for path in PROSE_PATH.findall(CODE.sub("", prose(doc))):
            yield doc.relative_to(ROOT), path


def invented(doc, name):
    return name in INVENTED.get(doc.name, ())


def expand(path):
    """`a/{b,c}.rs` -> [`a/b.rs`, `a/c.rs`] (one brace group at a time)."""
    m = re.search(r"\{([^{}]*,[^{}]*)\}", path)
    if not m:
        return [path]
    return [q for alt in m.group(1).split(",") for q in expand(path[: m.start()] + alt + path[m.end():])]


def strip_suffix(span):
    """The path of `path:12`, `path:12-30`, `path#anchor`, `path §3`; and the test or function
    of `path::name` apart."""
    span = re.split(r"\s*§", span, maxsplit=1)[0].strip()
    name = None
    if "::" in span:
        span, name = span.split("::", 1)
        name = name.rsplit("::", 1)[-1]
    span = re.sub(r"#[\w-]*$", "", span)
    span = re.sub(r":\d+(?:-\d+)?$", "", span)
    return span, name


def path_problem(span):
    """None when `span` is no repository path or names one that exists; else what is wrong."""
    if " " in span.split("§", 1)[0].strip() or "://" in span or span.startswith(("/", "~", "$", "@")):
        return None
    path, name = strip_suffix(span)
    if "/" not in path and path not in top_level():
        if path.startswith(".") or not path.endswith(tuple("." + e for e in SOURCE_EXTS)):
            return None  # a word, or an extension (`.css`), not a file
    if path.startswith("./"):
        path = path[2:]
    if path.startswith(BUILT) or PLACEHOLDER.search(path):
        return None
    if path.split("/", 1)[0] not in top_level():
        return relative_problem(path)
    for each in expand(path):
        if "*" in each:
            files, folders = repository_files()
            if not fnmatch.filter(files | folders, each.rstrip("/")):
                return f"{each}: matches nothing"
        elif not exists(each):
            return f"{each}: no such file or folder"
        elif name and not defines(ROOT / each, name):
            return f"{each}: no {name} in it"
    return None


def defines(file, name):
    text = file.read_text()
    if file.suffix == ".py":
        return re.search(rf"^def {re.escape(name)}\(", text, re.MULTILINE) is not None
    return re.search(rf"\bfn {re.escape(name)}\b", text) is not None


def relative_problem(path):
    first = path.split("/", 1)[0]
    ext = path.rsplit(".", 1)[-1] if "." in path.rsplit("/", 1)[-1] else None
    if ext not in SOURCE_EXTS or PLACEHOLDER.search(path) or "*" in path or path in FOREIGN_FILES:
        return None
    if re.fullmatch(r"[A-Za-z0-9_-]+-\d+\.\d+\.\d+", first):
        return None  # a crate's own source (`webauthn-rs-0.6.2/src/lib.rs`)
    files, _ = repository_files()
    for each in expand(path):
        if not any(f == each or f.endswith("/" + each) for f in files):
            return f"{each}: no repository file ends so"
    return None


@functools.cache
def rust_files():
    files, _ = repository_files()
    return {f: (ROOT / f).read_text() for f in files if f.startswith("functions/") and f.endswith(".rs")}


# A definition, or a `use ... as name` alias (`KeyPurpose as K`).
ITEM = r"(?:\bfn|\bstruct|\benum|\bconst|\bstatic|\bmod|\btrait|\btype|\bmacro_rules!|\bas)\s+{}\b"
# An enum variant (`Name,`, `Name(..)`, `Name {{`, `Name = "wire"`) or a struct field (`pub name: T`).
VARIANT = r"^\s*(?:#\[[^\]]*\]\s*)*{}\s*(?:[,({{=]|$)"
FIELD = r"^\s*(?:pub(?:\([^)]*\))?\s+)?{}\s*:[^:]"


def defined_in(name, files):
    item = re.compile(ITEM.format(re.escape(name)))
    variant = re.compile(VARIANT.format(re.escape(name)), re.MULTILINE)
    field = re.compile(FIELD.format(re.escape(name)), re.MULTILINE)
    for f in files:
        text = rust_files()[f]
        if item.search(text) or (variant if name[0].isupper() else field).search(text):
            return True
        # A module is also its file or folder.
        if f.endswith((f"/{name}.rs", f"/{name}/mod.rs")) or f"/{name}/" in f:
            return True
    return False


def module_files(module):
    """The files of a module or crate written `module`: `module.rs`, `module/**`, `module_tests.rs`."""
    if module in CRATES:
        return [f for f in rust_files() if f.startswith(CRATES[module])]
    return [
        f
        for f in rust_files()
        if f.endswith((f"/{module}.rs", f"/{module}_tests.rs")) or f"/{module}/" in f
    ]


def rust_problem(path):
    segments = [s for s in path.split("::") if s not in ("crate", "self", "super", "tests")]
    if path.split("::", 1)[0] in EXTERNAL or path.split("::", 1)[0].startswith("aws_sdk_"):
        return None
    everywhere = list(rust_files())
    if segments[0] not in CRATES and not defined_in(segments[0], everywhere):
        return f"{path}: no {segments[0]} under functions/"
    for before, name in zip(segments, segments[1:]):
        scope = module_files(before) if before[0].islower() else everywhere
        if not defined_in(name, scope or everywhere):
            where = f"in {before}" if before[0].islower() and scope else "under functions/"
            return f"{path}: no {name} {where}"
    return None


@functools.cache
def reasons():
    text = (ROOT / "functions" / "core" / "src" / "reason.rs").read_text()
    return set(re.findall(r"^\s*([A-Z][A-Z0-9_]+) = \d{3},", text, re.MULTILINE))


@functools.cache
def code_words():
    files, _ = repository_files()
    words = set()
    for f in files:
        if f == "infra/tests/test_docs_references.py":
            continue  # its own lists are no evidence
        if (f.startswith(CODE_DIRS) or "/" not in f) and f.endswith(CODE_EXTS):
            words |= set(SCREAMING.findall((ROOT / f).read_text(errors="replace")))
    return words


def test_every_repository_path_the_docs_name_exists():
    missing = []
    for doc, span in spans():
        problem = path_problem(span)
        if problem and not invented(doc, strip_suffix(span)[0]):
            missing.append(f"{doc}: `{span}`: {problem}")
    for doc, path in prose_paths():
        problem = path_problem(path)
        if problem and not invented(doc, path):
            missing.append(f"{doc}: {path}: {problem}")
    assert not missing, "\n".join(["paths the docs name that the repository does not have:", *missing])


def test_every_rust_item_the_docs_name_exists():
    missing = []
    for doc, span in spans():
        if "/" in span or re.search(r"\.(?:rs|py)::", span):
            continue  # a file's test (the path check reads those)
        for path in RUST_PATH.findall(span):
            problem = rust_problem(path)
            if problem and not invented(doc, path):
                missing.append(f"{doc}: `{span}`: {problem}")
    assert not missing, "\n".join(["Rust items the docs name that functions/ does not define:", *missing])


def test_every_reason_and_constant_the_docs_name_exists():
    missing = []
    for doc, span in spans():
        known = span in reasons() or span in code_words() or span in AWS_WORDS or invented(doc, span)
        if SCREAMING.fullmatch(span) and not known:
            missing.append(f"{doc}: `{span}`")
    assert not missing, "\n".join(
        ["names that are no reason (functions/core/src/reason.rs) and nothing the code uses:", *missing]
    )


@functools.cache
def api_routes():
    rows = json.loads((ROOT / "infra" / "routes.json").read_text())["functions"]
    return {(r["method"], tuple(r["path"].strip("/").split("/"))) for r in rows if r.get("path")}


def route_problem(method, path):
    if PLACEHOLDER.search(path) or "*" in path:
        return None
    for each in expand(path):
        each = each.rstrip("/") or "/"
        if each in OTHER_SERVERS:
            if each not in (ROOT / OTHER_SERVERS[each]).read_text():
                return f"{method} {each}: not in {OTHER_SERVERS[each]}"
            continue
        # A row's path as written, or under the API's prefix (`/auth/...` for `/ciam/v1/auth/...`).
        full = each if each.startswith("/ciam/") else "/ciam/v1" + each
        if not (is_row(method, each) or is_row(method, full)):
            return f"{method} {full}: no such row in infra/routes.json"
    return None


def is_row(method, path):
    """A row's `{param}` matches any one segment; the doc's own `{param}` only a row's."""
    segments = tuple(path.strip("/").split("/"))
    return any(
        m == method
        and len(p) == len(segments)
        and all(a == b or a.startswith("{") for a, b in zip(p, segments))
        for m, p in api_routes()
    )


def test_every_route_the_docs_name_exists():
    missing = []
    for doc, span in spans():
        for method, path in ROUTE.findall(span):
            problem = route_problem(method, path)
            if problem and not invented(doc, f"{method} {path}"):
                missing.append(f"{doc}: `{span}`: {problem}")
    assert not missing, "\n".join(["routes the docs name that the route table does not have:", *missing])


def test_every_local_link_resolves():
    broken = []
    for doc in DOCS:
        for target in LINK.findall(prose(doc)):
            if re.match(r"[a-z]+:", target) or target.startswith("#"):
                continue  # a web address, mailto:, or a heading of the same page
            path = (doc.parent / target.split("#", 1)[0]).resolve()
            if not path.exists():
                broken.append(f"{doc.relative_to(ROOT)}: ({target})")
    assert not broken, "\n".join(["links to files that do not exist:", *broken])


def test_the_checks_can_fail():
    assert path_problem("functions/core/src/no_such_file.rs")
    assert path_problem("infra/tests/test_docs_counts.py::test_no_such_test")
    assert path_problem("no_such_module/settings.rs")
    assert path_problem("no_such_file.rs")
    assert path_problem("functions/core/src/reason.rs:12") is None
    assert path_problem("docs/operations.md §10") is None
    assert path_problem("functions/api/tests/api/{no_such,events}.rs")
    assert rust_problem("ciam_core::reason::no_such_function")
    assert rust_problem("console::no_such_gate")
    assert rust_problem("std::no_such::thing") is None
    assert route_problem("POST", "/auth/no_such_route")
    assert route_problem("DELETE", "/admin/apps/{appId}/webhooks/backchannel/deliveries")
    assert route_problem("GET", "/ciam/v1/admin/apps/{appId}/webhooks/backchannel/deliveries") is None
    assert "PASSWORD_ERROR" in reasons() and "NO_SUCH_REASON" not in reasons() | code_words()


def test_a_doc_left_unchecked_is_a_design_not_yet_built():
    for name in NOT_YET:
        lines = (ROOT / "docs" / name).read_text().splitlines()
        assert lines[2].startswith("Status: design, written before any code"), (
            f"docs/{name} is left out of these checks only as a design before its code; it is "
            "no longer one: take it out of NOT_YET and fix what the checks find"
        )
