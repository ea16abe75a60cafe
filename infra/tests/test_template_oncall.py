"""Pages when users cannot sign in (issue 22, part 1): the synthetic sign-in and its alarm, the
function URL's rate alarms, the "not through CloudFront" refusals, the sign-in anomaly band, the
Lambda alarms over the stack's own functions and the budget; all after the SAM transform. The
canary's script itself is run with Node.js against a local server that plays Ciam."""

import json
import os
import re
import subprocess
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from template_facts import ROOT, route_facts

TOPIC = [{"Ref": "AlarmTopic"}]
# Silence is the outage for these two; for every other alarm no data means no traffic.
BREACHING = {"SignInCanaryAlarm", "SignInSuccessAnomalyAlarm"}
# What this part adds to the stack (after the transform; MonthlyBudget only with a budget).
ADDED = {
    "CanarySecret", "CanarySecretPolicy", "CanaryArtifactsBucket", "CanaryArtifactsBucketPolicy", "CanaryRole", "SignInCanary",
    "SignInCanaryAlarm", "SignInUrl5xxRateAlarm", "SignInUrl4xxRateAlarm", "OriginRefusalsRule",
    "OriginRefusalsAlarm", "SignInSuccessAnomalyDetector", "SignInSuccessAnomalyAlarm",
    "MonthlyBudget", "AlarmTopicPolicy", "TelemetryTags",
}


def of_type(transformed, kind):
    return {n: r for n, r in transformed["Resources"].items() if r["Type"] == kind}


def metric_stats(alarm):
    """(namespace, metric name, dimensions as a dict) of every MetricStat of a math alarm."""
    out = []
    for q in alarm["Properties"]["Metrics"]:
        if "MetricStat" in q:
            m = q["MetricStat"]["Metric"]
            out.append((m["Namespace"], m["MetricName"], {d["Name"]: d["Value"] for d in m.get("Dimensions", [])}))
    return out


# ---- the canary --------------------------------------------------------------------------------


def test_the_canary_runs_on_a_schedule_through_the_public_url(template, transformed):
    canary = transformed["Resources"]["SignInCanary"]
    assert canary["Type"] == "AWS::Synthetics::Canary"
    props = canary["Properties"]
    # A current Node.js runtime, the script inline, started at creation.
    assert re.fullmatch(r"syn-nodejs-(puppeteer-)?\d+\.\d+", props["RuntimeVersion"])
    assert props["Code"]["Handler"] == "index.handler"
    assert "exports.handler" in props["Code"]["Script"]
    assert props["StartCanaryAfterCreation"] is True
    # Every CanaryIntervalMinutes (5 by default) maps to a valid rate expression and the period
    # its alarm reads.
    assert props["Schedule"]["Expression"] == {"Fn::FindInMap": ["CanaryIntervals", {"Ref": "CanaryIntervalMinutes"}, "Expression"]}
    param = template["Parameters"]["CanaryIntervalMinutes"]
    assert param["Default"] == "5"
    intervals = template["Mappings"]["CanaryIntervals"]
    assert set(param["AllowedValues"]) == set(intervals)
    for minutes, row in intervals.items():
        unit = "minute" if minutes == "1" else "minutes"
        assert row["Expression"] == f"rate({minutes} {unit})"
        assert row["Seconds"] == 60 * int(minutes)
    # The URL customers use: the domain, else PublicBaseUrl, else the distribution's name.
    env = props["RunConfig"]["EnvironmentVariables"]
    assert env["CIAM_CANARY_URL"] == {
        "Fn::If": [
            "HasDomain",
            {"Fn::Sub": "https://${DomainName}"},
            {"Fn::If": ["HasPublicBaseUrl", {"Ref": "PublicBaseUrl"}, {"Fn::Sub": "https://${Distribution.DomainName}"}]},
        ]
    }
    assert env["CIAM_CANARY_SECRET_ARN"] == {"Ref": "CanarySecret"}
    assert template["Conditions"]["HasPublicBaseUrl"] == {"Fn::Not": [{"Fn::Equals": [{"Ref": "PublicBaseUrl"}, ""]}]}
    assert props["ExecutionRoleArn"] == {"Fn::GetAtt": ["CanaryRole", "Arn"]}
    assert props["ArtifactS3Location"] == {"Fn::Sub": "s3://${CanaryArtifactsBucket}/canary"}


