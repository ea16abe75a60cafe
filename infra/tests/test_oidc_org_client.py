"""The organization in tokens (issue 35 item 5, docs/oidc.md "Organizations") with a Python
client library (Authlib), against a real `ciam serve`.

A person owns an organization (`ciam admin org-create`); Authlib runs the authorization code flow
with PKCE and the `organization` scope, the id_token is verified with the JWKS (joserfc) and must
carry `org_id` and `org_roles`, and userinfo (Authlib's session with the access token) says the
same. A CAS-style ticket app whose `organization` setting is `optional` gets `orgId` and
`orgRoles` from the ticket's verification. The consent screen's calls are made through the API,
as in test_oidc_logout_client.py (web/tests/e2e/oidc-org.test.mjs does the browser's part).

Needs the ciam binary: marked `serves_ciam` like its siblings.
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
import secrets
import shutil
import subprocess
import urllib.parse

import pytest
import requests
from test_oidc_logout_client import BIN, LIBRARY, ROOT, Ciam, _need

pytestmark = pytest.mark.serves_ciam

if LIBRARY is None:
    from authlib.integrations.requests_client import OAuth2Session
    from joserfc import jwt
    from joserfc.jwk import KeySet

RP = "https://org-rp.example.com"
CALLBACK = f"{RP}/cb"
TICKETS = f"{RP}/tickets"


@pytest.fixture(scope="module")
def ciam():
    _need(LIBRARY is None, LIBRARY or "")
    _need(BIN.exists(), f"the ciam binary at {BIN} (cargo build -p ciam-local --bin ciam)")
    server = Ciam()
    yield server
    server.stop()


def org_create(ciam: Ciam, owner: str, name: str) -> str:
    r = subprocess.run(
        [str(BIN), "admin", "org-create", owner, "--name-en", name, "--reason", "python e2e", "--data", ciam.data.name],
        capture_output=True,
        text=True,
    )
    assert r.returncode == 0, r.stderr + r.stdout
    org_id = r.stdout.strip()
    assert org_id.startswith("org_") and len(org_id) == 20, org_id
    return org_id


def test_authlib_finds_org_id_and_org_roles_in_the_id_token_and_userinfo(ciam):
    made = ciam.register_app(
        {"name": {"zh-CN": "组织示例", "en-US": "Org Example"}, "serviceUrls": [CALLBACK], "scopes": ["nickname"]}
    )
    app = {"id": made["app"]["appId"], "secret": made["appSecret"]}
    user = ciam.account("py-org")
    org_id = org_create(ciam, user["mail"], "Acme Python")

    meta = requests.get(f"{ciam.base}/ciam/v1/oidc/.well-known/openid-configuration", timeout=10).json()
    assert "organization" in meta["scopes_supported"]
    assert {"org_id", "org_roles"} <= set(meta["claims_supported"])
    oauth = OAuth2Session(
        app["id"],
        app["secret"],
        scope="openid nickname organization",
        redirect_uri=CALLBACK,
        code_challenge_method="S256",
        token_endpoint_auth_method="client_secret_basic",
    )
    verifier = secrets.token_urlsafe(48)
    nonce = secrets.token_urlsafe(16)
    url, _ = oauth.create_authorization_url(meta["authorization_endpoint"], code_verifier=verifier, nonce=nonce)
    r = requests.get(url, allow_redirects=False, timeout=10)
    assert r.status_code == 302, r.text
    request_id = urllib.parse.parse_qs(urllib.parse.urlparse(r.headers["location"]).query)["oidcRequest"][0]
    view = ciam.api("GET", f"/oidc/requests/{request_id}", token=user["token"]).json()
    assert [c["orgId"] for c in view["organization"]["choices"]] == [org_id]
    allow = ciam.api("POST", f"/oidc/requests/{request_id}", {}, user["token"])
    assert allow.status_code == 200, allow.text
    tokens = oauth.fetch_token(meta["token_endpoint"], authorization_response=allow.json()["redirect"], code_verifier=verifier)
    assert tokens["scope"] == "openid nickname organization"

    jwks = KeySet.import_key_set(requests.get(meta["jwks_uri"], timeout=10).json())
    claims = jwt.decode(tokens["id_token"], jwks, algorithms=["ES256"]).claims
    jwt.JWTClaimsRegistry(
        iss={"essential": True, "value": meta["issuer"]},
        aud={"essential": True, "value": app["id"]},
        nonce={"essential": True, "value": nonce},
        org_id={"essential": True, "value": org_id},
    ).validate(claims)
    assert claims["org_roles"] == ["owner"]

    info = oauth.get(meta["userinfo_endpoint"]).json()
    assert (info["org_id"], info["org_roles"]) == (org_id, ["owner"])


def test_a_ticket_app_that_asks_gets_the_organization(ciam):
    made = ciam.register_app(
        {
            "name": {"zh-CN": "票据组织", "en-US": "Ticket Org"},
            "serviceUrls": [TICKETS],
            "scopes": ["nickname"],
            "organization": "optional",
        }
    )
    app_id, secret = made["app"]["appId"], made["appSecret"]
    assert made["app"]["organization"] == "optional"
    user = ciam.account("py-ticket-org")
    org_id = org_create(ciam, user["mail"], "Ticket Co")
    ctx = ciam.api("GET", f"/auth/consent?appId={app_id}&serviceUrl={urllib.parse.quote(TICKETS, safe='')}", token=user["token"])
    assert ctx.status_code == 200, ctx.text
    assert ctx.json()["organization"]["choices"][0]["orgId"] == org_id
    issued = ciam.api("POST", "/auth/login/token", {"appId": app_id, "serviceUrl": TICKETS}, user["token"])
    assert issued.status_code == 200, issued.text
    v = requests.get(
        f"{ciam.base}/ciam/v1/auth/login/token/verify",
        params={"cTicket": issued.json()["cTicket"], "serviceUrl": TICKETS},
        auth=(app_id, secret),
        timeout=10,
    )
    assert v.status_code == 200, v.text
    assert (v.json()["orgId"], v.json()["orgRoles"]) == (org_id, ["owner"])


# The company's own sign-in (docs/organizations-connections.md §7): the person arrives through an
# organization's OpenID Connect connection to `oidc-provider`, started by the command line of
# web/tests/e2e/idp.mjs (Node and the repository's node_modules), and Authlib then finds the
# organization the company sign-in made them a member of.
IDP = ROOT / "web/tests/e2e/idp.mjs"
NODE = shutil.which("node")


@pytest.fixture(scope="module")
def company_idp(ciam):
    """`node web/tests/e2e/idp.mjs --config <json>`: an identity provider whose client is Ciam's
    company callback; its people by login. Stops when its stdin closes."""
    _need(NODE is not None, "node (the test identity provider is oidc-provider: web/tests/e2e/idp.mjs)")
    _need((ROOT / "node_modules/oidc-provider").exists(), "oidc-provider under node_modules (npm ci at the repo root)")
    secret = secrets.token_urlsafe(24)
    domain = f"acme-py-{secrets.token_hex(4)}.example"
    config = {
        "clients": [
            {
                "client_id": "ciam-acme-py",
                "client_secret": secret,
                "redirect_uris": [f"{ciam.base}/ciam/v1/auth/org/callback"],
            }
        ],
        "accounts": {
            login: {"email": f"{login}@{domain}", "email_verified": True, "name": login} for login in ("tester", "li.lei")
        },
    }
    proc = subprocess.Popen(
        [NODE, str(IDP), "--config", json.dumps(config)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        cwd=ROOT,
    )
    line = proc.stdout.readline()
    assert line, "idp.mjs printed no issuer"
    yield {"issuer": json.loads(line)["issuer"], "client_id": "ciam-acme-py", "secret": secret, "domain": domain}
    proc.stdin.close()
    try:
        proc.wait(5)
    except subprocess.TimeoutExpired:
        proc.kill()


def at_idp(url: str, login: str, session: requests.Session | None = None) -> str:
    """The person at the provider's development pages: types `login` (any password), continues on
    the consent page; answers the first address outside the provider (Ciam's callback)."""
    s = session or requests.Session()
    issuer = urllib.parse.urlsplit(url)._replace(path="", query="", fragment="").geturl()
    method, data = "GET", None
    for _ in range(12):
        r = s.request(method, url, data=data, allow_redirects=False, timeout=10)
        if "location" in r.headers:
            url = urllib.parse.urljoin(url, r.headers["location"])
            if not url.startswith(f"{issuer}/"):
                return url
            method, data = "GET", None
            continue
        assert r.status_code == 200, r.text[:500]
        action = re.search(r'<form[^>]*action="([^"]+)"[^>]*method="post"', r.text)
        prompt = re.search(r'name="prompt" value="([a-z]+)"', r.text)
        assert action and prompt, r.text[:500]
        data = {"prompt": prompt.group(1)}
        if data["prompt"] == "login":
            data.update(login=login, password="anything")
        method, url = "POST", urllib.parse.urljoin(url, action.group(1).replace("&amp;", "&"))
    raise AssertionError(f"the provider kept the person past 12 steps ({url})")


def test_authlib_finds_the_organization_of_a_company_sign_in(ciam, company_idp):
    idp, domain = company_idp, company_idp["domain"]
    boss = ciam.account("py-org-boss")
    org_id = org_create(ciam, boss["mail"], "Acme Company Py")
    # The domain verified on the operator's word; the placeholder connection that comes with it
    # deleted: the connection is the API's.
    r = subprocess.run(
        [str(BIN), "admin", "org-sign-in", domain, "--org", org_id, "--name-en", "Placeholder", "--verify"]
        + ["--reason", "python e2e: verify", "--data", ciam.data.name],
        capture_output=True,
        text=True,
    )
    assert r.returncode == 0, r.stderr + r.stdout
    gone = ciam.api("DELETE", f"/org/{org_id}/connections/{r.stdout.strip()}", token=boss["token"])
    assert gone.status_code == 200, gone.text
    made = ciam.api(
        "POST",
        f"/org/{org_id}/connections",
        {
            "protocol": "oidc",
            "nameEn": "Acme sign-in",
            "settings": {"issuer": idp["issuer"], "clientId": idp["client_id"]},
            "secret": idp["secret"],
            "jit": "join",
        },
        boss["token"],
    )
    assert made.status_code == 201, made.text
    conn = made.json()["connId"]
    path = f"/org/{org_id}/connections/{conn}"
    # Tested at the provider (nobody signed in), then on, the domain routed to it.
    test = ciam.api("POST", f"{path}/test", {}, boss["token"])
    assert test.status_code == 200, test.text
    page = requests.get(at_idp(test.json()["url"], "tester"), allow_redirects=False, timeout=10)
    assert page.status_code == 200 and f"tester@{domain}" in page.text, page.text
    assert ciam.api("GET", path, token=boss["token"]).json()["status"] == "tested"
    assert ciam.api("PATCH", path, {"on": True}, boss["token"]).json()["status"] == "on"
    routed = ciam.api("PUT", f"/org/{org_id}/domains/{domain}/sign-in", {"connId": conn, "required": True}, boss["token"])
    assert routed.status_code == 200, routed.text
    found = ciam.api("POST", "/auth/org/discover", {"mail": f"li.lei@{domain}"}).json()
    assert (found["connection"]["id"], found["required"]) == (conn, True)

    # A new colleague: start -> the provider -> callback -> orgCode -> a session, a member now.
    bind = secrets.token_urlsafe(32)
    bind_hash = base64.urlsafe_b64encode(hashlib.sha256(bind.encode()).digest()).rstrip(b"=").decode()
    start = requests.get(
        f"{ciam.base}/ciam/v1/auth/org/start",
        params={"connection": conn, "lang": "en-US", "query": "", "bindHash": bind_hash},
        allow_redirects=False,
        timeout=10,
    )
    assert start.status_code == 302 and start.headers["location"].startswith(f"{idp['issuer']}/"), start.text
    back = requests.get(at_idp(start.headers["location"], "li.lei"), allow_redirects=False, timeout=10)
    assert back.status_code == 302, back.text
    code = urllib.parse.parse_qs(urllib.parse.urlsplit(back.headers["location"]).query).get("orgCode")
    assert code, back.headers["location"]
    signed_in = ciam.api("POST", "/auth/login/federation", {"provider": "org", "code": code[0], "bind": bind})
    assert signed_in.status_code == 200, signed_in.text
    token = signed_in.json()["token"]
    user_id = ciam.api("GET", "/auth/info", token=token).json()["userId"]

    # Authlib, with the organization named (the session's organization, design §3, is not built).
    made = ciam.register_app(
        {"name": {"zh-CN": "公司示例", "en-US": "Company Example"}, "serviceUrls": [CALLBACK], "scopes": ["nickname"]}
    )
    app = {"id": made["app"]["appId"], "secret": made["appSecret"]}
    meta = requests.get(f"{ciam.base}/ciam/v1/oidc/.well-known/openid-configuration", timeout=10).json()
    oauth = OAuth2Session(
        app["id"],
        app["secret"],
        scope="openid nickname organization",
        redirect_uri=CALLBACK,
        code_challenge_method="S256",
        token_endpoint_auth_method="client_secret_basic",
    )
    verifier = secrets.token_urlsafe(48)
    nonce = secrets.token_urlsafe(16)
    url, _ = oauth.create_authorization_url(
        meta["authorization_endpoint"], code_verifier=verifier, nonce=nonce, organization=org_id
    )
    r = requests.get(url, allow_redirects=False, timeout=10)
    assert r.status_code == 302, r.text
    request_id = urllib.parse.parse_qs(urllib.parse.urlparse(r.headers["location"]).query)["oidcRequest"][0]
    view = ciam.api("GET", f"/oidc/requests/{request_id}", token=token).json()
    assert [c["orgId"] for c in view["organization"]["choices"]] == [org_id]
    allow = ciam.api("POST", f"/oidc/requests/{request_id}", {}, token)
    assert allow.status_code == 200, allow.text
    tokens = oauth.fetch_token(meta["token_endpoint"], authorization_response=allow.json()["redirect"], code_verifier=verifier)
    jwks = KeySet.import_key_set(requests.get(meta["jwks_uri"], timeout=10).json())
    claims = jwt.decode(tokens["id_token"], jwks, algorithms=["ES256"]).claims
    jwt.JWTClaimsRegistry(
        iss={"essential": True, "value": meta["issuer"]},
        aud={"essential": True, "value": app["id"]},
        sub={"essential": True, "value": user_id},
        nonce={"essential": True, "value": nonce},
        org_id={"essential": True, "value": org_id},
    ).validate(claims)
    assert claims["org_roles"] == ["member"]
    info = oauth.get(meta["userinfo_endpoint"]).json()
    assert (info["org_id"], info["org_roles"]) == (org_id, ["member"])
