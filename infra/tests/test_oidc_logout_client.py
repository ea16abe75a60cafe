"""OpenID Connect sign-in and RP-Initiated Logout with a Python client library (Authlib), against
a real `ciam serve` (issue 23).

Authlib's requests client runs the authorization code flow with PKCE (S256) and
client_secret_basic; the id_token is verified with the provider's JWKS (joserfc, Authlib's JOSE
library) and must carry the session's `sid`. The relying party then builds the logout URL on the
discovery's `end_session_endpoint` (id_token_hint, post_logout_redirect_uri, state) and follows
it: the endpoint hands the request to Ciam's end-session page, whose two calls this test makes as
the page does with the browser's session (no browser is needed: web/tests/e2e/oidc-logout.test.mjs
does the same in Chromium with openid-client). The session ends, the answer's redirect is the
registered URI with the state, and the old session token is refused; the session's Back-Channel
Logout token (`ciam admin logout-notices`, before the end) passes joserfc's checks with the JWKS. An unregistered
post_logout_redirect_uri is refused and nothing ends.

Needs the ciam binary (target/debug/ciam, built by the cargo test step): marked `serves_ciam`, so
scripts/test.sh runs it after that step, not in the infra group beside the build. With CI=true a
missing binary or library fails the test; elsewhere it is skipped with the reason.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import re
import secrets
import subprocess
import tempfile
import time
import urllib.parse
from pathlib import Path

import pytest
import requests

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(os.environ.get("CIAM_BIN", ROOT / "target/debug/ciam"))
CI = os.environ.get("CI", "").lower() in ("1", "true", "yes")
PASSWORD = "Ciam-Python-2026!"
pytestmark = pytest.mark.serves_ciam


def _need(ok: bool, why: str) -> None:
    if ok:
        return
    if CI:
        pytest.fail(why)
    pytest.skip(why)


try:  # the client library under test
    from authlib.common.urls import add_params_to_uri
    from authlib.integrations.requests_client import OAuth2Session
    from joserfc import jwt
    from joserfc.jwk import KeySet

    LIBRARY = None
except ImportError as e:  # pragma: no cover - reported by the test
    LIBRARY = f"authlib is not installed ({e}); pip install -r infra/requirements-dev.txt"


class Ciam:
    """A `ciam serve` on a free port with its own data folder and an empty web folder."""

    def __init__(self) -> None:
        self.data = tempfile.TemporaryDirectory(prefix="ciam-py-data-")
        self.web = tempfile.TemporaryDirectory(prefix="ciam-py-web-")
        Path(self.web.name, "index.html").write_text("<!doctype html><title>Ciam</title>")
        self.proc = subprocess.Popen(
            [str(BIN), "serve", "--addr", "127.0.0.1:0", "--data", self.data.name, "--web-dist", self.web.name],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            env={**os.environ, "CIAM_LOG": "warn"},
            text=True,
        )
        deadline = time.time() + 30
        log = ""
        while time.time() < deadline:
            line = self.proc.stdout.readline()
            if not line:
                break
            log += line
            m = re.search(r"serving (http://127\.0\.0\.1:\d+)/", line)
            if m:
                self.base = m.group(1)
                break
        else:
            self.stop()
            raise RuntimeError(f"ciam serve did not start:\n{log}")
        if not hasattr(self, "base"):
            self.stop()
            raise RuntimeError(f"ciam serve exited:\n{log}")
        # Drain the console (codes are printed there too) so the pipe never fills.
        import threading

        threading.Thread(target=lambda: [None for _ in self.proc.stdout], daemon=True).start()

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
        self.data.cleanup()
        self.web.cleanup()

    def api(self, method: str, path: str, body=None, token: str | None = None, **kw) -> requests.Response:
        headers = {"authorization": f"Bearer {token}"} if token else {}
        return requests.request(method, f"{self.base}/ciam/v1{path}", json=body, headers=headers, timeout=30, **kw)

    def captcha(self) -> str:
        c = self.api("GET", "/auth/captcha").json()
        for n in range(c["maxnumber"] + 1):
            if hashlib.sha256(f"{c['salt']}{n}".encode()).hexdigest() == c["challenge"]:
                payload = {k: c[k] for k in ("algorithm", "challenge", "salt", "signature")}
                payload["number"] = n
                return base64.b64encode(json.dumps(payload).encode()).decode()
        raise AssertionError("captcha: no solution")

    def code_for(self, to: str) -> str:
        for _ in range(150):
            hits = [e for e in requests.get(f"{self.base}/ciam/dev/outbox", timeout=10).json() if to in str(e.get("to"))]
            if hits:
                return hits[-1]["code"]
            time.sleep(0.1)
        raise AssertionError(f"no code for {to}")

    def account(self, tag: str) -> dict:
        mail = f"{tag}-{secrets.token_hex(4)}@example.com"
        r = self.api("POST", "/auth/identity", {"account": mail, "purpose": "register", "captcha": self.captcha()})
        assert r.status_code == 200, r.text
        reg = self.api(
            "POST",
            "/auth/register",
            {
                "userName": f"py{secrets.token_hex(4)}",
                "company": "Acme Ltd",
                "account": mail,
                "code": self.code_for(mail),
                "password": PASSWORD,
                "confirmPassword": PASSWORD,
                "country": "CN",
                "acceptTerms": True,
            },
        )
        assert reg.status_code in (200, 201), reg.text
        return {"mail": mail, "token": self.sign_in(mail)}

    def sign_in(self, mail: str) -> str:
        r = self.api("POST", "/auth/login/password", {"account": mail, "password": PASSWORD})
        assert r.status_code == 200, r.text
        return r.json()["token"]

    def register_app(self, fields: dict, reason: str = "python e2e: the relying party") -> dict:
        """`ciam admin apps create --reason R --json '<fields>'` on this server's data folder: the
        operator's way to register an app without a session (the registry is the console's).
        Answers what it prints, POST /admin/apps's answer: {"app": {...}, "appSecret": "..."}."""
        r = subprocess.run(
            [str(BIN), "admin", "apps", "create", "--reason", reason, "--json", json.dumps(fields), "--data", self.data.name],
            capture_output=True,
            text=True,
        )
        assert r.returncode == 0, r.stderr + r.stdout
        return json.loads(r.stdout)


