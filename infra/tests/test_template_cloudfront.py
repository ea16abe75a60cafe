"""CloudFront: one door (the origin header from the secret), one response headers policy with
the values of infra/security-headers.json on every behaviour, the domain and its TLS floor,
IPv6, the price class, the web ACL and the access logs."""

import json

import pytest

from template_facts import ROOT, console_on

HEADERS_FILE = ROOT / "infra" / "security-headers.json"


@pytest.fixture(scope="module")
def distribution(template):
    return console_on(template["Resources"]["Distribution"]["Properties"]["DistributionConfig"])


def behaviours(distribution):
    return [distribution["DefaultCacheBehavior"], *distribution["CacheBehaviors"]]


def headers_of(policy):
    """The response headers a ResponseHeadersPolicy sets, as name -> (value, override)."""
    config = policy["Properties"]["ResponseHeadersPolicyConfig"]
    security = config.get("SecurityHeadersConfig", {})
    out = {}
    if "ContentSecurityPolicy" in security:
        c = security["ContentSecurityPolicy"]
        out["Content-Security-Policy"] = (c["ContentSecurityPolicy"], c["Override"])
    if "ReferrerPolicy" in security:
        c = security["ReferrerPolicy"]
        out["Referrer-Policy"] = (c["ReferrerPolicy"], c["Override"])
    if "StrictTransportSecurity" in security:
        c = security["StrictTransportSecurity"]
        value = f"max-age={c['AccessControlMaxAgeSec']}"
        if c.get("IncludeSubdomains"):
            value += "; includeSubDomains"
        if c.get("Preload"):
            value += "; preload"
        out["Strict-Transport-Security"] = (value, c["Override"])
    if "ContentTypeOptions" in security:
        out["X-Content-Type-Options"] = ("nosniff", security["ContentTypeOptions"]["Override"])
    if "FrameOptions" in security:
        c = security["FrameOptions"]
        out["X-Frame-Options"] = (c["FrameOption"], c["Override"])
    if "XSSProtection" in security:
        out["X-XSS-Protection"] = ("(set)", security["XSSProtection"]["Override"])
    for item in config.get("CustomHeadersConfig", {}).get("Items", []):
        out[item["Header"]] = (item["Value"], item["Override"])
    return out


def test_one_headers_policy_carries_exactly_the_values_of_security_headers_json(template):
    wanted = json.loads(HEADERS_FILE.read_text())
    policies = {n: r for n, r in template["Resources"].items() if r["Type"] == "AWS::CloudFront::ResponseHeadersPolicy"}
    assert list(policies) == ["SecurityHeaders"]
    got = headers_of(policies["SecurityHeaders"])
    assert {k: v for k, (v, _) in got.items()} == wanted
    # The embedded page's own CSP (its app's frame-ancestors) must pass through; every other
    # header is CloudFront's.
    assert got["Content-Security-Policy"][1] is False
    assert all(override for name, (_, override) in got.items() if name != "Content-Security-Policy")


def test_every_behaviour_uses_the_headers_policy(distribution):
    paths = ["default"] + [b["PathPattern"] for b in distribution["CacheBehaviors"]]
    assert {"/ciam/*", "/zh-CN/embedded/*", "/en-US/embedded/*"} <= set(paths)
    for path, b in zip(paths, behaviours(distribution)):
        assert b.get("ResponseHeadersPolicyId") == {"Ref": "SecurityHeaders"}, path


