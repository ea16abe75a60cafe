"""The `cn` cell's stack (issue 32 item 1; infra/cn.yaml and infra/cn-console.yaml, written by
ciam-gen, functions/gen/src/cn.rs): after the SAM transform in the `aws-cn` partition, cfn-lint
with the China regions' resource lists finds nothing unavailable there; it has none of what China
lacks (function URLs, SES, SNS SMS, CloudFront Functions, origin access control, a CLOUDFRONT-scope
web ACL, telemetry tags); and every function of the global stack is there, with the same role
and the same permissions but for sending (SES and SNS there, the providers' secrets here)."""

import json
import pathlib
import subprocess

import pytest

from conftest import ROOT, sam_transform_in
from permissions import effective, role_of
from template_facts import functions, route_facts, strings, walk

CN = ROOT / "infra" / "cn.yaml"
CN_CONSOLE = ROOT / "infra" / "cn-console.yaml"
CN_ORG = ROOT / "infra" / "cn-org.yaml"
REGIONS = ["cn-north-1", "cn-northwest-1"]
CFN_LINT = ROOT / ".venv" / "bin" / "cfn-lint"
# What cfn-lint says of any SAM stack after the transform, China or not: SAM has consumed the
# parameter (DeploymentType goes into the CodeDeploy groups it writes), and the nested stack's
# TemplateURL is a local path until `sam package` uploads it.
TRANSFORM_ONLY = {"W2001", "W3002"}
# The types cfn-lint's China lists lack and the global stack has (docs/multi-region.md "The cn
# stack"): what the lint must find when it is pointed at the wrong stack.
GLOBAL_ONLY = {
    "AWS::Lambda::Url",
    "AWS::CloudFront::Function",
    "AWS::CloudFront::OriginAccessControl",
    "AWS::ObservabilityAdmin::TelemetryEnrichment",
}
SENDS = ("ses:", "sns:")
PROVIDER_SECRETS = {"messages": "MailRelaySecretName", "sms": "SmsProviderSecretName"}


@pytest.fixture(scope="module")
def cn():
    """Both cn stacks, read as one, after the SAM transform in cn-north-1."""
    return sam_transform_in(CN, CN_CONSOLE, "cn-north-1")


@pytest.fixture(scope="module")
def cn_template():
    from conftest import load_template, merged

    return merged(merged(load_template(CN), load_template(CN_CONSOLE)), load_template(CN_ORG))


@pytest.fixture(scope="module")
def lint(tmp_path_factory):
    """cfn-lint's findings for the China regions, per stack: each cn stack and (the check's own
    check) the global one, all three after the SAM transform in cn-north-1."""
    out = tmp_path_factory.mktemp("cn")
    stacks = {
        "cn": (CN, None),
        "cn-console": (CN_CONSOLE, None),
        "cn-org": (CN_ORG, None),
        "global": (ROOT / "template.yaml", None),
    }
    paths = {}
    for name, (path, nested) in stacks.items():
        paths[name] = out / f"{name}.json"
        paths[name].write_text(json.dumps(sam_transform_in(path, nested, "cn-north-1"), indent=1))
    run = subprocess.run(
        [str(CFN_LINT), "--format", "json", "--regions", *REGIONS, "--", *map(str, paths.values())],
        capture_output=True, text=True,
    )
    findings = json.loads(run.stdout or "[]")
    by_stack = {name: [] for name in stacks}
    for f in findings:
        name = next(n for n, p in paths.items() if pathlib.Path(f["Filename"]).name == p.name)
        by_stack[name].append(f)
    return by_stack


def describe(findings):
    return [f'{f["Rule"]["Id"]} {f["Message"]}' for f in findings]


def test_the_cn_stacks_pass_cfn_lint_for_both_china_regions(lint):
    for name in ("cn", "cn-console", "cn-org"):
        left = [f for f in lint[name] if f["Rule"]["Id"] not in TRANSFORM_ONLY]
        assert not left, (name, describe(left))


def test_the_lint_finds_what_china_lacks_in_the_global_stack(lint):
    unavailable = {f["Message"].split("'")[1] for f in lint["global"] if f["Rule"]["Id"] == "E3006"}
    assert GLOBAL_ONLY <= unavailable, describe(lint["global"])


def test_no_arn_of_the_aws_partition_after_the_transform_in_china(cn):
    text = json.dumps(cn)
    assert "arn:aws:" not in text
    assert "arn:aws-cn:iam::aws:policy/" in text  # SAM's own roles, in the partition of the Region


def types(template):
    return {name: r["Type"] for name, r in template["Resources"].items()}


