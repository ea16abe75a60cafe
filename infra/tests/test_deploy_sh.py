"""infra/deploy.sh with stub `sam`, `aws`, `npm`, `cargo`, `cargo-lambda` and `zig` on PATH (the
build goes through scripts/build-lambda.sh, as `npm run build:lambda` does): the
steps in order, the dry run that changes nothing, the prerequisites that stop a run early; the
production gate (web ACL), the change set review, the stack policy, the kept releases and the
rollback without a build; the console's door (one host name and allow-list for the web ACL's
stack and this one); and whole runs whose upload lands in moto_server (the S3 emulator of
test_upload_web.py). The stub `aws s3 cp` keeps the artefact bucket in a folder ($STUB_S3)."""

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
          printf 'Resources: {}\\n' > .aws-sam/build/template.yaml
        fi
        if [ "$1" = package ]; then
          while [ $# -gt 0 ]; do
            [ "$1" = --output-template-file ] && printf 'packaged: this build\\n' > "$2"
            shift
          done
        fi
        if [ "$1" = deploy ]; then
          case " $* " in *" --no-execute-changeset "*)
            [ -n "$STUB_CHANGES" ] && echo "arn:aws:cloudformation:eu-west-1:1:changeSet/samcli-deploy$RANDOM/x" >> "$STUB_STATE/changesets" ;;
          esac
        fi
        exit 0
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
          "cloudformation describe-stacks")
            # The web ACL's stack (us-east-1) exists unless $STUB_NO_WAF.
            case " $* " in *"-waf "*)
              [ -z "$STUB_NO_WAF" ] || { echo "Stack does not exist" >&2; exit 254; }
              echo "ciam-waf"; exit 0 ;;
            esac
            case " $* " in *" aws-sam-cli-managed-default "*)
              [ -n "$STUB_SAM_BUCKET" ] || { echo "Stack does not exist" >&2; exit 254; }
              echo "$STUB_SAM_BUCKET"; exit 0 ;;
            esac
            [ -n "$STUB_OUTPUTS" ] || { echo "Stack does not exist" >&2; exit 254; }
            echo "$STUB_OUTPUTS" ;;
          "cloudformation list-change-sets") [ -f "$STUB_STATE/changesets" ] && paste -sd '\\t' "$STUB_STATE/changesets" || true ;;
          "cloudformation describe-change-set") echo "$STUB_CHANGES" ;;
          "cloudformation execute-change-set" | "cloudformation delete-change-set" | "cloudformation wait" | "cloudformation set-stack-policy") ;;
          "cloudformation deploy") ;;
          "s3 cp")
            path() { printf '%s/%s' "$STUB_S3" "${1#s3://}"; }
            src="$3" dst="$4"
            case "$src" in s3://*) [ -f "$(path "$src")" ] || { echo "fatal error: 404 $src" >&2; exit 1; }; src="$(path "$src")" ;; esac
            case "$dst" in s3://*) dst="$(path "$dst")"; mkdir -p "$(dirname "$dst")" ;; esac
            if [ "$src" = - ]; then cat > "$dst"; elif [ "$dst" = - ]; then cat "$src"; else cp "$src" "$dst"; fi ;;
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
    copy_vault="arn:aws:backup:eu-central-1:123456789012:backup-vault:ciam-table-copy",
    replica="eu-central-1",
    lock_days="3",
    console_host="",
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
                {"ParameterKey": "BackupCopyVaultArn", "ParameterValue": copy_vault},
                {"ParameterKey": "SecretReplicaRegion", "ParameterValue": replica},
                {"ParameterKey": "BackupVaultLockChangeableForDays", "ParameterValue": lock_days},
                {"ParameterKey": "ConsoleHostName", "ParameterValue": console_host},
            ],
        }
    )


@pytest.fixture
def repo(tmp_path):
    """A copy of the files deploy.sh uses, so the stub build never touches this worktree."""
    (tmp_path / "infra").mkdir()
    for name in ("deploy.sh", "upload_web.py", "deploy_tool.py", "stack-policy.json", "waf.yaml"):
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
    # A release is named by its commit.
    (tmp_path / ".gitignore").write_text("calls.log\nstub-bin/\ns3/\nstate/\n.aws-sam/\nweb/dist/\n")
    for cmd in (["init", "-q"], ["add", "-A"], ["commit", "-qm", "release"]):
        subprocess.run(["git", *cmd], cwd=tmp_path, env=GIT_ENV, check=True, capture_output=True)
    (tmp_path / "s3").mkdir()
    (tmp_path / "state").mkdir()
    return tmp_path


