"""Least privilege, checked: after the SAM transform, each function's role allows exactly the
actions that docs/operations.md §2 lists for it, on the resources listed there, and never a
table scan, a batch write, an index or a wildcard action."""

import re

import pytest

from template_facts import ROOT, as_list, aws_managed_arn, functions, refs, role_of, strings

OPERATIONS = ROOT / "docs" / "operations.md"

# The AWS managed policy SAM attaches to every function role, with the actions it grants
# today (AWSLambdaBasicExecutionRole; no AWSXrayWriteOnlyAccess: no function sets Tracing).
AWS_MANAGED = {
    "arn:aws:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole": {
        "logs:CreateLogGroup",
        "logs:CreateLogStream",
        "logs:PutLogEvents",
    },
}
EVERY_FUNCTION = "every function"
STREAM_ACTIONS = {"dynamodb:DescribeStream", "dynamodb:GetRecords", "dynamodb:GetShardIterator", "dynamodb:ListStreams"}


def expand(cell):
    """`dynamodb:{GetItem,Query}`, `s3:GetObject` -> {"dynamodb:GetItem", "dynamodb:Query", "s3:GetObject"}."""
    actions = set()
    for token in re.findall(r"`([^`]+)`", cell):
        m = re.fullmatch(r"([a-z0-9-]+):\{([A-Za-z0-9,\s]+)\}", token)
        if m:
            actions |= {f"{m.group(1)}:{a.strip()}" for a in m.group(2).split(",")}
        elif re.fullmatch(r"[a-z0-9-]+:[A-Za-z0-9]+", token):
            actions.add(token)
        else:
            raise AssertionError(f"not an action: {token!r}")
    return actions


def action_table():
    """docs/operations.md §2: function -> (actions, the words of the resources cell)."""
    text = OPERATIONS.read_text()
    section = re.search(r"^## 2\..*?(?=^## 3\.)", text, re.S | re.M)
    assert section, "docs/operations.md has no §2"
    rows = {}
    for line in section.group(0).splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if not line.startswith("|") or len(cells) != 3 or set(cells[0]) <= {"-", " ", ":"}:
            continue
        if cells[0].lower() == "function":
            continue
        name = cells[0].strip("`* ")
        assert name not in rows, f"{name} is listed twice"
        rows[name] = (expand(cells[1]), set(re.findall(r"[A-Za-z0-9]+", cells[2])))
    assert rows, "no action table in docs/operations.md §2"
    return rows


def statements_of(transformed, function):
    """Every statement the function's role allows: its inline policies and the managed
    policies of this template it is given (AWS managed ones are returned apart)."""
    resources = transformed["Resources"]
    role = resources[role_of(transformed, function)]["Properties"]
    statements, aws_managed = [], set()
    for arn in role.get("ManagedPolicyArns", []):
        if aws_managed_arn(arn) is not None:
            arn = aws_managed_arn(arn)
            assert arn in AWS_MANAGED, f"{function}: unexpected AWS managed policy {arn}"
            aws_managed.add(arn)
            continue
        assert set(arn) == {"Ref"}, f"{function}: managed policy must be one of this template's: {arn}"
        policy = resources[arn["Ref"]]
        assert policy["Type"] == "AWS::IAM::ManagedPolicy", arn
        statements += as_list(policy["Properties"]["PolicyDocument"]["Statement"])
    for inline in role.get("Policies", []):
        statements += as_list(inline["PolicyDocument"]["Statement"])
    return statements, aws_managed


@pytest.fixture(scope="module")
def table():
    return action_table()


def test_the_action_table_lists_every_function_and_nothing_else(template, table):
    assert set(table) - {EVERY_FUNCTION} == set(functions(template))
    assert EVERY_FUNCTION in table


def test_every_role_allows_exactly_the_actions_and_resources_of_the_table(template, transformed, table):
    names = set(template["Resources"])
    baseline = set().union(*AWS_MANAGED.values())
    assert table[EVERY_FUNCTION][0] == baseline, "the every-function row must list the AWS managed actions"
    for function in functions(template):
        statements, aws_managed = statements_of(transformed, function)
        assert set(AWS_MANAGED) == aws_managed, f"{function}: {aws_managed}"
        allowed, referenced = set(), set()
        for s in statements:
            if s["Effect"] == "Deny":
                assert s.get("Sid") in {"AuditEntriesAreAppendOnly", "NoAuditEntries"}, f"{function}: unexpected Deny {s}"
                continue
            assert s["Effect"] == "Allow", f"{function}: only Allow statements are expected"
            assert "NotAction" not in s, f"{function}: NotAction grants too much"
            allowed |= set(as_list(s["Action"]))
            referenced |= refs(s.get("Resource", s.get("NotResource")), names)
        want_actions, want_words = table[function]
        assert allowed == want_actions, (
            f"{function}: role allows {sorted(allowed - want_actions)} beyond the table, "
            f"lacks {sorted(want_actions - allowed)}"
        )
        assert referenced == want_words & names, f"{function}: resources {sorted(referenced)}"


