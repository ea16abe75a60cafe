"""infra/waf.yaml: a CLOUDFRONT web ACL in which no client can starve a route. Every anonymous
route that hashes, sends or stores (from infra/routes.json) is under a per-IP rate rule; a
blanket per-IP rule covers every path a function answers; the AWS IP reputation list blocks;
sign-in, codes and sign-up have a per-network rule that IPv6 rotation cannot escape and a
circuit breaker on one constant key; the edge alarms live in the same us-east-1 stack. And
template.yaml refuses a production stack without the web ACL.

The rules are evaluated here as WAF would: each statement's text transformations applied in
their priority order to a request path, then the byte or regex match; rate-based rules'
aggregation keys computed from a request's address, network and TLS fingerprint."""

import copy
import ipaddress
import re
import urllib.parse

import pytest
from samcli.yamlhelper import yaml_parse

from template_facts import ROOT, key_secrets, walk
from template_facts import route_facts as all_route_facts


def route_facts():
    """The facts of every function reached over HTTP (an internal function, the avatar decoder,
    has no path: only another function invokes it)."""
    return {i: f for i, f in all_route_facts().items() if not f.get("internal")}

WAF = ROOT / "infra" / "waf.yaml"

# Routes a caller reaches without an account's session (sessionOrCode: PATCH /auth/pwd with a
# code instead of a session).
ANONYMOUS = {"public", "sessionOrCode"}
BLANKET = "RateCiamPerIp"
PER_NETWORK = "RateSignInPerNetwork"
BREAKER = "SignInCircuitBreaker"
# The rows whose routes are sign-in, codes and sign-up: the IPv6-proof rules' scope.
SIGN_IN_CODES_SIGN_UP = {"RateSignIn", "RateCodes", "RateRegister"}
# Published capacities (WCU) of the AWS managed groups.
MANAGED_WCU = {
    "AWSManagedRulesAmazonIpReputationList": 25,
    "AWSManagedRulesAnonymousIpList": 50,
    "AWSManagedRulesCommonRuleSet": 700,
    "AWSManagedRulesKnownBadInputsRuleSet": 200,
}
WCU_LIMIT = 1500


@pytest.fixture(scope="module")
def waf():
    return yaml_parse(WAF.read_text())


@pytest.fixture(scope="module")
def acl(waf):
    acls = [r for r in waf["Resources"].values() if r["Type"] == "AWS::WAFv2::WebACL"]
    assert len(acls) == 1
    return waf, acls[0]["Properties"]


# --- WAF, evaluated -------------------------------------------------------------------------

def normalize_path(path):
    """NORMALIZE_PATH: multiple slashes collapsed, `.` segments removed, `..` segments applied
    (except at the start)."""
    out = []
    segments = re.sub(r"/{2,}", "/", path).split("/")
    for i, seg in enumerate(segments):
        if seg == "." and 0 < i:
            continue
        if seg == ".." and len(out) > 1:
            out.pop()
            continue
        out.append(seg)
    return "/".join(out)


TRANSFORM = {
    "NONE": lambda s: s,
    "URL_DECODE": urllib.parse.unquote,
    "NORMALIZE_PATH": normalize_path,
    "LOWERCASE": str.lower,
}


def field(statement_body, request):
    f = statement_body["FieldToMatch"]
    value = request["path"] if "UriPath" in f else request["method"] if "Method" in f else None
    assert value is not None, f"a field the suite does not evaluate: {f}"
    for t in sorted(statement_body["TextTransformations"], key=lambda t: t["Priority"]):
        value = TRANSFORM[t["Type"]](value)
    return value


