"""What each function may do after the SAM transform, flattened so that two templates can be
compared whatever their roles are called or shared: per function (its AWS::Lambda::Function
logical id), its role's trust, the AWS managed policies it holds and every statement of its
inline policies, this template's managed policies and AWS::IAM::Policy resources on it, cut into
atoms of one effect, one action and one resource (a NotResource list stays whole: its meaning is
the list).

`python infra/tests/permissions.py > infra/tests/fixtures/function_permissions.json` writes the
fixture test_template_roles.py compares with: what every function could do before issue 30's
shared roles (one role per permission set)."""

import json
import sys

from template_facts import aws_managed_arn


def as_list(value):
    return value if isinstance(value, list) else [value]


def canonical(value):
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


def role_of(resources, function):
    """The logical id of the role a transformed function runs as (`Role: !GetAtt <Role>.Arn`)."""
    role = resources[function]["Properties"]["Role"]
    assert set(role) == {"Fn::GetAtt"}, f"{function}: role is not one of this template's: {role}"
    target = role["Fn::GetAtt"]
    return target[0] if isinstance(target, list) else target.split(".")[0]


def role_statements(resources, role_name):
    """(statements, AWS managed policy ARNs) of a role: its inline policies, the managed
    policies of this template it is given, and the AWS::IAM::Policy resources naming it."""
    role = resources[role_name]["Properties"]
    statements, aws_managed = [], set()
    for arn in role.get("ManagedPolicyArns", []):
        if aws_managed_arn(arn) is not None or set(arn) != {"Ref"}:
            aws_managed.add(aws_managed_arn(arn) or canonical(arn))
            continue
        policy = resources[arn["Ref"]]
        assert policy["Type"] == "AWS::IAM::ManagedPolicy", arn
        statements += as_list(policy["Properties"]["PolicyDocument"]["Statement"])
    for inline in role.get("Policies", []):
        statements += as_list(inline["PolicyDocument"]["Statement"])
    for r in resources.values():
        if r["Type"] == "AWS::IAM::Policy" and {"Ref": role_name} in r["Properties"].get("Roles", []):
            statements += as_list(r["Properties"]["PolicyDocument"]["Statement"])
    return statements, aws_managed


def atoms(statements):
    """Each statement cut into (effect, action, resource key, resource, condition) strings."""
    out = set()
    for s in statements:
        assert "NotAction" not in s, s
        condition = canonical(s.get("Condition", {}))
        if "NotResource" in s:
            resources = [("NotResource", canonical(sorted(as_list(s["NotResource"]), key=canonical)))]
        else:
            resources = [("Resource", canonical(r)) for r in as_list(s["Resource"])]
        for action in as_list(s["Action"]):
            for key, resource in resources:
                out.add((s["Effect"], action, key, resource, condition))
    return out


def trust(resources, role_name):
    doc = resources[role_name]["Properties"]["AssumeRolePolicyDocument"]
    out = set()
    for s in as_list(doc["Statement"]):
        for action in as_list(s["Action"]):
            for kind, principals in s["Principal"].items():
                for p in as_list(principals):
                    out.add(f'{s["Effect"]} {action} {kind}:{canonical(p)} {canonical(s.get("Condition", {}))}')
    return sorted(out)


def effective(transformed):
    """Function logical id -> {"trust", "awsManaged", "allow", "deny"} (sorted lists)."""
    resources = transformed["Resources"]
    out = {}
    for name, r in sorted(resources.items()):
        if r["Type"] != "AWS::Lambda::Function":
            continue
        role = role_of(resources, name)
        statements, aws_managed = role_statements(resources, role)
        found = atoms(statements)
        out[name] = {
            "trust": trust(resources, role),
            "boundary": canonical(resources[role]["Properties"].get("PermissionsBoundary")),
            "awsManaged": sorted(aws_managed),
            "allow": sorted(" ".join(a[1:]) for a in found if a[0] == "Allow"),
            "deny": sorted(" ".join(a[1:]) for a in found if a[0] == "Deny"),
        }
    return out


if __name__ == "__main__":
    sys.path.insert(0, str(__import__("pathlib").Path(__file__).parent))
    import conftest

    # The stacks read as one (the nested stacks infra/console.yaml and infra/org.yaml), as the
    # tests do.
    template = conftest.merged(
        conftest.merged(
            conftest.load_template(conftest.ROOT / "template.yaml"), conftest.load_template(conftest.CONSOLE)
        ),
        conftest.load_template(conftest.ORG),
    )
    transformed = conftest.sam_transform(template)
    json.dump(effective(transformed), sys.stdout, indent=1, sort_keys=True)
    sys.stdout.write("\n")