def test_no_role_can_scan_batch_write_use_an_index_or_a_wildcard(template, transformed):
    for function in functions(template):
        statements, _ = statements_of(transformed, function)
        for s in statements:
            if s["Effect"] == "Deny":
                continue  # a Deny narrows (the audit log's, BatchWriteItem included)
            for action in as_list(s["Action"]):
                assert "*" not in action, f"{function}: {action}"
                assert action not in {"dynamodb:Scan", "dynamodb:BatchWriteItem"}, f"{function}: {action}"
                assert not action.startswith(("dynamodb:PartiQL", "s3:List", "s3:PutLifecycle", "s3:GetLifecycle")), (
                    f"{function}: {action}"
                )
            resource = s.get("Resource")
            if resource is None:
                # The one NotResource: an SMS to a phone number has no ARN; every topic is out.
                assert as_list(s["Action"]) == ["sns:Publish"], f"{function}: NotResource on {s['Action']}"
                continue
            for text in strings(resource):
                assert text != "*", f"{function}: {s['Action']} on *"
                assert "/index/" not in text, f"{function}: {s['Action']} on a table index"
            if set(as_list(s["Action"])) <= STREAM_ACTIONS:
                # The webhook fan-out reads the table's stream (issue 23), nothing else does.
                assert resource == {"Fn::Sub": "${Table.Arn}/stream/*"}, f"{function}: the table's stream only, got {resource}"
            elif any(a.startswith("dynamodb:") for a in as_list(s["Action"])):
                assert resource == {"Fn::GetAtt": ["Table", "Arn"]}, f"{function}: the table ARN only, got {resource}"
            if any(a.startswith("s3:") for a in as_list(s["Action"])):
                # Object ARNs only (bucket/...), never the bucket itself.
                for r in as_list(resource):
                    assert re.fullmatch(r"\$\{(AvatarBucket|WebBucket)\.Arn\}/.+", r.get("Fn::Sub", "")), (
                        f"{function}: S3 on {r}"
                    )


def test_a_role_that_grows_fails_the_table_check(template, transformed, table):
    """The check above is not vacuous: one extra action on one role is caught."""
    import copy

    grown = copy.deepcopy(transformed)
    role = grown["Resources"][role_of(grown, "AuthInfoGetFunction")]["Properties"]
    role.setdefault("Policies", []).append(
        {"PolicyName": "extra", "PolicyDocument": {"Statement": [{"Effect": "Allow", "Action": "dynamodb:Scan", "Resource": "*"}]}}
    )
    statements, _ = statements_of(grown, "AuthInfoGetFunction")
    allowed = {a for s in statements for a in as_list(s["Action"])}
    assert allowed != table["AuthInfoGetFunction"][0]


AUDIT_DENY = {
    "Sid": "AuditEntriesAreAppendOnly",
    "Effect": "Deny",
    "Action": ["dynamodb:UpdateItem", "dynamodb:DeleteItem"],
    "Resource": {"Fn::GetAtt": ["Table", "Arn"]},
    "Condition": {"ForAnyValue:StringLike": {"dynamodb:LeadingKeys": ["AUDIT#*"]}},
}
# Issue 30: every writing role but the audited routes' may not write an entry at all.
NO_AUDIT = {
    "Sid": "NoAuditEntries",
    "Effect": "Deny",
    "Action": ["dynamodb:PutItem", "dynamodb:UpdateItem", "dynamodb:DeleteItem", "dynamodb:BatchWriteItem"],
    "Resource": {"Fn::GetAtt": ["Table", "Arn"]},
    "Condition": {"ForAnyValue:StringLike": {"dynamodb:LeadingKeys": ["AUDIT#*"]}},
}


def test_no_function_can_change_or_delete_an_audit_entry(template, transformed):
    """Issue 21: the audit log is append-only. Every role that may update or delete items of the
    table is denied both on the audit partitions (AUDIT#<day>), so no console role, and no bug in
    a handler, can rewrite who did what; entries leave only by the table's TTL. Issue 30: only
    the audited routes may put one (test_template_audit.py)."""
    writers = 0
    for function in functions(template):
        statements, _ = statements_of(transformed, function)
        allowed = {a for s in statements if s["Effect"] == "Allow" for a in as_list(s["Action"])}
        denies = [s for s in statements if s["Effect"] == "Deny"]
        if allowed & {"dynamodb:UpdateItem", "dynamodb:DeleteItem"}:
            writers += 1
            assert AUDIT_DENY in denies or NO_AUDIT in denies, f"{function}: may update or delete audit entries"
        for s in denies:
            assert s in (AUDIT_DENY, NO_AUDIT), f"{function}: {s}"
    assert writers > 40
    console = [f for f in functions(template) if f.startswith("Admin")]
    assert console, "no console function in the template"
    for function in console:
        statements, _ = statements_of(transformed, function)
        assert AUDIT_DENY in statements or NO_AUDIT in statements, function


def test_the_audit_deny_check_is_not_vacuous(template, transformed):
    import copy

    grown = copy.deepcopy(transformed)
    for name in ("TableWritePolicy", "TableAuditWritePolicy"):
        policy = grown["Resources"][name]["Properties"]["PolicyDocument"]
        policy["Statement"] = [s for s in as_list(policy["Statement"]) if s["Effect"] == "Allow"]
    function = next(f for f in functions(template) if f.startswith("Admin"))
    statements, _ = statements_of(grown, function)
    assert AUDIT_DENY not in statements and NO_AUDIT not in statements