@pytest.fixture(scope="module")
def ciam():
    _need(LIBRARY is None, LIBRARY or "")
    _need(BIN.exists(), f"the ciam binary at {BIN} (cargo build -p ciam-local --bin ciam)")
    server = Ciam()
    yield server
    server.stop()


RP = "https://rp.example.com"
CALLBACK = f"{RP}/cb"
BYE = f"{RP}/bye"


@pytest.fixture(scope="module")
def client_app(ciam):
    made = ciam.register_app(
        {
            "name": {"zh-CN": "Python 示例", "en-US": "Python Example"},
            "serviceUrls": [CALLBACK],
            "scopes": ["nickname"],
            "postLogoutRedirectUris": [BYE],
            "backchannelLogoutUri": f"{RP}/backchannel",
        }
    )
    return {"id": made["app"]["appId"], "secret": made["appSecret"]}


def _sign_in_with_authlib(ciam, app, user) -> dict:
    """The code flow, the browser's part made through the API the consent screen calls."""
    meta = requests.get(f"{ciam.base}/ciam/v1/oidc/.well-known/openid-configuration", timeout=10).json()
    oauth = OAuth2Session(
        app["id"],
        app["secret"],
        scope="openid nickname",
        redirect_uri=CALLBACK,
        code_challenge_method="S256",
        token_endpoint_auth_method="client_secret_basic",
    )
    verifier = secrets.token_urlsafe(48)
    nonce = secrets.token_urlsafe(16)
    url, state = oauth.create_authorization_url(meta["authorization_endpoint"], code_verifier=verifier, nonce=nonce)
    r = requests.get(url, allow_redirects=False, timeout=10)
    assert r.status_code == 302, r.text
    request_id = urllib.parse.parse_qs(urllib.parse.urlparse(r.headers["location"]).query)["oidcRequest"][0]
    allow = ciam.api("POST", f"/oidc/requests/{request_id}", {}, user["token"])
    assert allow.status_code == 200, allow.text
    callback = allow.json()["redirect"]
    tokens = oauth.fetch_token(meta["token_endpoint"], authorization_response=callback, code_verifier=verifier)
    # The id_token, verified by the library with the published keys.
    jwks = KeySet.import_key_set(requests.get(meta["jwks_uri"], timeout=10).json())
    decoded = jwt.decode(tokens["id_token"], jwks, algorithms=["ES256"])
    jwt.JWTClaimsRegistry(
        iss={"essential": True, "value": meta["issuer"]},
        aud={"essential": True, "value": app["id"]},
        nonce={"essential": True, "value": nonce},
        sub={"essential": True},
        sid={"essential": True},
    ).validate(decoded.claims)
    assert re.fullmatch(r"[0-9a-f]{32}", decoded.claims["sid"])
    return {"meta": meta, "id_token": tokens["id_token"], "claims": decoded.claims}


