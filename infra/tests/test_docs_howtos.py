"""The how-tos name real tests (issue 31 item 5): every test docs/adding-a-route.md and
docs/howto-*.md name as "the test that fails when a step is forgotten" exists, so a renamed test
cannot leave a how-to pointing at nothing (the web ACL test's rename went unnoticed this way).

Read in the docs: Rust tests written `file::function` or `module::tests::function` (the last
segment a function with at least two underscores), pytest tests written `test_x.py::test_y`, and
every path in backticks that names a file of the repository."""

import re

from template_facts import ROOT

HOWTOS = [ROOT / "docs" / "adding-a-route.md", *sorted((ROOT / "docs").glob("howto-*.md"))]
RUST_TEST = re.compile(r"`(?:[a-z_]+/)*(?:[a-z_]+(?:\.rs)?::)+([a-z][a-z0-9]*(?:_[a-z0-9]+){2,})`")
PY_TEST = re.compile(r"`(?:infra/tests/)?(test_[a-z0-9_]+\.py)::(test_[a-z0-9_]+)`")
PATH = re.compile(r"`((?:functions|web|infra|docs|scripts|examples)/[A-Za-z0-9_./-]+\.(?:rs|py|mjs|ts|tsx|json|yaml|md|sh))`")


def rust_sources():
    return "\n".join(
        p.read_text()
        for p in (ROOT / "functions").rglob("*.rs")
        if "target" not in p.parts
    )


def test_there_are_the_four_howtos_beside_adding_a_route():
    names = {p.name for p in HOWTOS}
    assert {
        "adding-a-route.md",
        "howto-console-action.md",
        "howto-event-kind.md",
        "howto-sign-in-method.md",
        "howto-language-string.md",
    } <= names, names


def test_every_rust_test_a_howto_names_exists():
    sources = rust_sources()
    missing = []
    for doc in HOWTOS:
        for name in RUST_TEST.findall(doc.read_text()):
            if not re.search(rf"\bfn {name}\b", sources):
                missing.append(f"{doc.name}: {name}")
    assert not missing, missing


def test_every_pytest_a_howto_names_exists():
    missing = []
    for doc in HOWTOS:
        for file, name in PY_TEST.findall(doc.read_text()):
            path = ROOT / "infra" / "tests" / file
            if not path.is_file() or not re.search(rf"^def {name}\(", path.read_text(), re.MULTILINE):
                missing.append(f"{doc.name}: {file}::{name}")
    assert not missing, missing


def test_every_file_a_howto_names_exists():
    missing = []
    for doc in HOWTOS:
        for path in PATH.findall(doc.read_text()):
            if "<" in path or "*" in path:
                continue  # a pattern (`docs/<method>-design.md`), not a file
            if not (ROOT / path).exists():
                missing.append(f"{doc.name}: {path}")
    assert not missing, missing


def test_the_check_can_fail():
    assert RUST_TEST.findall("`openapi::the_document_lists_exactly_the_routes_of_the_router`") == [
        "the_document_lists_exactly_the_routes_of_the_router"
    ]
    assert RUST_TEST.findall("`functions/lambdas/src/binary.rs::tests::the_route_comes_from_a_known_id_only`") == [
        "the_route_comes_from_a_known_id_only"
    ]
    assert PY_TEST.findall("`test_template_waf.py::test_each_route_is_counted`") == [
        ("test_template_waf.py", "test_each_route_is_counted")
    ]
