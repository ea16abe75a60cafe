"""The table (deletion protection, an on-demand ceiling), the web bucket (versions, the
lifecycle the upload relies on), and the capacity guards: reserved concurrency on the
password-hashing functions, tighter throttles on the anonymous writing routes."""

from template_facts import functions

# The routes that run argon2 (functions/core: accounts::register, login_password,
# change_password, reset_password; totp::enable, regenerate, verify_fresh, login_backup; the
# deactivation's re-authentication).
ARGON2 = {
    "auth_register",
    "auth_login_password",
    "auth_pwd",
    "auth_totp_enable",
    "auth_totp_verify",
    "auth_totp_backup_codes",
    "auth_unlock_code",
    "auth_deactivation",
}
# Anonymous routes that write (codes, accounts, sessions, counters, pending requests, tickets).
ANONYMOUS_WRITES = {
    "POST /ciam/v1/auth/identity",
    "POST /ciam/v1/auth/register",
    "POST /ciam/v1/auth/login/password",
    "POST /ciam/v1/auth/login/code",
    "POST /ciam/v1/auth/login/totp",
    "POST /ciam/v1/auth/unlockCode",
    "PATCH /ciam/v1/auth/pwd",
    "POST /ciam/v1/auth/login/staff",
    "GET /ciam/v1/auth/staff/start",
    "GET /ciam/v1/auth/staff/callback",
    "GET /ciam/v1/oidc/authorize",
    "POST /ciam/v1/oidc/token",
    "GET /ciam/v1/auth/login/token/verify",
    # Passkey sign-in and its second step: the finishes write sessions and failure counters; the
    # options are throttled like them (docs/passkeys-design.md §3).
    "POST /ciam/v1/auth/login/passkey/options",
    "POST /ciam/v1/auth/login/passkey",
    "POST /ciam/v1/auth/login/passkey/mfa/options",
    "POST /ciam/v1/auth/login/passkey/mfa",
}


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
    for name, binary in functions(template).items():
        props = resources[name]["Properties"]
        if binary in ARGON2:
            assert props["ReservedConcurrentExecutions"] == {
                "Fn::If": ["ReservesHashingConcurrency", {"Ref": "PasswordHashingConcurrency"}, {"Ref": "AWS::NoValue"}]
            }, name
            assert props["MemorySize"] == 1024, name
        else:
            assert "ReservedConcurrentExecutions" not in props, name
    assert template["Conditions"]["ReservesHashingConcurrency"] == {
        "Fn::Not": [{"Fn::Equals": [{"Ref": "PasswordHashingConcurrency"}, "0"]}]
    }


def test_anonymous_writing_routes_have_throttles_below_the_default(template):
    api = template["Resources"]["Api"]["Properties"]
    default = api["DefaultRouteSettings"]
    routes = api["RouteSettings"]
    assert ANONYMOUS_WRITES <= set(routes)
    existing = {
        f"{e['Properties']['Method']} {e['Properties']['Path']}"
        for name in functions(template)
        for e in template["Resources"][name]["Properties"]["Events"].values()
    }
    for key, s in routes.items():
        assert key in existing, f"{key}: no such route"
        assert s["ThrottlingRateLimit"] < default["ThrottlingRateLimit"], key
        assert s["ThrottlingBurstLimit"] < default["ThrottlingBurstLimit"], key