def _follow_logout(ciam, logout_url: str, token: str) -> requests.Response:
    """What the browser does with the logout URL: the endpoint sends it to Ciam's page, which
    checks the request and ends the session it holds."""
    r = requests.get(logout_url, allow_redirects=False, timeout=10)
    assert r.status_code == 303, r.text
    page = urllib.parse.urlparse(r.headers["location"])
    assert page.scheme == "" and page.path == "/en-US/passport/end-session", r.headers["location"]
    q = dict(urllib.parse.parse_qsl(page.query))
    ctx = ciam.api("GET", f"/oidc/end-session?{page.query}")
    if ctx.status_code != 200:
        return ctx
    body = {
        "idTokenHint": q.get("id_token_hint"),
        "clientId": q.get("client_id"),
        "postLogoutRedirectUri": q.get("post_logout_redirect_uri"),
        "state": q.get("state"),
    }
    return ciam.api("POST", "/oidc/end-session", {k: v for k, v in body.items() if v}, token)


def test_authlib_signs_in_and_rp_initiated_logout_ends_the_session(ciam, client_app):
    user = ciam.account("py-user")
    got = _sign_in_with_authlib(ciam, client_app, user)
    meta = got["meta"]
    assert meta["end_session_endpoint"] == f"{meta['issuer']}/logout"
    assert meta["backchannel_logout_supported"] is True
    assert meta["backchannel_logout_session_supported"] is True
    # The session's Back-Channel Logout token, what its end will POST (`ciam admin
    # logout-notices` shows it while the session lives: `ciam serve` forgets the session's apps
    # once it has queued their notices), validated with joserfc and the JWKS as Back-Channel
    # Logout §2.6 says.
    claims = got["claims"]
    r = subprocess.run(
        [str(BIN), "admin", "logout-notices", claims["sub"], claims["sid"], "--public-url", ciam.base, "--data", ciam.data.name],
        capture_output=True,
        text=True,
    )
    assert r.returncode == 0, r.stderr
    notices = [json.loads(line) for line in r.stdout.splitlines()]
    assert [(n["appId"], n["url"], n["contentType"]) for n in notices] == [
        (client_app["id"], f"{RP}/backchannel", "application/x-www-form-urlencoded")
    ]
    form = urllib.parse.parse_qs(notices[0]["body"])
    assert list(form) == ["logout_token"]
    jwks = KeySet.import_key_set(requests.get(meta["jwks_uri"], timeout=10).json())
    token = jwt.decode(form["logout_token"][0], jwks, algorithms=["ES256"])
    assert token.header["typ"] == "logout+jwt"
    jwt.JWTClaimsRegistry(
        leeway=5,
        iss={"essential": True, "value": meta["issuer"]},
        aud={"essential": True, "value": client_app["id"]},
        iat={"essential": True},
        exp={"essential": True},
        jti={"essential": True},
        sub={"essential": True, "value": claims["sub"]},
        sid={"essential": True, "value": claims["sid"]},
        events={"essential": True, "value": {"http://schemas.openid.net/event/backchannel-logout": {}}},
    ).validate(token.claims)
    assert token.claims["exp"] - token.claims["iat"] == 120
    assert "nonce" not in token.claims

    state = secrets.token_urlsafe(8)
    logout_url = add_params_to_uri(
        meta["end_session_endpoint"],
        [("id_token_hint", got["id_token"]), ("post_logout_redirect_uri", BYE), ("state", state), ("ui_locales", "en-US")],
    )
    answer = _follow_logout(ciam, logout_url, user["token"])
    assert answer.status_code == 200, answer.text
    assert answer.json() == {"ended": True, "redirect": f"{BYE}?state={state}"}
    assert ciam.api("GET", "/auth/info", token=user["token"]).status_code == 401


def test_an_unregistered_post_logout_redirect_uri_is_refused_and_nothing_ends(ciam, client_app):
    user = ciam.account("py-evil")
    got = _sign_in_with_authlib(ciam, client_app, user)
    logout_url = add_params_to_uri(
        got["meta"]["end_session_endpoint"],
        [("id_token_hint", got["id_token"]), ("post_logout_redirect_uri", "https://evil.example/bye"), ("ui_locales", "en-US")],
    )
    answer = _follow_logout(ciam, logout_url, user["token"])
    assert answer.status_code == 400
    assert answer.json()["reason"] == "INVALID_PARAMETER"
    assert answer.json()["field"] == "post_logout_redirect_uri"
    assert ciam.api("GET", "/auth/info", token=user["token"]).status_code == 200