def matches(statement, request):
    """Whether a (scope-down) statement matches a request {path, method, labels}."""
    if isinstance(request, str):
        request = {"path": request, "method": "GET", "labels": set()}
    if "AndStatement" in statement:
        return all(matches(s, request) for s in statement["AndStatement"]["Statements"])
    if "OrStatement" in statement:
        return any(matches(s, request) for s in statement["OrStatement"]["Statements"])
    if "NotStatement" in statement:
        return not matches(statement["NotStatement"]["Statement"], request)
    if "LabelMatchStatement" in statement:
        return statement["LabelMatchStatement"]["Key"] in request["labels"]
    if "RegexMatchStatement" in statement:
        body = statement["RegexMatchStatement"]
        return re.search(body["RegexString"], field(body, request)) is not None
    body = statement["ByteMatchStatement"]
    value, needle = field(body, request), body["SearchString"]
    return {
        "EXACTLY": value == needle,
        "STARTS_WITH": value.startswith(needle),
        "ENDS_WITH": value.endswith(needle),
        "CONTAINS": needle in value,
    }[body["PositionalConstraint"]]


def aggregation_key(rate, request):
    """The instance a rate-based statement counts a request under."""
    kind = rate["AggregateKeyType"]
    if kind == "CONSTANT":
        return ()
    if kind == "IP":
        return (request["ip"],)
    assert kind == "CUSTOM_KEYS"
    key = []
    for k in rate["CustomKeys"]:
        (name, _), = k.items()
        key.append({"IP": request["ip"], "ASN": request["asn"], "JA4Fingerprint": request["ja4"]}[name])
    return tuple(key)


def run_rate_rule(rule, requests, params):
    """Feeds requests (all within one evaluation window) to a rate rule; returns how many it
    acted on (those over the limit of their aggregation instance)."""
    rate = rule["Statement"]["RateBasedStatement"]
    limit = int(params[rate["Limit"]["Ref"]]["Default"])
    counts, acted = {}, 0
    for r in requests:
        if not matches(rate["ScopeDownStatement"], r):
            continue
        k = aggregation_key(rate, r)
        counts[k] = counts.get(k, 0) + 1
        if counts[k] > limit:
            acted += 1
    return acted


def sample_path(path):
    """A route path with each parameter replaced by a sample value ({lang}: a locale)."""
    return re.sub(r"\{[^}]+\}", lambda m: "zh-CN" if m.group(0) == "{lang}" else "x1", path)


def variants(path):
    """Spellings of a path that reach the same route and that a rule must count too."""
    head, _, last = path.rpartition("/")
    return [
        path,
        path.upper(),
        f"{head}/%{ord(last[0]):02X}{last[1:]}",
        path.replace("/ciam/v1/", "/ciam/v1//", 1),
        path.replace("/ciam/v1/", "/ciam/v1/./x/../", 1),
    ]


def rules_by_name(props):
    return {r["Name"]: r for r in props["Rules"]}


def rate_rules(props):
    return [r for r in props["Rules"] if "RateBasedStatement" in r["Statement"]]


def per_route_rules(props):
    """The per-IP rate rules of particular routes (not the blanket one)."""
    return [
        r for r in rate_rules(props)
        if r["Statement"]["RateBasedStatement"]["AggregateKeyType"] == "IP" and r["Name"] != BLANKET
    ]


def costly_anonymous_routes():
    """Route id -> row of every route reached anonymously that hashes a secret, sends mail or
    SMS, writes the table or derives a key (signs, seals or draws a captcha)."""
    return {
        i: f for i, f in route_facts().items()
        if f["auth"] in ANONYMOUS and (f["hashing"] or f["messages"] or f["table"] == "write" or key_secrets(f))
    }


# --- per-IP rules ---------------------------------------------------------------------------

def test_the_web_acl_is_for_cloudfront_and_its_arn_is_an_output(acl):
    template, props = acl
    assert props["Scope"] == "CLOUDFRONT"
    assert props["DefaultAction"] == {"Allow": {}}
    assert template["Outputs"]["WebAclArn"]["Value"] == {"Fn::GetAtt": ["WebAcl", "Arn"]}