GIT_ENV = {
    "PATH": "/usr/bin:/bin",
    "HOME": "/nonexistent",
    "GIT_AUTHOR_NAME": "ops", "GIT_AUTHOR_EMAIL": "ops@example.com",
    "GIT_COMMITTER_NAME": "ops", "GIT_COMMITTER_EMAIL": "ops@example.com",
    "GIT_CONFIG_NOSYSTEM": "1",
}


def head(repo):
    return subprocess.run(["git", "rev-parse", "HEAD"], cwd=repo, capture_output=True, text=True, check=True).stdout.strip()


def s3_object(repo, bucket, key):
    return repo / "s3" / bucket / key


# A change set as describe-change-set answers it: (action, logical id, type, replacement).
def change_set(*changes):
    return json.dumps({
        "ChangeSetName": "samcli-deploy1",
        "Status": "CREATE_COMPLETE",
        "Changes": [
            {"Type": "Resource", "ResourceChange": {"Action": a, "LogicalResourceId": i, "ResourceType": t,
                                                     **({"Replacement": r} if r else {})}}
            for a, i, t, r in changes
        ],
    })


MODIFY_ONLY = change_set(
    ("Modify", "AuthInfoGetFunction", "AWS::Lambda::Function", "False"),
    ("Add", "AuthInfoGetCanaryErrorsAlarm", "AWS::CloudWatch::Alarm", ""),
)
REPLACES_THE_TABLE = change_set(
    ("Modify", "AuthInfoGetFunction", "AWS::Lambda::Function", "False"),
    ("Modify", "Table", "AWS::DynamoDB::Table", "True"),
)


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
    log.write_text("")  # the calls of this run only
    run_env = {
        **GIT_ENV,
        # Only the stubs and the base system: no real sam, aws or node can answer.
        "PATH": f"{stubs}:/usr/bin:/bin",
        "HOME": str(repo),
        "STUB_LOG": str(log),
        "STUB_OUTPUTS": outputs(),
        "STUB_S3": str(repo / "s3"),
        "STUB_STATE": str(repo / "state"),
        "STUB_SAM_BUCKET": "ciam-artifacts",
        "STUB_CHANGES": MODIFY_ONLY,
        "CIAM_PYTHON": sys.executable,
        **(env or {}),
    }
    done = subprocess.run(
        ["bash", str(repo / "infra" / "deploy.sh"), *args], env=run_env, capture_output=True, text=True, timeout=120
    )
    return done, log.read_text().splitlines()


# What a dry run may call: reads only.
READ_ONLY = (
    "aws sts get-caller-identity",
    "aws cloudformation describe-stacks",
    "aws cloudformation list-change-sets",
    "aws cloudformation describe-change-set",
)


def only_reads(calls):
    """Every call reads: the read-only verbs, and `aws s3 cp` from S3 to a local file."""
    return all(c.startswith(READ_ONLY) or (c.startswith("aws s3 cp s3://") and " s3://" not in c.split(" ", 4)[4])
               for c in calls)