def test_the_canary_artifacts_expire_and_stay_private(transformed):
    bucket = transformed["Resources"]["CanaryArtifactsBucket"]["Properties"]
    [rule] = bucket["LifecycleConfiguration"]["Rules"]
    assert rule["Status"] == "Enabled" and rule["ExpirationInDays"] == 30
    assert all(bucket["PublicAccessBlockConfiguration"].values())
    [tls] = transformed["Resources"]["CanaryArtifactsBucketPolicy"]["Properties"]["PolicyDocument"]["Statement"]
    assert tls["Effect"] == "Deny" and tls["Condition"] == {"Bool": {"aws:SecureTransport": False}}


def statements(doc):
    for s in doc.get("Statement", []):
        yield s


def grants_read(statement, secret):
    actions = statement["Action"] if isinstance(statement["Action"], list) else [statement["Action"]]
    resources = statement.get("Resource", [])
    resources = resources if isinstance(resources, list) else [resources]
    return (
        statement["Effect"] == "Allow"
        and any(a in ("secretsmanager:GetSecretValue", "secretsmanager:*", "*") for a in actions)
        and any(r == {"Ref": secret} or r == "*" for r in resources)
    )


def test_only_the_canary_role_may_read_its_secret(transformed):
    resources = transformed["Resources"]
    readers = set()
    for name, r in resources.items():
        if r["Type"] == "AWS::IAM::Role":
            for p in r["Properties"].get("Policies", []):
                if any(grants_read(s, "CanarySecret") for s in statements(p["PolicyDocument"])):
                    readers.add(name)
            for arn in r["Properties"].get("ManagedPolicyArns", []):
                target = arn.get("Ref") if isinstance(arn, dict) else None
                if target and any(grants_read(s, "CanarySecret") for s in statements(resources[target]["Properties"]["PolicyDocument"])):
                    readers.add(name)
        if r["Type"] in ("AWS::IAM::ManagedPolicy", "AWS::IAM::Policy"):
            if any(grants_read(s, "CanarySecret") and s.get("Resource") != "*" for s in statements(r["Properties"]["PolicyDocument"])):
                readers.add(name)
    assert readers == {"CanaryRole"}
    # The role reads that one secret, nothing else of Secrets Manager.
    [policy] = resources["CanaryRole"]["Properties"]["Policies"]
    secret_statements = [s for s in statements(policy["PolicyDocument"]) if "secretsmanager" in json.dumps(s["Action"])]
    assert secret_statements == [
        {"Sid": "ReadTheTestAccount", "Effect": "Allow", "Action": "secretsmanager:GetSecretValue", "Resource": {"Ref": "CanarySecret"}}
    ]
    assert resources["CanaryRole"]["Properties"]["AssumeRolePolicyDocument"]["Statement"][0]["Principal"] == {"Service": "lambda.amazonaws.com"}
    # And the secret itself refuses every other principal, whatever IAM grants them.
    policy = resources["CanarySecretPolicy"]["Properties"]
    assert policy["SecretId"] == {"Ref": "CanarySecret"}
    [deny] = policy["ResourcePolicy"]["Statement"]
    assert deny["Effect"] == "Deny" and deny["Principal"] == "*"
    assert deny["Action"] == "secretsmanager:GetSecretValue"
    assert deny["Condition"] == {"StringNotEquals": {"aws:PrincipalArn": {"Fn::GetAtt": ["CanaryRole", "Arn"]}}}
    # A generated placeholder, never a parameter: the operator puts the real account (§8.2).
    generate = resources["CanarySecret"]["Properties"]["GenerateSecretString"]
    assert generate["GenerateStringKey"] == "password"
    assert set(json.loads(generate["SecretStringTemplate"])) == {"account"}


