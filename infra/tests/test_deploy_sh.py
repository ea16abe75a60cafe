"""infra/deploy.sh with stub `sam`, `aws`, `npm`, `cargo`, `cargo-lambda` and `zig` on PATH (the
build goes through scripts/build-lambda.sh, as `npm run build:lambda` does): the
steps in order, the dry run that changes nothing, the prerequisites that stop a run early; and
one whole run whose upload lands in moto_server (the S3 emulator of test_upload_web.py)."""

import json
import os
import pathlib
import shutil
import subprocess
import sys
import textwrap
import uuid

import boto3
import pytest

from test_upload_web import CREDENTIALS, endpoint  # noqa: F401  (the moto_server fixture)

ROOT = pathlib.Path(__file__).resolve().parents[2]

# Each stub appends "<name> <args>" to $STUB_LOG. `aws` answers the read-only calls deploy.sh
# makes from $STUB_OUTPUTS; `npm` writes a tiny build as vite would.
STUBS = {
    # `sam build` leaves one function folder as SAM would (scripts/build-lambda.sh zips it).
    "sam": textwrap.dedent(
        """\
        echo "sam $*" >> "$STUB_LOG"
        if [ "$1" = build ]; then
          mkdir -p .aws-sam/build/AuthInfoGetFunction
          printf 'a bootstrap' > .aws-sam/build/AuthInfoGetFunction/bootstrap
        fi
        """
    ),
    "cargo": 'echo "cargo $*" >> "$STUB_LOG"',
    "cargo-lambda": 'echo "cargo-lambda $*" >> "$STUB_LOG"',
    "zig": "true",
    "aws": textwrap.dedent(
        """\
        echo "aws $*" >> "$STUB_LOG"
        case "$1 $2" in
          "sts get-caller-identity") echo arn:aws:iam::123456789012:user/ops ;;
          "configure get") echo eu-west-1 ;;
          "cloudformation describe-stacks") [ -n "$STUB_OUTPUTS" ] || { echo "Stack does not exist" >&2; exit 254; }
                                            echo "$STUB_OUTPUTS" ;;
          "cloudfront create-invalidation") echo I2EXAMPLE ;;
          *) echo "stub aws: unexpected $*" >&2; exit 2 ;;
        esac
        """
    ),
    "npm": textwrap.dedent(
        """\
        echo "npm $*" >> "$STUB_LOG"
        mkdir -p web/dist/assets
        echo '<!doctype html><script src="/assets/index-Q1w2e3r4.js"></script>' > web/dist/index.html
        echo 'console.log(1)' > web/dist/assets/index-Q1w2e3r4.js
        """
    ),
}


def outputs(
    bucket="ciam-web-test",
    distribution="E2EXAMPLE",
    public_base_url="https://d1.cloudfront.net",
    web_acl="arn:aws:wafv2:us-east-1:123456789012:global/webacl/ciam/1",
):
    return json.dumps(
        {
            "Outputs": [
                {"OutputKey": "WebBucketName", "OutputValue": bucket},
                {"OutputKey": "DistributionId", "OutputValue": distribution},
                {"OutputKey": "PublicUrl", "OutputValue": "https://d1.cloudfront.net"},
            ],
            "Parameters": [
                {"ParameterKey": "PublicBaseUrl", "ParameterValue": public_base_url},
                {"ParameterKey": "DomainName", "ParameterValue": ""},
                {"ParameterKey": "WebAclArn", "ParameterValue": web_acl},
            ],
        }
    )


@pytest.fixture
def repo(tmp_path):
    """A copy of the files deploy.sh uses, so the stub build never touches this worktree."""
    (tmp_path / "infra").mkdir()
    for name in ("deploy.sh", "upload_web.py"):
        shutil.copy(ROOT / "infra" / name, tmp_path / "infra" / name)
    (tmp_path / "scripts").mkdir()
    shutil.copy(ROOT / "scripts" / "build-lambda.sh", tmp_path / "scripts" / "build-lambda.sh")
    # The stub sam build's one function (build-lambda.sh reads each function's Binary here).
    (tmp_path / "template.yaml").write_text(
        "Resources:\n"
        "  AuthInfoGetFunction:\n"
        "    Type: AWS::Serverless::Function\n"
        "    Metadata:\n"
        "      BuildMethod: rust-cargolambda\n"
        "      BuildProperties:\n"
        "        Binary: bootstrap\n"
    )
    (tmp_path / "node_modules").mkdir()
    (tmp_path / "web").mkdir()
    return tmp_path


