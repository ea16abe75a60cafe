"""One role per permission set (issue 30 item 7), checked after the SAM transform: every function
may do exactly what it could before the roles were shared (infra/tests/fixtures/
function_permissions.json, captured from the template before the change by permissions.py): no
permission widened, none lost; only Deny statements may be added (they narrow)."""

import json

from permissions import effective, role_of, role_statements
from template_facts import ROOT

BEFORE = ROOT / "infra" / "tests" / "fixtures" / "function_permissions.json"


def test_every_function_may_do_exactly_what_it_could_before(transformed):
    before = json.loads(BEFORE.read_text())
    now = effective(transformed)
    assert set(now) == set(before), f"functions added {sorted(set(now) - set(before))}, gone {sorted(set(before) - set(now))}"
    for name, was in before.items():
        got = now[name]
        assert got["trust"] == was["trust"], name
        assert got["boundary"] == was["boundary"], name
        assert got["awsManaged"] == was["awsManaged"], name
        assert got["allow"] == was["allow"], (
            f"{name}: allows {sorted(set(got['allow']) - set(was['allow']))} more, "
            f"{sorted(set(was['allow']) - set(got['allow']))} less"
        )
        assert set(was["deny"]) <= set(got["deny"]), f"{name}: denies no longer {sorted(set(was['deny']) - set(got['deny']))}"


def test_functions_share_a_role_exactly_when_they_share_a_permission_set(transformed):
    """One role per permission set: two functions run as one role if and only if they may do the
    same; so the stack holds as many function roles as there are distinct sets."""
    now = effective(transformed)
    resources = transformed["Resources"]
    role = {name: role_of(resources, name) for name in now}
    by_set = {}
    for name, perms in now.items():
        by_set.setdefault(json.dumps(perms, sort_keys=True), set()).add(role[name])
    for roles in by_set.values():
        assert len(roles) == 1, f"one permission set, several roles: {sorted(roles)}"
    assert len(set(role.values())) == len(by_set), "a role serves two permission sets"
    # What this saves: 106 functions had 109 roles (a role each, and three of others' roles).
    # Each federation provider's callback reads its own secret, so each adds a role; the domain
    # routes added two permission sets (the DNS check's, a code sender's with the audit log).
    assert len(set(role.values())) <= 50, len(set(role.values()))
    print(f"{len(now)} functions, {len(set(role.values()))} function roles")


def test_a_shared_role_is_named_from_what_it_allows(transformed):
    resources = transformed["Resources"]
    for name in effective(transformed):
        r = role_of(resources, name)
        if r.endswith("FunctionRole"):
            continue  # a role of one function's own (the webhook pipeline, the key distributor)
        statements, _ = role_statements(resources, r)
        text = json.dumps(statements)
        managed = str(resources[r]["Properties"]["ManagedPolicyArns"])
        assert ("TableWrite" in r) == ("TableWritePolicy" in managed or "TableAuditWritePolicy" in managed), r
        assert ("TableWriteAudit" in r) == ("TableAuditWritePolicy" in managed), r
        assert ("TableRead" in r) == ("TableReadPolicy" in str(resources[r]["Properties"]["ManagedPolicyArns"])), r
        assert ("Messages" in r) == ("ses:SendEmail" in text), r
        assert ("OidcSign" in r) == ("kms:Sign" in text), r
        assert ("Keys" in r.replace("OidcPublicKeys", "")) == ("KeySecret" in text), r