def test_the_canary_alarm_treats_missing_runs_as_an_outage(transformed):
    alarm = transformed["Resources"]["SignInCanaryAlarm"]["Properties"]
    assert alarm["TreatMissingData"] == "breaching"
    stats = metric_stats(transformed["Resources"]["SignInCanaryAlarm"])
    assert {(ns, m) for ns, m, _ in stats} == {("CloudWatchSynthetics", "SuccessPercent"), ("CloudWatchSynthetics", "Failed")}
    assert all(d == {"CanaryName": {"Ref": "SignInCanary"}} for _, _, d in stats)
    [expr] = [q for q in alarm["Metrics"] if "Expression" in q]
    assert expr["ReturnData"] is True
    assert expr["Expression"] == "IF(success < 100 OR failed >= 1, 1, 0)"
    # 2 failed runs of 3, each period one run of the canary.
    assert (alarm["EvaluationPeriods"], alarm["DatapointsToAlarm"], alarm["Threshold"]) == (3, 2, 1)
    for q in alarm["Metrics"]:
        if "MetricStat" in q:
            assert q["MetricStat"]["Period"] == {"Fn::FindInMap": ["CanaryIntervals", {"Ref": "CanaryIntervalMinutes"}, "Seconds"]}


# ---- the script, run ---------------------------------------------------------------------------

SECRET_ARN = "arn:aws:secretsmanager:eu-west-1:123456789012:secret:canary-abc"
STUB_SDK = """
exports.GetSecretValueCommand = class { constructor(input) { this.input = input; } };
exports.SecretsManagerClient = class {
  async send(cmd) {
    if (cmd.input.SecretId !== process.env.CIAM_CANARY_SECRET_ARN) throw new Error("wrong secret");
    return { SecretString: process.env.STUB_SECRET };
  }
};
"""


class FakeCiam:
    """Plays the five routes (and logout) the way Ciam answers them; `broken` makes one fail."""

    def __init__(self, broken=None):
        self.broken = broken
        self.calls = []
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def answer(self, status, body):
                data = json.dumps(body).encode()
                self.send_response(status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def handle_any(self):
                length = int(self.headers.get("content-length") or 0)
                body = json.loads(self.rfile.read(length)) if length else None
                outer.calls.append((self.command, self.path, self.headers.get("authorization"), body))
                outer.agents.add(self.headers.get("user-agent"))
                base = f"http://127.0.0.1:{outer.port}"
                route = (self.command, self.path)
                if outer.broken == route:
                    return self.answer(503, {"reason": "SERVICE_UNAVAILABLE", "message": "", "code": 503})
                if route == ("GET", "/ciam/v1/version"):
                    return self.answer(200, {"version": "release.0.1.0"})
                if route == ("POST", "/ciam/v1/auth/login/password"):
                    if body != {"account": "canary@example.com", "password": "right"}:
                        return self.answer(401, {"reason": "PASSWORD_ERROR", "message": "", "code": 401})
                    return self.answer(200, {"token": "tok", "userId": "u1", "expiresAt": 1})
                if route == ("GET", "/ciam/v1/auth/info"):
                    if self.headers.get("authorization") != "Bearer tok":
                        return self.answer(401, {"reason": "INVALID_TOKEN", "message": "", "code": 401})
                    return self.answer(200, {"userId": "u1", "userName": "canary"})
                if route == ("POST", "/ciam/v1/auth/logout"):
                    return self.answer(200, {"ok": True})
                if route == ("GET", "/ciam/v1/oidc/.well-known/openid-configuration"):
                    issuer = outer.issuer or base + "/ciam/v1/oidc"
                    return self.answer(200, {"issuer": issuer, "jwks_uri": base + "/ciam/v1/oidc/jwks"})
                if route == ("GET", "/ciam/v1/oidc/jwks"):
                    return self.answer(200, {"keys": outer.keys})
                return self.answer(404, {"reason": "NOT_FOUND", "message": "", "code": 404})

            do_GET = do_POST = handle_any

        self.issuer = None
        self.agents = set()
        self.keys = [{"kty": "EC", "kid": "1"}]
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.server.server_address[1]
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self):
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def canary_dir(tmp_path, template):
    script = template["Resources"]["SignInCanary"]["Properties"]["Code"]["Script"]
    (tmp_path / "index.js").write_text(script)
    sdk = tmp_path / "node_modules" / "@aws-sdk" / "client-secrets-manager"
    sdk.mkdir(parents=True)
    (sdk / "index.js").write_text(STUB_SDK)
    return tmp_path


