"""Backups that leave the account (issue 22, part 4), read after the SAM transform with the
template's own conditions evaluated for given parameter values: the locked vault, the daily plan
over the table with its copy to another Region's vault, AWS Backup's role, the failure alarm;
the secrets' replicas; the avatar bucket's versions; and infra/backup-vault.yaml, the copy's
destination."""

import pathlib

import pytest

from conftest import load_template

ROOT = pathlib.Path(__file__).resolve().parents[2]
COPY_VAULT = "arn:aws:backup:eu-west-1:111122223333:backup-vault:ciam-table-copy"


def resolve(value, params, conditions):
    """value with Fn::If, and the Refs to parameters inside Fn::If's conditions, worked out for
    params (a parameter's Default where params does not name it); other intrinsics stay."""
    if isinstance(value, list):
        return [v for v in (resolve(v, params, conditions) for v in value) if v != "AWS::NoValue"]
    if not isinstance(value, dict):
        return value
    if set(value) == {"Fn::If"}:
        name, yes, no = value["Fn::If"]
        return resolve(yes if condition(name, params, conditions) else no, params, conditions)
    if value == {"Ref": "AWS::NoValue"}:
        return "AWS::NoValue"
    out = {k: resolve(v, params, conditions) for k, v in value.items()}
    return {k: v for k, v in out.items() if v != "AWS::NoValue"}


def condition(name, params, conditions):
    return evaluate(conditions[name], params, conditions)


def evaluate(expr, params, conditions):
    if isinstance(expr, dict):
        ((fn, arg),) = expr.items()
        if fn == "Condition":
            return condition(arg, params, conditions)
        if fn == "Ref":
            return params[arg]
        if fn == "Fn::Equals":
            a, b = (evaluate(x, params, conditions) for x in arg)
            return str(a) == str(b)
        if fn == "Fn::Not":
            return not evaluate(arg[0], params, conditions)
        if fn == "Fn::Or":
            return any(evaluate(x, params, conditions) for x in arg)
        if fn == "Fn::And":
            return all(evaluate(x, params, conditions) for x in arg)
        if fn == "Fn::Join":
            sep, items = arg
            return sep.join(evaluate(items, params, conditions))
        raise AssertionError(f"not evaluated here: {fn}")
    return expr


def deployed(template, **given):
    """The resources as CloudFormation would create them with these parameter values."""
    params = {k: str(p.get("Default", "")) for k, p in template["Parameters"].items()}
    params.update({k: str(v) for k, v in given.items()})
    params["AWS::Region"] = "us-east-1"
    conds = template.get("Conditions", {})
    return {
        name: resolve(r, params, conds)
        for name, r in template["Resources"].items()
        if "Condition" not in r or condition(r["Condition"], params, conds)
    }


def of_type(resources, kind):
    return {n: r for n, r in resources.items() if r["Type"] == kind}


# ---- AWS Backup ------------------------------------------------------------------------------


def test_one_locked_vault_keeps_the_tables_recovery_points_for_the_retention(transformed):
    vaults = of_type(deployed(transformed), "AWS::Backup::BackupVault")
    assert list(vaults) == ["BackupVault"]
    vault = vaults["BackupVault"]
    assert vault["DeletionPolicy"] == "RetainExceptOnCreate" and vault["UpdateReplacePolicy"] == "Retain"
    props = vault["Properties"]
    # Governance mode by default: a minimum retention, no date after which the lock is frozen.
    assert props["LockConfiguration"] == {"MinRetentionDays": {"Ref": "BackupRetentionDays"}}
    # AWS Backup's default key (aws/backup): no EncryptionKeyArn to keep a policy for.
    assert "EncryptionKeyArn" not in props
    assert transformed["Parameters"]["BackupRetentionDays"]["Default"] == 35


def test_compliance_mode_is_one_parameter_and_cannot_be_shorter_than_the_cooling_off(transformed):
    props = deployed(transformed, BackupVaultLockChangeableForDays=3)["BackupVault"]["Properties"]
    assert props["LockConfiguration"] == {
        "MinRetentionDays": {"Ref": "BackupRetentionDays"},
        "ChangeableForDays": {"Ref": "BackupVaultLockChangeableForDays"},
    }
    import re

    pattern = transformed["Parameters"]["BackupVaultLockChangeableForDays"]["AllowedPattern"]
    assert [v for v in ["0", "1", "2", "3", "30", "365", "-1", "03"] if re.fullmatch(pattern, v)] == ["0", "3", "30", "365"]


