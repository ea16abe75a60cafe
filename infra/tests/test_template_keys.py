"""Keys with smaller reach (docs/operations.md §1), over the template after the SAM transform:
each function's role can read exactly the key secrets of its row's purposes (infra/routes.json),
only the key distributor reads RootSecret and writes the key secrets, and no function that
serves the captcha or decodes images can read the session key."""

from template_facts import KEY_DISTRIBUTOR, PRE_TRAFFIC_HOOK, key_secrets, route_facts, walk

READ = "secretsmanager:GetSecretValue"
WRITE = "secretsmanager:PutSecretValue"


def secret_names(transformed):
    return {n for n, r in transformed["Resources"].items() if r["Type"] == "AWS::SecretsManager::Secret"}


def as_list(v):
    return v if isinstance(v, list) else [v]


def allows(statement, action):
    if statement.get("Effect") != "Allow":
        return False
    actions = as_list(statement.get("Action", []))
    return any(a in (action, "*", "secretsmanager:*") for a in actions)


def named(resource, names):
    """The secrets a statement's Resource names (by Ref); a wildcard names them all."""
    found = set()
    for r in as_list(resource):
        if r == "*":
            return set(names)
        for v in walk(r):
            if isinstance(v, dict) and v.get("Ref") in names:
                found.add(v["Ref"])
    return found


def role_statements(transformed, role_name):
    """Every statement the role carries: its inline policies and the template's managed
    policies it attaches (AWS managed ones name no secret of this stack)."""
    res = transformed["Resources"]
    role = res[role_name]["Properties"]
    out = []
    for p in role.get("Policies", []):
        out += as_list(p["PolicyDocument"]["Statement"])
    for arn in role.get("ManagedPolicyArns", []):
        if isinstance(arn, dict) and arn.get("Ref") in res:
            out += as_list(res[arn["Ref"]]["Properties"]["PolicyDocument"]["Statement"])
    # Managed policies may also name the role (Roles: [...]).
    for n, r in res.items():
        if r["Type"] == "AWS::IAM::ManagedPolicy":
            roles = r["Properties"].get("Roles", [])
            if any(isinstance(x, dict) and x.get("Ref") == role_name for x in roles):
                out += as_list(r["Properties"]["PolicyDocument"]["Statement"])
    return out


def reach(transformed):
    """Route id (or the distributor) -> (secrets it may read, secrets it may write)."""
    names = secret_names(transformed)
    out = {}
    for name, r in transformed["Resources"].items():
        if r["Type"] != "AWS::Lambda::Function":
            continue
        route = r["Properties"]["Environment"]["Variables"]["CIAM_ROUTE"]
        role = r["Properties"]["Role"]["Fn::GetAtt"][0]
        reads, writes = set(), set()
        for s in role_statements(transformed, role):
            if allows(s, READ):
                reads |= named(s.get("Resource", []), names)
            if allows(s, WRITE):
                writes |= named(s.get("Resource", []), names)
        assert route not in out, route
        out[route] = (reads, writes)
    return out


def test_each_function_reads_exactly_its_purposes_key_secrets(transformed):
    facts = route_facts()
    r = reach(transformed)
    assert set(r) == set(facts) | {KEY_DISTRIBUTOR, PRE_TRAFFIC_HOOK}
    # The pre-traffic check reads the origin header's value only (to reach the route).
    assert r[PRE_TRAFFIC_HOOK] == ({"OriginSecret"}, set())
    for route, row in facts.items():
        reads, writes = r[route]
        keys = {s for s in reads if s.endswith("KeySecret")}
        assert keys == key_secrets(row), route
        assert "RootSecret" not in reads, f"{route} reads the root"
        assert not writes, f"{route} writes a secret"


def test_only_the_distributor_reads_the_root_and_writes_the_key_secrets(transformed):
    names = secret_names(transformed)
    key_names = {n for n in names if n.endswith("KeySecret")}
    # One per distributed key purpose (issue 22), Webhook (issue 23: the endpoints' secrets) and
    # Federation (issue 33: the federated sign-in of every provider but staff).
    assert len(key_names) == 11
    reads, writes = reach(transformed)[KEY_DISTRIBUTOR]
    assert reads == key_names | {"RootSecret"}
    assert writes == key_names
    readers = [route for route, (reads, _) in reach(transformed).items() if "RootSecret" in reads]
    assert readers == [KEY_DISTRIBUTOR]
    # Every key secret is read by some function (none is written for nothing).
    used = set().union(*(key_secrets(row) for row in route_facts().values()))
    assert used == key_names


def test_the_distribution_runs_with_every_deploy(transformed):
    res = transformed["Resources"]
    (custom,) = [r for r in res.values() if r["Type"] == "Custom::CiamKeyDistribution"]
    token = custom["Properties"]["ServiceToken"]["Fn::GetAtt"][0]
    assert res[token]["Properties"]["Environment"]["Variables"]["CIAM_ROUTE"] == KEY_DISTRIBUTOR
    named_secrets = {v["Ref"] for v in custom["Properties"]["KeySecrets"]}
    assert named_secrets == {n for n in secret_names(transformed) if n.endswith("KeySecret")}
    env = res[token]["Properties"]["Environment"]["Variables"]
    for n in named_secrets:
        var = f"CIAM_{n[: -len('KeySecret')].upper()}_KEY_SECRET_ARN"
        assert env[var] == {"Ref": n}, var


def test_no_function_serving_the_captcha_or_decoding_images_can_mint_sessions(transformed):
    facts = route_facts()
    r = reach(transformed)
    decoders = {route for route, row in facts.items() if row.get("images") == "decode"}
    assert decoders == {"avatar_decode"}, decoders
    # The upload that hands images to the decoder holds the session key: it never decodes.
    assert facts["auth_avatar"]["images"] == "invoke"
    exposed = {"auth_captcha"} | decoders
    for route in exposed:
        reads, _ = r[route]
        assert "SessionKeySecret" not in reads, route
        assert "RootSecret" not in reads, route
    # The captcha function holds the captcha key and nothing else.
    assert r["auth_captcha"][0] - {"OriginSecret"} == {"CaptchaKeySecret"}
