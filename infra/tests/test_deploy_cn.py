"""infra/deploy.sh --cell cn (issue 32 item 5), with the stub `sam`, `aws`, `npm`, `cargo`,
`cargo-lambda` and `zig` of test_deploy_sh.py: the dry run prints the change set review with the
cn template and the China Region; what the cell cannot have (a non-China Region, the web ACL's
options and parameters, an ACM certificate) is refused, and so is what it must have instead (the
ICP-filed DomainName, the IAM server certificate, the provider secrets, ClientLimits) when it is
missing, before anything is built; a whole run builds infra/cn.yaml, deploys through
`--config-env cn` and uploads the deep links' copies of index.html with the cell's tags to
moto_server. The global cell's own tests (test_deploy_sh.py) are unchanged."""

import collections
import json
import pathlib
import re
import shutil
import sys
import textwrap
import uuid

import boto3
import pytest
from samcli.yamlhelper import yaml_parse

import test_deploy_sh as base
from test_deploy_sh import head
from test_deploy_sh import repo as global_repo  # noqa: F401  (the fixture)
from test_upload_web import CREDENTIALS, endpoint  # noqa: F401  (the moto_server fixture)

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "infra"))
import deploy_tool  # noqa: E402
CERT = "ASCAEXAMPLECERT0001"
SECRETS = "ciam/mail-relay ciam/sms-providers"
OTHER = "https://login.example.com"
# The SPA's sources upload_web.py reads its pages from (web/src, never retyped).
WEB_SOURCES = ("i18n/locale.ts", "config/paths.ts", "config/console-paths.ts", "app/router.tsx")

# The stub aws of test_deploy_sh.py, answering the cn cell's two read-only checks first:
# describe-secret finds the names in $STUB_SECRETS, list-server-certificates the id $STUB_CERT
# under /cloudfront/ ($STUB_IAM_DENIED: the caller may not list them); get-distribution gives the
# alias's ICP recordal status ($STUB_ICP, default APPROVED).
CN_AWS = textwrap.dedent(
    """\
    if [ "$1 $2" = "secretsmanager describe-secret" ]; then
      echo "aws $*" >> "$STUB_LOG"
      id=""; prev=""
      for a in "$@"; do [ "$prev" = --secret-id ] && id="$a"; prev="$a"; done
      case " $STUB_SECRETS " in *" $id "*) echo "$id"; exit 0 ;; esac
      echo "An error occurred (ResourceNotFoundException) when calling the DescribeSecret operation: Secrets Manager can't find the specified secret." >&2
      exit 254
    fi
    if [ "$1 $2" = "cloudfront get-distribution" ]; then
      echo "aws $*" >> "$STUB_LOG"
      printf 'login.example.cn\t%s\n' "${STUB_ICP:-APPROVED}"
      exit 0
    fi
    if [ "$1 $2" = "iam list-server-certificates" ]; then
      echo "aws $*" >> "$STUB_LOG"
      [ -z "$STUB_IAM_DENIED" ] || { echo "An error occurred (AccessDenied) when calling the ListServerCertificates operation: not authorized" >&2; exit 254; }
      case " $* " in *"/cloudfront/"*"=='$STUB_CERT'"*) printf 'ciam-login\\t2027-12-01T00:00:00Z\\n' ;; esac
      exit 0
    fi
    """
)
READ_ONLY = (*base.READ_ONLY, "aws secretsmanager describe-secret", "aws iam list-server-certificates",
             "aws cloudfront get-distribution")


def cn_outputs(bucket="ciam-web-cn", **params):
    """A deployed cn stack, production-ready unless a parameter says otherwise."""
    values = {
        "DomainName": "login.example.cn",
        "IamCertificateId": CERT,
        "ClientLimits": "table",
        "BackupCopyVaultArn": "arn:aws-cn:backup:cn-northwest-1:123456789012:backup-vault:ciam-table-copy",
        "SecretReplicaRegion": "cn-northwest-1",
        "BackupVaultLockChangeableForDays": "3",
        "MailRelaySecretName": "ciam/mail-relay",
        "SmsProviderSecretName": "ciam/sms-providers",
        "ConsoleHostName": "",
        "OtherCellUrl": OTHER,
        **params,
    }
    return json.dumps({
        "Outputs": [
            {"OutputKey": "WebBucketName", "OutputValue": bucket},
            {"OutputKey": "DistributionId", "OutputValue": "E3CHINA"},
            {"OutputKey": "PublicUrl", "OutputValue": "https://login.example.cn"},
        ],
        "Parameters": [{"ParameterKey": k, "ParameterValue": v} for k, v in values.items()],
    })


