"""The build shape (docs/operations.md §10): every function runs the one `bootstrap` binary and
names its route in CIAM_ROUTE, so `sam build` groups all of them into ONE build definition:
cargo-lambda compiles and links once, and SAM copies the artifact to every function.

Asked of SAM itself: the build graph is the one `sam build` makes (BuildContext collects the
functions, ApplicationBuilder groups them by FunctionBuildDefinition equality: runtime, CodeUri,
architecture, Metadata and the build container's env; the function's own Environment is not
part of it), without building anything."""

import os
import pathlib

import pytest
from samcli.commands.build.build_context import BuildContext
from samcli.lib.build.app_builder import ApplicationBuilder
from samcli.yamlhelper import yaml_dump

from conftest import ROOT, load_template
from template_facts import functions

os.environ.setdefault("SAM_CLI_TELEMETRY", "0")


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


def test_sam_builds_every_function_from_one_build_definition(template, tmp_path):
    definitions, built = build_definitions(ROOT / "template.yaml", tmp_path)
    assert built == len(functions(template)), "every function is built by sam build"
    assert len(definitions) == 1, "one cargo-lambda build for all functions: " + "; ".join(map(str, definitions))
    (only,) = definitions
    assert only.metadata == {"BuildMethod": "rust-cargolambda", "BuildProperties": {"Binary": "bootstrap"}}
    assert only.runtime == "provided.al2023"
    assert only.architecture == "arm64"
    assert only.handler == "bootstrap"
    # cargo-lambda runs in the package's folder: only ciam-lambdas' features are compiled.
    assert pathlib.Path(only.codeuri) == ROOT / "functions" / "lambdas", "CodeUri is the Lambda package"
    assert {f.name for f in only.functions} == set(functions(template))


def test_every_function_names_a_distinct_route_and_the_same_metadata(template):
    routes = functions(template)
    assert len(set(routes.values())) == len(routes), "one function per route id"
    metadata = {
        repr(template["Resources"][name].get("Metadata")) for name in routes
    }
    assert len(metadata) == 1, metadata
    for name in routes:
        props = template["Resources"][name]["Properties"]
        for per_build in ("CodeUri", "Handler", "Runtime", "Architectures"):
            assert per_build not in props, f"{name}: {per_build} only in Globals (one build, one binary)"


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
    second build definition (a second cargo-lambda build). (The Handler is not grouped on for
    provided.al2023; per-function Environment never is.)"""
    changed = load_template(ROOT / "template.yaml")
    name = next(iter(functions(changed)))
    change(changed["Resources"][name])
    path = tmp_path / "template.yaml"
    path.write_text(yaml_dump(changed))
    definitions, _ = build_definitions(path, tmp_path)
    assert len(definitions) == 2
