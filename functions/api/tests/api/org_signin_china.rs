//! The company's own sign-in through WeCom, DingTalk and Feishu connections
//! (docs/organizations-connections.md §0.2, §0.6, step 5 of §8), over HTTP against the local
//! protocol servers (ciam-fakes): each connection pinned to the fake's corp or tenant, the
//! deployment's platform hosts pointed at the fakes. Per protocol: a wrong secret fails the
//! test sign-in naming the step and leaves the connection a draft; the test sign-in passes and
//! signs nobody in; a person of another tenant is refused (FEDERATION_NOT_PERMITTED); WeCom (in
//! its own browser: the corp mailbox) and Feishu (the tenant's `enterprise_email`) join just in
//! time through a mail at the organization's verified domain; DingTalk's mail is the one the
//! person typed, so it never links (a phone proof comes next: `org_phone_proof`). On SQLite
//! and DynamoDB Local.

use crate::helpers::federation::{fakes, no_redirects, IN_WECOM};
use crate::helpers::orgs::set_up_operator as operator;
use crate::helpers::*;
use axum::body::Body;
use axum::http::{Method, StatusCode};
use ciam_core::federation::{ProviderConfig, ProviderId};
use ciam_core::org::connections::{self, ConnId, Connection, NewConnection, Status};
use ciam_core::org::{self, OrgId};
use ciam_fakes::{Fakes, Person, Platform};
use ciam_store::dynamo_local::DynamoLocal;
use serde_json::json;
use std::collections::BTreeMap;
use std::sync::Arc;

/// The random value the SPA keeps while the browser is at the platform.
pub(super) const BIND: &str = "bind-of-the-browser-that-started-china-0123456789";

/// One protocol's connection settings pinned to the fake's corp or tenant, its right secret,
/// the fake, and the deployment's hosts (the built-in provider's bases, nothing else: the
/// built-in provider itself stays off).
pub(super) struct Proto {
    name: &'static str,
    platform: Platform,
    provider: ProviderId,
    settings: &'static [(&'static str, &'static str)],
    pub(super) secret: &'static str,
    bases: &'static [&'static str],
    /// The call of the callback that a wrong secret fails.
    secret_step: &'static str,
}

pub(super) const WECOM: Proto = Proto {
    name: "wecom",
    platform: Platform::Wecom,
    provider: ProviderId::Wecom,
    settings: &[
        ("corpId", ciam_fakes::wecom::CORP_ID),
        ("agentId", ciam_fakes::wecom::AGENT_ID),
    ],
    secret: ciam_fakes::wecom::CORP_SECRET,
    bases: &["LOGIN_BASE", "OPEN_BASE", "API_BASE"],
    secret_step: "wecom gettoken: errcode 40001",
};

pub(super) const DINGTALK: Proto = Proto {
    name: "dingtalk",
    platform: Platform::Dingtalk,
    provider: ProviderId::Dingtalk,
    settings: &[
        ("clientId", ciam_fakes::dingtalk::CLIENT_ID),
        ("corpId", ciam_fakes::dingtalk::CORP_ID),
    ],
    secret: ciam_fakes::dingtalk::CLIENT_SECRET,
    bases: &["LOGIN_BASE", "API_BASE"],
    secret_step: "dingtalk userAccessToken: HTTP 400 invalid.client",
};

pub(super) const FEISHU: Proto = Proto {
    name: "feishu",
    platform: Platform::Feishu,
    provider: ProviderId::Feishu,
    settings: &[
        ("appId", ciam_fakes::feishu::APP_ID),
        ("tenantKey", ciam_fakes::feishu::TENANT_KEY),
    ],
    secret: ciam_fakes::feishu::APP_SECRET,
    bases: &["ACCOUNTS_BASE", "OPEN_BASE"],
    secret_step: "feishu token: HTTP 401 code 20002 invalid_client",
};

/// An organization with `acme.example` verified, its platform's fake and its owner's session.
pub(super) struct World {
    pub(super) app: TestApp,
    fakes: Fakes,
    pub(super) org: OrgId,
    pub(super) owner_token: String,
}

pub(super) async fn world(app: TestApp, p: &Proto) -> World {
    let fakes = fakes().await;
    let base = fakes.url(p.platform);
    let mut config = ProviderConfig::default();
    for b in p.bases {
        config.settings.insert((*b).to_owned(), base.clone());
    }
    let provider = p.provider;
    let app = app.configure(move |c| {
        c.federation.insert(provider, config);
    });
    // The built-in provider stays off: only its hosts are the deployment's.
    let listed = app.get("/auth/federation", None).await.ok(200);
    assert_eq!(listed["providers"], json!([]), "{listed}");
    let owner = app.sign_up("boss", "boss@owners.example").await;
    let org = app.active_org(&owner, "Acme").await;
    app.claimed(&org, "acme.example", "owner", true).await;
    let owner_token = app.sign_in("boss@owners.example", PASSWORD).await;
    World {
        app,
        fakes,
        org,
        owner_token,
    }
}