def test_the_plan_backs_up_the_table_daily_and_copies_to_the_other_regions_vault(transformed):
    resources = deployed(transformed, BackupCopyVaultArn=COPY_VAULT)
    (plan,) = of_type(resources, "AWS::Backup::BackupPlan").values()
    (rule,) = plan["Properties"]["BackupPlan"]["BackupPlanRule"]
    assert rule["TargetBackupVault"] == {"Ref": "BackupVault"}
    assert rule["ScheduleExpression"] == "cron(0 3 * * ? *)"
    assert rule["Lifecycle"] == {"DeleteAfterDays": {"Ref": "BackupRetentionDays"}}
    assert rule["CopyActions"] == [
        {"DestinationBackupVaultArn": {"Ref": "BackupCopyVaultArn"}, "Lifecycle": {"DeleteAfterDays": {"Ref": "BackupRetentionDays"}}}
    ]
    (selection,) = of_type(resources, "AWS::Backup::BackupSelection").values()
    chosen = selection["Properties"]["BackupSelection"]
    assert selection["Properties"]["BackupPlanId"] == {"Ref": "BackupPlan"}
    assert chosen["Resources"] == [{"Fn::GetAtt": ["Table", "Arn"]}]
    assert chosen["IamRoleArn"] == {"Fn::GetAtt": ["BackupRole", "Arn"]}


def test_without_a_copy_vault_the_plan_makes_no_copy(transformed):
    (rule,) = deployed(transformed)["BackupPlan"]["Properties"]["BackupPlan"]["BackupPlanRule"]
    assert "CopyActions" not in rule
    pattern = transformed["Parameters"]["BackupCopyVaultArn"]["AllowedPattern"]
    import re

    assert re.fullmatch(pattern, COPY_VAULT) and re.fullmatch(pattern, "")
    assert not re.fullmatch(pattern, "arn:aws:s3:::bucket")


def test_aws_backup_acts_as_a_role_with_its_own_managed_policies_only(transformed):
    role = deployed(transformed)["BackupRole"]["Properties"]
    (trust,) = role["AssumeRolePolicyDocument"]["Statement"]
    assert trust["Principal"] == {"Service": "backup.amazonaws.com"} and trust["Action"] == "sts:AssumeRole"
    assert sorted(p["Fn::Sub"] for p in role["ManagedPolicyArns"]) == [
        "arn:${AWS::Partition}:iam::aws:policy/service-role/AWSBackupServiceRolePolicyForBackup",
        "arn:${AWS::Partition}:iam::aws:policy/service-role/AWSBackupServiceRolePolicyForRestores",
    ]
    # Its one inline policy narrows (issue 30): the restore policy's item writes never reach
    # the live table (a restore fills a side table, §8.5.1), the audit log included.
    [policy] = role["Policies"]
    [deny] = policy["PolicyDocument"]["Statement"]
    assert deny["Effect"] == "Deny" and deny["Resource"] == {"Fn::GetAtt": ["Table", "Arn"]}
    assert set(deny["Action"]) == {"dynamodb:PutItem", "dynamodb:UpdateItem", "dynamodb:DeleteItem", "dynamodb:BatchWriteItem"}


def test_a_failed_backup_or_copy_pages_the_alarm_topic(transformed):
    alarm = deployed(transformed)["BackupJobFailedAlarm"]["Properties"]
    assert alarm["AlarmActions"] == [{"Ref": "AlarmTopic"}] and alarm["OKActions"] == [{"Ref": "AlarmTopic"}]
    stats = {m["Id"]: m["MetricStat"] for m in alarm["Metrics"] if "MetricStat" in m}
    names = {i: (s["Metric"]["Namespace"], s["Metric"]["MetricName"]) for i, s in stats.items()}
    assert sorted(names.values()) == [
        ("AWS/Backup", "NumberOfBackupJobsAborted"),
        ("AWS/Backup", "NumberOfBackupJobsFailed"),
        ("AWS/Backup", "NumberOfCopyJobsFailed"),
    ]
    for i, s in stats.items():
        dims = {d["Name"]: d["Value"] for d in s["Metric"]["Dimensions"]}
        if names[i][1] == "NumberOfCopyJobsFailed":
            assert dims == {"ResourceType": "DynamoDB"}
        else:
            assert dims == {"BackupVaultName": {"Ref": "BackupVault"}}
        assert s["Stat"] == "Sum"
    (out,) = [m for m in alarm["Metrics"] if m.get("ReturnData", True)]
    assert all(i in out["Expression"] for i in stats)
    assert (alarm["Threshold"], alarm["ComparisonOperator"]) == (1, "GreaterThanOrEqualToThreshold")


