"""Observability: JSON logs, API access logs, the alarms (each to the topic), the sign-in and
client-error metrics from the contracted log lines, the dashboard, optional X-Ray."""

import json
import re

import pytest

from template_facts import functions, role_of, route_facts

# Alarm -> (namespace, metrics it watches). Each is required by the issue. The Lambda alarms
# (Metrics Insights queries over the stack's functions) and the on-call page's alarms are
# checked in test_template_oncall.py.
REQUIRED_ALARMS = {
    "Api5xxAlarm": ("AWS/ApiGateway", {"5xx"}),
    "ApiLatencyP99Alarm": ("AWS/ApiGateway", {"Latency"}),
    "TableThrottlesAlarm": ("AWS/DynamoDB", {"ReadThrottleEvents", "WriteThrottleEvents"}),
    "TableSystemErrorsAlarm": ("AWS/DynamoDB", {"SystemErrors"}),
    "SesBounceRateAlarm": ("AWS/SES", {"Reputation.BounceRate"}),
    "SesComplaintRateAlarm": ("AWS/SES", {"Reputation.ComplaintRate"}),
    "SmsSpendAlarm": ("AWS/SNS", {"SMSMonthToDateSpentUSD"}),
    "SignInFailureSpikeAlarm": ("Ciam", {"SignInFailures"}),
    "SignInUnavailableAlarm": ("Ciam", {"SignInUnavailable"}),
}
# The log groups of the rows that name a sign-in method (RouteDef::sign_in).
SIGN_IN_LOGS = {r["logs"] for r in route_facts().values() if r["signIn"]}


def resources_of(template, kind):
    return {n: r["Properties"] for n, r in template["Resources"].items() if r["Type"] == kind}


def watched(alarm):
    """(namespace, metric names) an alarm evaluates, plain or through metric math."""
    if "MetricName" in alarm:
        return {(alarm["Namespace"], alarm["MetricName"])}
    return {
        (q["MetricStat"]["Metric"]["Namespace"], q["MetricStat"]["Metric"]["MetricName"])
        for q in alarm["Metrics"]
        if "MetricStat" in q
    }


def test_every_required_alarm_exists_and_tells_the_topic(template):
    alarms = resources_of(template, "AWS::CloudWatch::Alarm")
    for name, (namespace, metrics) in REQUIRED_ALARMS.items():
        assert name in alarms, name
        assert watched(alarms[name]) == {(namespace, m) for m in metrics}, name
    for name, alarm in alarms.items():
        assert alarm["AlarmActions"] == [{"Ref": "AlarmTopic"}], name
        assert alarm["OKActions"] == [{"Ref": "AlarmTopic"}], name
    topic = template["Resources"]["AlarmTopic"]
    assert topic["Type"] == "AWS::SNS::Topic"
    subscription = template["Resources"]["AlarmEmailSubscription"]
    assert subscription["Condition"] == "HasAlarmEmail"
    assert subscription["Properties"]["Endpoint"] == {"Ref": "AlarmEmail"}
    assert template["Parameters"]["AlarmEmail"]["Default"] == ""


def test_api_alarms_watch_this_api_and_table_alarms_this_table(template):
    alarms = resources_of(template, "AWS::CloudWatch::Alarm")
    for name in ("Api5xxAlarm", "ApiLatencyP99Alarm"):
        assert alarms[name]["Dimensions"] == [{"Name": "ApiId", "Value": {"Ref": "Api"}}], name
    assert alarms["ApiLatencyP99Alarm"]["ExtendedStatistic"] == "p99"
    for name in ("TableThrottlesAlarm", "TableSystemErrorsAlarm"):
        for q in alarms[name]["Metrics"]:
            if "MetricStat" in q:
                dims = q["MetricStat"]["Metric"]["Dimensions"]
                assert {"Name": "TableName", "Value": {"Ref": "Table"}} in dims, name
    assert alarms["SmsSpendAlarm"]["Threshold"] == {"Ref": "SmsMonthlySpendAlarmUsd"}