impl World {
    pub(super) async fn connection(&self, conn: &ConnId) -> Connection {
        connections::get(self.app.ciam.store.as_ref(), &self.org, conn)
            .await
            .expect("read")
            .expect("connection")
    }

    /// A draft connection of protocol `p` (just in time `join`) with `secret`.
    pub(super) async fn connect(&self, p: &Proto, secret: &str) -> ConnId {
        let settings = p
            .settings
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect::<BTreeMap<_, _>>();
        connections::create(
            &self.app.ciam,
            &operator(),
            &self.org,
            NewConnection {
                protocol: p.name.into(),
                name_zh: Some("公司登录".into()),
                name_en: Some("Company sign-in".into()),
                settings,
                secret: secret.into(),
                jit: Some("join".into()),
            },
        )
        .await
        .expect("connection")
        .conn_id
    }

    /// The owner replaces `conn`'s secret with a wrong one.
    async fn wrong_secret(&self, conn: &ConnId) {
        let path = format!("/org/{}/connections/{}", self.org, conn.as_str());
        let body = json!({ "secret": "not-the-secret" });
        let req = json_request(Method::PATCH, &path, Some(&self.owner_token), &body);
        self.app.call(req).await.ok(200);
    }

    /// The person who approves at the platform from now on.
    pub(super) fn person(&self, p: &Proto, person: Person) {
        self.fakes.state(p.platform).set_person(person);
    }

    /// The browser at the platform's authorization URL `at`, which approves: the callback's
    /// path under /ciam/v1 and its query.
    async fn approve(&self, p: &Proto, at: &str) -> String {
        assert!(at.starts_with(&self.fakes.url(p.platform)), "{at}");
        let res = no_redirects().get(at).send().await.expect("platform");
        assert_eq!(res.status(), 302, "{at}");
        let back = url::Url::parse(res.headers()["location"].to_str().expect("location"))
            .expect("absolute");
        assert_eq!(back.path(), "/ciam/v1/auth/org/callback");
        format!("/auth/org/callback?{}", back.query().unwrap_or(""))
    }

    async fn get(&self, p: &str, ua: Option<&str>) -> TestResponse {
        let mut b = request(Method::GET, p);
        if let Some(ua) = ua {
            b = b.header("user-agent", ua);
        }
        self.app.call(b.body(Body::empty()).unwrap()).await
    }

    /// A test sign-in of `conn` by the owner, approved at the platform: the page shown.
    pub(super) async fn test_page(&self, p: &Proto, conn: &ConnId) -> TestResponse {
        let path = format!("/org/{}/connections/{}/test", self.org, conn.as_str());
        let res = self
            .app
            .call(json_request(
                Method::POST,
                &path,
                Some(&self.owner_token),
                &json!({}),
            ))
            .await
            .ok(200);
        let back = self.approve(p, res["url"].as_str().expect("url")).await;
        let page = self.get(&back, None).await;
        assert_eq!(page.status, StatusCode::OK, "{}", page.text);
        page
    }

    /// A whole sign-in through `conn` from a browser saying `ua`: where the callback sends it.
    pub(super) async fn sign_in(&self, p: &Proto, conn: &ConnId, ua: Option<&str>) -> String {
        let start = format!(
            "/auth/org/start?connection={}&lang=en-US&query=appId%3Da1&bindHash={}",
            conn.as_str(),
            ciam_core::staff::bind_hash(BIND)
        );
        let at = location_of(&self.get(&start, ua).await);
        let back = self.approve(p, &at).await;
        location_of(&self.get(&back, None).await)
    }

    /// The account of a sign-in that ended with `orgCode`.
    pub(super) async fn signed_in(&self, to: &str) -> String {
        let code = spa_param(to, "orgCode").unwrap_or_else(|| panic!("orgCode: {to}"));
        let body = json!({ "provider": "org", "code": code, "bind": BIND });
        let res = self
            .app
            .call(json_request(
                Method::POST,
                "/auth/login/federation",
                None,
                &body,
            ))
            .await
            .ok(200);
        res["userId"].as_str().expect("userId").to_owned()
    }
}

fn location_of(res: &TestResponse) -> String {
    assert_eq!(res.status, StatusCode::FOUND, "{}", res.text);
    res.headers["location"].to_str().unwrap().to_owned()
}