@pytest.fixture
def repo(global_repo):  # noqa: F811
    """test_deploy_sh.py's copy, with the cn stacks and the SPA's route table beside it."""
    for name in ("cn.yaml", "cn-console.yaml", "cn-org.yaml"):
        shutil.copy(ROOT / "infra" / name, global_repo / "infra" / name)
    for name in WEB_SOURCES:
        (global_repo / "web" / "src" / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(ROOT / "web" / "src" / name, global_repo / "web" / "src" / name)
    return global_repo


@pytest.fixture
def stubs(tmp_path):
    bin_dir = tmp_path / "stub-bin"
    bin_dir.mkdir()
    for name, body in base.STUBS.items():
        if name == "aws":
            body = CN_AWS + body
        path = bin_dir / name
        path.write_text(f"#!/usr/bin/env bash\n{body}\n")
        path.chmod(0o755)
    return bin_dir


def deploy(repo, stubs, *args, env=None):
    """A cn deploy of the stack ciam-cn; env adds or replaces the stubs' answers."""
    return base.deploy(repo, stubs, "--cell", "cn", "--stack-name", "ciam-cn", *args, env={
        "STUB_OUTPUTS": cn_outputs(),
        "STUB_SECRETS": SECRETS,
        "STUB_CERT": CERT,
        **(env or {}),
    })


def cn_reads(calls):
    return all(c.startswith(READ_ONLY) or (c.startswith("aws s3 cp s3://") and " s3://" not in c.split(" ", 4)[4])
               for c in calls)


def built(calls):
    return [c for c in calls if c.startswith(("sam", "cargo", "npm")) or "cloudformation deploy" in c]


def test_a_cn_dry_run_prints_the_change_set_review_with_the_cn_template_in_the_china_region(repo, stubs):
    done, calls = deploy(repo, stubs, "--dry-run", "--region", "cn-north-1")
    assert done.returncode == 0, done.stderr
    out, sha = done.stdout, head(repo)
    order = [
        f"Environment=production DomainName=login.example.cn IamCertificateId={CERT} ClientLimits=table",
        f"IAM server certificate {CERT}: ciam-login 2027-12-01T00:00:00Z",
        "MailRelaySecretName=ciam/mail-relay: exists",
        f"+ env CIAM_TEMPLATE={repo}/infra/cn.yaml bash {repo}/scripts/build-lambda.sh",
        f"/sam package --template-file {repo}/.aws-sam/build/template.yaml --region cn-north-1 --s3-prefix releases/{sha}",
        "--config-env cn --s3-bucket ciam-artifacts",
        f"/sam deploy --stack-name ciam-cn --region cn-north-1 --config-env cn --template-file {repo}/.aws-sam/packaged.yaml",
        "--no-execute-changeset",
        "== change set review (production)",
        "deploy_tool.py review --stack ciam-cn --region cn-north-1",
        "+ aws cloudformation execute-change-set --stack-name ciam-cn --region cn-north-1",
        "ICP recordal: login.example.cn APPROVED",
        "+ npm run build --workspace web",
        f"upload_web.py --bucket ciam-web-cn --region cn-north-1 --dist {repo}/web/dist --cell cn --other-cell {OTHER}",
        "+ aws cloudfront create-invalidation --region cn-north-1 --distribution-id E3CHINA --paths /index.html / /en-US /en-US/\\* /signout /zh-CN /zh-CN/\\*",
        "s3://ciam-artifacts/releases/last-good",
    ]
    positions = [out.find(s) for s in order]
    assert -1 not in positions, ([s for s, p in zip(order, positions) if p == -1], out)
    assert positions == sorted(positions), out
    assert "--no-confirm-changeset" not in out, "production is never deployed unreviewed"
    # No samconfig.toml [cn] section: sam is told what the stack may create.
    assert "--capabilities CAPABILITY_IAM CAPABILITY_AUTO_EXPAND" in out
    # Nothing of the global cell's edge: no web ACL stack read or deployed, no us-east-1.
    assert not [c for c in calls if "-waf" in c or "us-east-1" in c or "cloudformation deploy" in c], calls
    assert "aws secretsmanager describe-secret --secret-id ciam/sms-providers --region cn-north-1 --query Name --output text" in calls
    assert cn_reads(calls), calls
    assert not (repo / "web" / "dist").exists()
    assert not list((repo / "s3").iterdir()), "nothing was uploaded"


@pytest.mark.parametrize("args, says", [
    (["--region", "eu-west-1"], "--cell cn deploys infra/cn.yaml in cn-north-1 or cn-northwest-1 only"),
    (["--region", "us-east-1", "--web-only"], "--cell cn deploys infra/cn.yaml in cn-north-1 or cn-northwest-1 only"),
    (["--region", "cn-north-1", "--console-host", "console.example.cn"], "--cell cn has no web ACL"),
    (["--region", "cn-north-1", "--console-allow", "203.0.113.0/24"], "--cell cn has no web ACL"),
    (["--region", "cn-north-1", "--waf-stack-name", "ciam-waf"], "--cell cn has no web ACL"),
    (["--region", "cn-north-1", "--parameter-overrides", "WebAclArn=arn:aws-cn:wafv2:cn-north-1:1:regional/webacl/x/1"],
     "WebAclArn (--parameter-overrides): no CLOUDFRONT web ACL exists in China"),
    (["--region", "cn-north-1", "--parameter-overrides", "CertificateArn=arn:aws:acm:us-east-1:1:certificate/x"],
     "CertificateArn (--parameter-overrides): CloudFront in China takes no ACM certificate"),
    (["--region", "cn-north-1", "--parameter-overrides", "ConsoleHostName=console.example.cn"], "ConsoleHostName: empty in the cn cell"),
    (["--region", "cn-northwest-1", "--parameter-overrides", "SecretReplicaRegion=cn-northwest-1"],
     "SecretReplicaRegion=cn-northwest-1 is this stack's own Region: the replica goes to cn-north-1"),
    (["--region", "cn-northwest-1"], "BackupCopyVaultArn is in cn-northwest-1, this stack's own Region"),
    (["--cell", "mars", "--region", "cn-north-1"], "--cell mars: global or cn"),
])
def test_what_the_cn_cell_cannot_have_is_refused_before_anything_is_built(repo, stubs, args, says):
    for dry in (["--dry-run"], []):
        done, calls = deploy(repo, stubs, *dry, *args)
        assert done.returncode == 1, done.stdout
        assert says in done.stderr, done.stderr
        assert not built(calls), calls


def test_the_global_stack_is_refused_in_a_china_region(repo, stubs):
    for dry in (["--dry-run"], []):
        done, calls = base.deploy(repo, stubs, *dry, "--region", "cn-northwest-1")
        assert done.returncode == 1
        assert "--region cn-northwest-1 is in AWS China (aws-cn): the global stack (template.yaml) cannot deploy there" in done.stderr
        assert "infra/deploy.sh --cell cn" in done.stderr
        assert not built(calls), calls


def test_a_global_parameter_kept_in_samconfig_for_the_cn_cell_is_refused(repo, stubs):
    (repo / "samconfig.toml").write_text(textwrap.dedent("""\
        version = 0.1
        [default.deploy.parameters]
        parameter_overrides = "WebAclArn=arn:aws:wafv2:us-east-1:1:global/webacl/ciam/1"
        [cn.deploy.parameters]
        parameter_overrides = "WebAclArn=arn:aws:wafv2:us-east-1:1:global/webacl/ciam/1"
        """))
    done, calls = deploy(repo, stubs, "--dry-run", "--region", "cn-north-1")
    assert done.returncode == 1
    assert "WebAclArn (samconfig.toml [cn.deploy.parameters])" in done.stderr
    # The global cell's section alone is not the cn cell's: sam reads [cn] only (--config-env cn).
    (repo / "samconfig.toml").write_text(textwrap.dedent("""\
        version = 0.1
        [default.deploy.parameters]
        parameter_overrides = "WebAclArn=arn:aws:wafv2:us-east-1:1:global/webacl/ciam/1"
        region = "eu-west-1"
        [cn.deploy.parameters]
        capabilities = "CAPABILITY_IAM CAPABILITY_AUTO_EXPAND"
        """))
    done, calls = deploy(repo, stubs, "--dry-run", "--region", "cn-north-1")
    assert done.returncode == 0, done.stderr
    assert "--config-env cn" in done.stdout
    assert "--capabilities" not in done.stdout, "samconfig.toml's [cn] section says what may be created"


@pytest.mark.parametrize("outputs, env, says", [
    ({"DomainName": ""}, {}, "DomainName is empty: CloudFront in China serves only on a host name with an ICP recordal"),
    ({"IamCertificateId": ""}, {}, "IamCertificateId is empty: CloudFront in China takes its certificate from IAM"),
    ({}, {"STUB_CERT": "ASCAOTHERCERT000001"}, f"IamCertificateId={CERT}: no IAM server certificate with that id under the path /cloudfront/"),
    ({}, {"STUB_SECRETS": "ciam/mail-relay"}, "SmsProviderSecretName=ciam/sms-providers: no such secret in cn-north-1"),
    ({}, {"STUB_SECRETS": "ciam/sms-providers"}, "MailRelaySecretName=ciam/mail-relay: no such secret in cn-north-1"),
    ({"ClientLimits": "none"}, {}, "ClientLimits=none: a production cn stack limits each client"),
    ({"BackupCopyVaultArn": ""}, {}, "BackupCopyVaultArn is empty"),
    ({"SecretReplicaRegion": ""}, {}, "SecretReplicaRegion is empty"),
    ({"BackupVaultLockChangeableForDays": "0"}, {}, "BackupVaultLockChangeableForDays is 0"),
])
def test_production_without_what_the_cn_cell_needs_instead_is_refused(repo, stubs, outputs, env, says):
    for dry in (["--dry-run"], []):
        done, calls = deploy(repo, stubs, *dry, "--region", "cn-north-1", env={"STUB_OUTPUTS": cn_outputs(**outputs), **env})
        assert done.returncode == 1, done.stdout
        assert "deploy: refused: this cell cannot deploy as asked" in done.stderr and says in done.stderr, done.stderr
        assert not built(calls), calls


def test_a_test_stack_is_warned_of_a_missing_secret_but_never_deploys_without_its_domain(repo, stubs):
    test = ["--dry-run", "--region", "cn-north-1", "--parameter-overrides", "Environment=test"]
    done, _ = deploy(repo, stubs, *test, env={"STUB_SECRETS": "", "STUB_OUTPUTS": cn_outputs(ClientLimits="none")})
    assert done.returncode == 0, done.stderr
    assert "warning: SmsProviderSecretName=ciam/sms-providers: no such secret in cn-north-1" in done.stdout
    assert "--no-confirm-changeset" in done.stdout, "a test stack is not reviewed"
    # The template's IcpDomainAndCertificate rule holds for every stack: so does the refusal.
    done, _ = deploy(repo, stubs, *test, env={"STUB_OUTPUTS": cn_outputs(DomainName="")})
    assert done.returncode == 1 and "DomainName is empty" in done.stderr


def test_what_the_caller_may_not_read_is_said_and_not_refused(repo, stubs):
    done, _ = deploy(repo, stubs, "--dry-run", "--region", "cn-north-1", env={"STUB_IAM_DENIED": "1"})
    assert done.returncode == 0, done.stderr
    assert f"IamCertificateId={CERT}: not checked (cannot list IAM server certificates: An error occurred (AccessDenied)" in done.stdout


def whole_run(repo, stubs, endpoint, *args, outputs=None):  # noqa: F811
    bucket = f"ciam-web-{uuid.uuid4().hex[:12]}"
    s3 = boto3.client("s3", endpoint_url=endpoint, **CREDENTIALS)
    s3.create_bucket(Bucket=bucket)
    done, calls = deploy(repo, stubs, "--region", "cn-north-1", *args, env={
        "STUB_OUTPUTS": cn_outputs(bucket=bucket, **(outputs or {})),
        "AWS_ENDPOINT_URL_S3": endpoint,
        "AWS_ACCESS_KEY_ID": "testing",
        "AWS_SECRET_ACCESS_KEY": "testing",
    })
    return done, calls, s3, bucket


def test_a_whole_cn_run_builds_the_cn_stack_and_uploads_the_deep_links_with_the_cells_tags(repo, stubs, endpoint):  # noqa: F811
    done, calls, s3, bucket = whole_run(repo, stubs, endpoint, "--yes")
    assert done.returncode == 0, done.stderr + done.stdout
    sha = head(repo)
    assert f"sam build --template-file {repo}/infra/cn.yaml" in calls
    [deploy_call] = [c for c in calls if c.startswith("sam deploy")]
    assert "--region cn-north-1 --config-env cn --template-file" in deploy_call and "--no-execute-changeset" in deploy_call
    assert "aws cloudformation execute-change-set --stack-name ciam-cn --region cn-north-1 --change-set-name arn:" in " ".join(calls)
    [invalidation] = [c for c in calls if c.startswith("aws cloudfront create-invalidation")]
    assert invalidation.startswith("aws cloudfront create-invalidation --region cn-north-1 --distribution-id E3CHINA --paths /index.html / ")
    assert "/zh-CN/*" in invalidation and "/en-US/*" in invalidation
    assert (repo / "s3" / "ciam-artifacts" / "releases" / "last-good").read_text().strip() == sha

    keys = {o["Key"] for o in s3.list_objects_v2(Bucket=bucket)["Contents"]}
    pages = {"zh-CN/passport/signin", "en-US/passport/register", "zh-CN/passport/end-session", "zh-CN/personal/info",
             "en-US/agreement/privacy", "zh-CN/find/password", "en-US/admin", "zh-CN/admin/accounts", "signout", "zh-CN"}
    assert pages <= keys, pages - keys
    # The embedded sign-in goes to the API origin; paths with a parameter have no one object.
    assert not [k for k in keys if "/embedded/" in k or ":" in k], keys
    index = s3.get_object(Bucket=bucket, Key="index.html")["Body"].read().decode()
    assert '<meta name="ciam-cell" content="cn"><meta name="ciam-other-cell" content="https://login.example.com">' in index
    for key in pages:
        got = s3.get_object(Bucket=bucket, Key=key)
        assert got["Body"].read().decode() == index, key
        assert (got["ContentType"], got["CacheControl"]) == ("text/html; charset=utf-8", "no-cache"), key


def test_a_whole_global_run_names_its_cell_in_the_page_and_writes_no_deep_links(repo, stubs, endpoint):  # noqa: F811
    done, calls, s3, bucket = base.whole_run(repo, stubs, endpoint, "--yes")
    assert done.returncode == 0, done.stderr + done.stdout
    keys = {o["Key"] for o in s3.list_objects_v2(Bucket=bucket)["Contents"]}
    assert keys == {"index.html", "assets/index-Q1w2e3r4.js"}
    index = s3.get_object(Bucket=bucket, Key="index.html")["Body"].read().decode()
    assert re.search(r'<meta name="ciam-cell" content="global">', index) and "ciam-other-cell" not in index
    assert [c for c in calls if c.startswith("aws cloudfront")] == [
        "aws cloudfront create-invalidation --distribution-id E2EXAMPLE --paths /index.html --query Invalidation.Id --output text"
    ]


def test_a_name_whose_icp_recordal_is_not_approved_is_pointed_out(repo, stubs):
    done, calls = deploy(repo, stubs, "--dry-run", "--region", "cn-north-1", env={"STUB_ICP": "PENDING"})
    assert done.returncode == 0, done.stderr
    assert "ICP recordal: login.example.cn PENDING" in done.stdout
    assert "a name whose recordal is not APPROVED is not served in China" in done.stdout
    assert "aws cloudfront get-distribution --id E3CHINA --region cn-north-1 --query Distribution.AliasICPRecordals[].[CNAME,ICPRecordalStatus] --output text" in calls


def test_a_cn_web_only_release_uploads_the_deep_links_and_invalidates_in_the_china_endpoint(repo, stubs):
    done, calls = deploy(repo, stubs, "--dry-run", "--web-only", "--region", "cn-northwest-1")
    assert done.returncode == 0, done.stderr
    assert not [c for c in calls if c.startswith(("sam", "cargo", "aws secretsmanager", "aws iam"))], calls
    assert f"upload_web.py --bucket ciam-web-cn --region cn-northwest-1 --dist {repo}/web/dist --cell cn --other-cell {OTHER}" in done.stdout
    assert "+ aws cloudfront create-invalidation --region cn-northwest-1 --distribution-id E3CHINA --paths /index.html /" in done.stdout


def test_a_cn_rollback_deploys_the_kept_release_through_the_cells_config_and_uploads_its_pages(repo, stubs, endpoint):  # noqa: F811
    base.keep_release(repo, "aaa111", "packaged: release aaa111\n")
    base.keep_release(repo, "bbb222", "packaged: release bbb222\n")
    base.s3_object(repo, "ciam-artifacts", "releases/history").write_text("aaa111\nbbb222\n")
    base.s3_object(repo, "ciam-artifacts", "releases/last-good").write_text("bbb222\n")
    done, calls, s3, bucket = whole_run(repo, stubs, endpoint, "--rollback", "--yes")
    assert done.returncode == 0, done.stderr + done.stdout
    assert not [c for c in calls if c.startswith(("cargo", "npm", "sam build", "sam package"))], calls
    [deploy_call] = [c for c in calls if c.startswith("sam deploy")]
    assert "--region cn-north-1 --config-env cn" in deploy_call and "--s3-prefix releases/aaa111" in deploy_call
    # The rollback's own checks ran: the certificate and the secrets.
    assert [c for c in calls if c.startswith("aws iam list-server-certificates")]
    page = s3.get_object(Bucket=bucket, Key="zh-CN/passport/signin")["Body"].read()
    assert b"index-aaa111.js" in page and b'<meta name="ciam-cell" content="cn">' in page


def test_the_cn_stack_s_parameters_are_read_from_its_text_as_its_yaml_says():
    parsed = yaml_parse((ROOT / "infra" / "cn.yaml").read_text())["Parameters"]
    read = deploy_tool.template_parameters(ROOT / "infra" / "cn.yaml")
    assert read == {name: str(p.get("Default", "")) for name, p in parsed.items()}
    assert "IamCertificateId" in read and "WebAclArn" not in read and "CertificateArn" not in read


def test_the_stack_policy_protects_the_same_resources_in_the_cn_stack():
    """One infra/stack-policy.json for both cells: every type it keeps from replacement and
    deletion is in the cn stack as often as in the global one."""

    def counts(path):
        return collections.Counter(r["Type"] for r in yaml_parse(path.read_text())["Resources"].values())

    protected = deploy_tool.protected_types(ROOT / "infra" / "stack-policy.json")
    cn, global_ = counts(ROOT / "infra" / "cn.yaml"), counts(ROOT / "template.yaml")
    assert protected and all(cn[t] == global_[t] > 0 for t in protected), {t: (global_[t], cn[t]) for t in protected}


def test_a_region_of_the_other_partition_stops_the_run_before_the_stack_is_read(repo, stubs):
    done, calls = deploy(repo, stubs, "--region", "eu-west-1")
    assert done.returncode == 1
    assert calls == ["aws sts get-caller-identity --query Arn --output text"], calls