def test_cloudfront_sends_the_origin_header_from_the_secret_to_the_api_only(template, distribution):
    origins = {o["Id"]: o for o in distribution["Origins"]}
    header = [
        {
            "HeaderName": "X-Ciam-Origin-Verify",
            "HeaderValue": {"Fn::Sub": "{{resolve:secretsmanager:${OriginSecret}:SecretString:originVerify}}"},
        }
    ]
    assert origins["api"]["OriginCustomHeaders"] == header
    assert origins["sign-in"]["OriginCustomHeaders"] == header
    assert origins["console"]["OriginCustomHeaders"] == header
    assert origins["org"]["OriginCustomHeaders"] == header
    assert "OriginCustomHeaders" not in origins["web"]
    # The console's own API (its nested stack, infra/console.yaml).
    assert origins["console"]["DomainName"] == {"Fn::GetAtt": ["ConsoleStack", "Outputs.ApiDomain"]}
    # "My company"'s own API (the organizations' nested stack, infra/org.yaml).
    assert origins["org"]["DomainName"] == {"Fn::GetAtt": ["OrgStack", "Outputs.ApiDomain"]}
    # Every behaviour that reaches the API goes through one of those three origins: the password
    # sign-in through its function URL and the console's paths to its API (each first, so
    # /ciam/* does not shadow it), the rest the API.
    ordered = [b.get("PathPattern") for b in behaviours(distribution)]
    assert ordered.index("/ciam/v1/auth/login/password") < ordered.index("/ciam/*")
    assert ordered.index("/ciam/v1/admin/*") < ordered.index("/ciam/*")
    assert ordered.index("/ciam/v1/org/*") < ordered.index("/ciam/*")
    for b in behaviours(distribution):
        path = b.get("PathPattern", "")
        if path == "/ciam/v1/auth/login/password":
            assert b["TargetOriginId"] == "sign-in"
        elif path == "/ciam/v1/admin/*":
            assert b["TargetOriginId"] == "console"
            assert b["AllowedMethods"] == ["GET", "HEAD", "OPTIONS", "PUT", "POST", "PATCH", "DELETE"]
            assert b["CachePolicyId"] == "4135ea2d-6df8-44a3-9df3-4b5a84be39ad"
        elif path == "/ciam/v1/org/*":
            assert b["TargetOriginId"] == "org"
            assert b["AllowedMethods"] == ["GET", "HEAD", "OPTIONS", "PUT", "POST", "PATCH", "DELETE"]
            assert b["CachePolicyId"] == "4135ea2d-6df8-44a3-9df3-4b5a84be39ad"
        elif path.startswith(("/ciam/", "/zh-CN/embedded", "/en-US/embedded")):
            assert b["TargetOriginId"] == "api"
    assert "ApiUrl" not in template["Outputs"]


def test_the_sign_in_function_url_is_public_but_the_function_wants_cloudfronts_header(
    template, transformed, distribution
):
    """The URL is as reachable as the API's own endpoint; the origin header check (every
    function refuses a request without it, functions/lambdas/src/origin.rs) keeps it one door."""
    fn = template["Resources"]["AuthLoginPasswordFunction"]["Properties"]
    assert fn["FunctionUrlConfig"] == {"AuthType": "NONE", "InvokeMode": "BUFFERED"}
    assert "CIAM_ORIGIN_SECRET_ARN" in template["Globals"]["Function"]["Environment"]["Variables"]
    origin = {o["Id"]: o for o in distribution["Origins"]}["sign-in"]
    assert origin["CustomOriginConfig"]["OriginProtocolPolicy"] == "https-only"
    assert origin["DomainName"] == {
        "Fn::Select": [2, {"Fn::Split": ["/", {"Fn::GetAtt": ["AuthLoginPasswordFunctionUrl", "FunctionUrl"]}]}]
    }
    resources = transformed["Resources"]
    assert resources["AuthLoginPasswordFunctionUrl"]["Type"] == "AWS::Lambda::Url"
    # Only this function has a URL.
    urls = [n for n, r in resources.items() if r["Type"] == "AWS::Lambda::Url"]
    assert urls == ["AuthLoginPasswordFunctionUrl"]
    # The function is deployed gradually (a canary on the alias live): the URL calls the alias,
    # so CloudFront's sign-ins move with CodeDeploy's traffic shift like the API's.
    alias = {"Ref": "AuthLoginPasswordFunctionAliaslive"}
    assert resources["AuthLoginPasswordFunctionUrl"]["Properties"]["TargetFunctionArn"] == alias
    assert resources["AuthLoginPasswordFunctionAliaslive"]["Properties"]["Name"] == "live"
    # Both permissions a public URL needs (lambda:InvokeFunctionUrl, and lambda:InvokeFunction
    # only via the URL), on the alias the URL calls.
    grants = [
        r["Properties"]
        for r in resources.values()
        if r["Type"] == "AWS::Lambda::Permission"
        and r["Properties"].get("FunctionName") == alias
        and r["Properties"].get("Principal") == "*"
    ]
    assert {g["Action"] for g in grants} == {"lambda:InvokeFunctionUrl", "lambda:InvokeFunction"}
    via_url = [g for g in grants if g["Action"] == "lambda:InvokeFunction"]
    assert via_url[0].get("InvokedViaFunctionUrl") is True