pub(super) fn spa_param(location: &str, name: &str) -> Option<String> {
    crate::helpers::federation::query_param(location, name)
}

pub(super) fn refused(to: &str, reason: &str) {
    assert_eq!(spa_param(to, "orgError").as_deref(), Some(reason), "{to}");
    assert!(spa_param(to, "orgCode").is_none(), "{to}");
}

/// What every protocol shows: with the right secret the test passes (`tested`), shows the
/// subject and signs nobody in; then a wrong secret fails the test naming the step (the
/// connection stays a draft); once on, a person of another tenant is refused. Answers the `on`
/// connection.
async fn test_then_on(w: &World, p: &Proto, subject: &str, other_tenant: Person) -> ConnId {
    let conn = w.connect(p, p.secret).await;
    let page = w.test_page(p, &conn).await;
    let (_, tenant) = p
        .settings
        .iter()
        .find(|(k, _)| ["corpId", "tenantKey"].contains(k))
        .expect("a pinned tenant");
    for shown in ["测试通过", "tested", subject, "租户", *tenant] {
        assert!(page.text.contains(shown), "{shown} in {}", page.text);
    }
    assert!(!page.text.contains(p.secret), "{}", page.text);
    let c = w.connection(&conn).await;
    assert_eq!(c.status, Status::Tested);
    assert_eq!(w.app.owner_of("li.lei@acme.example").await, None);

    // After it: WeCom's corp token of the same corp and app is never another connection's,
    // and a test fetches a fresh one, so a wrong secret fails there too.
    let wrong = w.connect(p, "not-the-secret").await;
    let page = w.test_page(p, &wrong).await;
    for shown in ["测试未通过", p.secret_step] {
        assert!(page.text.contains(shown), "{shown} in {}", page.text);
    }
    assert!(!page.text.contains("not-the-secret"), "{}", page.text);
    assert_eq!(w.connection(&wrong).await.status, Status::Draft);
    connections::set_on(&w.app.ciam, &operator(), &c, true)
        .await
        .expect("on");

    // Tenant pinning.
    w.person(p, other_tenant);
    let to = w.sign_in(p, &conn, Some(IN_WECOM)).await;
    refused(&to, "FEDERATION_NOT_PERMITTED");
    conn
}

pub(super) fn li_lei(corp: Option<&str>) -> Person {
    Person {
        unionid: "union-li-lei".into(),
        userid: "lilei".into(),
        corp: corp.map(str::to_owned),
        mail: Some("li.lei@acme.example".into()),
        ..Person::default()
    }
}

async fn joins(w: &World, user_id: &str) {
    assert_eq!(
        w.app.owner_of("li.lei@acme.example").await.as_deref(),
        Some(user_id)
    );
    let role = org::role_of(w.app.ciam.store.as_ref(), &w.org, user_id)
        .await
        .expect("read");
    assert_eq!(role, Some(org::Role::Member));
}

async fn wecom_connection(app: TestApp) {
    let w = world(app, &WECOM).await;
    w.person(&WECOM, li_lei(None));
    let subject = format!("{}/lilei", ciam_fakes::wecom::CORP_ID);
    // Another corp's person is no member of this corp: WeCom answers an openid.
    let stranger = Person {
        member: false,
        ..li_lei(None)
    };
    let conn = test_then_on(&w, &WECOM, &subject, stranger).await;

    // Inside WeCom: the in-client authorization gives the corp mailbox at the verified
    // domain, and the new person joins.
    w.person(&WECOM, li_lei(None));
    let to = w.sign_in(&WECOM, &conn, Some(IN_WECOM)).await;
    let li = w.signed_in(&to).await;
    joins(&w, &li).await;
    // Again, from a desktop (no mail there): the link knows the member.
    let to = w.sign_in(&WECOM, &conn, None).await;
    assert_eq!(w.signed_in(&to).await, li);
    // A desktop sign-in of somebody not linked yet: no mail, so a phone proof comes next
    // (`org_phone_proof`), and nobody is made yet.
    w.person(
        &WECOM,
        Person {
            userid: "hanmei".into(),
            mail: Some("han.mei@acme.example".into()),
            ..li_lei(None)
        },
    );
    let to = w.sign_in(&WECOM, &conn, None).await;
    assert!(spa_param(&to, "orgPending").is_some(), "{to}");
    assert_eq!(w.app.owner_of("han.mei@acme.example").await, None);

    // A second connection of the same corp and app (another organization's could name it
    // too), on, then given a wrong secret (it stays on): its sign-ins never use the corp token
    // the first one cached.
    w.person(&WECOM, li_lei(None));
    let twin = w.connect(&WECOM, WECOM.secret).await;
    assert!(w.test_page(&WECOM, &twin).await.text.contains("测试通过"));
    let c = w.connection(&twin).await;
    connections::set_on(&w.app.ciam, &operator(), &c, true)
        .await
        .expect("on");
    w.wrong_secret(&twin).await;
    assert_eq!(w.connection(&twin).await.status, Status::On);
    refused(
        &w.sign_in(&WECOM, &twin, Some(IN_WECOM)).await,
        "SERVICE_UNAVAILABLE",
    );

    // Its secret replaced by a wrong one while a corp token fetched with the right one is
    // cached: the test fetches a fresh token, so it fails, and the connection is turned off.
    w.wrong_secret(&conn).await;
    let page = w.test_page(&WECOM, &conn).await;
    for shown in ["测试未通过", WECOM.secret_step] {
        assert!(page.text.contains(shown), "{shown} in {}", page.text);
    }
    assert_eq!(w.connection(&conn).await.status, Status::Draft);
}

