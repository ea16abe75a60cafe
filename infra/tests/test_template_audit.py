"""An audit nobody can rewrite (issue 30 item 4), read after the SAM transform: only the roles of
the routes that record operator acts (the console's changing routes and the registry's) may
write `AUDIT#` items at all; no role may update or delete one; a replacement by PutItem, which
IAM cannot refuse, is seen on the table's stream (the fan-out mapping's audit filter) and pages
through `AuditTamperedAlarm`."""

import fnmatch
import json
import re

from permissions import role_statements
from template_facts import as_list, functions, role_of, route_facts

WRITES = {"dynamodb:PutItem", "dynamodb:UpdateItem", "dynamodb:DeleteItem", "dynamodb:BatchWriteItem"}
CHANGES = {"dynamodb:UpdateItem", "dynamodb:DeleteItem"}
AUDIT_KEY = "AUDIT#2026-12-02"
# AWS managed policies on this stack's roles that allow writing items of any table, and so need
# the stack's own Deny: AWS Backup's restores write the restored table (a side table, never the
# live one: docs/operations.md §8.5.1).
AWS_MANAGED_ITEM_WRITERS = {
    "AWSBackupServiceRolePolicyForRestores": WRITES,
}
# The AWS managed policies that grant no item write (what each role holds besides its own).
AWS_MANAGED_NO_ITEMS = {"AWSLambdaBasicExecutionRole", "AWSBackupServiceRolePolicyForBackup", "AWSCodeDeployRoleForLambda",
                        "AWSCodeDeployRoleForLambdaLimited"}


def audit_writers():
    """The functions whose routes write audit entries: a changing method of a console route
    (`console:<role>`; the registry is the console's since issue 30), as ciam-gen's
    `audit::writes_audit` decides; recomputed here from infra/routes.json."""
    out = set()
    for r in route_facts().values():
        if r["method"] not in ("GET", "") and r["auth"].startswith("console:") and r["table"] == "write":
            out.add(r["function"])
    return out


def matches_table(resource):
    return resource in ({"Fn::GetAtt": ["Table", "Arn"]}, "*") or (
        isinstance(resource, dict) and "Fn::Sub" in resource and resource["Fn::Sub"] in ("${Table.Arn}",)
    )


def leading_key_allows(condition, key):
    """Whether an Allow statement's condition lets an item of partition `key` through."""
    if not condition:
        return True
    for op, tests in condition.items():
        if "dynamodb:LeadingKeys" not in tests:
            continue
        patterns = as_list(tests["dynamodb:LeadingKeys"])
        if op == "ForAllValues:StringLike":
            if not any(fnmatch.fnmatchcase(key, p) for p in patterns):
                return False
        elif op == "ForAllValues:StringEquals":
            if key not in patterns:
                return False
        else:
            raise AssertionError(f"a LeadingKeys condition this check does not read: {op}")
    return True


def denied(statements, action, key):
    for s in statements:
        if s["Effect"] != "Deny" or action not in as_list(s["Action"]):
            continue
        if not any(matches_table(r) for r in as_list(s.get("Resource", []))):
            continue
        cond = s.get("Condition", {})
        if not cond:
            return True
        patterns = as_list(cond.get("ForAnyValue:StringLike", {}).get("dynamodb:LeadingKeys", []))
        if any(fnmatch.fnmatchcase(key, p) for p in patterns):
            return True
    return False


def may(transformed, role, action, key=AUDIT_KEY):
    """Whether `role` may do `action` on the table's item of partition `key`."""
    resources = transformed["Resources"]
    statements, aws_managed = role_statements(resources, role)
    allowed = False
    for arn in aws_managed:
        name = re.search(r"policy/(?:service-role/)?([A-Za-z0-9]+)", arn).group(1)
        assert name in AWS_MANAGED_NO_ITEMS | set(AWS_MANAGED_ITEM_WRITERS), f"{role}: an AWS managed policy this check does not know: {arn}"
        allowed |= action in AWS_MANAGED_ITEM_WRITERS.get(name, set())
    for s in statements:
        if s["Effect"] != "Allow":
            continue
        acts = as_list(s["Action"])
        if not (action in acts or "dynamodb:*" in acts or "*" in acts):
            continue
        if "NotResource" in s or not any(matches_table(r) for r in as_list(s["Resource"])):
            continue
        allowed |= leading_key_allows(s.get("Condition"), key)
    return allowed and not denied(statements, action, key)