def test_a_dry_run_prints_every_step_in_order_and_makes_only_read_only_calls(repo, stubs):
    done, calls = deploy(
        repo, stubs, "--dry-run", "--stack-name", "ciam-test", "--region", "eu-west-1",
        "--parameter-overrides", "MailFrom=no-reply@example.com WebAclArn=arn:aws:wafv2:x",
    )
    assert done.returncode == 0, done.stderr
    out = done.stdout
    sha = head(repo)
    order = [
        "Environment=production WebAclArn=arn:aws:wafv2:x",
        "+ bash " + str(repo / "scripts" / "build-lambda.sh"),
        f"/sam package --template-file {repo}/.aws-sam/build/template.yaml --region eu-west-1 --s3-prefix releases/{sha}",
        f"+ aws s3 cp {repo}/.aws-sam/packaged.yaml s3://ciam-artifacts/releases/{sha}/packaged.yaml",
        "+ aws cloudformation set-stack-policy --stack-name ciam-test --region eu-west-1 --stack-policy-body file://",
        f"/sam deploy --stack-name ciam-test --region eu-west-1 --template-file {repo}/.aws-sam/packaged.yaml"
        f" --s3-bucket ciam-artifacts --s3-prefix releases/{sha}",
        "--parameter-overrides MailFrom=no-reply@example.com\\ WebAclArn=arn:aws:wafv2:x --no-execute-changeset",
        # The production review step: made, reviewed, confirmed, executed.
        "== change set review (production)",
        "deploy_tool.py review --stack ciam-test --region eu-west-1",
        "+ aws cloudformation execute-change-set --stack-name ciam-test",
        "+ npm run build --workspace web",
        f"s3://ciam-artifacts/releases/{sha}/web.tar.gz",
        "upload_web.py --bucket ciam-web-test --region eu-west-1",
        "+ aws cloudfront create-invalidation --distribution-id E2EXAMPLE --paths /index.html",
        f"s3://ciam-artifacts/releases/history",
        f"s3://ciam-artifacts/releases/last-good",
    ]
    positions = [out.find(s) for s in order]
    assert -1 not in positions, [s for s, p in zip(order, positions) if p == -1]
    assert positions == sorted(positions), out
    assert "--no-confirm-changeset" not in out, "production is never deployed unreviewed"
    # The console's nested stack (infra/console.yaml) needs CAPABILITY_AUTO_EXPAND.
    assert "--capabilities CAPABILITY_IAM CAPABILITY_AUTO_EXPAND --parameter-overrides" in out
    assert calls[0] == "aws sts get-caller-identity --query Arn --output text"
    assert "aws cloudformation describe-stacks --stack-name ciam-test --region eu-west-1 --query Stacks[0] --output json" in calls
    assert only_reads(calls), calls
    assert not (repo / "web" / "dist").exists()
    assert not list((repo / "s3").iterdir()), "nothing was uploaded"


def test_production_without_the_web_acl_is_refused_before_anything_is_built(repo, stubs):
    # The deployed stack has no web ACL, and no override gives one.
    for args in (["--dry-run"], []):
        done, calls = deploy(repo, stubs, *args, "--region", "eu-west-1", env={"STUB_OUTPUTS": outputs(web_acl="")})
        assert done.returncode == 1, done.stdout
        assert "refusing to deploy the production stack ciam without the web ACL (WebAclArn is empty)" in done.stderr
        assert "--parameter-overrides 'Environment=test'" in done.stderr, "the explicit escape is named"
        assert not [c for c in calls if c.startswith(("sam", "cargo", "npm"))], calls
    # An override that empties it is refused too, even when the stack has one.
    done, _ = deploy(repo, stubs, "--dry-run", "--region", "eu-west-1", "--parameter-overrides", "WebAclArn=")
    assert done.returncode == 1 and "without the web ACL" in done.stderr
    # samconfig.toml's parameter_overrides count as the operator's.
    (repo / "samconfig.toml").write_text('[default.deploy.parameters]\nparameter_overrides = "Environment=production WebAclArn=\\"\\""\n')
    done, _ = deploy(repo, stubs, "--dry-run", "--region", "eu-west-1")
    assert done.returncode == 1 and "without the web ACL" in done.stderr