def test_the_costly_anonymous_routes_are_read_from_the_route_table():
    """The list is derived, not written here; it holds the routes issue 22 found unlimited."""
    routes = {(f["method"], f["path"]) for f in costly_anonymous_routes().values()}
    for must in [
        ("PATCH", "/ciam/v1/auth/pwd"),
        ("GET", "/ciam/v1/oidc/authorize"),
        ("GET", "/ciam/v1/auth/staff/start"),
        ("GET", "/ciam/v1/auth/staff/callback"),
        ("POST", "/ciam/v1/auth/login/staff"),
        ("POST", "/ciam/v1/auth/register"),
        ("POST", "/ciam/v1/auth/identity"),
        ("GET", "/ciam/v1/auth/captcha"),
        ("POST", "/ciam/v1/auth/login/password"),
        ("POST", "/ciam/v1/auth/login/passkey"),
        ("POST", "/ciam/v1/auth/login/passkey/options"),
    ]:
        assert must in routes, must


def test_every_anonymous_route_that_hashes_sends_or_stores_is_under_a_per_ip_rule(acl):
    template, props = acl
    rules = per_route_rules(props)
    for route, f in costly_anonymous_routes().items():
        for path in variants(sample_path(f["path"])):
            counting = [r for r in rules if matches(r["Statement"]["RateBasedStatement"]["ScopeDownStatement"], path)]
            assert counting, f"{route}: no per-IP rule counts {path}"
            for rule in counting:
                rate = rule["Statement"]["RateBasedStatement"]
                assert rate["AggregateKeyType"] == "IP", rule["Name"]
                assert set(rate["Limit"]) == {"Ref"} and rate["Limit"]["Ref"] in template["Parameters"], rule["Name"]
                assert "Block" in rule["Action"], rule["Name"]
                assert rate["EvaluationWindowSec"] == 300


def test_each_route_is_counted_by_exactly_the_per_route_rule_its_row_names(acl):
    """`Lambda::waf` of each row (infra/routes.json) is the one per-route rule whose scope-down
    statement matches the route's path, or none."""
    _, props = acl
    rules = per_route_rules(props)
    assert {r["Name"] for r in rules} == {f["waf"] for f in route_facts().values() if f["waf"]}
    for route, f in route_facts().items():
        path = sample_path(f["path"])
        counting = {r["Name"] for r in rules if matches(r["Statement"]["RateBasedStatement"]["ScopeDownStatement"], path)}
        assert counting == ({f["waf"]} if f["waf"] else set()), f"{route} ({path}): counted by {counting}"


def test_the_sign_in_limit_spares_the_ticket_routes_of_partner_back_ends(acl):
    _, props = acl
    scope = rules_by_name(props)["RateSignIn"]["Statement"]["RateBasedStatement"]["ScopeDownStatement"]
    assert matches(scope, "/ciam/v1/auth/login/password")
    assert matches(scope, "/ciam/v1/auth/%6Cogin/password")
    assert matches(scope, "/CIAM/v1//auth/login/passkey/mfa/options")
    assert not matches(scope, "/ciam/v1/auth/login/token")
    assert not matches(scope, "/ciam/v1/auth/login/token/verify")
    assert not matches(scope, "/ciam/v1/auth/info")


def test_the_blanket_rule_counts_every_path_a_function_answers_per_ip(acl):
    template, props = acl
    rule = rules_by_name(props)[BLANKET]
    rate = rule["Statement"]["RateBasedStatement"]
    assert rate["AggregateKeyType"] == "IP"
    assert "Block" in rule["Action"]
    limit = template["Parameters"][rate["Limit"]["Ref"]]
    assert int(limit["Default"]) >= 10 * max(
        int(template["Parameters"][r["Statement"]["RateBasedStatement"]["Limit"]["Ref"]]["Default"])
        for r in per_route_rules(props) if r["Name"] != "RateOidcToken"
    ), "generous: above every per-route limit of a browser's routes"
    for route, f in route_facts().items():
        for path in variants(sample_path(f["path"])):
            assert matches(rate["ScopeDownStatement"], path), f"{route}: {path}"
    # The web app's files (S3, cached) are not counted: a page load fetches many.
    for static in ["/", "/index.html", "/assets/index-3f2a.js", "/zh-CN/signin", "/favicon.ico"]:
        assert not matches(rate["ScopeDownStatement"], static), static


