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

import secrets
import subprocess
import urllib.parse

import pytest
import requests
from test_oidc_logout_client import BIN, LIBRARY, Ciam, _need

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