async fn dingtalk_connection(app: TestApp) {
    let w = world(app, &DINGTALK).await;
    w.person(&DINGTALK, li_lei(None));
    let conn = test_then_on(
        &w,
        &DINGTALK,
        "union-li-lei",
        li_lei(Some("dingothercorp0002")),
    )
    .await;
    // A member of the pinned organization with a mail at the verified domain: DingTalk's
    // mail is the one the person typed, never a proof, so nobody is made or linked by it: a
    // phone proof comes next (`org_phone_proof`).
    w.person(&DINGTALK, li_lei(None));
    let to = w.sign_in(&DINGTALK, &conn, None).await;
    assert!(spa_param(&to, "orgPending").is_some(), "{to}");
    assert!(spa_param(&to, "orgError").is_none(), "{to}");
    assert_eq!(w.app.owner_of("li.lei@acme.example").await, None);
}

async fn feishu_connection(app: TestApp) {
    let w = world(app, &FEISHU).await;
    w.person(&FEISHU, li_lei(None));
    let conn = test_then_on(
        &w,
        &FEISHU,
        "union-li-lei",
        li_lei(Some("anothertenant0002")),
    )
    .await;
    // The tenant's enterprise mail at the verified domain: the new person joins.
    w.person(&FEISHU, li_lei(None));
    let to = w.sign_in(&FEISHU, &conn, None).await;
    let li = w.signed_in(&to).await;
    joins(&w, &li).await;
    let to = w.sign_in(&FEISHU, &conn, None).await;
    assert_eq!(w.signed_in(&to).await, li);

    // Just in time `off`: a colleague who is no member is refused, naming the organization;
    // the member signs in still.
    let path = format!("/org/{}/connections/{}", w.org, conn.as_str());
    let req = json_request(
        Method::PATCH,
        &path,
        Some(&w.owner_token),
        &json!({ "jit": "off" }),
    );
    w.app.call(req).await.ok(200);
    w.person(
        &FEISHU,
        Person {
            unionid: "union-han-mei".into(),
            mail: Some("han.mei@acme.example".into()),
            ..li_lei(None)
        },
    );
    let to = w.sign_in(&FEISHU, &conn, None).await;
    refused(&to, "FEDERATION_NOT_PERMITTED");
    assert_eq!(spa_param(&to, "orgName").as_deref(), Some("Acme"));
    assert_eq!(w.app.owner_of("han.mei@acme.example").await, None);
    w.person(&FEISHU, li_lei(None));
    let to = w.sign_in(&FEISHU, &conn, None).await;
    assert_eq!(w.signed_in(&to).await, li);
}

#[tokio::test]
async fn org_signin_china_wecom_on_sqlite() {
    wecom_connection(TestApp::spawn().await).await;
}

#[tokio::test]
async fn org_signin_china_wecom_on_dynamodb() {
    let local = Arc::new(DynamoLocal::start().await);
    wecom_connection(TestApp::on_dynamo(&local, "org_china_wecom").await).await;
}

#[tokio::test]
async fn org_signin_china_dingtalk_on_sqlite() {
    dingtalk_connection(TestApp::spawn().await).await;
}

#[tokio::test]
async fn org_signin_china_dingtalk_on_dynamodb() {
    let local = Arc::new(DynamoLocal::start().await);
    dingtalk_connection(TestApp::on_dynamo(&local, "org_china_dingtalk").await).await;
}

#[tokio::test]
async fn org_signin_china_feishu_on_sqlite() {
    feishu_connection(TestApp::spawn().await).await;
}

#[tokio::test]
async fn org_signin_china_feishu_on_dynamodb() {
    let local = Arc::new(DynamoLocal::start().await);
    feishu_connection(TestApp::on_dynamo(&local, "org_china_feishu").await).await;
}