def test_transformations_run_decode_then_normalise_then_lower_case(acl):
    _, props = acl
    for v in walk(props["Rules"]):
        if isinstance(v, dict) and ("ByteMatchStatement" in v or "RegexMatchStatement" in v):
            body = v.get("ByteMatchStatement") or v["RegexMatchStatement"]
            if "UriPath" not in body["FieldToMatch"]:
                continue
            order = [t["Type"] for t in sorted(body["TextTransformations"], key=lambda t: t["Priority"])]
            assert order == ["URL_DECODE", "NORMALIZE_PATH", "LOWERCASE"]
            text = body.get("SearchString") or body["RegexString"]
            assert text == text.lower(), "compared after LOWERCASE: lower-case patterns only"


# --- the IPv6-proof rules -------------------------------------------------------------------

def sign_in_codes_sign_up_paths():
    return {
        sample_path(f["path"]) for f in route_facts().values() if f["waf"] in SIGN_IN_CODES_SIGN_UP
    }


def test_the_per_network_rule_keys_on_network_and_tls_client_not_on_the_address(acl):
    _, props = acl
    rule = rules_by_name(props)[PER_NETWORK]
    rate = rule["Statement"]["RateBasedStatement"]
    assert rate["AggregateKeyType"] == "CUSTOM_KEYS"
    assert rate["CustomKeys"] == [{"ASN": {}}, {"JA4Fingerprint": {"FallbackBehavior": "MATCH"}}]
    assert rule["Action"]["Block"]["CustomResponse"]["ResponseCode"] == 429
    # Its scope is exactly sign-in, codes and sign-up (every spelling).
    for route, f in route_facts().items():
        path = sample_path(f["path"])
        expected = f["waf"] in SIGN_IN_CODES_SIGN_UP
        for v in variants(path):
            assert matches(rate["ScopeDownStatement"], v) == expected, f"{route}: {v}"


def test_ipv6_rotation_within_a_64_escapes_the_per_ip_rule_but_not_the_per_network_one(acl):
    """One host with a /64 sends 5,000 password sign-ins, each from a fresh address: the per-IP
    rule never acts (every address is new); the per-network rule blocks all but its limit. A
    busy ISP's honest users (many addresses, many browsers) stay under it."""
    template, props = acl
    params, rules = template["Parameters"], rules_by_name(props)
    net = ipaddress.ip_network("2001:db8:1:2::/64")
    attack = [
        {"path": "/ciam/v1/auth/login/password", "method": "POST", "labels": set(),
         "ip": str(net[n * 7919 + 1]), "asn": 64500, "ja4": "t13d1516h2_8daaf6152771_e5627efa2ab1"}
        for n in range(5000)
    ]
    assert run_rate_rule(rules["RateSignIn"], attack, params) == 0
    network_limit = int(params["NetworkLimit"]["Default"])
    assert run_rate_rule(rules[PER_NETWORK], attack, params) == 5000 - network_limit
    honest = [
        {"path": p, "method": "POST", "labels": set(), "ip": f"198.51.{n % 250}.{n % 200}",
         "asn": 64501, "ja4": f"t13d15{n % 40:02d}h2_browser"}
        for n in range(20 * network_limit) for p in ["/ciam/v1/auth/login/password"]
    ]
    assert run_rate_rule(rules[PER_NETWORK], honest, params) == 0


def test_the_circuit_breaker_has_one_key_and_counts_until_the_web_app_can_answer_a_challenge(acl):
    template, props = acl
    rule = rules_by_name(props)[BREAKER]
    rate = rule["Statement"]["RateBasedStatement"]
    assert rate["AggregateKeyType"] == "CONSTANT"
    assert "CustomKeys" not in rate
    assert rule["Action"] == {"Fn::If": ["BreakerChallenges", {"Challenge": {}}, {"Count": {}}]}
    assert template["Conditions"]["BreakerChallenges"] == {"Fn::Equals": [{"Ref": "BreakerAction"}, "Challenge"]}
    assert template["Parameters"]["BreakerAction"]["Default"] == "Count"
    assert set(template["Parameters"]["BreakerAction"]["AllowedValues"]) == {"Count", "Challenge"}
    assert props["ChallengeConfig"]["ImmunityTimeProperty"]["ImmunityTime"] == 300
    for route, f in route_facts().items():
        path = sample_path(f["path"])
        assert matches(rate["ScopeDownStatement"], path) == (f["waf"] in SIGN_IN_CODES_SIGN_UP), route
    # Any number of networks is one counter.
    spread = [
        {"path": "/ciam/v1/auth/register", "method": "POST", "labels": set(), "ip": f"2001:db8:{n:x}::1", "asn": n, "ja4": str(n)}
        for n in range(int(template["Parameters"]["BreakerLimit"]["Default"]) + 10)
    ]
    assert run_rate_rule(rule, spread, template["Parameters"]) == 10