STUB_SYNTHETICS = """
const fs = require("fs");
const log = (line) => fs.appendFileSync(process.env.STEP_LOG, line + "\\n");
exports.getConfiguration = () => ({ setConfig: (c) => log("config " + JSON.stringify(c)) });
exports.executeStep = async (name, fn) => { log("step " + name); return fn(); };
"""


def run_canary(directory, ciam, password="right"):
    env = dict(
        os.environ,
        CIAM_CANARY_URL=f"http://127.0.0.1:{ciam.port}/",
        CIAM_CANARY_SECRET_ARN=SECRET_ARN,
        STUB_SECRET=json.dumps({"account": "canary@example.com", "password": password}),
    )
    runner = "require('./index.js').handler().then(r => console.log(r), e => { console.error(e.message); process.exit(1); })"
    return subprocess.run(["node", "-e", runner], cwd=directory, env=env, capture_output=True, text=True, timeout=60)


def test_the_script_makes_the_five_checks_with_the_session_and_ends_it(canary_dir):
    ciam = FakeCiam()
    try:
        done = run_canary(canary_dir, ciam)
    finally:
        ciam.close()
    assert done.returncode == 0, done.stderr
    assert [(m, p) for m, p, _, _ in ciam.calls] == [
        ("GET", "/ciam/v1/version"),
        ("POST", "/ciam/v1/auth/login/password"),
        ("GET", "/ciam/v1/auth/info"),
        ("POST", "/ciam/v1/auth/logout"),
        ("GET", "/ciam/v1/oidc/.well-known/openid-configuration"),
        ("GET", "/ciam/v1/oidc/jwks"),
    ]
    assert ciam.calls[1][3] == {"account": "canary@example.com", "password": "right"}
    assert ciam.calls[2][2] == "Bearer tok" and ciam.calls[3][2] == "Bearer tok"
    # One name for every request, so logs and web ACL samples can tell the canary apart.
    assert ciam.agents == {"CiamSyntheticSignIn/1"}


def test_in_the_synthetics_runtime_each_check_is_a_step_without_screenshots(canary_dir, tmp_path):
    lib = canary_dir / "node_modules" / "@aws" / "synthetics-puppeteer"
    lib.mkdir(parents=True)
    (lib / "index.js").write_text(STUB_SYNTHETICS)
    steps = tmp_path / "steps.log"
    os.environ["STEP_LOG"] = str(steps)
    ciam = FakeCiam()
    try:
        done = run_canary(canary_dir, ciam)
    finally:
        ciam.close()
        del os.environ["STEP_LOG"]
    assert done.returncode == 0, done.stderr
    lines = steps.read_text().splitlines()
    assert json.loads(lines[0].removeprefix("config ")) == {
        "screenshotOnStepStart": False, "screenshotOnStepSuccess": False, "screenshotOnStepFailure": False,
    }
    assert lines[1:] == ["step version", "step sign-in", "step auth-info", "step oidc-discovery", "step oidc-jwks"]


@pytest.mark.parametrize(
    "broken",
    [
        ("GET", "/ciam/v1/version"),
        ("POST", "/ciam/v1/auth/login/password"),
        ("GET", "/ciam/v1/auth/info"),
        ("GET", "/ciam/v1/oidc/.well-known/openid-configuration"),
        ("GET", "/ciam/v1/oidc/jwks"),
    ],
)
def test_any_failed_check_fails_the_run(canary_dir, broken):
    ciam = FakeCiam(broken=broken)
    try:
        done = run_canary(canary_dir, ciam)
    finally:
        ciam.close()
    assert done.returncode == 1
    assert f"{broken[0]} http://127.0.0.1:{ciam.port}{broken[1]} answered 503 SERVICE_UNAVAILABLE" in done.stderr
    # The session, once made, is ended even when a later check fails; nothing after the failure.
    paths = [p for _, p, _, _ in ciam.calls]
    if broken[1] == "/ciam/v1/auth/info":
        assert paths[-1] == "/ciam/v1/auth/logout"
    else:
        assert paths[-1] == broken[1]