@pytest.fixture
def stubs(tmp_path):
    bin_dir = tmp_path / "stub-bin"
    bin_dir.mkdir()
    for name, body in STUBS.items():
        path = bin_dir / name
        path.write_text(f"#!/usr/bin/env bash\n{body}\n")
        path.chmod(0o755)
    return bin_dir


def deploy(repo, stubs, *args, missing=(), env=None):
    for name in missing:
        (stubs / name).unlink()
    log = repo / "calls.log"
    log.touch()
    run_env = {
        # Only the stubs and the base system: no real sam, aws or node can answer.
        "PATH": f"{stubs}:/usr/bin:/bin",
        "HOME": str(repo),
        "STUB_LOG": str(log),
        "STUB_OUTPUTS": outputs(),
        "CIAM_PYTHON": sys.executable,
        **(env or {}),
    }
    done = subprocess.run(
        ["bash", str(repo / "infra" / "deploy.sh"), *args], env=run_env, capture_output=True, text=True, timeout=120
    )
    return done, log.read_text().splitlines()


def test_a_dry_run_prints_every_step_in_order_and_makes_only_read_only_calls(repo, stubs):
    done, calls = deploy(
        repo, stubs, "--dry-run", "--stack-name", "ciam-test", "--region", "eu-west-1",
        "--parameter-overrides", "MailFrom=no-reply@example.com WebAclArn=arn:aws:wafv2:x",
    )
    assert done.returncode == 0, done.stderr
    out = done.stdout
    order = [
        "+ bash " + str(repo / "scripts" / "build-lambda.sh"),
        "/sam deploy --stack-name ciam-test --region eu-west-1",
        "--parameter-overrides MailFrom=no-reply@example.com\\ WebAclArn=arn:aws:wafv2:x",
        "+ npm run build --workspace web",
        "upload_web.py --bucket ciam-web-test --region eu-west-1",
        "+ aws cloudfront create-invalidation --distribution-id E2EXAMPLE --paths /index.html",
    ]
    positions = [out.find(s) for s in order]
    assert -1 not in positions, out
    assert positions == sorted(positions), out
    assert calls == [
        "aws sts get-caller-identity --query Arn --output text",
        "aws cloudformation describe-stacks --stack-name ciam-test --region eu-west-1 --query Stacks[0] --output json",
    ]
    assert not (repo / "web" / "dist").exists()


def test_a_dry_run_before_the_first_deploy_shows_placeholders(repo, stubs):
    done, _ = deploy(repo, stubs, "--dry-run", "--region", "eu-west-1", env={"STUB_OUTPUTS": ""})
    assert done.returncode == 0, done.stderr
    assert "--bucket \\<WebBucketName\\>" in done.stdout
    assert "--distribution-id \\<DistributionId\\>" in done.stdout


def test_a_missing_cargo_lambda_stops_the_run_before_anything_is_built(repo, stubs):
    done, calls = deploy(repo, stubs, "--region", "eu-west-1", missing=["cargo-lambda"])
    assert done.returncode != 0
    assert "cargo-lambda not found" in done.stderr
    assert not [c for c in calls if not c.startswith("aws sts")]


def test_a_dry_run_lists_every_missing_prerequisite_and_fails(repo, stubs):
    done, calls = deploy(repo, stubs, "--dry-run", "--region", "eu-west-1", missing=["cargo-lambda", "sam"])
    assert done.returncode != 0
    assert "missing cargo-lambda" in done.stderr and "missing sam" in done.stderr
    assert "+ npm run build --workspace web" in done.stdout, "the plan is still shown"
    assert not [c for c in calls if c.startswith(("sam", "npm", "aws cloudfront"))]


