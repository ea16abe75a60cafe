"""Shared fixtures of the infra suite: template.yaml read with its CloudFormation tags, and the
same template after the SAM transform (samtranslator, offline: no AWS account is asked)."""

import copy
import json
import os
import pathlib
import subprocess
import sys

import pytest

# The transform fills AWS::Region and the partition from the environment; any region will do.
os.environ.setdefault("AWS_DEFAULT_REGION", "us-east-1")
from samcli.yamlhelper import yaml_parse
from samtranslator.translator.transform import transform

ROOT = pathlib.Path(__file__).resolve().parents[2]


def pytest_configure(config):
    # scripts/test.sh runs the infra suite beside the cargo build (`-m "not serves_ciam"`) and the
    # tests that serve target/debug/ciam after that build has made it (`-m serves_ciam`).
    config.addinivalue_line(
        "markers", "serves_ciam: needs target/debug/ciam (runs after the cargo test step)"
    )


class _NoManagedPolicies:
    """The transform asks IAM for managed policy ARNs only when a function names one by its
    bare name; the template never does, so nothing is looked up."""

    def load(self):
        return {}


def load_template(path):
    return yaml_parse(pathlib.Path(path).read_text())


CONSOLE = ROOT / "infra" / "console.yaml"
# The main stack's resource for the console's stack (template.yaml, functions/gen/src/console.rs).
CONSOLE_STACK = "ConsoleStack"
# The organizations' ("My company") nested stack, always on (functions/gen/src/console.rs, ORGS).
ORG = ROOT / "infra" / "org.yaml"
ORG_STACK = "OrgStack"


def resolve(value, params):
    """`value` with every `Ref` to one of `params` replaced by what the parent passes for it
    (and `${Name}` in a `Fn::Sub` by `${Ref}` or `${Res.Attr}` when that is a plain `Ref` or
    `Fn::GetAtt`): a nested stack's resource as it would read written in the parent."""
    if isinstance(value, list):
        return [resolve(v, params) for v in value]
    if not isinstance(value, dict):
        return value
    if set(value) == {"Ref"} and value["Ref"] in params:
        return copy.deepcopy(params[value["Ref"]])
    if set(value) == {"Fn::Sub"}:
        sub = value["Fn::Sub"]
        text, local = (sub, {}) if isinstance(sub, str) else (sub[0], sub[1])
        for name, passed in params.items():
            if name in local or f"${{{name}}}" not in text:
                continue
            if set(passed) == {"Ref"}:
                text = text.replace(f"${{{name}}}", f"${{{passed['Ref']}}}")
            elif set(passed) == {"Fn::GetAtt"}:
                target = passed["Fn::GetAtt"]
                target = ".".join(target) if isinstance(target, list) else target
                text = text.replace(f"${{{name}}}", f"${{{target}}}")
            else:
                raise AssertionError(f"${{{name}}} in a Fn::Sub, passed as {passed}")
        return {"Fn::Sub": text if isinstance(sub, str) else [text, resolve(local, params)]}
    return type(value)((k, resolve(v, params)) for k, v in value.items())


def stack_of(nested):
    """The main stack's resource for the nested template `nested` (by the API it defines)."""
    return ORG_STACK if "OrgApi" in nested["Resources"] else CONSOLE_STACK


def merged(main, nested):
    """The main template with a nested stack read into it (the console's or the
    organizations'): its resources
    (parameters resolved to what `ConsoleStack` or `OrgStack` passes, each under the stack's
    condition if it has one) beside the main stack's. What the tests of functions, roles and
    routes read: CloudFormation makes the same resources, in several stacks."""
    out = copy.deepcopy(main)
    name_of_stack = stack_of(nested)
    stack = main["Resources"][name_of_stack]
    params = stack["Properties"]["Parameters"]
    missing = set(nested.get("Parameters", {})) - set(params)
    assert not missing, f"{name_of_stack} does not pass {sorted(missing)}"
    for name, r in nested["Resources"].items():
        assert name not in out["Resources"], f"{name} is in both stacks"
        r = resolve(r, params)
        assert r.get("Condition") is None, f"{name}: a condition inside a nested stack"
        if stack.get("Condition"):
            r["Condition"] = stack["Condition"]
        out["Resources"][name] = r
    return out


