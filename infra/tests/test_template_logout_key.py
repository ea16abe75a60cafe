"""The webhook delivery holds only what it uses (issue 30, docs/oidc.md "Signing keys"), after the
SAM transform: logout tokens have a KMS key of their own, the delivery role may sign with that key
only (never with the id_token key, whatever its parameter says) and may send mail but no SMS; the
JWKS function reads both public keys; no other role signs with the logout key."""

from template_facts import strings

DELIVERY, DELIVERY_ROLE = "WebhookDeliveryFunction", "WebhookDeliveryFunctionRole"
LOGOUT_KEY = {"Fn::GetAtt": ["LogoutSigningKey", "Arn"]}


def statements(transformed, role):
    out = []
    for p in transformed["Resources"][role]["Properties"].get("Policies", []):
        out.extend(p["PolicyDocument"]["Statement"])
    return out


def as_list(v):
    return v if isinstance(v, list) else [v]


def names_id_token_key(value):
    """Whether a policy value reaches the id_token key (the stack's, or the override parameter)."""
    return any(s in ("OidcSigningKey", "OidcKmsKeyArn", "OidcPreviousKmsKeyArns") for s in strings(value))


def allowed(transformed, role):
    return [s for s in statements(transformed, role) if s["Effect"] == "Allow"]


def role_of(transformed, function):
    return transformed["Resources"][function]["Properties"]["Role"]["Fn::GetAtt"][0]


def test_logout_tokens_have_a_kms_key_of_their_own(template):
    key = template["Resources"]["LogoutSigningKey"]
    props = key["Properties"]
    assert key["Type"] == "AWS::KMS::Key"
    assert props["KeySpec"] == "ECC_NIST_P256" and props["KeyUsage"] == "SIGN_VERIFY"
    assert key["DeletionPolicy"] == "RetainExceptOnCreate" and key["UpdateReplacePolicy"] == "Retain"
    assert props["MultiRegion"] is True


def test_the_delivery_role_has_neither_the_id_token_key_nor_sms(transformed):
    stmts = allowed(transformed, DELIVERY_ROLE)
    assert stmts
    for s in stmts:
        acts = as_list(s["Action"])
        assert not any(a.startswith("sns:") for a in acts), s
        if any(a.startswith("kms:") for a in acts):
            assert not names_id_token_key(s.get("Resource")), s
            assert s["Resource"] == LOGOUT_KEY, s
            assert set(acts) == {"kms:Sign", "kms:GetPublicKey"}, s
    signs = [s for s in stmts if "kms:Sign" in as_list(s["Action"])]
    assert len(signs) == 1
    assert any("ses:SendEmail" in as_list(s["Action"]) for s in stmts), "the owner's notice is mail"
    env = transformed["Resources"][DELIVERY]["Properties"]["Environment"]["Variables"]
    assert env["CIAM_LOGOUT_KMS_KEY_ID"] == LOGOUT_KEY
    assert not any(names_id_token_key(v) for v in env.values()), env


def test_only_the_delivery_signs_with_the_logout_key_and_the_jwks_reads_it(transformed):
    signers = set()
    for name, r in transformed["Resources"].items():
        if r["Type"] != "AWS::IAM::Role":
            continue
        for s in allowed(transformed, name):
            if "kms:Sign" in as_list(s["Action"]) and s.get("Resource") == LOGOUT_KEY:
                signers.add(name)
    assert signers == {DELIVERY_ROLE}
    jwks = allowed(transformed, role_of(transformed, "OidcJwksFunction"))
    reads = [s for s in jwks if as_list(s["Action"]) == ["kms:GetPublicKey"] and s["Resource"] == LOGOUT_KEY]
    assert len(reads) == 1
    assert not any("kms:Sign" in as_list(s["Action"]) for s in jwks)
    env = transformed["Resources"]["OidcJwksFunction"]["Properties"]["Environment"]["Variables"]
    assert env["CIAM_LOGOUT_KMS_KEY_ID"] == LOGOUT_KEY
    # The token route signs id_tokens and nothing of the logout key.
    token = allowed(transformed, role_of(transformed, "OidcTokenFunction"))
    assert not any(s.get("Resource") == LOGOUT_KEY for s in token)