def test_the_ipv6_proof_rules_cover_sign_in_codes_and_sign_up():
    paths = sign_in_codes_sign_up_paths()
    for must in ["/ciam/v1/auth/login/password", "/ciam/v1/auth/identity", "/ciam/v1/auth/register",
                 "/ciam/v1/auth/pwd", "/ciam/v1/auth/login/passkey"]:
        assert must in paths


# --- managed groups, order, capacity --------------------------------------------------------

def managed_groups(props):
    return {r["Statement"]["ManagedRuleGroupStatement"]["Name"]: r for r in props["Rules"] if "ManagedRuleGroupStatement" in r["Statement"]}


def test_reputation_first_then_the_rate_rules_then_the_other_managed_groups(acl):
    _, props = acl
    groups = managed_groups(props)
    reputation = groups["AWSManagedRulesAmazonIpReputationList"]["Priority"]
    assert reputation == min(r["Priority"] for r in props["Rules"])
    others = min(r["Priority"] for n, r in groups.items() if n != "AWSManagedRulesAmazonIpReputationList")
    assert all(reputation < r["Priority"] < others for r in rate_rules(props))
    priorities = [r["Priority"] for r in props["Rules"]]
    assert len(priorities) == len(set(priorities))


def test_reputation_blocks_anonymous_ips_are_counted_and_the_avatar_upload_escapes_only_the_body_size_rule(acl):
    _, props = acl
    groups = managed_groups(props)
    assert set(groups) == set(MANAGED_WCU)
    for name, rule in groups.items():
        assert rule["Statement"]["ManagedRuleGroupStatement"]["VendorName"] == "AWS"
        expected = {"Count": {}} if name == "AWSManagedRulesAnonymousIpList" else {"None": {}}
        assert rule["OverrideAction"] == expected, name
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
    big = {"labels": {label}}
    assert not matches(rule["Statement"], {**big, "path": "/ciam/v1/auth/avatar", "method": "PATCH"})
    assert not matches(rule["Statement"], {**big, "path": "/ciam/v1/auth/%61vatar", "method": "PATCH"})
    assert matches(rule["Statement"], {**big, "path": "/ciam/v1/auth/avatar", "method": "POST"})
    assert matches(rule["Statement"], {**big, "path": "/ciam/v1/auth/info", "method": "PATCH"})
    assert not matches(rule["Statement"], {"labels": set(), "path": "/ciam/v1/auth/info", "method": "PATCH"})


def statement_wcu(s):
    if "AndStatement" in s or "OrStatement" in s:
        return sum(statement_wcu(x) for x in (s.get("AndStatement") or s["OrStatement"])["Statements"])
    if "NotStatement" in s:
        return statement_wcu(s["NotStatement"]["Statement"])
    if "LabelMatchStatement" in s:
        return 1
    if "ManagedRuleGroupStatement" in s:
        return MANAGED_WCU[s["ManagedRuleGroupStatement"]["Name"]]
    if "RateBasedStatement" in s:
        rate = s["RateBasedStatement"]
        return 2 + 30 * len(rate.get("CustomKeys", [])) + statement_wcu(rate["ScopeDownStatement"])
    if "RegexMatchStatement" in s:
        body, base = s["RegexMatchStatement"], 3
    else:
        body = s["ByteMatchStatement"]
        base = 10 if body["PositionalConstraint"] in ("CONTAINS", "CONTAINS_WORD") else 2
    return base + 10 * sum(1 for t in body["TextTransformations"] if t["Type"] != "NONE")