def test_nothing_of_what_china_lacks(cn):
    found = set(types(cn).values())
    assert not found & GLOBAL_ONLY, found & GLOBAL_ONLY
    assert not {t for t in found if t.startswith(("AWS::SES::", "AWS::WAFv2::"))}
    for name, r in cn["Resources"].items():
        props = json.dumps(r.get("Properties", {}))
        for word in ("FunctionUrl", "FunctionAssociations", "OriginAccessControlId", "WebACLId", "AcmCertificateArn"):
            assert word not in props, (name, word)
        assert r.get("Properties", {}).get("Scope") != "CLOUDFRONT", name


def role_statements(cn):
    """Every statement of every IAM role and policy of the stacks (not resource policies)."""
    for name, r in cn["Resources"].items():
        if r["Type"] == "AWS::IAM::Role":
            for p in r["Properties"].get("Policies", []):
                yield name, p["PolicyDocument"]["Statement"]
        if r["Type"] in ("AWS::IAM::ManagedPolicy", "AWS::IAM::Policy"):
            yield name, r["Properties"]["PolicyDocument"]["Statement"]


def test_no_role_may_send_mail_or_sms_through_aws(cn):
    for name, statements in role_statements(cn):
        for s in statements if isinstance(statements, list) else [statements]:
            actions = s["Action"] if isinstance(s["Action"], list) else [s["Action"]]
            assert not [a for a in actions if a.startswith(SENDS)], (name, s)


def test_the_distribution_serves_the_bucket_through_an_origin_access_identity(cn):
    dist = cn["Resources"]["Distribution"]["Properties"]["DistributionConfig"]
    [web] = [o for o in dist["Origins"] if isinstance(o, dict) and o.get("Id") == "web"]
    assert web["S3OriginConfig"]["OriginAccessIdentity"] == {
        "Fn::Sub": "origin-access-identity/cloudfront/${WebOriginAccessIdentity}"
    }
    assert types(cn)["WebOriginAccessIdentity"] == "AWS::CloudFront::CloudFrontOriginAccessIdentity"
    policy = json.dumps(cn["Resources"]["WebBucketPolicy"]["Properties"]["PolicyDocument"])
    assert "WebOriginAccessIdentity" in policy and "cloudfront.amazonaws.com" not in policy
    # No custom error pages: they would turn the API's own 403 and 404 answers into index.html.
    assert "CustomErrorResponses" not in dist
    assert dist["ViewerCertificate"]["IamCertificateId"] == {"Ref": "IamCertificateId"}
    # The password sign-in has no behaviour of its own: /ciam/* (the HTTP API) serves it.
    patterns = [b.get("PathPattern") for b in dist["CacheBehaviors"] if isinstance(b, dict)]
    assert "/ciam/v1/auth/login/password" not in patterns and "/ciam/*" in patterns


def test_every_route_has_its_function_in_the_cn_stack(template, cn_template):
    global_routes = set(functions(template).values())
    assert global_routes == set(functions(cn_template).values())
    rows = {i for i, r in route_facts().items() if not r["internal"]}
    assert rows <= global_routes, sorted(rows - global_routes)


def normalised(perms):
    return json.loads(json.dumps(perms).replace("arn:aws-cn:", "arn:aws:"))


def test_every_function_has_its_global_role_and_permissions_but_for_sending(transformed, cn):
    facts = route_facts()
    before, now = effective(transformed), normalised(effective(cn))
    assert set(before) == set(now)
    by_route = {name: route for name, route in functions_of(transformed).items()}
    for name, was in before.items():
        got = now[name]
        assert role_of(cn["Resources"], name) == role_of(transformed["Resources"], name), name
        for key in ("trust", "boundary", "awsManaged", "deny"):
            assert got[key] == was[key], (name, key)
        row = facts.get(by_route.get(name), {})
        provider = {a for a in got["allow"] if any(p in a for p in PROVIDER_SECRETS.values())}
        wanted = {p for k, p in PROVIDER_SECRETS.items() if row.get(k)}
        assert {p for p in PROVIDER_SECRETS.values() if any(p in a for a in provider)} == wanted, name
        assert all(a.startswith("secretsmanager:GetSecretValue ") for a in provider), provider
        assert set(got["allow"]) - provider == {a for a in was["allow"] if not a.startswith(SENDS)}, name


def functions_of(transformed):
    """AWS::Lambda::Function logical id -> its route (CIAM_ROUTE), internal functions included."""
    out = {}
    for name, r in transformed["Resources"].items():
        if r["Type"] == "AWS::Lambda::Function":
            out[name] = r["Properties"].get("Environment", {}).get("Variables", {}).get("CIAM_ROUTE")
    return out


def test_the_sending_functions_are_told_which_secrets_to_read(cn):
    facts = route_facts()
    for name, route in functions_of(cn).items():
        env = cn["Resources"][name]["Properties"].get("Environment", {}).get("Variables", {})
        row = facts.get(route, {})
        assert ("CIAM_MAIL_RELAY_SECRET" in env) == bool(row.get("messages")), name
        assert ("CIAM_SMS_PROVIDER_SECRET" in env) == bool(row.get("sms")), name