def roles(transformed):
    return {n for n, r in transformed["Resources"].items() if r["Type"] == "AWS::IAM::Role"}


def test_only_the_audited_routes_may_write_audit_entries(template, transformed):
    writers = audit_writers()
    # What the issue names: the console's changing routes, the registry's (now the console's) too.
    assert "AdminAccountRevealFunction" in writers and "AdminRolePutFunction" in writers
    assert "AdminAppCreateFunction" in writers and "AdminAppWebhookReplayFunction" in writers
    assert not {f for f in writers if f.startswith("Admin") and "Get" in f}
    writer_roles = {role_of(transformed, f) for f in writers}
    may_put = {r for r in roles(transformed) if may(transformed, r, "dynamodb:PutItem")}
    assert may_put == writer_roles, f"may put AUDIT# beyond the writers: {sorted(may_put - writer_roles)}"
    # A writer's role is a writer's only: no other function runs as it.
    for f in functions(template):
        if role_of(transformed, f) in writer_roles:
            assert f in writers, f"{f} shares an audit writer's role"
    # And the rest of the table stays theirs: a writer still writes a user's item.
    for r in writer_roles:
        assert may(transformed, r, "dynamodb:PutItem", "USER#u1"), r


def test_no_role_may_update_delete_or_batch_write_an_audit_entry(transformed):
    for r in roles(transformed):
        for action in CHANGES | {"dynamodb:BatchWriteItem"}:
            assert not may(transformed, r, action), f"{r} may {action} an audit entry"
    # Every other writing role is refused each write explicitly (a Deny, not only an absent
    # Allow): the check below would see an Allow added later.
    for r in roles(transformed):
        statements, _ = role_statements(transformed["Resources"], r)
        if may(transformed, r, "dynamodb:PutItem", "USER#u1") and not may(transformed, r, "dynamodb:PutItem"):
            conditioned = all(s.get("Condition") for s in statements if s["Effect"] == "Allow"
                              and "dynamodb:PutItem" in as_list(s["Action"]))
            assert conditioned or denied(statements, "dynamodb:PutItem", AUDIT_KEY), r


def test_the_check_sees_a_role_given_the_audit_partition(transformed):
    import copy

    worse = copy.deepcopy(transformed)
    policy = worse["Resources"]["TableWritePolicy"]["Properties"]["PolicyDocument"]
    policy["Statement"] = [s for s in as_list(policy["Statement"]) if s["Effect"] == "Allow"]
    reader = role_of(worse, "AuthInfoPatchFunction")
    assert may(worse, reader, "dynamodb:PutItem") and not may(transformed, reader, "dynamodb:PutItem")
    worse = copy.deepcopy(transformed)
    backup = worse["Resources"]["BackupRole"]["Properties"]
    backup["Policies"] = []
    assert may(worse, "BackupRole", "dynamodb:PutItem"), "AWS Backup's restore policy writes any table"


def test_a_changed_or_removed_audit_entry_reaches_the_tripwire_and_pages(transformed):
    resources = transformed["Resources"]
    [mapping] = [r["Properties"] for r in resources.values()
                 if r["Type"] == "AWS::Lambda::EventSourceMapping"
                 and r["Properties"].get("EventSourceArn") == {"Fn::GetAtt": ["Table", "StreamArn"]}]
    patterns = [json.loads(f["Pattern"]) for f in mapping["FilterCriteria"]["Filters"]]
    audit = [p for p in patterns if p.get("dynamodb", {}).get("Keys", {}).get("pk", {}).get("S") == [{"prefix": "AUDIT#"}]]
    assert audit == [{"eventName": ["MODIFY", "REMOVE"], "dynamodb": {"Keys": {"pk": {"S": [{"prefix": "AUDIT#"}]}}}}]
    alarm = resources["AuditTamperedAlarm"]["Properties"]
    assert (alarm["Namespace"], alarm["MetricName"], alarm["Statistic"]) == ("Ciam/Audit", "AuditTampered", "Sum")
    assert alarm["Threshold"] == 1 and alarm["ComparisonOperator"] == "GreaterThanOrEqualToThreshold"
    assert alarm["TreatMissingData"] == "notBreaching"
    assert alarm["AlarmActions"] == [{"Ref": "AlarmTopic"}]
    assert 'docs/operations.md §8.6 "AuditTamperedAlarm"' in alarm["AlarmDescription"]
