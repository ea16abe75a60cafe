"""infra/waf.yaml: a CLOUDFRONT web ACL with a per-IP rate rule on each route a bot would
hammer, the AWS common and known-bad-inputs groups, and the avatar upload kept out of the common
group's 8 KB body limit."""

import re

import pytest
from samcli.yamlhelper import yaml_parse

from template_facts import ROOT, route_facts, walk

WAF = ROOT / "infra" / "waf.yaml"

# Each rate rule and the request paths it must count (lower case: the rules lower-case the path).
RATE_PATHS = {
    "sign-in": ["/ciam/v1/auth/login/password", "/ciam/v1/auth/login/code", "/ciam/v1/auth/login/totp", "/ciam/v1/auth/login/staff"],
    "codes": ["/ciam/v1/auth/identity", "/ciam/v1/auth/unlockcode"],
    "register": ["/ciam/v1/auth/register"],
    "captcha": ["/ciam/v1/auth/captcha"],
    "token": ["/ciam/v1/oidc/token"],
}


@pytest.fixture(scope="module")
def acl():
    template = yaml_parse(WAF.read_text())
    acls = [r for r in template["Resources"].values() if r["Type"] == "AWS::WAFv2::WebACL"]
    assert len(acls) == 1
    return template, acls[0]["Properties"]


def matches(statement, path):
    """Whether a scope-down statement (byte matches on the URI path, And/Or/Not) matches a
    path already URL-decoded, normalised and lower-cased."""
    if "AndStatement" in statement:
        return all(matches(s, path) for s in statement["AndStatement"]["Statements"])
    if "OrStatement" in statement:
        return any(matches(s, path) for s in statement["OrStatement"]["Statements"])
    if "NotStatement" in statement:
        return not matches(statement["NotStatement"]["Statement"], path)
    byte = statement["ByteMatchStatement"]
    assert "UriPath" in byte["FieldToMatch"]
    types = [t["Type"] for t in byte["TextTransformations"]]
    assert {"URL_DECODE", "LOWERCASE"} <= set(types), "paths are compared decoded and lower-cased"
    needle = byte["SearchString"]
    assert needle == needle.lower()
    return {
        "EXACTLY": path == needle,
        "STARTS_WITH": path.startswith(needle),
        "CONTAINS": needle in path,
    }[byte["PositionalConstraint"]]


def rate_rules(props):
    return [r for r in props["Rules"] if "RateBasedStatement" in r["Statement"]]


def test_the_web_acl_is_for_cloudfront_and_its_arn_is_an_output(acl):
    template, props = acl
    assert props["Scope"] == "CLOUDFRONT"
    assert props["DefaultAction"] == {"Allow": {}}
    assert template["Outputs"]["WebAclArn"]["Value"] == {"Fn::GetAtt": ["WebAcl", "Arn"]}


def test_each_listed_route_has_a_per_ip_rate_rule_with_a_parameter_limit(acl):
    template, props = acl
    rules = rate_rules(props)
    for group, paths in RATE_PATHS.items():
        counting = []
        for rule in rules:
            rate = rule["Statement"]["RateBasedStatement"]
            if all(matches(rate["ScopeDownStatement"], p) for p in paths):
                counting.append(rule)
        assert counting, f"no rate rule counts {group}: {paths}"
        for rule in counting:
            rate = rule["Statement"]["RateBasedStatement"]
            assert rate["AggregateKeyType"] == "IP", rule["Name"]
            assert set(rate["Limit"]) == {"Ref"} and rate["Limit"]["Ref"] in template["Parameters"], rule["Name"]
            assert "Block" in rule["Action"], rule["Name"]


def test_each_route_is_counted_by_exactly_the_rate_rule_its_row_names(acl):
    """`Lambda::waf` of each row (infra/routes.json) is the one rate rule whose scope-down
    statement matches the route's path, or none; a path parameter stands for any segment."""
    _, props = acl
    rules = rate_rules(props)
    assert {r["Name"] for r in rules} >= {f["waf"] for f in route_facts().values() if f["waf"]}
    for route, f in route_facts().items():
        path = re.sub(r"\{[^}]+\}", "x", f["path"]).lower()
        counting = {r["Name"] for r in rules if matches(r["Statement"]["RateBasedStatement"]["ScopeDownStatement"], path)}
        assert counting == ({f["waf"]} if f["waf"] else set()), f"{route} ({path}): counted by {counting}"


def test_the_sign_in_limit_spares_the_ticket_routes_of_partner_back_ends(acl):
    _, props = acl
    sign_in = next(r for r in rate_rules(props) if r["Name"] == "RateSignIn")
    scope = sign_in["Statement"]["RateBasedStatement"]["ScopeDownStatement"]
    assert matches(scope, "/ciam/v1/auth/login/password")
    assert not matches(scope, "/ciam/v1/auth/login/token/verify")
    assert not matches(scope, "/ciam/v1/auth/info")


def test_rate_rules_come_before_the_managed_groups(acl):
    _, props = acl
    first_managed = min(r["Priority"] for r in props["Rules"] if "ManagedRuleGroupStatement" in r["Statement"])
    assert all(r["Priority"] < first_managed for r in rate_rules(props))
    priorities = [r["Priority"] for r in props["Rules"]]
    assert len(priorities) == len(set(priorities))


def test_both_managed_groups_are_on_and_the_avatar_upload_escapes_only_the_body_size_rule(acl):
    _, props = acl
    groups = {r["Statement"]["ManagedRuleGroupStatement"]["Name"]: r for r in props["Rules"] if "ManagedRuleGroupStatement" in r["Statement"]}
    assert set(groups) == {"AWSManagedRulesCommonRuleSet", "AWSManagedRulesKnownBadInputsRuleSet"}
    for rule in groups.values():
        assert rule["OverrideAction"] == {"None": {}}, f"{rule['Name']} must block, not count"
        assert rule["Statement"]["ManagedRuleGroupStatement"]["VendorName"] == "AWS"
    common = groups["AWSManagedRulesCommonRuleSet"]["Statement"]["ManagedRuleGroupStatement"]
    # Counted only: the body size (see below) and the missing User-Agent of server-to-server calls.
    assert common["RuleActionOverrides"] == [
        {"Name": "SizeRestrictions_BODY", "ActionToUse": {"Count": {}}},
        {"Name": "NoUserAgent_HEADER", "ActionToUse": {"Count": {}}},
    ]
    # The counted rule still blocks, through its label, everything but PATCH /ciam/v1/auth/avatar.
    label = "awswaf:managed:aws:core-rule-set:SizeRestrictions_Body"
    blockers = [
        r for r in props["Rules"]
        if "Block" in r.get("Action", {})
        and any(isinstance(v, dict) and v.get("LabelMatchStatement", {}).get("Key") == label for v in walk(r["Statement"]))
    ]
    assert len(blockers) == 1
    rule = blockers[0]
    assert rule["Priority"] > groups["AWSManagedRulesCommonRuleSet"]["Priority"], "labels exist only after the group ran"
    exempt = rule["Statement"]["AndStatement"]["Statements"][1]["NotStatement"]["Statement"]["AndStatement"]["Statements"]
    assert matches(exempt[0], "/ciam/v1/auth/avatar")
    assert exempt[1]["ByteMatchStatement"]["FieldToMatch"] == {"Method": {}}
    assert exempt[1]["ByteMatchStatement"]["SearchString"] == "PATCH"