def test_production_without_its_datas_safety_is_refused_before_anything_is_built(repo, stubs):
    """Issue 30 item 8: no backup copy vault, no secret replica Region or a governance-mode lock
    stops a production deploy, each named, with the web ACL's escape (Environment=test)."""
    bare = outputs(copy_vault="", replica="", lock_days="0")
    for args in (["--dry-run"], []):
        done, calls = deploy(repo, stubs, *args, "--region", "eu-west-1", env={"STUB_OUTPUTS": bare})
        assert done.returncode == 1, done.stdout
        assert "refusing to deploy the production stack ciam without its data's safety" in done.stderr
        for named in ("BackupCopyVaultArn is empty", "SecretReplicaRegion is empty", "BackupVaultLockChangeableForDays is 0"):
            assert named in done.stderr, named
        assert "--parameter-overrides 'Environment=test'" in done.stderr, "the explicit escape is named"
        assert not [c for c in calls if c.startswith(("sam", "cargo", "npm"))], calls
    # One missing is enough; an override that empties one is refused even when the stack has it.
    done, _ = deploy(repo, stubs, "--dry-run", "--region", "eu-west-1", "--parameter-overrides", "SecretReplicaRegion=")
    assert done.returncode == 1 and "SecretReplicaRegion is empty" in done.stderr
    assert "BackupCopyVaultArn is empty" not in done.stderr
    done, _ = deploy(repo, stubs, "--dry-run", "--region", "eu-west-1", "--parameter-overrides", "BackupVaultLockChangeableForDays=0")
    assert done.returncode == 1 and "governance mode" in done.stderr
    # Given by overrides, a stack without them deploys.
    done, _ = deploy(
        repo, stubs, "--dry-run", "--region", "eu-west-1", "--parameter-overrides",
        "BackupCopyVaultArn=arn:aws:backup:eu-central-1:1:backup-vault:v SecretReplicaRegion=eu-central-1 BackupVaultLockChangeableForDays=7",
        env={"STUB_OUTPUTS": bare},
    )
    assert done.returncode == 0, done.stderr
    # The escape: a test stack deploys without any of them.
    done, _ = deploy(repo, stubs, "--dry-run", "--region", "eu-west-1", "--parameter-overrides", "Environment=test",
                     env={"STUB_OUTPUTS": bare})
    assert done.returncode == 0, done.stderr


def test_a_test_stack_says_so_and_deploys_without_the_web_acl_or_a_review(repo, stubs):
    done, calls = deploy(
        repo, stubs, "--dry-run", "--region", "eu-west-1", "--parameter-overrides", "Environment=test",
        env={"STUB_OUTPUTS": outputs(web_acl="")},
    )
    assert done.returncode == 0, done.stderr
    assert "Environment=test WebAclArn=<empty>" in done.stdout
    assert "--parameter-overrides Environment=test --no-confirm-changeset --no-fail-on-empty-changeset" in done.stdout
    assert "change set review" not in done.stdout
    # The stack policy is the same on a test stack.
    assert "set-stack-policy --stack-name ciam --region eu-west-1 --stack-policy-body file://" in done.stdout
    assert only_reads(calls), calls


def test_a_dry_run_before_the_first_deploy_shows_placeholders(repo, stubs):
    done, _ = deploy(repo, stubs, "--dry-run", "--region", "eu-west-1", "--parameter-overrides", "Environment=test",
                     env={"STUB_OUTPUTS": ""})
    assert done.returncode == 0, done.stderr
    # A new stack gets its policy after the create (nothing to protect before).
    policy = done.stdout.find("set-stack-policy")
    assert done.stdout.find("/sam deploy") < policy and done.stdout.count("set-stack-policy") == 1
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


def whole_run(repo, stubs, endpoint, *args, env=None):  # noqa: F811
    """A run that is not a dry run: the web upload lands in moto_server's bucket."""
    bucket = f"ciam-web-{uuid.uuid4().hex[:12]}"
    s3 = boto3.client("s3", endpoint_url=endpoint, **CREDENTIALS)
    s3.create_bucket(Bucket=bucket)
    done, calls = deploy(
        repo, stubs, "--region", "us-east-1", "--stack-name", "ciam-test", *args,
        env={
            "STUB_OUTPUTS": outputs(bucket=bucket),
            # boto3 sends S3 calls here (the upload tool); the stub aws ignores it.
            "AWS_ENDPOINT_URL_S3": endpoint,
            "AWS_ACCESS_KEY_ID": "testing",
            "AWS_SECRET_ACCESS_KEY": "testing",
            **(env or {}),
        },
    )
    return done, calls, s3, bucket


def kinds(calls):
    """`aws cloudformation execute-change-set` -> `aws cloudformation execute-change-set`, `sam build ...` -> `sam build`."""
    return [" ".join(c.split(" ")[:3] if c.startswith(("aws cloudformation", "aws s3")) else c.split(" ")[:2]) for c in calls]


