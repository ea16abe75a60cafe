"""Small readers over template.yaml (raw or after the SAM transform) shared by the
test_template_*.py files: which function serves which route, what a policy statement refers
to, which route lists the Rust code keeps."""

import pathlib
import re

ROOT = pathlib.Path(__file__).resolve().parents[2]
LAMBDAS_LIB = ROOT / "functions" / "lambdas" / "src" / "lib.rs"



def rust_list(name, fallback=None):
    """The string items of `pub const <name>: &[&str] = &[...];` in functions/lambdas/src/lib.rs."""
    m = re.search(rf"pub const {name}: &\[&str\] = &\[(.*?)\];", LAMBDAS_LIB.read_text(), re.S)
    if m is None:
        if fallback is None:
            raise AssertionError(f"{name} not found in {LAMBDAS_LIB}")
        return set(fallback)
    return set(re.findall(r'"([a-z_]+)"', m.group(1)))


def no_keys():
    return rust_list("NO_KEYS")


def no_table():
    return rust_list("NO_TABLE")


ROUTE_VAR = "CIAM_ROUTE"


def functions(template):
    """Logical id -> route id (its CIAM_ROUTE) of every AWS::Serverless::Function. Every
    function runs the same `bootstrap` binary; the route is its own environment variable."""
    return {
        name: r["Properties"]["Environment"]["Variables"][ROUTE_VAR]
        for name, r in template["Resources"].items()
        if r["Type"] == "AWS::Serverless::Function"
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


def as_list(value):
    return value if isinstance(value, list) else [value]