def test_missing_credentials_stop_the_run(repo, stubs):
    (stubs / "aws").write_text('#!/usr/bin/env bash\necho "aws $*" >> "$STUB_LOG"\nexit 255\n')
    done, calls = deploy(repo, stubs, "--region", "eu-west-1")
    assert done.returncode != 0
    assert "no usable AWS credentials" in done.stderr
    assert not [c for c in calls if c.startswith("sam")]


def test_a_stack_without_a_distribution_id_output_fails_before_the_web_build(repo, stubs):
    stack = json.loads(outputs())
    stack["Outputs"] = [o for o in stack["Outputs"] if o["OutputKey"] != "DistributionId"]
    done, calls = deploy(repo, stubs, "--web-only", "--region", "eu-west-1", env={"STUB_OUTPUTS": json.dumps(stack)})
    assert done.returncode != 0
    assert "DistributionId" in done.stderr
    assert not [c for c in calls if c.startswith("npm")]


def test_web_only_needs_neither_sam_nor_cargo_lambda(repo, stubs):
    done, _ = deploy(repo, stubs, "--dry-run", "--web-only", "--region", "eu-west-1", missing=["sam", "cargo-lambda"])
    assert done.returncode == 0, done.stderr
    assert "sam build" not in done.stdout and "sam deploy" not in done.stdout


def test_guided_lets_sam_ask_for_the_parameters(repo, stubs):
    done, _ = deploy(repo, stubs, "--dry-run", "--guided", "--region", "eu-west-1")
    assert done.returncode == 0, done.stderr
    assert "/sam deploy --stack-name ciam --region eu-west-1 --guided\n" in done.stdout


def test_an_empty_public_base_url_and_web_acl_are_pointed_out(repo, stubs):
    args = (repo, stubs, "--dry-run", "--web-only", "--region", "eu-west-1")
    done, _ = deploy(*args, env={"STUB_OUTPUTS": outputs(public_base_url="", web_acl="")})
    assert "--parameter-overrides PublicBaseUrl=https://d1.cloudfront.net" in done.stdout
    assert "WebAclArn is empty" in done.stdout
    done, _ = deploy(*args)
    assert "note:" not in done.stdout


def test_a_whole_run_deploys_then_uploads_to_the_bucket_then_invalidates_index_html(repo, stubs, endpoint):  # noqa: F811
    bucket = f"ciam-web-{uuid.uuid4().hex[:12]}"
    s3 = boto3.client("s3", endpoint_url=endpoint, **CREDENTIALS)
    s3.create_bucket(Bucket=bucket)
    done, calls = deploy(
        repo, stubs, "--region", "us-east-1", "--stack-name", "ciam-test",
        env={
            "STUB_OUTPUTS": outputs(bucket=bucket),
            # boto3 sends S3 calls here (the upload tool); the stub aws ignores it.
            "AWS_ENDPOINT_URL_S3": endpoint,
            "AWS_ACCESS_KEY_ID": "testing",
            "AWS_SECRET_ACCESS_KEY": "testing",
        },
    )
    assert done.returncode == 0, done.stderr + done.stdout
    kinds = [c.split(" ")[0] + " " + c.split(" ")[1] for c in calls]
    assert kinds == [
        "aws sts",
        "cargo fetch",
        "sam build",
        "sam deploy",
        "aws cloudformation",
        "npm run",
        "aws cloudfront",
    ]
    assert calls[1] == "cargo fetch --locked --target aarch64-unknown-linux-gnu"
    assert calls[2] == f"sam build --template-file {repo}/template.yaml", "the build of npm run build:lambda"
    assert "1 functions, 1 distinct artifact(s)" in done.stdout, done.stdout
    assert "--no-fail-on-empty-changeset" in calls[3]
    assert calls[-1].endswith("create-invalidation --distribution-id E2EXAMPLE --paths /index.html --query Invalidation.Id --output text")
    head = s3.head_object(Bucket=bucket, Key="index.html")
    assert head["CacheControl"] == "no-cache"
    asset = s3.head_object(Bucket=bucket, Key="assets/index-Q1w2e3r4.js")
    assert asset["CacheControl"] == "public, max-age=31536000, immutable"
    uploaded = done.stdout.find("uploaded 2 files to s3://")
    assert -1 < uploaded < done.stdout.find("invalidation I2EXAMPLE"), "the invalidation comes after the upload"
