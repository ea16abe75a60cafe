"""Production cannot be made unsafe (issue 30 item 8), read after the SAM transform: the
template's Rules refuse a production stack without the backup copy vault, without the secret
replica Region or with a governance-mode vault lock, with Environment=test as the one escape
(the web ACL's); infra/backup-vault.yaml refuses a governance lock in production."""

import pytest

from conftest import ROOT, load_template

PRODUCTION_RULES = {
    "ProductionNeedsWebAcl": "WebAclArn",
    "ProductionNeedsBackupCopy": "BackupCopyVaultArn",
    "ProductionNeedsSecretReplica": "SecretReplicaRegion",
    "ProductionLocksBackupsInComplianceMode": "BackupVaultLockChangeableForDays",
}
SAFE = {
    "WebAclArn": "arn:aws:wafv2:us-east-1:123456789012:global/webacl/ciam/1",
    "BackupCopyVaultArn": "arn:aws:backup:eu-central-1:123456789012:backup-vault:ciam-table-copy",
    "SecretReplicaRegion": "eu-central-1",
    "BackupVaultLockChangeableForDays": "3",
}


def evaluate(value, params):
    """The few intrinsic functions CloudFormation allows in Rules, over parameter values."""
    if isinstance(value, dict):
        [(fn, arg)] = value.items()
        if fn == "Ref":
            return params[arg]
        if fn == "Fn::Equals":
            a, b = (evaluate(v, params) for v in arg)
            return a == b
        if fn == "Fn::Not":
            return not evaluate(arg[0], params)
        if fn == "Fn::And":
            return all(evaluate(v, params) for v in arg)
        if fn == "Fn::Or":
            return any(evaluate(v, params) for v in arg)
        raise AssertionError(f"unexpected {fn} in a rule")
    return value


def refused(template_rules, params):
    """The names of the rules whose assertions fail for these parameter values."""
    out = set()
    for name, rule in template_rules.items():
        if "RuleCondition" in rule and not evaluate(rule["RuleCondition"], params):
            continue
        if not all(evaluate(a["Assert"], params) for a in rule["Assertions"]):
            out.add(name)
    return out


def values(template, **given):
    params = {k: str(p.get("Default", "")) for k, p in template["Parameters"].items()}
    params.update(given)
    return params


def test_a_production_stack_with_the_defaults_is_refused_for_each_missing_safety(transformed):
    rules = transformed["Rules"]
    assert set(PRODUCTION_RULES) <= set(rules)
    defaults = values(transformed)
    assert defaults["Environment"] == "production", "production is the default"
    assert refused(rules, defaults) >= set(PRODUCTION_RULES)
    assert not refused(rules, values(transformed, **SAFE))
    # Each one on its own: the rule that names it, and only it.
    for rule, param in PRODUCTION_RULES.items():
        empty = "0" if param == "BackupVaultLockChangeableForDays" else ""
        assert refused(rules, values(transformed, **{**SAFE, param: empty})) == {rule}, rule
        text = " ".join(a["AssertDescription"] for a in rules[rule]["Assertions"])
        assert "Environment=test" in text, f"{rule}: the escape is named"


def test_the_one_escape_is_environment_test(transformed):
    rules = transformed["Rules"]
    assert not refused(rules, values(transformed, Environment="test"))
    env = transformed["Parameters"]["Environment"]
    assert env["AllowedValues"] == ["production", "test"]


def test_the_copy_vault_refuses_a_governance_lock_in_production():
    vault = load_template(ROOT / "infra" / "backup-vault.yaml")
    assert vault["Parameters"]["Environment"]["Default"] == "production"
    rules = vault["Rules"]
    assert refused(rules, values(vault)) == {"ProductionLocksInComplianceMode"}
    assert not refused(rules, values(vault, ChangeableForDays="3"))
    assert not refused(rules, values(vault, Environment="test"))
    # The lock follows the parameter: compliance mode is ChangeableForDays set.
    lock = vault["Resources"]["Vault"]["Properties"]["LockConfiguration"]
    assert lock["ChangeableForDays"]["Fn::If"][0] == "IsCompliance"


@pytest.mark.parametrize("param", ["BackupCopyVaultArn", "SecretReplicaRegion", "BackupVaultLockChangeableForDays"])
def test_each_safety_parameter_says_production_refuses_it_empty(template, param):
    assert "production" in template["Parameters"][param]["Description"], param