def test_ipv6_is_on_and_the_price_class_defaults_to_every_edge(template, distribution):
    assert distribution["IPV6Enabled"] is True
    assert distribution["PriceClass"] == {"Ref": "PriceClass"}
    assert template["Parameters"]["PriceClass"]["Default"] == "PriceClass_All"


def test_an_own_domain_brings_its_certificate_with_tls_1_2_at_least(template, distribution):
    conditions = template["Conditions"]
    assert conditions["HasDomain"] == {"Fn::Not": [{"Fn::Equals": [{"Ref": "DomainName"}, ""]}]}
    assert conditions["HasCertificate"] == {"Fn::Not": [{"Fn::Equals": [{"Ref": "CertificateArn"}, ""]}]}
    # The two parameters come together or not at all.
    rules = template["Rules"]
    assert rules["DomainNeedsCertificate"]["RuleCondition"] == conditions["HasDomain"]
    assert rules["CertificateNeedsDomain"]["RuleCondition"] == conditions["HasCertificate"]
    # The console's host name (issue 30) is a second alias, only beside DomainName
    # (test_template_waf.py evaluates it).
    assert distribution["Aliases"] == {"Fn::If": [
        "HasDomain",
        {"Fn::If": ["HasConsoleHost", [{"Ref": "DomainName"}, {"Ref": "ConsoleHostName"}], [{"Ref": "DomainName"}]]},
        {"Ref": "AWS::NoValue"},
    ]}
    cond, own, default = distribution["ViewerCertificate"]["Fn::If"]
    assert cond == "HasCertificate"
    assert own == {
        "AcmCertificateArn": {"Ref": "CertificateArn"},
        "SslSupportMethod": "sni-only",
        "MinimumProtocolVersion": "TLSv1.2_2021",
    }
    assert default == {"CloudFrontDefaultCertificate": True}


def test_the_issuer_and_the_public_url_follow_the_domain(template):
    public_url = template["Globals"]["Function"]["Environment"]["Variables"]["CIAM_PUBLIC_URL"]
    assert public_url == {"Fn::If": ["HasDomain", {"Fn::Sub": "https://${DomainName}"}, {"Ref": "PublicBaseUrl"}]}
    output = template["Outputs"]["PublicUrl"]["Value"]
    assert output["Fn::If"][0] == "HasDomain"
    assert output["Fn::If"][1] == {"Fn::Sub": "https://${DomainName}"}
    for name in ("WebBucketName", "DistributionId", "PublicUrl"):
        assert name in template["Outputs"], name


def test_the_web_acl_is_optional_and_attached_when_given(template, distribution):
    assert template["Parameters"]["WebAclArn"]["Default"] == ""
    assert distribution["WebACLId"] == {"Fn::If": ["HasWebAcl", {"Ref": "WebAclArn"}, {"Ref": "AWS::NoValue"}]}


def test_access_logs_go_to_a_private_logs_bucket_that_forgets(template, distribution):
    # Logged wherever CloudFront can deliver to the stack's Region, nothing in the others.
    condition, logging, otherwise = distribution["Logging"]["Fn::If"]
    assert condition == "CloudFrontLogsDeliverable"
    assert otherwise == {"Ref": "AWS::NoValue"}
    assert logging["Bucket"] == {"Fn::GetAtt": ["LogsBucket", "DomainName"]}
    assert logging["IncludeCookies"] is False
    bucket = template["Resources"]["LogsBucket"]["Properties"]
    # Legacy logging writes with an ACL grant: ACLs must be enabled, objects stay ours.
    assert bucket["OwnershipControls"]["Rules"] == [{"ObjectOwnership": "BucketOwnerPreferred"}]
    assert all(bucket["PublicAccessBlockConfiguration"].values())
    [rule] = bucket["LifecycleConfiguration"]["Rules"]
    assert rule["Status"] == "Enabled"
    assert rule["ExpirationInDays"] == {"Ref": "CdnLogRetentionDays"}