def test_sign_in_outcomes_are_metrics_by_reason_from_the_contracted_log_line(template):
    filters = resources_of(template, "AWS::Logs::MetricFilter")
    outcome_groups, failure_groups, unavailable_groups = set(), set(), set()
    for f in filters.values():
        [t] = f["MetricTransformations"]
        if t["MetricName"] == "SignIn":
            assert f["FilterPattern"] == '{ $.fields.message = "sign-in" }'
            assert t["MetricNamespace"] == "Ciam"
            assert t["Dimensions"] == [
                {"Key": "Outcome", "Value": "$.fields.outcome"},
                {"Key": "Method", "Value": "$.fields.method"},
            ]
            outcome_groups.add(f["LogGroupName"]["Ref"])
        if t["MetricName"] == "SignInFailures":
            # A right password that asks for the second factor is not a failure, nor is a
            # sign-in the store turned away (503: it has its own metric and alarm).
            assert f["FilterPattern"] == (
                '{ $.fields.message = "sign-in" && $.fields.outcome != "success"'
                ' && $.fields.outcome != "NEED_TOTP_VERIFY" && $.fields.outcome != "unavailable" }'
            )
            failure_groups.add(f["LogGroupName"]["Ref"])
        if t["MetricName"] == "SignInUnavailable":
            assert f["FilterPattern"] == (
                '{ $.fields.message = "sign-in" && $.fields.outcome = "unavailable" }'
            )
            unavailable_groups.add(f["LogGroupName"]["Ref"])
    # The seven of their own method, and the two every linking provider shares.
    assert len(SIGN_IN_LOGS) == 9
    assert SIGN_IN_LOGS == outcome_groups == failure_groups == unavailable_groups


def test_client_error_reports_become_a_metric_on_their_log_group(template):
    filters = resources_of(template, "AWS::Logs::MetricFilter")
    [f] = [f for f in filters.values() if f["MetricTransformations"][0]["MetricName"] == "ClientErrors"]
    assert f["FilterPattern"] == '{ $.fields.message = "client error" }'
    assert f["MetricTransformations"][0]["MetricNamespace"] == "Ciam"
    # The group the client_error function writes to (the shared one).
    assert f["LogGroupName"]["Ref"] == route_facts()["client_error"]["logs"]
    assert template["Resources"][f["LogGroupName"]["Ref"]]["Type"] == "AWS::Logs::LogGroup"


def test_every_function_logs_json_to_its_group_and_does_not_trace(template, transformed):
    """A sign-in row logs to its own group (the sign-in metric filters read it), kept
    SignInLogRetentionDays; every other function to the shared FunctionLogs, kept
    LogRetentionDays (one group per function would take 80 of CloudFormation's 500 resources)."""
    lambdas = {n: r["Properties"] for n, r in transformed["Resources"].items() if r["Type"] == "AWS::Lambda::Function"}
    facts = route_facts()
    own_groups = set()
    for name, route in functions(template).items():
        logging = lambdas[name]["LoggingConfig"]
        assert logging["LogFormat"] == "JSON", name
        # Lambda's start/report lines follow a parameter (off by default: they cost per request).
        assert logging["SystemLogLevel"] == {"Ref": "PlatformLogLevel"}, name
        group = logging["LogGroup"]["Ref"]
        assert group == facts[route]["logs"], name
        retention = template["Resources"][group]["Properties"]["RetentionInDays"]
        if facts[route]["signIn"]:
            assert group == name.removesuffix("Function") + "Logs", name
            assert retention == {"Ref": "SignInLogRetentionDays"}, name
            own_groups.add(group)
        else:
            assert group == "FunctionLogs", name
            assert retention == {"Ref": "LogRetentionDays"}, name
        # X-Ray is off: nothing emits segments (docs/operations.md §6), so no tracing mode and
        # no X-Ray permission.
        assert "TracingConfig" not in lambdas[name], name
        role = transformed["Resources"][role_of(transformed, name)]["Properties"]
        assert not any("Xray" in str(arn) for arn in role.get("ManagedPolicyArns", [])), name
    # No log group is left without a writer: the sign-in groups, the shared one, API access.
    groups = {n for n, r in transformed["Resources"].items() if r["Type"] == "AWS::Logs::LogGroup"}
    assert groups == own_groups | {"FunctionLogs", "ApiAccessLogs"}
    assert own_groups == SIGN_IN_LOGS
    assert "TracingMode" not in template["Parameters"]
    assert "Tracing" not in template["Globals"]["Function"]
    assert template["Parameters"]["PlatformLogLevel"]["Default"] == "WARN"