def test_a_whole_production_run_reviews_executes_protects_uploads_and_remembers_the_release(repo, stubs, endpoint):  # noqa: F811
    done, calls, s3, bucket = whole_run(repo, stubs, endpoint, "--yes")
    assert done.returncode == 0, done.stderr + done.stdout
    sha = head(repo)
    steps = [k for k in kinds(calls) if k not in ("aws cloudformation describe-stacks", "aws cloudformation list-change-sets")]
    assert steps == [
        "aws sts",
        "cargo fetch",
        "sam build",
        "sam package",
        "aws s3 cp",  # the packaged template kept
        "aws cloudformation set-stack-policy",  # before the update
        "sam deploy",
        "aws cloudformation describe-change-set",
        "aws cloudformation execute-change-set",
        "aws cloudformation wait",
        "aws cloudformation set-stack-policy",  # after it
        "npm run",
        "aws s3 cp",  # the web build kept
        "aws cloudfront",
        "aws s3 cp",  # history read
        "aws s3 cp",  # history written
        "aws s3 cp",  # last-good
    ], calls
    assert f"sam build --template-file {repo}/template.yaml" in calls, "the build of npm run build:lambda"
    assert "1 functions, 1 distinct artifact(s)" in done.stdout, done.stdout
    [package] = [c for c in calls if c.startswith("sam package")]
    assert f"--s3-prefix releases/{sha}" in package and "--s3-bucket ciam-artifacts" in package
    [deploy_call] = [c for c in calls if c.startswith("sam deploy")]
    assert f"--template-file {repo}/.aws-sam/packaged.yaml" in deploy_call
    assert "--no-execute-changeset" in deploy_call and "--no-confirm-changeset" not in deploy_call
    policies = [c for c in calls if "set-stack-policy" in c]
    assert all(c.endswith(f"--stack-policy-body file://{repo}/infra/stack-policy.json") for c in policies), policies
    # The review: every change, its action and type.
    assert "change set samcli-deploy1 of stack ciam-test: 2 change(s)" in done.stdout
    assert "AWS::Lambda::Function" in done.stdout and "AuthInfoGetCanaryErrorsAlarm" in done.stdout
    assert [c for c in calls if "execute-change-set" in c][0].endswith("--change-set-name " + (repo / "state" / "changesets").read_text().split()[-1])
    # The release is kept and named the last good one.
    kept = s3_object(repo, "ciam-artifacts", f"releases/{sha}")
    assert (kept / "packaged.yaml").read_text() == "packaged: this build\n"
    assert (kept / "web.tar.gz").stat().st_size > 0
    assert s3_object(repo, "ciam-artifacts", "releases/last-good").read_text() == sha + "\n"
    assert s3_object(repo, "ciam-artifacts", "releases/history").read_text() == sha + "\n"
    assert calls[-4].endswith("create-invalidation --distribution-id E2EXAMPLE --paths /index.html --query Invalidation.Id --output text")
    head_object = s3.head_object(Bucket=bucket, Key="index.html")
    assert head_object["CacheControl"] == "no-cache"
    asset = s3.head_object(Bucket=bucket, Key="assets/index-Q1w2e3r4.js")
    assert asset["CacheControl"] == "public, max-age=31536000, immutable"
    uploaded = done.stdout.find("uploaded 2 files to s3://")
    assert -1 < uploaded < done.stdout.find("invalidation I2EXAMPLE"), "the invalidation comes after the upload"


def test_a_production_change_set_is_not_executed_without_a_terminal_or_yes(repo, stubs, endpoint):  # noqa: F811
    done, calls, _, _ = whole_run(repo, stubs, endpoint)
    assert done.returncode == 1
    assert "refusing to execute a production change set without a terminal to confirm it" in done.stderr
    assert "--yes" in done.stderr
    assert "change set samcli-deploy1 of stack ciam-test" in done.stdout, "the review was printed first"
    assert not [c for c in calls if "execute-change-set" in c or c.startswith("npm")]
    assert [c for c in calls if "delete-change-set" in c], "the refused change set is not left behind"
    assert not s3_object(repo, "ciam-artifacts", "releases/last-good").exists()