def test_a_wrong_password_an_issuer_elsewhere_or_no_key_fail_the_run(canary_dir):
    ciam = FakeCiam()
    try:
        wrong = run_canary(canary_dir, ciam, password="placeholder")
        ciam.issuer = "https://elsewhere.example/ciam/v1/oidc"
        elsewhere = run_canary(canary_dir, ciam)
        ciam.issuer, ciam.keys = None, []
        keyless = run_canary(canary_dir, ciam)
    finally:
        ciam.close()
    assert wrong.returncode == 1 and "answered 401 PASSWORD_ERROR" in wrong.stderr
    # Neither the password nor a token reaches the log.
    assert "placeholder" not in wrong.stderr + wrong.stdout
    assert elsewhere.returncode == 1 and "is not this URL's" in elsewhere.stderr
    assert keyless.returncode == 1 and "no key" in keyless.stderr


# ---- the alarms --------------------------------------------------------------------------------


@pytest.mark.parametrize("name,metric,floor,threshold", [
    ("SignInUrl5xxRateAlarm", "Url5xxCount", 20, 5),
    ("SignInUrl4xxRateAlarm", "Url4xxCount", 100, 50),
])
def test_the_sign_in_function_url_alarms_are_rates_with_a_minimum_volume(transformed, name, metric, floor, threshold):
    alarm = transformed["Resources"][name]
    stats = metric_stats(alarm)
    assert {(ns, m) for ns, m, _ in stats} == {("AWS/Lambda", "UrlRequestCount"), ("AWS/Lambda", metric)}
    assert all(d == {"FunctionName": {"Ref": "AuthLoginPasswordFunction"}} for _, _, d in stats)
    # The function really is CloudFront's origin through its URL.
    assert "AuthLoginPasswordFunctionUrl" in transformed["Resources"]
    [expr] = [q for q in alarm["Properties"]["Metrics"] if "Expression" in q]
    assert expr["ReturnData"] is True
    assert expr["Expression"].startswith(f"IF(requests >= {floor}, 100 * FILL(")
    assert expr["Expression"].endswith("/ requests, 0)")
    assert alarm["Properties"]["Threshold"] == threshold


def test_not_through_cloudfront_refusals_are_counted_over_every_log_group_of_the_stack(transformed):
    rule = transformed["Resources"]["OriginRefusalsRule"]["Properties"]
    assert rule["RuleState"] == "ENABLED"
    body = json.loads(rule["RuleBody"]["Fn::Sub"].replace("${AWS::StackName}", "ciam"))
    assert body["LogGroupNames"] == ["ciam-*"]
    [f] = body["Contribution"]["Filters"]
    assert f["Match"] == "$.fields.cause"
    # The exact words the origin check logs when it refuses (tracing JSON: fields.cause).
    origin = (ROOT / "functions" / "lambdas" / "src" / "origin.rs").read_text()
    for cause in f["In"]:
        assert f'cause = "{cause}"' in origin
    # Every function's log group is CloudFormation-named (so under "<stack>-"), none has a
    # LogGroupName of its own that the prefix would miss.
    for r in route_facts().values():
        assert "LogGroupName" not in transformed["Resources"][r["logs"]]["Properties"], r["logs"]
    alarm = transformed["Resources"]["OriginRefusalsAlarm"]["Properties"]
    [q] = alarm["Metrics"]
    assert q["Expression"] == {"Fn::Sub": "INSIGHT_RULE_METRIC('${OriginRefusalsRule.RuleName}', 'SampleCount')"}
    assert (alarm["EvaluationPeriods"], alarm["DatapointsToAlarm"]) == (5, 3)