def test_the_lambda_alarms_need_no_telemetry_tags(cn):
    assert not [s for s in strings(cn) if "tag.CiamStack" in s]
    for alarm in ("LambdaErrorsAlarm", "LambdaThrottlesAlarm"):
        assert types(cn)[alarm] == "AWS::CloudWatch::Alarm"
    dashboard = json.dumps(cn["Resources"]["Dashboard"]["Properties"]["DashboardBody"])
    assert "us-east-1" not in dashboard and "CloudFrontMetricsRegion" in dashboard


def env_of(stack, name):
    return stack["Resources"][name]["Properties"].get("Environment", {}).get("Variables", {})


def test_every_function_that_answers_a_request_counts_its_clients(cn):
    """The limiter covers every route a function answers (functions/api/src/lib.rs: each row of
    every table, and the embedded page), so every such function has it on; the internal ones
    (the avatar decoder, the webhook pipeline, the key distributor) answer no viewer."""
    facts = route_facts()
    on = set()
    for name, route in functions_of(cn).items():
        env = env_of(cn, name)
        row = facts.get(route)
        answers = row is not None and not row["internal"]
        assert env.get("CIAM_CLIENT_LIMITS") == ("1" if answers else None), (name, route)
        if answers:
            on.add(route)
    # Every routed row and the embedded page, across both cn stacks.
    assert on == {i for i, r in facts.items() if not r["internal"]}


def test_a_production_cn_stack_has_its_per_client_limits(cn_template):
    rule = cn_template["Rules"]["ProductionNeedsClientLimits"]
    assert rule["RuleCondition"] == {"Fn::Equals": [{"Ref": "Environment"}, "production"]}
    limits = cn_template["Parameters"]["ClientLimits"]
    assert limits["AllowedValues"] == ["ciam"] and limits["Default"] == "ciam"
    # The rule holds for the value the stack accepts: a production stack deploys with it.
    (assertion,) = rule["Assertions"]
    assert assertion["Assert"] == {"Fn::Not": [{"Fn::Equals": [{"Ref": "ClientLimits"}, "none"]}]}
    assert "none" not in limits["AllowedValues"]
    assert not [v for v in walk(cn_template["Resources"]) if v == {"Ref": "WebAclArn"}]


def test_the_viewer_address_reaches_the_functions_in_x_forwarded_for(cn):
    """The limiter's key in a Lambda is the X-Forwarded-For entry CloudFront appends
    (functions/lambdas/src/viewer.rs), which CloudFront sends to every custom origin whatever
    the origin request policy; the behaviours of the API and the embedded page forward every
    viewer header but Host (AllViewerExceptHostHeader), as the HTTP API needs. No policy of
    this stack names CloudFront-Viewer-Address: its presence in China is unverified and the
    functions do not trust it (docs/multi-region.md §13)."""
    config = cn["Resources"]["Distribution"]["Properties"]["DistributionConfig"]
    api = [b for b in config["CacheBehaviors"] if b.get("TargetOriginId") == "api"]
    patterns = {b["PathPattern"] for b in api}
    assert {"/ciam/*", "/zh-CN/embedded/*", "/en-US/embedded/*"} <= patterns
    for b in api:
        if b["PathPattern"] == "/ciam/v1/avatar/*":
            continue
        assert b["OriginRequestPolicyId"] == "b689b0a8-53d0-40ab-baf2-68738e2966ac", b["PathPattern"]
    assert not [s for s in strings(cn) if "viewer-address" in s.lower()]


def test_the_texting_functions_get_the_providers_parameters(cn, cn_template):
    sms = {
        "CIAM_SMS": "SmsPrimary",
        "CIAM_SMS_FALLBACK": "SmsFallback",
        "CIAM_ALIYUN_SMS_SIGN_NAME": "AliyunSmsSignName",
        "CIAM_ALIYUN_SMS_TEMPLATES": "AliyunSmsTemplates",
        "CIAM_TENCENT_SMS_SDK_APP_ID": "TencentSmsSdkAppId",
        "CIAM_TENCENT_SMS_SIGN_NAME": "TencentSmsSignName",
        "CIAM_TENCENT_SMS_TEMPLATES": "TencentSmsTemplates",
        "CIAM_TENCENT_SMS_REGION": "TencentSmsRegion",
    }
    for param in sms.values():
        assert param in cn_template["Parameters"], param
    assert cn_template["Parameters"]["SmsPrimary"]["AllowedValues"] == ["aliyun", "tencent"]
    assert "SmsFallbackIsTheOtherProvider" in cn_template["Rules"]
    texting = 0
    for name in functions_of(cn):
        env = env_of(cn, name)
        given = {v for v in sms if v in env}
        assert given == (set(sms) if "CIAM_SMS_PROVIDER_SECRET" in env else set()), name
        texting += bool(given)
    assert texting > 0