def test_a_change_set_that_replaces_a_protected_resource_is_refused_unless_allowed(repo, stubs, endpoint):  # noqa: F811
    done, calls, _, _ = whole_run(repo, stubs, endpoint, "--yes", env={"STUB_CHANGES": REPLACES_THE_TABLE})
    assert done.returncode == 1
    assert "would replace or delete Table (AWS::DynamoDB::Table, Modify replacement True)" in done.stderr
    assert "--allow-replacement" in done.stderr
    # Replacements come first in the review.
    review = done.stdout[done.stdout.find("change set samcli-deploy1"):]
    assert review.find("Table") < review.find("AuthInfoGetFunction")
    assert "PROTECTED" in review
    assert not [c for c in calls if "execute-change-set" in c]
    assert [c for c in calls if "delete-change-set" in c]

    (repo / "state" / "changesets").unlink()
    done, calls, _, _ = whole_run(repo, stubs, endpoint, "--yes", "--allow-replacement", env={"STUB_CHANGES": REPLACES_THE_TABLE})
    assert done.returncode == 0, done.stderr
    assert "these protected resources WILL be replaced or deleted: Table" in done.stdout
    policies = [c for c in calls if "set-stack-policy" in c or "execute-change-set" in c]
    # Opened for this update only (execute-change-set takes no during-update policy), then closed.
    assert "Update:*" in policies[0] and "Deny" not in policies[0]
    assert "execute-change-set" in policies[1]
    assert policies[2].endswith("--stack-policy-body file://" + str(repo / "infra" / "stack-policy.json"))


def keep_release(repo, sha, template, web=True):
    """A release as an earlier run kept it in the artefact bucket."""
    folder = s3_object(repo, "ciam-artifacts", f"releases/{sha}")
    folder.mkdir(parents=True)
    (folder / "packaged.yaml").write_text(template)
    if web:
        dist = repo / f"dist-{sha}"
        (dist / "assets").mkdir(parents=True)
        (dist / "index.html").write_text(f'<!doctype html><script src="/assets/index-{sha}.js"></script>')
        (dist / "assets" / f"index-{sha}.js").write_text("console.log(0)")
        subprocess.run(["tar", "-czf", str(folder / "web.tar.gz"), "-C", str(dist), "."], check=True)


def test_a_rollback_deploys_the_release_before_last_good_without_a_build(repo, stubs, endpoint):  # noqa: F811
    keep_release(repo, "aaa111", "packaged: release aaa111\n")
    keep_release(repo, "bbb222", "packaged: release bbb222\n")
    s3_object(repo, "ciam-artifacts", "releases/history").write_text("aaa111\nbbb222\n")
    s3_object(repo, "ciam-artifacts", "releases/last-good").write_text("bbb222\n")
    # Nothing to build with: a rollback needs neither cargo nor npm.
    done, calls, s3, bucket = whole_run(repo, stubs, endpoint, "--rollback", "--yes")
    assert done.returncode == 0, done.stderr + done.stdout
    assert "rolling back to the release before it: aaa111" in done.stdout
    assert not [c for c in calls if c.startswith(("cargo", "npm", "sam build", "sam package"))], calls
    [deploy_call] = [c for c in calls if c.startswith("sam deploy")]
    # The saved packaged template of aaa111, downloaded as it was kept.
    template = deploy_call.split("--template-file ")[1].split(" ")[0]
    assert "--s3-prefix releases/aaa111" in deploy_call
    assert f"aws s3 cp s3://ciam-artifacts/releases/aaa111/packaged.yaml {template} --region us-east-1" in calls
    assert [c for c in calls if "execute-change-set" in c], "production: reviewed and executed"
    # Its web app is uploaded again, and last-good moves back (history is left as it was).
    s3.head_object(Bucket=bucket, Key="assets/index-aaa111.js")
    assert b"index-aaa111.js" in s3.get_object(Bucket=bucket, Key="index.html")["Body"].read()
    assert s3_object(repo, "ciam-artifacts", "releases/last-good").read_text() == "aaa111\n"
    assert s3_object(repo, "ciam-artifacts", "releases/history").read_text() == "aaa111\nbbb222\n"


def test_a_rollback_to_a_named_release_without_its_web_app_says_so(repo, stubs, endpoint):  # noqa: F811
    keep_release(repo, "ccc333", "packaged: release ccc333\n", web=False)
    done, calls, _, _ = whole_run(repo, stubs, endpoint, "--rollback", "ccc333", "--yes")
    assert done.returncode == 0, done.stderr + done.stdout
    assert "the web app is NOT rolled back: release ccc333 kept no web build" in done.stdout
    assert not [c for c in calls if c.startswith(("npm", "sam build", "aws cloudfront"))]
    # A release that was never kept is refused before anything is deployed.
    done, calls, _, _ = whole_run(repo, stubs, endpoint, "--rollback", "ddd444", "--yes")
    assert done.returncode == 1
    assert "release ddd444 is not kept" in done.stderr
    assert not [c for c in calls if c.startswith("sam")]