def test_successful_sign_ins_out_of_their_band_page(transformed):
    resources = transformed["Resources"]
    detector = resources["SignInSuccessAnomalyDetector"]["Properties"]["SingleMetricAnomalyDetector"]
    dims = {d["Name"]: d["Value"] for d in detector["Dimensions"]}
    assert (detector["Namespace"], detector["MetricName"], dims) == ("Ciam", "SignIn", {"Outcome": "success", "Method": "password"})
    # The metric the generated filter publishes: same namespace, name and dimension keys, and
    # the password route's line carries method "password".
    [f] = [
        r["Properties"] for r in resources.values()
        if r["Type"] == "AWS::Logs::MetricFilter"
        and r["Properties"]["LogGroupName"] == {"Ref": "AuthLoginPasswordLogs"}
        and r["Properties"]["MetricTransformations"][0]["MetricName"] == "SignIn"
    ]
    [t] = f["MetricTransformations"]
    assert t["MetricNamespace"] == "Ciam" and {d["Key"] for d in t["Dimensions"]} == set(dims)
    assert route_facts()["auth_login_password"]["signIn"] == "password"
    alarm = resources["SignInSuccessAnomalyAlarm"]["Properties"]
    assert alarm["ComparisonOperator"] == "LessThanLowerThreshold"
    assert alarm["TreatMissingData"] == "breaching"
    [band] = [q for q in alarm["Metrics"] if q["Id"] == alarm["ThresholdMetricId"]]
    assert band["Expression"].startswith("ANOMALY_DETECTION_BAND(signins")
    [(ns, m, d)] = metric_stats(resources["SignInSuccessAnomalyAlarm"])
    assert (ns, m, d) == ("Ciam", "SignIn", dims)


def test_lambda_alarms_are_metrics_insights_over_the_stacks_tagged_functions(template, transformed):
    # Every function carries the stack's tag.
    assert template["Globals"]["Function"]["Tags"] == {"CiamStack": {"Ref": "AWS::StackName"}}
    for name, r in of_type(transformed, "AWS::Lambda::Function").items():
        assert {"Key": "CiamStack", "Value": {"Ref": "AWS::StackName"}} in r["Properties"]["Tags"], name
    for name, (stat, metric) in {"LambdaErrorsAlarm": ("AVG", "Errors"), "LambdaThrottlesAlarm": ("SUM", "Throttles")}.items():
        alarm = transformed["Resources"][name]["Properties"]
        assert "MetricName" not in alarm and "Namespace" not in alarm, name
        [q] = alarm["Metrics"]
        query = " ".join(q["Expression"]["Fn::Sub"].split())
        assert query == (
            f'SELECT {stat}({metric}) FROM SCHEMA("AWS/Lambda", FunctionName) '
            "WHERE tag.CiamStack = '${AWS::StackName}'"
        ), name
        assert q["Period"] == 300 and q["ReturnData"] is True
    # The tag is queryable: the stack turns resource tags for telemetry on unless told it is on
    # already, and keeps it when deleted (it is the account's, not the stack's).
    switch = transformed["Resources"]["TelemetryTags"]
    assert switch["Type"] == "AWS::ObservabilityAdmin::TelemetryEnrichment"
    assert switch["Properties"] == {"Scope": "ACCOUNT"}
    assert switch["Condition"] == "TurnsOnTelemetryTags" and switch["DeletionPolicy"] == "Retain"
    assert template["Conditions"]["TurnsOnTelemetryTags"] == {"Fn::Equals": [{"Ref": "EnableTelemetryTags"}, "true"]}
    assert template["Parameters"]["EnableTelemetryTags"]["Default"] == "true"
    # Errors as a rate (a share of invocations), not a count.
    assert transformed["Resources"]["LambdaErrorsAlarm"]["Properties"]["Threshold"] < 1


