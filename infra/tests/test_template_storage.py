"""The table (deletion protection, an on-demand ceiling), the web bucket (versions, the
lifecycle the upload relies on), and the capacity guards: reserved concurrency on the
password-hashing functions, tighter throttles on the anonymous writing routes."""

from template_facts import functions, route_facts

# Anonymous (or partner, or code-carrying) routes that write codes, accounts, sessions, counters,
# pending requests or tickets: each must have a throttle of its own below the default.
UNSIGNED = {"public", "app", "sessionOrCode"}


def test_the_table_cannot_be_deleted_and_has_an_on_demand_ceiling(template):
    table = template["Resources"]["Table"]
    assert table["DeletionPolicy"] == "RetainExceptOnCreate"
    props = table["Properties"]
    assert props["DeletionProtectionEnabled"] is True
    assert props["BillingMode"] == "PAY_PER_REQUEST"
    ceiling = props["OnDemandThroughput"]
    for key, param in (("MaxReadRequestUnits", "TableMaxReadRequestUnits"), ("MaxWriteRequestUnits", "TableMaxWriteRequestUnits")):
        assert ceiling[key] == {"Ref": param}
        assert template["Parameters"][param]["Type"] == "Number"
    assert "GlobalSecondaryIndexes" not in props and "LocalSecondaryIndexes" not in props


def test_the_web_bucket_keeps_versions_and_the_lifecycle_of_the_contracts(template):
    bucket = template["Resources"]["WebBucket"]["Properties"]
    assert bucket["VersioningConfiguration"] == {"Status": "Enabled"}
    rules = bucket["LifecycleConfiguration"]["Rules"]
    assert all(r["Status"] == "Enabled" for r in rules)
    stale = [r for r in rules if r.get("TagFilters")]
    assert len(stale) == 1
    assert stale[0]["TagFilters"] == [{"Key": "ciam-stale", "Value": "true"}]
    assert stale[0]["ExpirationInDays"] == 7
    assert "Prefix" not in stale[0] and "NoncurrentVersionExpiration" not in stale[0]
    noncurrent = [r for r in rules if "NoncurrentVersionExpiration" in r]
    assert len(noncurrent) == 1
    assert noncurrent[0]["NoncurrentVersionExpiration"] == {"NoncurrentDays": 30}
    assert "TagFilters" not in noncurrent[0] and "ExpirationInDays" not in noncurrent[0]
    assert len(rules) == 2, "nothing else expires the site's files"


def test_only_the_password_hashing_functions_reserve_concurrency(template):
    resources = template["Resources"]
    facts = route_facts()
    for name, route in functions(template).items():
        props = resources[name]["Properties"]
        assert props["MemorySize"] == facts[route]["memory"], name
        if facts[route]["hashing"]:
            assert props["ReservedConcurrentExecutions"] == {
                "Fn::If": ["ReservesHashingConcurrency", {"Ref": "PasswordHashingConcurrency"}, {"Ref": "AWS::NoValue"}]
            }, name
            # The password sign-in runs at 768 MB (issue 22: its cost per million, docs/cost.md);
            # the other argon2 routes at 1024.
            assert props["MemorySize"] == (768 if route == "auth_login_password" else 1024), name
        else:
            assert "ReservedConcurrentExecutions" not in props, name
    assert template["Conditions"]["ReservesHashingConcurrency"] == {
        "Fn::Not": [{"Fn::Equals": [{"Ref": "PasswordHashingConcurrency"}, "0"]}]
    }


def test_anonymous_writing_routes_have_throttles_below_the_default(template):
    api = template["Resources"]["Api"]["Properties"]
    default = api["DefaultRouteSettings"]
    # The main API's, and the nested stacks' APIs' for their own rows (the company sign-in's).
    routes = dict(api["RouteSettings"])
    for nested in ("ConsoleApi", "OrgApi"):
        props = template["Resources"].get(nested, {}).get("Properties", {})
        assert props.get("DefaultRouteSettings", default) == default, nested
        routes.update(props.get("RouteSettings", {}))
    # Routes only: the internal functions (the avatar decoder, the webhook pipeline) have none.
    facts = [r for r in route_facts().values() if r["path"]]
    unsigned_writes = {f"{r['method']} {r['path']}" for r in facts if r["auth"] in UNSIGNED and r["table"] == "write"}
    assert unsigned_writes <= set(routes)
    assert {f"{r['method']} {r['path']}": r["throttle"] for r in facts if r["throttle"]} == {
        k: {"burst": v["ThrottlingBurstLimit"], "rate": v["ThrottlingRateLimit"]} for k, v in routes.items()
    }
    existing = {
        f"{e['Properties']['Method']} {e['Properties']['Path']}"
        for name in functions(template)
        for e in template["Resources"][name]["Properties"].get("Events", {}).values()
        if e["Type"] == "HttpApi"
    }
    for key, s in routes.items():
        assert key in existing, f"{key}: no such route"
        assert s["ThrottlingRateLimit"] < default["ThrottlingRateLimit"], key
        assert s["ThrottlingBurstLimit"] < default["ThrottlingBurstLimit"], key
