"""The mainland China cell's per-client limits (issue 32 item 2; docs/multi-region.md "Per-client
limits in the cn cell") cover what the global cell's web ACL (infra/waf.yaml) covers: the routes
each per-IP rule counts are the routes the cn counter counts under that rule, every route a
function answers is under the blanket rule in both, and the limits and the window are the same
numbers. The cn counter's rules come from infra/routes.json (ciam-gen writes each row's `waf`
and `wafLimit` from `Waf::rule` and `Waf::limit`, and `blanket` from `ciam_api::waf::BLANKET`);
the Rust side applies exactly those (functions/api/src/lib.rs, `Waf::client_limits`), which
functions/api/tests/api/client_limits.rs exercises over HTTP."""

import json

from template_facts import ROOT
from test_template_waf import (
    BLANKET,
    SIGN_IN_CODES_SIGN_UP,
    acl,  # noqa: F401  (fixture)
    costly_anonymous_routes,
    matches,
    per_route_rules,
    rate_rules,
    route_facts,
    rules_by_name,
    sample_path,
    variants,
    waf,  # noqa: F401  (fixture)
)

ROUTES = json.loads((ROOT / "infra" / "routes.json").read_text())


def cn_rules(row):
    """The rules the cn counter counts a route's requests under: the blanket rule and its row's
    own (as `Waf::client_limits` builds them)."""
    return {ROUTES["blanket"]["rule"]} | ({row["waf"]} if row["waf"] else set())


def acl_rules(props, path):
    """The per-IP rules of the web ACL (per-route and blanket) whose scope counts `path`."""
    per_ip = per_route_rules(props) + [rules_by_name(props)[BLANKET]]
    return {r["Name"] for r in per_ip if matches(r["Statement"]["RateBasedStatement"]["ScopeDownStatement"], path)}


def test_each_route_is_counted_under_the_same_rules_in_both_cells(acl):  # noqa: F811
    _, props = acl
    assert ROUTES["blanket"]["rule"] == BLANKET
    for route, row in route_facts().items():
        for path in variants(sample_path(row["path"])):
            assert acl_rules(props, path) == cn_rules(row), f"{route} ({path})"


def test_the_routes_the_global_acl_limits_are_the_routes_the_cn_counter_limits(acl):  # noqa: F811
    """The two lists, rule by rule."""
    _, props = acl
    for rule in per_route_rules(props):
        scope = rule["Statement"]["RateBasedStatement"]["ScopeDownStatement"]
        global_routes = {i for i, r in route_facts().items() if matches(scope, sample_path(r["path"]))}
        cn_routes = {i for i, r in route_facts().items() if rule["Name"] in cn_rules(r)}
        assert global_routes == cn_routes, rule["Name"]
        assert global_routes, f"{rule['Name']} counts no route"
    # Every anonymous route that hashes, sends or stores has a rule of its own in the cn cell.
    for route, row in costly_anonymous_routes().items():
        assert row["waf"] and row["wafLimit"], route


def test_the_limits_and_the_window_are_the_web_acl_s(acl):  # noqa: F811
    template, props = acl
    default = lambda rule: int(  # noqa: E731
        template["Parameters"][rule["Statement"]["RateBasedStatement"]["Limit"]["Ref"]]["Default"]
    )
    by_name = rules_by_name(props)
    for route, row in route_facts().items():
        if row["waf"]:
            assert row["wafLimit"] == default(by_name[row["waf"]]), route
        else:
            assert row["wafLimit"] is None, route
    assert ROUTES["blanket"]["limit"] == default(by_name[BLANKET])
    for rule in rate_rules(props):
        assert rule["Statement"]["RateBasedStatement"]["EvaluationWindowSec"] == ROUTES["blanket"]["windowSecs"]


def test_the_ipv6_proof_scope_has_per_64_limits_in_the_cn_cell(acl):  # noqa: F811
    """The global cell's per-network rule counts sign-in, codes and sign-up whatever the
    address; in the cn cell each of those routes has its own rule, counted per IPv6 /64
    (`ciam_core::client_limits::client_key`)."""
    _, props = acl
    scope = rules_by_name(props)["RateSignInPerNetwork"]["Statement"]["RateBasedStatement"]["ScopeDownStatement"]
    for route, row in route_facts().items():
        if matches(scope, sample_path(row["path"])):
            assert row["waf"] in SIGN_IN_CODES_SIGN_UP, route
