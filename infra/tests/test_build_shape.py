"""The build shape (docs/operations.md §10): every function runs one of six binaries,
`bootstrap`, (the WebAuthn ceremonies of ciam_api::CEREMONY_ROUTES) `passkeys`, (the webhook
pipeline's two functions, ciam_api::WEBHOOK_FUNCTIONS) `webhooks`, (the pre-traffic check of
the gradual functions, issue 30) `hook`, or (the avatar decoder, ciam_api::INTERNAL) `decoder`,
and names its route in CIAM_ROUTE, so `sam build` groups them into FIVE build definitions, one
per binary:
cargo-lambda links each binary once, and SAM copies each artifact to its functions.

Asked of SAM itself: the build graph is the one `sam build` makes (BuildContext collects the
functions, ApplicationBuilder groups them by FunctionBuildDefinition equality: runtime, CodeUri,
architecture, Metadata and the build container's env; the function's own Environment is not
part of it), without building anything."""

import os
import pathlib
import re

import pytest
from samcli.commands.build.build_context import BuildContext
from samcli.lib.build.app_builder import ApplicationBuilder
from samcli.yamlhelper import yaml_dump

from conftest import ROOT, load_template
from template_facts import KEY_DISTRIBUTOR, PRE_TRAFFIC_HOOK, functions, route_facts

os.environ.setdefault("SAM_CLI_TELEMETRY", "0")


def ceremony_routes():
    """The route ids of `CEREMONY_ROUTES` (the functions that run the `passkeys` binary), from
    infra/routes.json."""
    ids = {i for i, r in route_facts().items() if r["binary"] == "passkeys"}
    assert ids, "CEREMONY_ROUTES has no rows"
    return ids


def binary_of(route):
    return route_facts()[route]["binary"]


def build_definitions(template_file, tmp_path):
    """The function build definitions `sam build` would build for template_file."""
    with BuildContext(
        resource_identifier=None,
        template_file=str(template_file),
        base_dir=None,
        build_dir=str(tmp_path / "build"),
        cache_dir=str(tmp_path / "cache"),
        cached=False,
        parallel=False,
        mode=None,
        parameter_overrides={},
        print_success_message=False,
    ) as ctx:
        resources = ctx.get_resources_to_build()
        builder = ApplicationBuilder(resources, ctx.build_dir, ctx.base_dir, ctx.cache_dir)
        graph = builder._get_build_graph()
        return list(graph.get_function_build_definitions()), len(resources.functions)


def test_sam_builds_every_function_from_one_build_definition_per_binary(template, tmp_path):
    definitions, built = build_definitions(ROOT / "template.yaml", tmp_path)
    routes = functions(template)
    # The key distributor serves no route: the `bootstrap` binary with CIAM_ROUTE=key_distributor.
    distributor = {
        n
        for n, r in template["Resources"].items()
        if r["Type"] == "AWS::Serverless::Function"
        and r["Properties"]["Environment"]["Variables"]["CIAM_ROUTE"] == KEY_DISTRIBUTOR
    }
    assert len(distributor) == 1
    # The pre-traffic check serves no route either: the `hook` binary, alone.
    hook = {
        n
        for n, r in template["Resources"].items()
        if r["Type"] == "AWS::Serverless::Function"
        and r["Properties"]["Environment"]["Variables"]["CIAM_ROUTE"] == PRE_TRAFFIC_HOOK
    }
    assert hook == {"PreTrafficHookFunction"}
    assert built == len(routes) + 2, "every function is built by sam build"
    assert len(definitions) == 6, "one cargo-lambda build per binary: " + "; ".join(map(str, definitions))
    by_binary = {d.metadata["BuildProperties"]["Binary"]: d for d in definitions}
    assert set(by_binary) == {"bootstrap", "passkeys", "webhooks", "hook", "decoder", "domains"}
    for binary, definition in by_binary.items():
        assert definition.metadata == {"BuildMethod": "rust-cargolambda", "BuildProperties": {"Binary": binary}}
        assert definition.runtime == "provided.al2023"
        assert definition.architecture == "arm64"
        assert definition.handler == "bootstrap"
        # cargo-lambda runs in the package's folder: only ciam-lambdas' features are compiled.
        assert pathlib.Path(definition.codeuri) == ROOT / "functions" / "lambdas", "CodeUri is the Lambda package"
        assert {f.name for f in definition.functions} == {
            name for name, route in routes.items() if binary_of(route) == binary
        } | (distributor if binary == "bootstrap" else set()) | (hook if binary == "hook" else set()), binary
    assert len(by_binary["passkeys"].functions) == len(ceremony_routes()) == 8
    assert {f.name for f in by_binary["webhooks"].functions} == {"WebhookFanoutFunction", "WebhookDeliveryFunction"}
    assert {f.name for f in by_binary["decoder"].functions} == {"AvatarDecodeFunction"}
    assert {f.name for f in by_binary["domains"].functions} == {"OrgDomainVerifyFunction", "AdminOrgDomainVerifyFunction"}


def test_every_function_names_a_distinct_route_and_the_metadata_of_its_binary(template):
    routes = functions(template)
    assert len(set(routes.values())) == len(routes), "one function per route id"
    groups = {}
    for name, route in routes.items():
        metadata = template["Resources"][name].get("Metadata")
        assert metadata == {
            "BuildMethod": "rust-cargolambda",
            "BuildProperties": {"Binary": binary_of(route)},
        }, f"{name}: the Metadata of its table's binary"
        groups.setdefault(repr(metadata), set()).add(name)
    assert len(groups) == 5, groups
    assert ceremony_routes() <= set(routes.values()), "every ceremony route has a function"
    for name in routes:
        props = template["Resources"][name]["Properties"]
        for per_build in ("CodeUri", "Handler", "Runtime", "Architectures"):
            assert per_build not in props, f"{name}: {per_build} only in Globals (one build per binary)"


@pytest.mark.parametrize(
    "change",
    [
        lambda r: r["Metadata"]["BuildProperties"].update(Binary="other"),
        lambda r: r["Properties"].update(CodeUri="."),
        lambda r: r["Properties"].update(Architectures=["x86_64"]),
    ],
    ids=["binary", "codeuri", "architecture"],
)
def test_a_function_that_differs_in_what_sam_groups_on_is_built_apart(tmp_path, change):
    """The check above can fail: a function with another Binary, CodeUri or architecture gets a
    build definition of its own (a sixth cargo-lambda build). (The Handler is not grouped on
    for provided.al2023; per-function Environment never is.)"""
    changed = load_template(ROOT / "template.yaml")
    # The main stack's functions only (the nested stacks are read from their own folder; the
    # organizations' holds the `domains` functions, the console's one too).
    del changed["Resources"]["ConsoleStack"]
    del changed["Resources"]["OrgStack"]
    name = next(iter(functions(changed)))
    change(changed["Resources"][name])
    path = tmp_path / "template.yaml"
    path.write_text(yaml_dump(changed))
    definitions, _ = build_definitions(path, tmp_path)
    assert len(definitions) == 6