def test_on_a_terminal_the_change_set_waits_for_a_yes_and_a_no_deletes_it(repo, stubs):
    """The confirmation is read from a terminal (a pseudo-terminal here); anything but y keeps
    the stack as it was."""
    import pty

    log = repo / "calls.log"
    log.write_text("")
    main, secondary = pty.openpty()
    os.write(main, b"n\n")
    env = {
        **GIT_ENV,
        "PATH": f"{stubs}:/usr/bin:/bin", "HOME": str(repo), "STUB_LOG": str(log), "STUB_OUTPUTS": outputs(),
        "STUB_S3": str(repo / "s3"), "STUB_STATE": str(repo / "state"), "STUB_SAM_BUCKET": "ciam-artifacts",
        "STUB_CHANGES": MODIFY_ONLY, "CIAM_PYTHON": sys.executable,
    }
    done = subprocess.run(["bash", str(repo / "infra" / "deploy.sh"), "--region", "eu-west-1"], stdin=secondary,
                          env=env, capture_output=True, text=True, timeout=120)
    os.close(main)
    os.close(secondary)
    calls = log.read_text().splitlines()
    assert done.returncode == 1
    assert "Execute this change set on the production stack ciam? [y/N]" in done.stderr
    assert "not confirmed: the change set was deleted, nothing changed" in done.stderr
    assert [c for c in calls if "delete-change-set" in c]
    assert not [c for c in calls if "execute-change-set" in c or c.startswith("npm")]


# --- the console's door: one setting, two stacks -------------------------------------------

def waf_deploys(text):
    """The web ACL stack's deploy lines of a dry run's plan."""
    return [line for line in text.splitlines() if line.startswith("+ aws cloudformation deploy")]


def test_the_console_host_and_allow_list_go_to_both_stacks_the_web_acl_first(repo, stubs):
    done, calls = deploy(
        repo, stubs, "--dry-run", "--stack-name", "ciam-test", "--region", "eu-west-1",
        "--console-host", "console.example.com",
        "--console-allow", "203.0.113.0/24, 2001:DB8:C0::/48,198.51.100.7",
    )
    assert done.returncode == 0, done.stderr
    out = done.stdout
    [waf] = waf_deploys(out)
    # The web ACL's stack in us-east-1 (where WAF for CloudFront lives), the families split, a
    # single address as /32, IPv6 in the lower-case form the template's pattern takes.
    assert waf == (
        f"+ aws cloudformation deploy --region us-east-1 --stack-name ciam-test-waf --template-file {repo}/infra/waf.yaml"
        " --no-fail-on-empty-changeset --parameter-overrides ConsoleHostName=console.example.com"
        " ConsoleAllowedIpv4=203.0.113.0/24\\,198.51.100.7/32 ConsoleAllowedIpv6=2001:db8:c0::/48"
    )
    # The same host name goes to this stack (the distribution's second name), after the web ACL.
    [sam_deploy] = [line for line in out.splitlines() if "/sam deploy" in line]
    assert "--parameter-overrides ConsoleHostName=console.example.com" in sam_deploy
    assert out.find(waf) < out.find(sam_deploy)
    assert "console door: ConsoleHostName=console.example.com ConsoleAllowedIpv4=203.0.113.0/24,198.51.100.7/32" in out
    # The web ACL's stack was looked up (read-only), nothing was changed.
    assert "aws cloudformation describe-stacks --stack-name ciam-test-waf --region us-east-1 --query Stacks[0].StackName --output text" in calls
    assert only_reads(calls), calls


def test_a_host_name_given_as_a_parameter_override_reaches_the_web_acl_too(repo, stubs):
    done, _ = deploy(repo, stubs, "--dry-run", "--region", "eu-west-1", "--waf-stack-name", "edge-waf",
                     "--parameter-overrides", "MailFrom=a@example.com ConsoleHostName=console.example.com")
    assert done.returncode == 0, done.stderr
    [waf] = waf_deploys(done.stdout)
    assert "--stack-name edge-waf " in waf
    # Only the host name: the allow-list keeps its value in the web ACL's stack.
    assert waf.endswith("--parameter-overrides ConsoleHostName=console.example.com")
    assert done.stdout.count("ConsoleHostName=console.example.com") == 3, "said once, the two stacks' deploys"
    # The two spellings must agree.
    done, _ = deploy(repo, stubs, "--dry-run", "--region", "eu-west-1", "--console-host", "other.example.com",
                     "--parameter-overrides", "ConsoleHostName=console.example.com")
    assert done.returncode == 1 and "disagree" in done.stderr


