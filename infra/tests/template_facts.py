"""Small readers over template.yaml (raw or after the SAM transform) shared by the
test_template_*.py files: which function serves which route, what a policy statement refers
to, which route lists the Rust code keeps."""

import json
import pathlib
import re

ROOT = pathlib.Path(__file__).resolve().parents[2]
# The route table's facts per function, written by ciam-gen (functions/gen) from
# functions/api/src/routes/mod.rs; `ciam-gen --check` keeps it equal to the table.
ROUTES_JSON = ROOT / "infra" / "routes.json"


def route_facts():
    """Route id -> the facts of its row (infra/routes.json)."""
    rows = json.loads(ROUTES_JSON.read_text())["functions"]
    return {r["id"]: r for r in rows}


def no_keys():
    """The routes whose functions read no key secret (Es256 has none: KMS signs in AWS)."""
    return {i for i, r in route_facts().items() if not key_secrets(r)}


def key_secrets(row):
    """The key purpose secrets a route's function reads: `<Purpose>KeySecret` of its row's
    distributed purposes (docs/operations.md §1, "Keys with smaller reach")."""
    return {f"{p}KeySecret" for p in row["keys"] if p != "Es256"}


# The one function that serves no route: it writes the key secrets from the root.
KEY_DISTRIBUTOR = "key_distributor"
# Nor does the pre-traffic check of the gradual functions (functions/gen/src/hook.rs): CodeDeploy
# invokes it before it shifts an alias.
PRE_TRAFFIC_HOOK = "pre_traffic_hook"


def no_table():
    return {i for i, r in route_facts().items() if r["table"] == "none"}


ROUTE_VAR = "CIAM_ROUTE"


def functions(template):
    """Logical id -> route id (its CIAM_ROUTE) of every AWS::Serverless::Function. Every
    function runs the same `bootstrap` binary; the route is its own environment variable."""
    return {
        name: r["Properties"]["Environment"]["Variables"][ROUTE_VAR]
        for name, r in template["Resources"].items()
        if r["Type"] == "AWS::Serverless::Function"
        and r["Properties"]["Environment"]["Variables"][ROUTE_VAR] not in (KEY_DISTRIBUTOR, PRE_TRAFFIC_HOOK)
    }


def walk(value):
    """Every dict, list and scalar inside value, depth first."""
    yield value
    if isinstance(value, dict):
        for v in value.values():
            yield from walk(v)
    elif isinstance(value, list):
        for v in value:
            yield from walk(v)


def strings(value):
    return [v for v in walk(value) if isinstance(v, str)]


def refs(value, names):
    """The names (resources or parameters) that value refers to by Ref, GetAtt or ${...} in
    a Sub string."""
    found = set()
    for v in walk(value):
        if not isinstance(v, dict):
            continue
        if "Ref" in v and v["Ref"] in names:
            found.add(v["Ref"])
        if "Fn::GetAtt" in v:
            target = v["Fn::GetAtt"]
            target = target[0] if isinstance(target, list) else target.split(".")[0]
            if target in names:
                found.add(target)
        if "Fn::Sub" in v:
            text = v["Fn::Sub"][0] if isinstance(v["Fn::Sub"], list) else v["Fn::Sub"]
            for var in re.findall(r"\$\{([^}!]+)\}", text):
                if var.split(".")[0] in names:
                    found.add(var.split(".")[0])
    return found


def role_of(transformed, function):
    """The logical id of the role a function runs as after the transform (`Role: !GetAtt
    <Role>.Arn`): a role of its permission set, shared (functions/gen/src/roles.rs), or one of
    its own (the webhook functions, the key distributor)."""
    role = transformed["Resources"][function]["Properties"]["Role"]
    target = role["Fn::GetAtt"]
    return target[0] if isinstance(target, list) else target.split(".")[0]


def aws_managed_arn(arn, partition="aws"):
    """An AWS managed policy's ARN as CloudFormation makes it in `partition`, from either form a
    role names it in: a string (what SAM writes for the roles it makes, already in the partition
    of the transform's Region) or the generated roles' `!Sub arn:${AWS::Partition}:iam::aws:
    policy/...` (functions/gen/src/roles.rs). None for anything else (this template's own
    policies, by Ref)."""
    if isinstance(arn, str):
        return arn
    sub = arn.get("Fn::Sub") if isinstance(arn, dict) and set(arn) == {"Fn::Sub"} else None
    if isinstance(sub, str) and sub.startswith("arn:${AWS::Partition}:iam::aws:policy/"):
        return sub.replace("${AWS::Partition}", partition)
    return None


def as_list(value):
    return value if isinstance(value, list) else [value]


def console_on(value):
    """`value` as deployed with the console on (the default): each list item
    `!If [ConsoleOn, item, !Ref AWS::NoValue]` is its item (template.yaml's CloudFront origin and
    behaviour of the console's own API)."""
    if isinstance(value, list):
        return [console_on(v) for v in value]
    if isinstance(value, dict):
        if set(value) == {"Fn::If"} and value["Fn::If"][0] == "ConsoleOn" and value["Fn::If"][2] == {"Ref": "AWS::NoValue"}:
            return console_on(value["Fn::If"][1])
        return {k: console_on(v) for k, v in value.items()}
    return value
