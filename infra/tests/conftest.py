"""Shared fixtures of the infra suite: template.yaml read with its CloudFormation tags, and the
same template after the SAM transform (samtranslator, offline: no AWS account is asked)."""

import copy
import os
import pathlib

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


@pytest.fixture(scope="session")
def template():
    return load_template(ROOT / "template.yaml")


@pytest.fixture(scope="session")
def transformed(template):
    """template.yaml as CloudFormation sees it after `sam package` (code in S3) and
    `Transform: AWS::Serverless-2016-10-31`."""
    packaged = copy.deepcopy(template)
    packaged.get("Globals", {}).get("Function", {})["CodeUri"] = "s3://artifacts/bootstrap.zip"
    for r in packaged["Resources"].values():
        if r["Type"] == "AWS::Serverless::Function" and "CodeUri" in r.get("Properties", {}):
            r["Properties"]["CodeUri"] = "s3://artifacts/bootstrap.zip"
    return transform(packaged, {}, _NoManagedPolicies())