def test_the_production_csp_loads_no_image_from_loopback(transformed):
    """CloudFront's CSP (and the file's, which the Lambdas send) names no loopback source:
    `ciam serve` adds http://localhost:* and http://127.0.0.1:* for development only."""
    (policy,) = [r for r in transformed["Resources"].values() if r["Type"] == "AWS::CloudFront::ResponseHeadersPolicy"]
    csp, _ = headers_of(policy)["Content-Security-Policy"]
    img = [d for d in csp.split("; ") if d.startswith("img-src ")]
    assert img == ["img-src 'self' data: blob: https:"], csp
    for loopback in ("localhost", "127.0.0.1", "[::1]", "http:"):
        assert loopback not in csp
        assert loopback not in json.loads(HEADERS_FILE.read_text())["Content-Security-Policy"]


def test_avatars_are_cached_at_the_edge_for_a_day_with_nothing_of_the_viewer_in_the_key(transformed):
    resources = transformed["Resources"]
    config = console_on(resources["Distribution"]["Properties"]["DistributionConfig"])
    ordered = [b["PathPattern"] for b in config["CacheBehaviors"]]
    assert ordered.index("/ciam/v1/avatar/*") < ordered.index("/ciam/*"), "not shadowed by /ciam/*"
    (avatar,) = [b for b in config["CacheBehaviors"] if b["PathPattern"] == "/ciam/v1/avatar/*"]
    assert avatar["TargetOriginId"] == "api", "the origin that carries the origin header"
    assert sorted(avatar["AllowedMethods"]) == ["GET", "HEAD"] and sorted(avatar["CachedMethods"]) == ["GET", "HEAD"]
    assert avatar["ResponseHeadersPolicyId"] == {"Ref": "SecurityHeaders"}
    assert "OriginRequestPolicyId" not in avatar, "nothing of the viewer is forwarded"
    policy = resources[avatar["CachePolicyId"]["Ref"]]
    assert policy["Type"] == "AWS::CloudFront::CachePolicy"
    c = policy["Properties"]["CachePolicyConfig"]
    # The origin's `immutable` year is capped to a day at the edge: a deleted avatar leaves it.
    assert (c["MinTTL"], c["DefaultTTL"], c["MaxTTL"]) == (0, 86400, 86400)
    key = c["ParametersInCacheKeyAndForwardedToOrigin"]
    assert key["HeadersConfig"] == {"HeaderBehavior": "none"}
    assert key["CookiesConfig"] == {"CookieBehavior": "none"}
    assert key["QueryStringsConfig"] == {"QueryStringBehavior": "none"}
    # Every other /ciam behaviour stays uncached.
    for b in config["CacheBehaviors"]:
        if b["PathPattern"] != "/ciam/v1/avatar/*":
            assert b["CachePolicyId"] == "4135ea2d-6df8-44a3-9df3-4b5a84be39ad", b["PathPattern"]


def test_the_default_route_sends_unknown_paths_to_the_version_function(transformed):
    """API Gateway's `$default` route: a path no route matches reaches the version function,
    whose router answers Ciam's own 404 body (functions/lambdas/tests/lambda_runtime.rs), and
    API Gateway may invoke it there."""
    resources = transformed["Resources"]
    body = resources["Api"]["Properties"]["Body"]
    default = body["paths"]["$default"]["x-amazon-apigateway-any-method"]
    assert default["isDefaultRoute"] is True
    integration = default["x-amazon-apigateway-integration"]
    assert (integration["type"], integration["payloadFormatVersion"]) == ("aws_proxy", "2.0")
    assert "${VersionFunction.Arn}" in integration["uri"]["Fn::Sub"]
    assert resources["VersionFunction"]["Properties"]["Environment"]["Variables"]["CIAM_ROUTE"] == "version"
    # The functions' own routes are still there, SAM having added them to the definition.
    assert "get" in body["paths"]["/ciam/v1/version"] and len(body["paths"]) > 50
    grants = [
        r["Properties"]
        for r in resources.values()
        if r["Type"] == "AWS::Lambda::Permission" and r["Properties"]["FunctionName"] == {"Ref": "VersionFunction"}
    ]
    assert len(grants) == 1, "one grant covers both of the version function's routes"
    (grant,) = grants
    assert grant["Principal"] == "apigateway.amazonaws.com"
    assert grant["SourceArn"]["Fn::Sub"].endswith(":${Api}/*/*")