def test_the_web_acl_stays_within_its_included_capacity_and_the_estimate_is_the_documented_one(acl):
    """WCU as AWS WAF publishes them per statement (transformations counted every time, no
    sharing assumed: an upper bound). The number written in waf.yaml and the docs is this one."""
    _, props = acl
    total = sum(statement_wcu(r["Statement"]) for r in props["Rules"])
    assert total <= WCU_LIMIT
    written = f"{total:,}"
    assert f"Total {written} WCU" in WAF.read_text()
    ops, cost = (" ".join((ROOT / "docs" / d).read_text().split()) for d in ("operations.md", "cost.md"))
    assert f"{written} WCU" in ops
    assert f"{written} WCU" in cost
    # The fixed cost written beside it: $5 the web ACL + $1 per rule (a managed group is a rule).
    rules, monthly = len(props["Rules"]), 5 + len(props["Rules"])
    assert f"{rules} rules since issue 22, ${monthly} a month" in cost
    assert f"{rules} rules and the web ACL cost ${monthly} a month" in ops


def test_the_log_keeps_blocked_challenged_and_counted_requests_only(waf):
    logging = waf["Resources"]["WebAclLogging"]["Properties"]
    assert logging["LoggingFilter"]["DefaultBehavior"] == "DROP"
    kept = {c["ActionCondition"]["Action"] for f in logging["LoggingFilter"]["Filters"] if f["Behavior"] == "KEEP" for c in f["Conditions"]}
    assert kept == {"BLOCK", "CHALLENGE", "COUNT"}
    assert {"QueryString": {}} in logging["RedactedFields"]


# --- edge alarms ----------------------------------------------------------------------------

def condition(template, name, params):
    """Evaluates a template condition for the given parameter values (defaults otherwise)."""
    values = {k: v.get("Default") for k, v in template.get("Parameters", {}).items()}
    values.update(params)

    def ev(x):
        if isinstance(x, dict):
            (fn, arg), = x.items()
            if fn == "Ref":
                return values[arg]
            if fn == "Condition":
                return ev(template["Conditions"][arg])
            if fn == "Fn::Equals":
                return str(ev(arg[0])) == str(ev(arg[1]))
            if fn == "Fn::Not":
                return not ev(arg[0])
            if fn == "Fn::And":
                return all(ev(a) for a in arg)
            if fn == "Fn::Or":
                return any(ev(a) for a in arg)
            raise AssertionError(f"not evaluated here: {fn}")
        return x

    return ev(template["Conditions"][name] if name in template.get("Conditions", {}) else name)


def created(template, params):
    """Logical ids of the resources a deploy with these parameter values creates."""
    return {
        n for n, r in template["Resources"].items()
        if "Condition" not in r or condition(template, r["Condition"], params)
    }


def test_the_cloudfront_error_rate_alarms_exist_once_the_distribution_is_named(waf):
    assert {"CloudFront5xxRateAlarm", "CloudFront4xxRateAlarm"}.isdisjoint(created(waf, {}))
    assert {"CloudFront5xxRateAlarm", "CloudFront4xxRateAlarm"} <= created(waf, {"DistributionId": "E2QWRUHAPOMQZL"})
    for name, metric, threshold in [
        ("CloudFront5xxRateAlarm", "5xxErrorRate", "CloudFront5xxRatePercent"),
        ("CloudFront4xxRateAlarm", "4xxErrorRate", "CloudFront4xxRatePercent"),
    ]:
        p = waf["Resources"][name]["Properties"]
        assert (p["Namespace"], p["MetricName"], p["Statistic"]) == ("AWS/CloudFront", metric, "Average")
        assert p["Dimensions"] == [
            {"Name": "DistributionId", "Value": {"Ref": "DistributionId"}},
            {"Name": "Region", "Value": "Global"},
        ]
        assert p["Threshold"] == {"Ref": threshold}
        assert 0 < float(waf["Parameters"][threshold]["Default"]) < 100, "a percentage"
        assert p["ComparisonOperator"] == "GreaterThanThreshold"
        assert p["TreatMissingData"] == "notBreaching", "no requests is not an error rate"
        assert p["AlarmActions"] == [{"Ref": "EdgeAlarmTopic"}] == p["OKActions"]