def test_the_budget_follows_its_parameter_and_tells_the_topic(template, transformed):
    assert template["Parameters"]["MonthlyBudgetUsd"]["Default"] == 0
    assert template["Conditions"]["HasBudget"] == {"Fn::Not": [{"Fn::Equals": [{"Ref": "MonthlyBudgetUsd"}, "0"]}]}
    budget = transformed["Resources"]["MonthlyBudget"]
    assert budget["Condition"] == "HasBudget"
    b = budget["Properties"]["Budget"]
    assert (b["BudgetType"], b["TimeUnit"]) == ("COST", "MONTHLY")
    assert b["BudgetLimit"] == {"Amount": {"Ref": "MonthlyBudgetUsd"}, "Unit": "USD"}
    seen = set()
    for n in budget["Properties"]["NotificationsWithSubscribers"]:
        note = n["Notification"]
        seen.add((note["NotificationType"], note["Threshold"], note["ThresholdType"]))
        assert n["Subscribers"] == [{"SubscriptionType": "SNS", "Address": {"Ref": "AlarmTopic"}}]
    assert seen == {("ACTUAL", 80, "PERCENTAGE"), ("FORECASTED", 100, "PERCENTAGE")}
    # Budgets may publish to the topic (and CloudWatch still may: the policy replaces the default).
    policy = transformed["Resources"]["AlarmTopicPolicy"]["Properties"]
    assert policy["Topics"] == TOPIC
    services = set()
    for s in policy["PolicyDocument"]["Statement"]:
        if s["Effect"] == "Allow" and "Service" in s["Principal"] and s["Action"] == "sns:Publish":
            services |= set(s["Principal"]["Service"])
            assert s["Condition"] == {"StringEquals": {"aws:SourceAccount": {"Ref": "AWS::AccountId"}}}
    assert {"budgets.amazonaws.com", "cloudwatch.amazonaws.com"} <= services


def test_every_alarm_tells_the_topic_and_says_where_the_on_call_page_is(transformed):
    alarms = of_type(transformed, "AWS::CloudWatch::Alarm")
    page = (ROOT / "docs" / "operations.md").read_text()
    oncall = page[page.index("### 8.6"):page.index("### 8.7")]
    for name, alarm in alarms.items():
        props = alarm["Properties"]
        assert props["AlarmActions"] == TOPIC, name
        assert props["OKActions"] == TOPIC, name
        assert props["TreatMissingData"] == ("breaching" if name in BREACHING else "notBreaching"), name
        # Each alarm has its entry on the on-call page.
        assert f"`{name}`" in oncall, name
        # ... and its description (what the mail shows) names that entry.
        description = props["AlarmDescription"]
        description = description["Fn::Sub"] if isinstance(description, dict) else description
        assert f'On-call: docs/operations.md §8.6 "{name}".' in " ".join(description.split()), name
    # The alarms other parts of issue 22 add, on the same page.
    for name in ("CloudFront5xxRateAlarm", "CloudFront4xxRateAlarm", "WafBlockedSpikeAlarm", "BackupJobFailedAlarm", "CanaryErrorsAlarm"):
        assert name in oncall, name


def test_the_dashboard_shows_the_canary_the_sign_in_url_and_the_stacks_functions(template):
    body = template["Resources"]["Dashboard"]["Properties"]["DashboardBody"]["Fn::Sub"][0]
    widgets = json.loads(re.sub(r"\$\{[^}]+\}", "x", body.replace("${HashingFunctionMetrics}", '["a", "b"]')))["widgets"]
    text = json.dumps(widgets)
    for needle in ("SuccessPercent", "UrlRequestCount", "Url4xxCount", "Url5xxCount", "INSIGHT_RULE_METRIC",
                   "tag.CiamStack", "EstimatedCharges", "ANOMALY_DETECTION_BAND"):
        assert needle in text, needle
    cross_region = [w for w in widgets if w["properties"].get("region") == "us-east-1"]
    assert any("AWS/CloudFront" in json.dumps(w) for w in cross_region)
    assert any("AWS/Billing" in json.dumps(w) for w in cross_region)


def test_this_part_stays_within_its_resource_budget(template, transformed, main_transformed):
    resources = transformed["Resources"]
    assert ADDED <= set(resources)
    assert len(ADDED) < 20
    # CloudFormation's limit is per stack: the main one's (the nested stacks, the console's and
    # the organizations', have their own: test_template_deploys.py counts each).
    assert len(main_transformed["Resources"]) < 500
