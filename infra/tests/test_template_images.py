"""Untrusted images are decoded where there is nothing to take (issue 22): after the SAM
transform, every function whose row decodes images (infra/routes.json `images: decode`) has a
role with only the AWS managed log and trace policies (no secret, no table, no bucket, no KMS,
no Lambda), no route, no function URL and no resource policy; the functions that send it uploads
(`images: invoke`) may invoke that function and no other, and no other role may invoke any."""

import copy

from template_facts import as_list, aws_managed_arn, functions, role_of, route_facts

BASIC = {
    "arn:aws:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole",
    "arn:aws:iam::aws:policy/AWSXrayWriteOnlyAccess",
}
KEY_VARIABLES = {"CIAM_ROOT_SECRET_ARN", "CIAM_SESSION_KEY_SECRET_ARN", "CIAM_STAFF_SECRET_ARN", "CIAM_AVATAR_BUCKET", "CIAM_WEB_BUCKET", "CIAM_OIDC_KMS_KEY_ID"}


def by_images(template, kind):
    facts = route_facts()
    return {name for name, route in functions(template).items() if facts[route].get("images") == kind}


def statements(transformed, function):
    """Every statement of the function's role: inline, and of this template's managed policies."""
    resources = transformed["Resources"]
    role = resources[role_of(transformed, function)]["Properties"]
    out = []
    for arn in role.get("ManagedPolicyArns", []):
        if isinstance(arn, dict) and "Ref" in arn:
            out += as_list(resources[arn["Ref"]]["Properties"]["PolicyDocument"]["Statement"])
    for inline in role.get("Policies", []):
        out += as_list(inline["PolicyDocument"]["Statement"])
    return out, role.get("ManagedPolicyArns", [])


def problems(template, transformed):
    """What breaks the isolation, in words (empty: none)."""
    found = []
    decoders = by_images(template, "decode")
    invokers = by_images(template, "invoke")
    if not decoders:
        found.append("no function decodes images")
    resources = transformed["Resources"]
    for name in decoders:
        stmts, managed = statements(transformed, name)
        if stmts:
            found.append(f"{name}: its role has statements {stmts}")
        if {aws_managed_arn(a) or str(a) for a in managed} - BASIC:
            found.append(f"{name}: managed policies {managed}")
        fn = resources[name]["Properties"]
        names = set(fn.get("Environment", {}).get("Variables", {}))
        held = (KEY_VARIABLES & names) | {n for n in names if n.endswith("_KEY_SECRET_ARN")}
        if held:
            found.append(f"{name}: environment names {sorted(held)}")
        source = template["Resources"][name]["Properties"]
        if source.get("Events") or source.get("FunctionUrlConfig"):
            found.append(f"{name}: reachable over HTTP")
        for rid, r in resources.items():
            if r["Type"] == "AWS::Lambda::Permission" and name in str(r["Properties"].get("FunctionName")):
                found.append(f"{name}: resource policy {rid}")
    for name in functions(template):
        stmts, _ = statements(transformed, name)
        for s in stmts:
            actions = [a for a in as_list(s.get("Action", [])) if a.lower().startswith("lambda:")]
            if not actions:
                continue
            if name not in invokers:
                found.append(f"{name}: may use {actions} without a row that says so")
                continue
            target = s.get("Resource")
            if actions != ["lambda:InvokeFunction"] or not (
                isinstance(target, dict) and target.get("Fn::GetAtt") in ([d, "Arn"] for d in decoders)
            ):
                found.append(f"{name}: {actions} on {target}")
    for name in invokers:
        stmts, _ = statements(transformed, name)
        if not any("lambda:InvokeFunction" in as_list(s.get("Action", [])) for s in stmts):
            found.append(f"{name}: cannot invoke the decoder")
        variables = resources[name]["Properties"]["Environment"]["Variables"]
        if variables.get("CIAM_IMAGE_DECODER_FUNCTION") not in ({"Ref": d} for d in decoders):
            found.append(f"{name}: CIAM_IMAGE_DECODER_FUNCTION is {variables.get('CIAM_IMAGE_DECODER_FUNCTION')}")
    return found


def test_the_image_decoder_holds_nothing_and_only_the_upload_may_invoke_it(template, transformed):
    assert by_images(template, "decode") == {"AvatarDecodeFunction"}
    assert by_images(template, "invoke") == {"AuthAvatarFunction"}
    assert problems(template, transformed) == []


def test_the_check_sees_a_decoder_given_a_secret_or_a_second_target(template, transformed):
    worse = copy.deepcopy(transformed)
    role = worse["Resources"][role_of(worse, "AvatarDecodeFunction")]["Properties"]
    role["ManagedPolicyArns"] = list(role.get("ManagedPolicyArns", [])) + [{"Ref": "OriginSecretReadPolicy"}]
    assert any("AvatarDecodeFunction: its role has statements" in p for p in problems(template, worse))
    worse = copy.deepcopy(transformed)
    for inline in worse["Resources"][role_of(worse, "AuthAvatarFunction")]["Properties"]["Policies"]:
        for s in as_list(inline["PolicyDocument"]["Statement"]):
            if s.get("Sid") == "InvokeTheImageDecoderOnly":
                s["Resource"] = "*"
    assert any(p.startswith("AuthAvatarFunction: ['lambda:InvokeFunction'] on *") for p in problems(template, worse))


def test_no_image_decoding_function_can_read_a_key_secret(template, transformed):
    """The fact H5a's per-purpose keys test builds on: whatever secrets exist, a decoder's role
    names none of them."""
    secrets = {n for n, r in template["Resources"].items() if r["Type"] == "AWS::SecretsManager::Secret"}
    assert secrets
    for name in by_images(template, "decode"):
        stmts, _ = statements(transformed, name)
        text = str(stmts)
        assert not any(s in text for s in secrets), name
        assert "secretsmanager" not in text.lower(), name