def test_the_allow_list_alone_keeps_the_stack_s_host_name_in_both(repo, stubs):
    done, _ = deploy(repo, stubs, "--dry-run", "--region", "eu-west-1", "--console-allow", "2001:db8:c0::/48",
                     env={"STUB_OUTPUTS": outputs(console_host="console.example.com")})
    assert done.returncode == 0, done.stderr
    [waf] = waf_deploys(done.stdout)
    assert waf.endswith("--parameter-overrides ConsoleHostName=console.example.com ConsoleAllowedIpv4= ConsoleAllowedIpv6=2001:db8:c0::/48")
    [sam_deploy] = [line for line in done.stdout.splitlines() if "/sam deploy" in line]
    assert "ConsoleHostName" not in sam_deploy, "this stack keeps its own value"
    # Empty: any address, on any host.
    done, _ = deploy(repo, stubs, "--dry-run", "--region", "eu-west-1", "--console-allow", "", "--console-host", "")
    assert done.returncode == 0, done.stderr
    [waf] = waf_deploys(done.stdout)
    assert waf.endswith("--parameter-overrides ConsoleHostName= ConsoleAllowedIpv4= ConsoleAllowedIpv6=")
    assert "console door: ConsoleHostName=<any host> ConsoleAllowedIpv4=<none> ConsoleAllowedIpv6=<none>" in done.stdout


def test_without_the_console_options_the_web_acl_stack_is_left_alone(repo, stubs):
    done, calls = deploy(repo, stubs, "--dry-run", "--region", "eu-west-1")
    assert done.returncode == 0, done.stderr
    assert not waf_deploys(done.stdout)
    assert not [c for c in calls if "-waf" in c]


@pytest.mark.parametrize("args, says", [
    (["--console-allow", "203.0.113.5/24"], "203.0.113.5/24 is not a network in CIDR notation"),
    (["--console-allow", "10.0.0.0/8,console"], "console is not a network"),
    (["--console-allow", "::/0"], "::/0 is every address"),
    (["--console-host", "Console.Example.com"], "a lower-case host name"),
    (["--console-host", "console.example.com", "--web-only"], "cannot go with --web-only or --rollback"),
])
def test_a_bad_console_setting_stops_the_run_before_anything_changes(repo, stubs, args, says):
    for dry in (["--dry-run"], []):
        done, calls = deploy(repo, stubs, *dry, "--region", "eu-west-1", *args)
        assert done.returncode == 1, done.stdout
        assert says in done.stderr
        assert not [c for c in calls if c.startswith(("sam", "cargo", "npm")) or "cloudformation deploy" in c], calls


def test_a_missing_web_acl_stack_stops_the_run(repo, stubs):
    done, calls = deploy(repo, stubs, "--region", "eu-west-1", "--console-host", "console.example.com",
                         env={"STUB_NO_WAF": "1"})
    assert done.returncode == 1
    assert "no web ACL stack ciam-waf in us-east-1" in done.stderr and "--waf-stack-name" in done.stderr
    assert not [c for c in calls if c.startswith(("sam", "cargo", "npm"))]


def test_a_whole_run_deploys_the_web_acl_stack_before_this_one(repo, stubs, endpoint):  # noqa: F811
    done, calls, _, _ = whole_run(repo, stubs, endpoint, "--yes", "--console-host", "console.example.com",
                                  "--console-allow", "203.0.113.0/24")
    assert done.returncode == 0, done.stderr + done.stdout
    [waf] = [i for i, c in enumerate(calls) if c.startswith("aws cloudformation deploy")]
    [sam] = [i for i, c in enumerate(calls) if c.startswith("sam deploy")]
    assert waf < sam
    assert calls[waf].endswith("ConsoleHostName=console.example.com ConsoleAllowedIpv4=203.0.113.0/24 ConsoleAllowedIpv6=")
    assert "--region us-east-1 --stack-name ciam-test-waf" in calls[waf]
    assert "ConsoleHostName=console.example.com" in calls[sam]
