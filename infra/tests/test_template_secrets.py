"""No secret value anywhere CloudFormation or Lambda would show it: not in a function's
environment (after the SAM transform), a parameter default or an output. The secrets are made
by the stack and read by the functions at init; the one dynamic reference is CloudFront's
origin header."""

import re

from template_facts import functions, key_secrets, no_keys, refs, strings, walk, route_facts

GONE = {"CIAM_SECRET_KEY", "CIAM_STAFF_CLIENT_SECRET"}
SECRET_NAME = re.compile(r"secret|password|passwd|token|credential|private", re.I)
# 32 or more characters of hex or base64: what a key or a generated secret looks like.
KEY_MATERIAL = re.compile(r"^[A-Za-z0-9+/=_-]{32,}$")


def lambdas(transformed):
    return {n: r for n, r in transformed["Resources"].items() if r["Type"] == "AWS::Lambda::Function"}


def env(function):
    return function["Properties"].get("Environment", {}).get("Variables", {})


def no_echo(template):
    return {n for n, p in template.get("Parameters", {}).items() if str(p.get("NoEcho", "false")).lower() == "true"}


def test_no_function_environment_holds_a_secret_value(template, transformed):
    hidden = no_echo(template)
    secret_params = {n for n, p in template["Parameters"].items() if p["Type"] == "String" and SECRET_NAME.search(n)}
    for name, function in lambdas(transformed).items():
        variables = env(function)
        assert not GONE & set(variables), f"{name}: {GONE & set(variables)}"
        for key, value in variables.items():
            for text in strings(value):
                assert "{{resolve:" not in text, f"{name}.{key} resolves a secret into the environment"
            assert not refs(value, hidden | secret_params), f"{name}.{key} carries a secret parameter"
            if key.endswith("_SECRET_ARN"):
                # The ARN, never the value: a Ref to a secret the stack made.
                assert set(value) == {"Ref"}, f"{name}.{key}: {value}"
                assert template["Resources"][value["Ref"]]["Type"] == "AWS::SecretsManager::Secret"


def test_globals_carry_no_secret_and_the_old_parameters_are_gone(template):
    for text in strings(template.get("Globals", {})):
        assert "{{resolve:" not in text
    for old in ("SecretKeySecret", "SecretKeyField", "StaffClientSecret"):
        assert old not in template["Parameters"], old


def test_the_only_dynamic_reference_is_the_origin_header_of_cloudfront(template):
    found = []
    for name, resource in template["Resources"].items():
        for text in strings(resource):
            if "{{resolve:" in text:
                found.append((name, text))
    # Four times: the API's origin, the sign-in function URL's, the console's API's and the
    # organizations' API's (docs/cost.md).
    assert found == [
        ("Distribution", "{{resolve:secretsmanager:${OriginSecret}:SecretString:originVerify}}")
    ] * 4


def test_no_parameter_default_or_output_looks_like_a_secret(template):
    hidden = no_echo(template)
    for name, p in template["Parameters"].items():
        default = str(p.get("Default", ""))
        if name in hidden or (p["Type"] == "String" and SECRET_NAME.search(name)):
            assert default == "", f"{name} has a default"
        assert not KEY_MATERIAL.match(default), f"{name}: {default!r} looks like key material"
    for name, output in template.get("Outputs", {}).items():
        for text in strings(output):
            assert "{{resolve:" not in text, name
            assert "execute-api" not in text, f"{name}: the API is reached through CloudFront only"
        assert not refs(output, hidden), name
        for v in walk(output):
            if isinstance(v, dict) and "Fn::GetAtt" in v:
                assert "SecretString" not in str(v), name
    assert "ApiUrl" not in template.get("Outputs", {})


def test_the_stack_generates_the_secrets_as_the_contracts_say(template):
    r = template["Resources"]
    for name, key, length in (("RootSecret", "rootKey", 64), ("OriginSecret", "originVerify", 64), ("StaffSecret", "clientSecret", None)):
        assert r[name]["Type"] == "AWS::SecretsManager::Secret"
        generate = r[name]["Properties"]["GenerateSecretString"]
        assert "SecretString" not in r[name]["Properties"], f"{name}: typed, not generated"
        assert generate["SecretStringTemplate"] == "{}"
        assert generate["GenerateStringKey"] == key
        assert generate["ExcludePunctuation"] is True
        if length:
            assert generate["PasswordLength"] == length
    # Losing the root makes every sealed TOTP secret unreadable.
    assert r["RootSecret"]["DeletionPolicy"] == "RetainExceptOnCreate"