def test_sign_ins_and_api_access_are_kept_a_year_the_rest_a_month(template):
    params = template["Parameters"]
    assert params["SignInLogRetentionDays"]["Default"] == 365
    assert params["LogRetentionDays"]["Default"] == 30
    # Only the values CloudWatch Logs accepts.
    assert params["SignInLogRetentionDays"]["AllowedValues"] == params["LogRetentionDays"]["AllowedValues"]
    assert {365, 30, 3653} <= set(params["SignInLogRetentionDays"]["AllowedValues"])


def test_api_access_logs_are_json_lines_with_the_request_essentials(template):
    settings = template["Resources"]["Api"]["Properties"]["AccessLogSettings"]
    assert settings["DestinationArn"] == {"Fn::GetAtt": ["ApiAccessLogs", "Arn"]}
    line = json.loads(settings["Format"])
    for field, variable in {
        "requestId": "$context.requestId",
        "ip": "$context.identity.sourceIp",
        "route": "$context.routeKey",
        "status": "$context.status",
        "latency": "$context.responseLatency",
    }.items():
        assert line[field] == variable, field
    group = template["Resources"]["ApiAccessLogs"]["Properties"]
    assert group["RetentionInDays"] == {"Ref": "SignInLogRetentionDays"}


def test_the_dashboard_is_valid_json_with_the_main_graphs(template):
    body, variables = template["Resources"]["Dashboard"]["Properties"]["DashboardBody"]["Fn::Sub"]
    # What CloudFormation substitutes: stack resources, pseudo parameters, the Sub's own variables.
    known = set(template["Resources"]) | {"AWS::Region", "AWS::StackName"} | set(variables)
    for var in re.findall(r"\$\{([^}]+)\}", body):
        # A resource, or a resource's attribute (${Resource.Attribute}).
        assert var in known or (var.split(".")[0] in template["Resources"] and "." in var), var
    # The generated concurrency lines of the argon2 functions, themselves a Sub of resources.
    hashing = variables["HashingFunctionMetrics"]["Fn::Sub"]
    named = set(re.findall(r"\$\{([^}]+)\}", hashing))
    assert named == {r["function"] for r in route_facts().values() if r["hashing"]}
    body = body.replace("${HashingFunctionMetrics}", hashing)
    widgets = json.loads(re.sub(r"\$\{[^}]+\}", "x", body))["widgets"]
    text = json.dumps(widgets)
    for metric in ("5xx", "Latency", "SignIn", "SignInFailures", "SignInUnavailable", "ClientErrors", "Throttles", "ReadThrottleEvents",
                   "Reputation.BounceRate", "SMSMonthToDateSpentUSD", "BlockedRequests"):
        assert metric in text, metric


@pytest.mark.parametrize("metric", ["SignIn", "SignInFailures", "SignInUnavailable", "ClientErrors"])
def test_custom_metrics_live_in_the_contracted_namespace(template, metric):
    filters = resources_of(template, "AWS::Logs::MetricFilter")
    namespaces = {f["MetricTransformations"][0]["MetricNamespace"] for f in filters.values() if f["MetricTransformations"][0]["MetricName"] == metric}
    assert namespaces == {"Ciam"}