def test_the_backup_resources_stay_within_their_budget(main_template, main_transformed):
    """Five resources (vault, role, plan, selection, alarm), in the main stack; the transform
    adds none of its own."""
    mine = {n for n, r in main_template["Resources"].items() if r["Type"].startswith("AWS::Backup::")} | {"BackupRole", "BackupJobFailedAlarm"}
    assert len(mine) == 5 and mine <= set(main_transformed["Resources"])
    assert len(main_transformed["Resources"]) < 500


# ---- The secrets' replicas -------------------------------------------------------------------


@pytest.mark.parametrize("name", ["RootSecret", "StaffSecret"])
def test_the_root_and_staff_secrets_replicate_to_the_replica_region(transformed, name):
    props = deployed(transformed, SecretReplicaRegion="eu-west-1")[name]["Properties"]
    assert props["ReplicaRegions"] == [{"Region": {"Ref": "SecretReplicaRegion"}}]
    # The replica is encrypted by its Region's aws/secretsmanager key, like the primary here.
    assert "KmsKeyId" not in props and "KmsKeyId" not in props["ReplicaRegions"][0]
    assert "ReplicaRegions" not in deployed(transformed)[name]["Properties"]


def test_the_origin_secret_has_no_replica(transformed):
    """CloudFront reads it at deploy time in this Region only; a replica would be one more copy."""
    assert "ReplicaRegions" not in deployed(transformed, SecretReplicaRegion="eu-west-1")["OriginSecret"]["Properties"]


# ---- The avatar bucket -----------------------------------------------------------------------


def test_the_avatar_bucket_keeps_replaced_avatars_thirty_days(transformed):
    props = deployed(transformed)["AvatarBucket"]["Properties"]
    assert props["VersioningConfiguration"] == {"Status": "Enabled"}
    (rule,) = props["LifecycleConfiguration"]["Rules"]
    assert rule["Status"] == "Enabled"
    assert rule["NoncurrentVersionExpiration"] == {"NoncurrentDays": 30}
    assert rule["ExpiredObjectDeleteMarker"] is True
    assert rule["AbortIncompleteMultipartUpload"] == {"DaysAfterInitiation": 1}
    assert "ExpirationInDays" not in rule, "a current avatar never expires"


# ---- infra/backup-vault.yaml: the copy's destination -------------------------------------------


@pytest.fixture(scope="module")
def copy_stack():
    return load_template(ROOT / "infra" / "backup-vault.yaml")


def test_the_copy_vault_is_locked_and_kept(copy_stack):
    (vault,) = of_type(deployed(copy_stack), "AWS::Backup::BackupVault").values()
    assert vault["DeletionPolicy"] == "Retain"
    assert vault["Properties"]["LockConfiguration"] == {"MinRetentionDays": {"Ref": "MinRetentionDays"}}
    assert "AccessPolicy" not in vault["Properties"], "same account: no one else may copy in"
    compliance = deployed(copy_stack, ChangeableForDays=7)["Vault"]["Properties"]["LockConfiguration"]
    assert compliance["ChangeableForDays"] == {"Ref": "ChangeableForDays"}
    assert copy_stack["Outputs"]["VaultArn"]["Value"] == {"Fn::GetAtt": ["Vault", "BackupVaultArn"]}


def test_another_account_may_only_copy_into_the_vault(copy_stack):
    props = deployed(copy_stack, SourceAccountIds="111122223333")["Vault"]["Properties"]
    (stmt,) = props["AccessPolicy"]["Statement"]
    assert stmt["Effect"] == "Allow"
    assert stmt["Principal"] == {"AWS": {"Ref": "SourceAccountIds"}}
    assert stmt["Action"] == "backup:CopyIntoBackupVault"


def test_with_the_console_off_its_stack_and_api_are_gone_and_the_default_route_stays(transformed):
    """The console's routes are on its own API in its own stack (infra/console.yaml): with
    Console=false neither exists, the main API has no console path, and its `$default` route
    (Ciam's 404 body for /ciam/v1/admin/...) stays."""
    off = deployed(transformed, Console="false")
    on = deployed(transformed)
    assert "ConsoleStack" in on and "ConsoleStack" not in off
    apis = lambda resources: sorted(n for n, r in resources.items() if r["Type"] == "AWS::ApiGatewayV2::Api")
    assert apis(on) == ["Api", "ConsoleApi", "OrgApi"] and apis(off) == ["Api", "OrgApi"]
    body = off["Api"]["Properties"]["Body"]
    assert not [p for p in body["paths"] if p.startswith("/ciam/v1/admin/")]
    assert "x-amazon-apigateway-any-method" in body["paths"]["$default"]
    assert "get" in body["paths"]["/ciam/v1/version"]
