"""One role per permission set (issue 30 item 7), checked after the SAM transform: every function
may do exactly what it could before the roles were shared (infra/tests/fixtures/
function_permissions.json, captured from the template before the change by permissions.py): no
permission widened, none lost; only Deny statements may be added (they narrow)."""

import json

from permissions import effective
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