def test_the_waf_blocked_spike_alarm_watches_this_web_acl(waf):
    assert "WafBlockedSpikeAlarm" in created(waf, {})
    p = waf["Resources"]["WafBlockedSpikeAlarm"]["Properties"]
    acl = waf["Resources"]["WebAcl"]["Properties"]
    assert (p["Namespace"], p["MetricName"], p["Statistic"]) == ("AWS/WAFV2", "BlockedRequests", "Sum")
    dims = {d["Name"]: d["Value"] for d in p["Dimensions"]}
    assert dims == {"WebACL": acl["VisibilityConfig"]["MetricName"], "Rule": "ALL"}
    assert p["Threshold"] == {"Ref": "WafBlockedThreshold"}
    assert p["ComparisonOperator"] == "GreaterThanThreshold"
    assert (p["Period"], p["EvaluationPeriods"], p["DatapointsToAlarm"]) == (300, 2, 2)
    assert p["AlarmActions"] == [{"Ref": "EdgeAlarmTopic"}] == p["OKActions"]


def test_the_edge_alarms_notify_a_topic_of_this_region_with_an_optional_email(waf):
    res = waf["Resources"]
    assert res["EdgeAlarmTopic"]["Type"] == "AWS::SNS::Topic"
    sub = res["EdgeAlarmEmailSubscription"]
    assert sub["Properties"] == {"TopicArn": {"Ref": "EdgeAlarmTopic"}, "Protocol": "email", "Endpoint": {"Ref": "AlarmEmail"}}
    assert "EdgeAlarmEmailSubscription" not in created(waf, {})
    assert "EdgeAlarmEmailSubscription" in created(waf, {"AlarmEmail": "oncall@example.com"})


# --- template.yaml: production needs the web ACL --------------------------------------------

def refusals(template, params):
    """The AssertDescriptions of the template Rules that refuse these parameter values (what
    CloudFormation answers before creating a change set)."""
    t = copy.deepcopy(template)
    t["Conditions"] = dict(t.get("Conditions", {}))
    out = []
    for name, rule in t["Rules"].items():
        t["Conditions"]["__when"] = rule.get("RuleCondition", True)
        if not condition(t, "__when", params):
            continue
        for a in rule["Assertions"]:
            t["Conditions"]["__assert"] = a["Assert"]
            if not condition(t, "__assert", params):
                out.append(a["AssertDescription"])
    return out


ARN = "arn:aws:wafv2:us-east-1:123456789012:global/webacl/ciam-web-acl/0f1e2d3c"
# The production stack's other requirements (issue 30 item 8, test_template_production.py), met.
DATA_SAFE = {
    "BackupCopyVaultArn": "arn:aws:backup:eu-central-1:123456789012:backup-vault:ciam-table-copy",
    "SecretReplicaRegion": "eu-central-1",
    "BackupVaultLockChangeableForDays": "3",
}


def test_environment_is_production_unless_said_otherwise(template):
    env = template["Parameters"]["Environment"]
    assert env["Default"] == "production"
    assert set(env["AllowedValues"]) == {"production", "test"}


@pytest.mark.parametrize("which", ["template", "transformed"])
def test_a_production_stack_without_the_web_acl_is_refused(which, request):
    template = request.getfixturevalue(which)
    assert "ProductionNeedsWebAcl" in template["Rules"], "kept through the SAM transform"
    refused = refusals(template, {"WebAclArn": "", **DATA_SAFE})
    assert len(refused) == 1
    assert "infra/waf.yaml" in refused[0] and "Environment=test" in refused[0]
    assert refusals(template, {"Environment": "production", "WebAclArn": ARN, **DATA_SAFE}) == []


def test_a_test_stack_may_go_without_the_web_acl(template):
    assert refusals(template, {"Environment": "test", "WebAclArn": ""}) == []
    assert refusals(template, {"Environment": "test", "WebAclArn": ARN}) == []