def with_org(main, main_path, merged_so_far=None):
    """`merged_so_far` (or `main`) with the organizations' stack of `main` read in, found by its
    `Location` next to `main_path`."""
    out = merged_so_far if merged_so_far is not None else main
    if ORG_STACK not in main["Resources"]:
        return out
    location = main["Resources"][ORG_STACK]["Properties"]["Location"]
    return merged(out, load_template(pathlib.Path(main_path).parent / location))


@pytest.fixture(scope="session")
def main_template():
    """template.yaml alone (the main stack)."""
    return load_template(ROOT / "template.yaml")


@pytest.fixture(scope="session")
def console_template():
    """infra/console.yaml alone (the console's nested stack)."""
    return load_template(CONSOLE)


@pytest.fixture(scope="session")
def org_template():
    """infra/org.yaml alone (the organizations' nested stack)."""
    return load_template(ORG)


@pytest.fixture(scope="session")
def template(main_template, console_template, org_template):
    """template.yaml with the console's and the organizations' stacks read into it (`merged`)."""
    return merged(merged(main_template, console_template), org_template)


def sam_transform(template):
    """A template as CloudFormation sees it after `sam package` (code in S3) and
    `Transform: AWS::Serverless-2016-10-31`."""
    packaged = copy.deepcopy(template)
    packaged.get("Globals", {}).get("Function", {})["CodeUri"] = "s3://artifacts/bootstrap.zip"
    for r in packaged["Resources"].values():
        if r["Type"] == "AWS::Serverless::Function" and "CodeUri" in r.get("Properties", {}):
            r["Properties"]["CodeUri"] = "s3://artifacts/bootstrap.zip"
    return transform(packaged, {}, _NoManagedPolicies())


def sam_transform_in(main_path, console_path, region):
    """`main_path` with its console's stack read into it (`merged`; alone when `console_path` is
    None) after the SAM transform run in `region`: SAM takes the partition of the ARNs it writes
    (its roles' managed policies, `arn:aws-cn:` in China) from the Region, which it reads once
    per process, so this runs in a process of its own."""
    code = (
        "import json, sys; sys.path.insert(0, sys.argv[1]); import conftest; "
        "m = conftest.load_template(sys.argv[2]); "
        "t = conftest.merged(m, conftest.load_template(sys.argv[3])) if sys.argv[3] else m; "
        "t = conftest.with_org(m, sys.argv[2], t) if sys.argv[3] else t; "
        "json.dump(conftest.sam_transform(t), sys.stdout)"
    )
    env = dict(os.environ, AWS_DEFAULT_REGION=region, AWS_REGION=region)
    out = subprocess.run(
        [sys.executable, "-c", code, str(pathlib.Path(__file__).parent), str(main_path), str(console_path or "")],
        env=env, capture_output=True, text=True, check=True,
    )
    return json.loads(out.stdout)


@pytest.fixture(scope="session")
def transformed(template):
    """Both stacks after the SAM transform, read as one (`merged`)."""
    return sam_transform(template)


@pytest.fixture(scope="session")
def main_transformed(main_template):
    """The main stack alone after the SAM transform (its resource count is CloudFormation's
    limit)."""
    return sam_transform(main_template)


@pytest.fixture(scope="session")
def console_transformed(console_template):
    """The console's stack alone after the SAM transform."""
    return sam_transform(console_template)


@pytest.fixture(scope="session")
def org_transformed(org_template):
    """The organizations' stack alone after the SAM transform."""
    return sam_transform(org_template)