def test_each_function_gets_the_secret_arns_the_contracts_give_it(template, transformed):
    keyless = no_keys()
    facts = route_facts()
    lambda_envs = {n: env(f) for n, f in lambdas(transformed).items()}
    for name, binary in functions(template).items():
        variables = lambda_envs[name]
        assert variables.get("CIAM_ORIGIN_SECRET_ARN") == {"Ref": "OriginSecret"}, name
        row = facts[binary]
        # Only the key distributor reads the root (test_template_keys.py); a function gets its
        # key purposes' secrets.
        assert "CIAM_ROOT_SECRET_ARN" not in variables, name
        given = {v["Ref"] for k, v in variables.items() if k.endswith("_KEY_SECRET_ARN")}
        assert given == key_secrets(row), name
        assert (not given) == (binary in keyless), name
        # A federation callback reads its provider's client secret, and no other function any.
        fed = row["federation"] or {}
        provider_secrets = {k: v for k, v in variables.items() if k.endswith("_SECRET_ARN")
                            and not k.endswith("_KEY_SECRET_ARN") and k != "CIAM_ORIGIN_SECRET_ARN"
                            and k != "CIAM_CANARY_SECRET_ARN"}
        want = {fed["secretArnVar"]: {"Ref": fed["secret"]}} if fed.get("part") == "callback" else {}
        assert provider_secrets == want, name
        has_kms = "CIAM_OIDC_KMS_KEY_ID" in variables
        assert has_kms == (row["kms"] in ("sign", "publicKeys", "jwks")), name
        # The logout tokens' own key (issue 30): signed with by the delivery, published by the JWKS.
        assert ("CIAM_LOGOUT_KMS_KEY_ID" in variables) == (row["kms"] in ("signLogout", "jwks")), name
        assert ("CIAM_OIDC_KMS_PREVIOUS_KEY_IDS" in variables) == (row["kms"] in ("publicKeys", "jwks")), name
    # The rows themselves: only the federation callbacks (the code exchanges) hold a client secret, only the
    # OpenID Connect key routes reach KMS: the token signs, and so does the webhook delivery (a
    # fresh logout token at each attempt of a sign-out's notice, issue 23), the JWKS and the
    # end-session routes (which verify an id_token_hint with the published keys) read the public
    # keys.
    assert [r for r, f in facts.items() if (f["federation"] or {}).get("part") == "callback"] == ["auth_staff_callback", "auth_wechat_callback", "auth_wecom_callback", "auth_dingtalk_callback", "auth_feishu_callback"]
    assert {r for r, f in facts.items() if f["kms"] != "none"} == {
        "oidc_token",
        "oidc_jwks",
        "oidc_end_session_get",
        "oidc_end_session_post",
        "webhook_delivery",
    }
    assert {r for r, f in facts.items() if f["kms"] == "sign"} == {"oidc_token"}
    assert {r for r, f in facts.items() if f["kms"] == "signLogout"} == {"webhook_delivery"}


def test_the_oidc_signing_key_is_an_asymmetric_kms_key_the_account_governs(template):
    key = template["Resources"]["OidcSigningKey"]["Properties"]
    assert key["KeySpec"] == "ECC_NIST_P256"
    assert key["KeyUsage"] == "SIGN_VERIFY"
    statements = key["KeyPolicy"]["Statement"]
    principals = [s["Principal"] for s in statements]
    for p in principals:
        assert p != "*" and p.get("AWS") != "*", "no wildcard principal"
    assert {"AWS": {"Fn::Sub": "arn:${AWS::Partition}:iam::${AWS::AccountId}:root"}} in principals
    alias = template["Resources"]["OidcSigningKeyAlias"]["Properties"]
    assert alias["TargetKeyId"] == {"Ref": "OidcSigningKey"}
