"""infra/stack-policy.json (deploy.sh sets it on the stack): no update replaces or deletes the
table, a secret, the KMS key, a bucket, the distribution, a log group (the sign-in logs are kept
a year: the trail of a takeover) or the backups (vault, plan, selection), and every other update
is allowed. Read against template.yaml, so a new secret or bucket is protected by its type."""

import json
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "infra"))
import deploy_tool  # noqa: E402

POLICY = json.loads((ROOT / "infra" / "stack-policy.json").read_text())
# What the issue names: the table, the secrets, the KMS key, the buckets and the distribution.
PROTECTED_KINDS = {
    "AWS::DynamoDB::Table",
    "AWS::SecretsManager::Secret",
    "AWS::KMS::Key",
    "AWS::S3::Bucket",
    "AWS::CloudFront::Distribution",
    # Issue 30 item 8: the sign-in log groups (and the shared ones) and the backup plan.
    "AWS::Logs::LogGroup",
    "AWS::Backup::BackupVault",
    "AWS::Backup::BackupPlan",
    "AWS::Backup::BackupSelection",
}
# The resources of those kinds today (a template edit that drops one should be deliberate).
EXPECTED = {"Table", "RootSecret", "OriginSecret", "StaffSecret", "OidcSigningKey", "WebBucket", "AvatarBucket",
            "LogsBucket", "Distribution", "BackupVault", "BackupPlan", "BackupSelection", "FunctionLogs",
            "ApiAccessLogs"}


def denied_types():
    return set(deploy_tool.protected_types(ROOT / "infra" / "stack-policy.json"))


def test_every_protected_resource_of_the_template_has_its_type_denied_replace_and_delete(template):
    protected = {n: r["Type"] for n, r in template["Resources"].items() if r["Type"] in PROTECTED_KINDS}
    assert EXPECTED <= set(protected), EXPECTED - set(protected)
    # Any *KeySecret or other secret, bucket or key added later is covered by its type.
    assert set(protected.values()) <= denied_types()
    assert denied_types() == PROTECTED_KINDS


def test_the_deny_is_replace_and_delete_only_and_everything_else_is_allowed():
    allow = [s for s in POLICY["Statement"] if s["Effect"] == "Allow"]
    deny = [s for s in POLICY["Statement"] if s["Effect"] == "Deny"]
    # Without an explicit Allow, a stack policy denies every update.
    assert allow == [{"Effect": "Allow", "Action": "Update:*", "Principal": "*", "Resource": "*"}]
    [d] = deny
    assert sorted(d["Action"]) == ["Update:Delete", "Update:Replace"], "in-place updates (Modify) still go through"
    assert d["Principal"] == "*" and d["Resource"] == "*"
    assert set(d["Condition"]) == {"StringEquals"}
    assert set(d["Condition"]["StringEquals"]) == {"ResourceType"}


def test_the_review_marks_the_same_types_as_protected():
    """deploy_tool.py refuses a change set by the policy's own list, not a second copy."""
    assert set(deploy_tool.protected_types(ROOT / "infra" / "stack-policy.json")) == PROTECTED_KINDS


def test_every_sign_in_log_group_and_the_backup_plan_are_protected(template, transformed):
    """The sign-in log groups the generator writes (one per sign-in row) and the backup plan:
    neither an update that replaces nor one that deletes them goes through."""
    from template_facts import route_facts

    sign_in = {r["logs"] for r in route_facts().values() if r["signIn"]}
    assert sign_in and all(g.endswith("Logs") and g != "FunctionLogs" for g in sign_in)
    resources = transformed["Resources"]
    for name in sign_in | {"BackupPlan", "BackupSelection", "BackupVault"}:
        assert resources[name]["Type"] in denied_types(), name
