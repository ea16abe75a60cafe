"""infra/waf.yaml: a CLOUDFRONT web ACL in which no client can starve a route. Every anonymous
route that hashes, sends or stores (from infra/routes.json) is under a per-IP rate rule; a
blanket per-IP rule covers every path a function answers; the AWS IP reputation list blocks;
sign-in, codes and sign-up have a per-network rule that IPv6 rotation cannot escape and a
circuit breaker on one constant key; the edge alarms live in the same us-east-1 stack. And
template.yaml refuses a production stack without the web ACL. The console's door (issue 30):
with a console host name or an address allow-list, and only then, the console's routes and
screens answer only on that host and to those addresses, and that host answers only the console;
template.yaml adds the host to the distribution's names.

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


def with_maps(template, x=None):
    """`x` (the whole template by default) with each `Fn::FindInMap` replaced by its value: the
    rules read their paths from the `Paths` map that ciam-gen writes from the route rows."""
    x = template if x is None else x
    if isinstance(x, list):
        return [with_maps(template, i) for i in x]
    if isinstance(x, dict):
        if set(x) == {"Fn::FindInMap"}:
            name, first, second = x["Fn::FindInMap"]
            return template["Mappings"][name][first][second]
        return {k: with_maps(template, v) for k, v in x.items()}
    return x


@pytest.fixture(scope="module")
def waf():
    return with_maps(yaml_parse(WAF.read_text()))


@pytest.fixture(scope="module")
def acl(waf):
    """The web ACL as a deploy with the default parameters makes it (no console door)."""
    acls = [r for r in waf["Resources"].values() if r["Type"] == "AWS::WAFv2::WebACL"]
    assert len(acls) == 1
    return waf, {**acls[0]["Properties"], "Rules": chosen(waf, acls[0]["Properties"]["Rules"], {})}


# --- CloudFormation, evaluated --------------------------------------------------------------

NO_VALUE = object()


def param_value(template, name, params):
    """A parameter's value for a deploy with these values (defaults otherwise); a
    CommaDelimitedList is a list, as CloudFormation passes it."""
    spec = template["Parameters"][name]
    value = params.get(name, spec.get("Default"))
    if spec.get("Type") == "CommaDelimitedList" and isinstance(value, str):
        return value.split(",")
    return value


def chosen(template, items, params):
    """The items of a list whose items may be `Fn::If`s (the web ACL's conditional rules), as a
    deploy with these values makes it; the items themselves are left as written."""
    out = []
    for item in items:
        while isinstance(item, dict) and set(item) == {"Fn::If"}:
            name, yes, no = item["Fn::If"]
            item = yes if condition(template, name, params) else no
        if item != {"Ref": "AWS::NoValue"}:
            out.append(item)
    return out


def resolve(template, x, params, refs=False):
    """`x` with its Fn::If chosen as a deploy with these values would (AWS::NoValue removed) and,
    with `refs`, its parameter Refs replaced by their values; other intrinsic functions (GetAtt,
    Sub) are left as they are."""
    if isinstance(x, list):
        return [v for v in (resolve(template, i, params, refs) for i in x) if v is not NO_VALUE]
    if isinstance(x, dict):
        if len(x) == 1:
            (fn, arg), = x.items()
            if fn == "Fn::If":
                name, yes, no = arg
                return resolve(template, yes if condition(template, name, params) else no, params, refs)
            if fn == "Ref" and arg == "AWS::NoValue":
                return NO_VALUE
            if refs and fn == "Ref" and arg in template.get("Parameters", {}):
                return param_value(template, arg, params)
        out = {k: resolve(template, v, params, refs) for k, v in x.items()}
        return {k: v for k, v in out.items() if v is not NO_VALUE}
    return x


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
    if "SingleHeader" in f:
        assert f["SingleHeader"]["Name"] == "host", f"a header the suite does not evaluate: {f}"
        value = request.get("host", "")
    else:
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
    if "IPSetReferenceStatement" in statement:
        # The viewer's own address (no forwarded-IP configuration) in one of the set's networks.
        body = statement["IPSetReferenceStatement"]
        assert set(body) == {"Arn"}, "the connection's address, never a forwarded header"
        (name, _), = [body["Arn"]["Fn::GetAtt"]]
        address = ipaddress.ip_address(request["ip"])
        return any(address in ipaddress.ip_network(n) for n in request["ipsets"][name])
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
    if "LabelMatchStatement" in s or "IPSetReferenceStatement" in s:
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


def test_the_web_acl_stays_within_its_included_capacity_and_the_estimate_is_the_documented_one(acl, waf):
    """WCU as AWS WAF publishes them per statement (transformations counted every time, no
    sharing assumed: an upper bound). The number written in waf.yaml and the docs is this one,
    without the console's door and with all of it (host name and both address families)."""
    _, props = acl
    total = sum(statement_wcu(r["Statement"]) for r in props["Rules"])
    assert total <= WCU_LIMIT
    written = f"{total:,}"
    text = " ".join(line.lstrip("# ") for line in WAF.read_text().splitlines())
    assert f"Total {written} WCU" in text
    ops, cost = (" ".join((ROOT / "docs" / d).read_text().split()) for d in ("operations.md", "cost.md"))
    assert f"{written} WCU" in ops
    assert f"{written} WCU" in cost
    # The fixed cost written beside it: $5 the web ACL + $1 per rule (a managed group is a rule).
    rules, monthly = len(props["Rules"]), 5 + len(props["Rules"])
    assert f"{rules} rules since issue 22, ${monthly} a month" in cost
    assert f"{rules} rules and the web ACL cost ${monthly} a month" in ops
    # The console's door at its largest still fits the included capacity (above 1,500 WCU every
    # request would cost more).
    _, door_props, _ = door(waf, DOOR_SCENARIOS["host and both families"])
    door_total = sum(statement_wcu(r["Statement"]) for r in door_props["Rules"])
    assert door_total <= WCU_LIMIT
    assert f"With the door: total {door_total:,} WCU" in text
    door_rules = len(door_props["Rules"])
    for doc in (ops, cost):
        assert f"{door_rules} rules, ${5 + door_rules} a month and {door_total:,} WCU" in doc


def test_the_log_keeps_blocked_challenged_and_counted_requests_only(waf):
    logging = waf["Resources"]["WebAclLogging"]["Properties"]
    assert logging["LoggingFilter"]["DefaultBehavior"] == "DROP"
    kept = {c["ActionCondition"]["Action"] for f in logging["LoggingFilter"]["Filters"] if f["Behavior"] == "KEEP" for c in f["Conditions"]}
    assert kept == {"BLOCK", "CHALLENGE", "COUNT"}
    assert {"QueryString": {}} in logging["RedactedFields"]


# --- edge alarms ----------------------------------------------------------------------------

def condition(template, name, params):
    """Evaluates a template condition for the given parameter values (defaults otherwise)."""
    values = {k: param_value(template, k, params) for k in template.get("Parameters", {})}
    values.update({k: v for k, v in params.items() if k not in values})

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
            if fn == "Fn::Join":
                return arg[0].join(ev(arg[1]))
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


# --- the console's door (issue 30) ----------------------------------------------------------

CONSOLE_HOST = "console.example.com"
PUBLIC_HOST = "login.example.com"
CLOUDFRONT_HOST = "d111111abcdef8.cloudfront.net"
V4, V6 = "203.0.113.0/24", "2001:db8:c0::/48"
INSIDE = ["203.0.113.7", "2001:db8:c0::7"]
OUTSIDE = ["198.51.100.9", "2001:db8:ff::9"]
DOOR_RULES = {"ConsoleDoor", "ConsoleHostOnly"}
DOOR_SCENARIOS = {
    "host": {"ConsoleHostName": CONSOLE_HOST},
    "both families": {"ConsoleAllowedIpv4": V4, "ConsoleAllowedIpv6": V6},
    "ipv6 only": {"ConsoleAllowedIpv6": V6},
    "host and ipv4": {"ConsoleHostName": CONSOLE_HOST, "ConsoleAllowedIpv4": V4},
    "host and both families": {"ConsoleHostName": CONSOLE_HOST, "ConsoleAllowedIpv4": V4, "ConsoleAllowedIpv6": V6},
}


def door(waf, params):
    """(created resources, the web ACL's properties, the IP sets' networks by logical id) of a
    deploy with these parameter values."""
    made = created(waf, params)
    props = resolve(waf, waf["Resources"]["WebAcl"]["Properties"], params, refs=True)
    ipsets = {
        n: resolve(waf, waf["Resources"][n]["Properties"]["Addresses"], params, refs=True)
        for n in made if waf["Resources"][n]["Type"] == "AWS::WAFv2::IPSet"
    }
    return made, props, ipsets


def verdict(props, ipsets, path, host, ip, method="GET"):
    """The door rule that blocks this request first (priority order), or None."""
    request = {"path": path, "method": method, "labels": set(), "host": host, "ip": ip, "ipsets": ipsets}
    for rule in sorted(props["Rules"], key=lambda r: r["Priority"]):
        if rule["Name"] in DOOR_RULES and matches(rule["Statement"], request):
            return rule["Name"]
    return None


def console_routes():
    return {i: f for i, f in route_facts().items() if f["auth"].startswith("console:")}


# The web app's console screens (web/src/app/router.tsx: `/:language/admin/*`; a first segment
# that is not a locale is sent on to the detected locale's, so /admin and /zh/admin open it too).
CONSOLE_SCREENS = ["/zh-CN/admin", "/en-US/admin/", "/zh-CN/admin/accounts/u1", "/en-US/admin/apps/a1",
                   "/en-US/admin/audit", "/admin", "/admin/roles", "/zh/admin", "/en-GB/admin/overview"]


def screen_variants(path):
    """Spellings of a screen's path that reach the same screen (the last segment's first letter
    %-encoded, upper case, a double slash, dot segments)."""
    head, _, last = path.rstrip("/").rpartition("/")
    return [path, path.upper(), f"{head}/%{ord(last[0]):02X}{last[1:]}", path.replace("/", "//", 1),
            path.replace("/", "/./x/../", 1), "/x/.." + path]


def console_paths():
    """Every console route of infra/routes.json and every console screen, in every spelling."""
    paths = [v for f in console_routes().values() for v in variants(sample_path(f["path"]))]
    return paths + [v for s in CONSOLE_SCREENS for v in screen_variants(s)]


def test_the_console_routes_are_read_from_the_route_table():
    routes = {(f["method"], f["path"]) for f in console_routes().values()}
    assert len(routes) >= 30
    assert ("POST", "/ciam/v1/admin/apps/{appId}/webhooks/{endpointId}/replay") in routes
    assert all(p.startswith("/ciam/v1/admin/") for _, p in routes)


def test_without_a_console_host_or_list_nothing_of_the_door_exists(waf):
    made, props, ipsets = door(waf, {})
    assert not DOOR_RULES & {r["Name"] for r in props["Rules"]}
    assert not ipsets and {"ConsoleAllowedIpv4Set", "ConsoleAllowedIpv6Set"}.isdisjoint(made)
    expected = {
        "host": ({"ConsoleDoor", "ConsoleHostOnly"}, set()),
        "both families": ({"ConsoleDoor"}, {"ConsoleAllowedIpv4Set", "ConsoleAllowedIpv6Set"}),
        "ipv6 only": ({"ConsoleDoor"}, {"ConsoleAllowedIpv6Set"}),
        "host and ipv4": ({"ConsoleDoor", "ConsoleHostOnly"}, {"ConsoleAllowedIpv4Set"}),
        "host and both families": ({"ConsoleDoor", "ConsoleHostOnly"}, {"ConsoleAllowedIpv4Set", "ConsoleAllowedIpv6Set"}),
    }
    for name, params in DOOR_SCENARIOS.items():
        made, props, ipsets = door(waf, params)
        rules, sets = expected[name]
        assert DOOR_RULES & {r["Name"] for r in props["Rules"]} == rules, name
        assert set(ipsets) == sets, name


def test_the_ip_sets_hold_one_family_each_and_the_parameters_take_cidrs(waf):
    for name, version, param in [("ConsoleAllowedIpv4Set", "IPV4", "ConsoleAllowedIpv4"),
                                 ("ConsoleAllowedIpv6Set", "IPV6", "ConsoleAllowedIpv6")]:
        p = waf["Resources"][name]["Properties"]
        assert (p["Scope"], p["IPAddressVersion"], p["Addresses"]) == ("CLOUDFRONT", version, {"Ref": param})
        assert waf["Parameters"][param]["Type"] == "CommaDelimitedList"
    ok = {"ConsoleAllowedIpv4": ["203.0.113.0/24", "198.51.100.7/32", "10.0.0.0/8", ""],
          "ConsoleAllowedIpv6": ["2001:db8:c0::/48", "2001:db8::1/128", "::ffff:0:0/96", ""]}
    bad = {"ConsoleAllowedIpv4": ["203.0.113.0", "203.0.113.0/33", "0.0.0.0/0", "256.1.1.1/32", "2001:db8::/32"],
           "ConsoleAllowedIpv6": ["2001:db8::", "2001:db8::/129", "::/0", "2001:DB8::/32", "203.0.113.0/24"]}
    for param in ok:
        pattern = waf["Parameters"][param]["AllowedPattern"]
        for value in ok[param]:
            assert re.fullmatch(pattern, value), (param, value)
        for value in bad[param]:
            assert not re.fullmatch(pattern, value), (param, value)


def test_the_door_comes_after_the_rate_rules_and_before_the_managed_groups(waf):
    _, props, _ = door(waf, DOOR_SCENARIOS["host and both families"])
    priorities = [r["Priority"] for r in props["Rules"]]
    assert len(priorities) == len(set(priorities))
    doors = [r for r in props["Rules"] if r["Name"] in DOOR_RULES]
    assert all(max(r["Priority"] for r in rate_rules(props)) < d["Priority"] < min(
        r["Priority"] for r in managed_groups(props).values() if r["Name"] != "AwsIpReputation") for d in doors)
    bodies = props["CustomResponseBodies"]
    for d in doors:
        block = d["Action"]["Block"]["CustomResponse"]
        assert block["CustomResponseBodyKey"] in bodies
        assert f'"code":{block["ResponseCode"]}' in bodies[block["CustomResponseBodyKey"]]["Content"]


@pytest.mark.parametrize("scenario", DOOR_SCENARIOS)
def test_the_console_answers_only_on_its_host_and_to_its_addresses(waf, scenario):
    """Every console route (auth console:*) and screen, in every spelling: passed to the console
    host from inside the list; blocked on another host or from outside it."""
    params = DOOR_SCENARIOS[scenario]
    _, props, ipsets = door(waf, params)
    host = params.get("ConsoleHostName")
    families = [i for i, p in enumerate(["ConsoleAllowedIpv4", "ConsoleAllowedIpv6"]) if p in params]
    inside = [INSIDE[i] for i in families] if families else INSIDE + OUTSIDE
    outside = [a for a in INSIDE + OUTSIDE if a not in inside]
    other_hosts = [PUBLIC_HOST, CLOUDFRONT_HOST, "Console.Example.com", f"{CONSOLE_HOST}:443"] if host else []
    for path in console_paths():
        for ip in inside:
            assert verdict(props, ipsets, path, host or PUBLIC_HOST, ip) is None, (path, ip)
            for other in other_hosts:
                assert verdict(props, ipsets, path, other, ip) == "ConsoleDoor", (path, other)
        for ip in outside:
            assert verdict(props, ipsets, path, host or PUBLIC_HOST, ip) == "ConsoleDoor", (path, ip)


@pytest.mark.parametrize("scenario", DOOR_SCENARIOS)
def test_every_other_route_and_screen_of_the_public_host_is_left_alone(waf, scenario):
    _, props, ipsets = door(waf, DOOR_SCENARIOS[scenario])
    others = [v for i, f in route_facts().items() if i not in console_routes() for v in variants(sample_path(f["path"]))]
    screens = ["/", "/index.html", "/assets/index-3f2a.js", "/favicon.ico", "/zh-CN/passport/signin",
               "/en-US/passport/register", "/zh-CN/personal/info", "/en-US/administrator", "/zh-CN/admins",
               "/zh-CN/personal/admin", "/zh-CN/embedded/signin", "/ciam/v1/administrator"]
    for path in others + screens:
        for host in (PUBLIC_HOST, CLOUDFRONT_HOST):
            for ip in INSIDE + OUTSIDE:
                assert verdict(props, ipsets, path, host, ip) is None, (path, host, ip)


# What the console host serves besides the console (ConsoleHostOnly): what an operator's
# browser needs to sign in there and to prove itself again. Every other route is refused there.
CONSOLE_HOST_SERVES = {
    "/ciam/v1/auth/login/password", "/ciam/v1/auth/login/code", "/ciam/v1/auth/login/totp",
    "/ciam/v1/auth/login/staff", "/ciam/v1/auth/login/passkey", "/ciam/v1/auth/login/passkey/options",
    "/ciam/v1/auth/login/passkey/mfa", "/ciam/v1/auth/login/passkey/mfa/options",
    "/ciam/v1/auth/staff/start", "/ciam/v1/auth/staff/callback", "/ciam/v1/auth/unlockCode",
    "/ciam/v1/auth/identity", "/ciam/v1/auth/captcha", "/ciam/v1/auth/location", "/ciam/v1/auth/info",
    "/ciam/v1/auth/logout", "/ciam/v1/auth/totp/verify", "/ciam/v1/auth/reauth/passkey",
    "/ciam/v1/auth/reauth/passkey/options", "/ciam/v1/app/language/{language}", "/ciam/v1/avatar/{key}",
    "/ciam/v1/client-errors",
}
CONSOLE_HOST_SCREENS = ["/", "/index.html", "/assets/console-3f2a.js", "/assets/fonts/a.woff2", "/favicon.ico",
                        "/zh-CN", "/en-US/", "/zh-CN/passport/signin", "/en-US/logout"]
# Never on the console host: sign-up, partners' sign-in (OpenID Connect, tickets, the embedded
# page) and the customer's own pages.
NOT_ON_THE_CONSOLE_HOST = ["/zh-CN/passport/register", "/en-US/passport/authorize", "/zh-CN/passport/end-session",
                           "/en-US/personal/info", "/zh-CN/personal/secure", "/zh-CN/embedded/signin",
                           "/en-US/find/password", "/zh-CN/agreement/privacy", "/.well-known/openid-configuration"]


def test_the_console_host_serving_list_covers_what_the_sign_in_and_the_fresh_proof_call():
    paths = {f["path"] for f in route_facts().values()}
    assert CONSOLE_HOST_SERVES <= paths
    # Every way of signing in (each row with a sign-in kind) is in it, but the rows every linking
    # provider shares (kind `*`: WeChat, DingTalk, ...), a customer's ways in, never an operator's.
    signing_in = {f["path"] for f in route_facts().values() if f["signIn"] and f["signIn"] != "*"}
    assert signing_in <= CONSOLE_HOST_SERVES
    for partner in ("/ciam/v1/auth/register", "/ciam/v1/auth/login/token", "/ciam/v1/auth/login/token/verify",
                    "/ciam/v1/oidc/authorize", "/ciam/v1/oidc/token", "/{lang}/embedded/signin"):
        assert partner in paths and partner not in CONSOLE_HOST_SERVES


@pytest.mark.parametrize("scenario", ["host", "host and ipv4", "host and both families"])
def test_the_console_host_serves_only_the_console_and_never_a_second_public_sign_in(waf, scenario):
    params = DOOR_SCENARIOS[scenario]
    _, props, ipsets = door(waf, params)
    families = [i for i, p in enumerate(["ConsoleAllowedIpv4", "ConsoleAllowedIpv6"]) if p in params]
    inside = [INSIDE[i] for i in families] if families else INSIDE + OUTSIDE
    outside = [a for a in INSIDE + OUTSIDE if a not in inside]
    served = [v for p in CONSOLE_HOST_SERVES for v in variants(sample_path(p))] + CONSOLE_HOST_SCREENS
    refused = [v for i, f in route_facts().items()
               if i not in console_routes() and f["path"] and f["path"] not in CONSOLE_HOST_SERVES
               for v in variants(sample_path(f["path"]))]
    refused += [v for s in NOT_ON_THE_CONSOLE_HOST for v in screen_variants(s)]
    for ip in inside:
        for path in served:
            assert verdict(props, ipsets, path, CONSOLE_HOST, ip) is None, (path, ip)
        for path in refused:
            assert verdict(props, ipsets, path, CONSOLE_HOST, ip) == "ConsoleHostOnly", (path, ip)
    # From outside the list nothing at all on the console host.
    for ip in outside:
        for path in served + refused:
            assert verdict(props, ipsets, path, CONSOLE_HOST, ip) == "ConsoleHostOnly", (path, ip)
        for path in console_paths():
            assert verdict(props, ipsets, path, CONSOLE_HOST, ip) == "ConsoleDoor", (path, ip)


def test_the_door_s_paths_are_compared_as_every_other_rule_s(waf):
    """Decoded, normalised, lower-cased (the header's rule); the host exactly as sent."""
    _, props, _ = door(waf, DOOR_SCENARIOS["host and both families"])
    for rule in (r for r in props["Rules"] if r["Name"] in DOOR_RULES):
        for v in walk(rule["Statement"]):
            if isinstance(v, dict) and "ByteMatchStatement" in v and "SingleHeader" in v["ByteMatchStatement"]["FieldToMatch"]:
                body = v["ByteMatchStatement"]
                assert (body["SearchString"], body["PositionalConstraint"]) == (CONSOLE_HOST, "EXACTLY")
                assert body["TextTransformations"] == [{"Priority": 0, "Type": "NONE"}]
            if isinstance(v, dict) and "RegexMatchStatement" in v:
                assert len(v["RegexMatchStatement"]["RegexString"]) <= 512, "WAF's limit of a regex"


# --- template.yaml: the console's host name is the distribution's second name --------------

CONSOLE_ON_DOMAIN = {
    "DomainName": "login.example.com",
    "CertificateArn": "arn:aws:acm:us-east-1:123456789012:certificate/0f1e2d3c-aaaa-bbbb-cccc-000000000001",
    "ConsoleHostName": CONSOLE_HOST,
    "WebAclArn": ARN,
    "Environment": "test",
}


@pytest.mark.parametrize("which", ["template", "transformed"])
def test_the_console_host_name_is_added_to_the_distribution_s_names(which, request):
    template = request.getfixturevalue(which)
    aliases = template["Resources"]["Distribution"]["Properties"]["DistributionConfig"]["Aliases"]
    assert resolve(template, [aliases], {}, refs=True) == []
    domain_only = {k: v for k, v in CONSOLE_ON_DOMAIN.items() if k != "ConsoleHostName"}
    assert resolve(template, aliases, domain_only, refs=True) == ["login.example.com"]
    assert resolve(template, aliases, CONSOLE_ON_DOMAIN, refs=True) == ["login.example.com", CONSOLE_HOST]
    assert refusals(template, CONSOLE_ON_DOMAIN) == []


def test_a_console_host_name_needs_the_domain_and_a_certificate_for_both(template, waf):
    param = template["Parameters"]["ConsoleHostName"]
    assert param["Default"] == ""
    # The same names are accepted by both stacks (deploy.sh passes one value to both).
    assert param["AllowedPattern"] == waf["Parameters"]["ConsoleHostName"]["AllowedPattern"]
    description = " ".join(param["Description"].split())
    assert "must cover both names" in description and "infra/waf.yaml" in description
    refused = refusals(template, {"ConsoleHostName": CONSOLE_HOST, "Environment": "test", "WebAclArn": ARN})
    assert len(refused) == 1 and "needs DomainName and CertificateArn" in refused[0]
    refused = refusals(template, {**CONSOLE_ON_DOMAIN, "ConsoleHostName": "login.example.com"})
    assert refused == ["ConsoleHostName is a second host name, not DomainName itself."]
    # The door is the web ACL's rules: a console host without the web ACL (a test stack) would
    # be one more public host, and is refused.
    refused = refusals(template, {**CONSOLE_ON_DOMAIN, "WebAclArn": ""})
    assert len(refused) == 1 and "needs the web ACL (WebAclArn)" in refused[0]
