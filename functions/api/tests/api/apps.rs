//! Partner apps: the admin-only registry, secrets shown once, and single-use CAS-style tickets.

use crate::helpers::{TestApp, PASSWORD};
use serde_json::{json, Value};

pub(crate) const SERVICE: &str = "https://factory.example.com/cas/login";

pub(crate) fn new_app(name: &str) -> Value {
    json!({
        "name": { "zh-CN": format!("{name} 工厂"), "en-US": name },
        "description": "Orders and machines",
        "logo": "https://factory.example.com/logo.png",
        "serviceUrls": [SERVICE, "https://factory.example.com/cb?x=1", "http://localhost:3000/cb"],
        "frameOrigins": ["https://factory.example.com"],
        "scopes": ["nickname", "email", "company"],
    })
}

/// The adversarial corpus: look-alikes of `SERVICE`, each of which must be refused.
pub(crate) const LOOK_ALIKES: &[&str] = &[
    "https://factory.example.com/cas/login/",
    "https://Factory.example.com/cas/login",
    "https://factory.example.com/CAS/login",
    "https://evil@factory.example.com/cas/login",
    "https://factory.example.com.evil.com/cas/login",
    "//factory.example.com/cas/login",
    "javascript:alert(1)",
    "data:text/html,<script>alert(1)</script>",
    "https://factory.example.com/cas/login?x=1",
    "http://factory.example.com/cas/login",
    "https:%2F%2Ffactory.example.com/cas/login",
    "https://factory.example.com%2Fcas%2Flogin",
    "https://factory.example.com/cas%2Flogin",
];

/// Hosts no browser could reach or that an admin might take for a pattern, each refused at
/// registration as a service URL (and, without its path, as a frame origin).
pub(crate) const IMPOSSIBLE_HOSTS: &[&str] = &[
    "https://*.example.com/cb",
    "https://factory.*.com/cb",
    "https://*/cb",
    "https://factory.example.com/*",
    "https://factory..example.com/cb",
    "https://.example.com/cb",
    "https://factory.example.com./cb",
    "https://fac_tory.example.com/cb",
    "https://-factory.example.com/cb",
    "https://factory-.example.com/cb",
    "https://fac%74ory.example.com/cb",
    "https://%2A.example.com/cb",
    "https://fäctory.example.com/cb",
    "https://xn--abc.example.com/cb",
    "https://xn--a.example.com/cb",
    "https://fac!tory.example.com/cb",
    "https://user@factory.example.com/cb",
    "https://user:pw@factory.example.com/cb",
    "https://aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa.example.com/cb",
    "https://a.b.c.d.e.f.g.h.i.j.k.l.m.n.o.p.q.r.s.t.u.v.w.x.y.z.a.b.c.d.e.f.g.h.i.j.k.l.m.n.o.p.q.r.s.t.u.v.w.x.y.z.a.b.c.d.e.f.g.h.i.j.k.l.m.n.o.p.q.r.s.t.u.v.w.x.y.z.a.b.c.d.e.f.g.h.i.j.k.l.m.n.o.p.q.r.s.t.u.v.w.x.y.z.a.b.c.d.e.f.g.h.i.j.k.l.m.n.o.p.q.r.s.t.u.v.w.x.y.z.example.com/cb",
];

/// An admin, an app (id and secret) and a signed-in ordinary user.
pub(crate) struct World {
    pub app: TestApp,
    pub admin: String,
    pub app_id: String,
    pub secret: String,
    pub user: String,
    pub user_id: String,
}

pub(crate) async fn world() -> World {
    world_on(TestApp::spawn().await).await
}

/// The same world over a given app (another engine).
pub(crate) async fn world_on(app: TestApp) -> World {
    let admin = app.admin_token().await;
    let created = app.create_app(&admin, &new_app("Factory")).await.ok(201);
    let user_id = app.sign_up("ann", "ann@example.com").await;
    let user = app.sign_in("ann@example.com", PASSWORD).await;
    World {
        app_id: created["app"]["appId"].as_str().expect("appId").to_owned(),
        secret: created["appSecret"].as_str().expect("secret").to_owned(),
        app,
        admin,
        user,
        user_id,
    }
}

pub(crate) async fn ticket(w: &World, service: &str) -> String {
    let t = w
        .app
        .issue_ticket(&w.user, &w.app_id, service)
        .await
        .ok(200);
    t["cTicket"].as_str().expect("cTicket").to_owned()
}

#[tokio::test]
async fn admins_manage_the_registry_and_others_are_denied() {
    let w = world().await;
    let (app, admin) = (&w.app, &w.admin);
    let id = &w.app_id;
    assert_eq!(id.len(), 16);
    assert!(id.chars().all(|c| c.is_ascii_hexdigit()));

    let got = app.get_app(admin, id).await.ok(200)["app"].clone();
    assert_eq!(got["name"]["en-US"], "Factory");
    assert_eq!(got["scopes"], json!(["company", "email", "nickname"]));
    assert!(got.get("appSecret").is_none() && !got.to_string().contains(&w.secret));
    let list = app.list_registry(admin).await.ok(200);
    assert_eq!(list["apps"].as_array().map(Vec::len), Some(1));
    // The public list by language keeps working on the same items.
    let public = app.get_apps("en-US").await.ok(200);
    assert_eq!(public["apps"][0]["name"], "Factory");
    assert_eq!(public["apps"][0]["url"], SERVICE);
    // Its logo too: the sign-in pages say "to continue to Factory" with it (issue 23).
    assert_eq!(
        public["apps"][0]["logo"],
        "https://factory.example.com/logo.png"
    );

    let patched = app
        .patch_app(
            admin,
            id,
            &json!({ "description": "New", "recommended": true }),
        )
        .await
        .ok(200);
    assert_eq!(
        (
            patched["app"]["description"].as_str(),
            patched.get("appSecret")
        ),
        (Some("New"), None)
    );

    let user = &w.user;
    app.list_registry(user)
        .await
        .error(403, "PERMISSION_DENIED");
    app.create_app(user, &new_app("Mine"))
        .await
        .error(403, "PERMISSION_DENIED");
    app.get_app(user, id).await.error(403, "PERMISSION_DENIED");
    app.patch_app(user, id, &json!({ "rotateSecret": true }))
        .await
        .error(403, "PERMISSION_DENIED");
    app.delete_app(user, id)
        .await
        .error(403, "PERMISSION_DENIED");

    app.get_app(admin, "0000000000000000")
        .await
        .error(404, "APPID_NOT_FOUND");
    app.delete_app(admin, id).await.ok(200);
    app.get_app(admin, id).await.error(404, "APPID_NOT_FOUND");
    app.delete_app(admin, id)
        .await
        .error(404, "APPID_NOT_FOUND");
    // Its name is free again.
    app.create_app(admin, &new_app("Factory")).await.ok(201);
}

#[tokio::test]
async fn app_names_are_unique_even_under_a_race_of_two_creates() {
    let w = world().await;
    let mut same = new_app("FACTORY");
    same["name"]["zh-CN"] = json!("别的名字");
    w.app
        .create_app(&w.admin, &same)
        .await
        .error(409, "APPNAME_EXIST");

    let (one, two) = (new_app("Twin"), new_app("twin"));
    let (a, b) = tokio::join!(
        w.app.create_app(&w.admin, &one),
        w.app.create_app(&w.admin, &two)
    );
    let mut statuses = [a.status.as_u16(), b.status.as_u16()];
    statuses.sort();
    assert_eq!(statuses, [201, 409], "{} / {}", a.text, b.text);
    let list = w.app.list_registry(&w.admin).await.ok(200);
    assert_eq!(list["apps"].as_array().map(Vec::len), Some(2));
}

#[tokio::test]
async fn unsafe_service_urls_are_refused_at_registration() {
    let w = world().await;
    for bad in [
        "http://factory.example.com/cb",
        "https://user:pw@factory.example.com/cb",
        "https://factory.example.com/cb#frag",
        "javascript:alert(1)",
        "data:text/html,hi",
        "https://FACTORY.example.com/cb",
        "//factory.example.com/cb",
    ]
    .iter()
    .chain(IMPOSSIBLE_HOSTS)
    {
        let mut body = new_app("Other");
        // The bad one third in the list: the error names that item.
        body["serviceUrls"] = json!([SERVICE, "https://other.example.com/", bad]);
        let v = w
            .app
            .create_app(&w.admin, &body)
            .await
            .error(400, "INVALID_PARAMETER");
        assert_eq!(v["field"], "serviceUrls[2]", "{bad}: {v}");
        // The same refusal when an admin changes the list of an app that exists.
        let v = w
            .app
            .patch_app(&w.admin, &w.app_id, &json!({ "serviceUrls": [bad] }))
            .await
            .error(400, "INVALID_PARAMETER");
        assert_eq!(v["field"], "serviceUrls[0]", "{bad}: {v}");
    }
    // The registry is as it was: the app keeps its URLs.
    let app = w.app.get_app(&w.admin, &w.app_id).await.ok(200)["app"].clone();
    assert_eq!(app["serviceUrls"][0], SERVICE);
    let mut body = new_app("Other");
    body["scopes"] = json!(["password"]);
    w.app
        .create_app(&w.admin, &body)
        .await
        .error(400, "INVALID_PARAMETER");
}

#[tokio::test]
async fn a_ticket_is_redeemed_once_for_the_claims_the_app_may_see() {
    let w = world().await;
    let t = w
        .app
        .issue_ticket(&w.user, &w.app_id, SERVICE)
        .await
        .ok(200);
    let c = t["cTicket"].as_str().expect("ticket");
    assert_eq!(t["redirect"], format!("{SERVICE}?cTicket={c}"));
    let claims = w
        .app
        .verify_ticket(&w.app_id, &w.secret, c, SERVICE)
        .await
        .ok(200);
    assert_eq!(
        claims,
        json!({
            "userId": w.user_id,
            "nickname": "ann",
            "company": "Acme Robotics",
            "email": "ann@example.com",
        })
    );
    w.app
        .verify_ticket(&w.app_id, &w.secret, c, SERVICE)
        .await
        .error(404, "TICKET_NOT_FOUND");

    // A query string already present: the ticket is appended with `&`; Basic works too.
    let with_query = "https://factory.example.com/cb?x=1";
    let t = w
        .app
        .issue_ticket(&w.user, &w.app_id, with_query)
        .await
        .ok(200);
    let c = t["cTicket"].as_str().expect("ticket");
    assert_eq!(t["redirect"], format!("{with_query}&cTicket={c}"));
    w.app
        .verify_ticket_basic(&w.app_id, &w.secret, c, with_query)
        .await
        .ok(200);
}

#[tokio::test]
async fn reusing_a_ticket_after_a_failed_verification_is_refused() {
    let w = world().await;
    let c = ticket(&w, SERVICE).await;
    // Registered for the app, but not the service this ticket was issued for: refused, burned.
    let other = "https://factory.example.com/cb?x=1";
    let (id, secret) = (&w.app_id, &w.secret);
    w.app
        .verify_ticket(id, secret, &c, other)
        .await
        .error(404, "TICKET_NOT_FOUND");
    w.app
        .verify_ticket(id, secret, &c, SERVICE)
        .await
        .error(404, "TICKET_NOT_FOUND");
    // A look-alike of the right service burns it just the same.
    let c = ticket(&w, SERVICE).await;
    w.app
        .verify_ticket(id, secret, &c, &format!("{SERVICE}/"))
        .await
        .error(404, "TICKET_NOT_FOUND");
    w.app
        .verify_ticket_basic(id, secret, &c, SERVICE)
        .await
        .error(404, "TICKET_NOT_FOUND");
}

#[tokio::test]
async fn a_ticket_of_app_a_cannot_be_verified_by_app_b() {
    let w = world().await;
    let (id, secret) = (&w.app_id, &w.secret);
    let created = w.app.create_app(&w.admin, &new_app("Rival")).await.ok(201);
    let rival = created["app"]["appId"].as_str().expect("id");
    let rival_secret = created["appSecret"].as_str().expect("secret");
    let c = ticket(&w, SERVICE).await;
    // App B, with its own valid credentials: refused, and the ticket is burned.
    w.app
        .verify_ticket(rival, rival_secret, &c, SERVICE)
        .await
        .error(404, "TICKET_NOT_FOUND");
    w.app
        .verify_ticket(id, secret, &c, SERVICE)
        .await
        .error(404, "TICKET_NOT_FOUND");
    // App B's secret under app A's id is a wrong secret, and burns the ticket too.
    let c = ticket(&w, SERVICE).await;
    w.app
        .verify_ticket(id, rival_secret, &c, SERVICE)
        .await
        .error(401, "APPSECRET_ERROR");
    w.app
        .verify_ticket(id, secret, &c, SERVICE)
        .await
        .error(404, "TICKET_NOT_FOUND");
}

#[tokio::test]
async fn a_ticket_expires_after_five_minutes() {
    let w = world().await;
    let c = ticket(&w, SERVICE).await;
    w.app.clock.advance(5 * 60);
    w.app
        .verify_ticket(&w.app_id, &w.secret, &c, SERVICE)
        .await
        .error(404, "TICKET_NOT_FOUND");
    let c = ticket(&w, SERVICE).await;
    w.app.clock.advance(5 * 60 - 1);
    w.app
        .verify_ticket(&w.app_id, &w.secret, &c, SERVICE)
        .await
        .ok(200);
}

#[tokio::test]
async fn a_wrong_secret_is_refused_and_burns_the_ticket() {
    let w = world().await;
    let wrong = "A".repeat(43);
    // Issue §3: a single validation attempt; success or failure burns the ticket. Every kind of
    // wrong credentials is APPSECRET_ERROR, and the ticket it named is gone afterwards.
    let attempts: [(&str, &str, bool); 5] = [
        (&w.app_id, &wrong, false),
        ("ffffffffffffffff", &w.secret, false),
        (&w.app_id, &wrong, true),
        (&w.app_id, "", false),
        ("", &w.secret, false),
    ];
    for (id, secret, basic) in attempts {
        let c = ticket(&w, SERVICE).await;
        let res = if basic {
            w.app.verify_ticket_basic(id, secret, &c, SERVICE).await
        } else {
            w.app.verify_ticket(id, secret, &c, SERVICE).await
        };
        res.error(401, "APPSECRET_ERROR");
        w.app
            .verify_ticket(&w.app_id, &w.secret, &c, SERVICE)
            .await
            .error(404, "TICKET_NOT_FOUND");
    }
    // Wrong credentials with an unknown ticket are still APPSECRET_ERROR.
    w.app
        .verify_ticket(&w.app_id, &wrong, "ST-unknown", SERVICE)
        .await
        .error(401, "APPSECRET_ERROR");
}

#[tokio::test]
async fn a_rotated_secret_is_shown_once_and_the_old_one_works_for_a_day() {
    let w = world().await;
    let rotated = w
        .app
        .patch_app(&w.admin, &w.app_id, &json!({ "rotateSecret": true }))
        .await
        .ok(200);
    let new = rotated["appSecret"]
        .as_str()
        .expect("new secret")
        .to_owned();
    assert_ne!(new, w.secret);
    assert!(!w.app.get_app(&w.admin, &w.app_id).await.text.contains(&new));
    for s in [&w.secret, &new] {
        let c = ticket(&w, SERVICE).await;
        w.app.verify_ticket(&w.app_id, s, &c, SERVICE).await.ok(200);
    }
    w.app.clock.advance(24 * 60 * 60);
    // The user's session has ended meanwhile; they sign in again.
    let user = w.app.sign_in("ann@example.com", PASSWORD).await;
    let t = w.app.issue_ticket(&user, &w.app_id, SERVICE).await.ok(200);
    let c = t["cTicket"].as_str().expect("ticket").to_owned();
    w.app
        .verify_ticket(&w.app_id, &w.secret, &c, SERVICE)
        .await
        .error(401, "APPSECRET_ERROR");
    let t = w.app.issue_ticket(&user, &w.app_id, SERVICE).await.ok(200);
    let c = t["cTicket"].as_str().expect("ticket").to_owned();
    w.app
        .verify_ticket(&w.app_id, &new, &c, SERVICE)
        .await
        .ok(200);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn of_fifty_concurrent_verifications_exactly_one_succeeds() {
    fifty_verifications_one_winner(TestApp::spawn().await).await;
}

/// 50 verifications of one ticket at once, on the engine of `app`: exactly one answers the
/// claims, every other one TICKET_NOT_FOUND, and the ticket is gone afterwards.
pub(crate) async fn fifty_verifications_one_winner(app: TestApp) {
    let w = world_on(app).await;
    let c = ticket(&w, SERVICE).await;
    let tries = (0..50).map(|_| {
        let (app, id, secret, c) = (w.app.clone(), w.app_id.clone(), w.secret.clone(), c.clone());
        async move { app.verify_ticket(&id, &secret, &c, SERVICE).await }
    });
    let results = spawn_all(tries).await;
    let ok: Vec<_> = results
        .iter()
        .filter(|r| r.status.as_u16() == 200)
        .collect();
    assert_eq!(
        ok.len(),
        1,
        "{:?}",
        results.iter().map(|r| r.reason()).collect::<Vec<_>>()
    );
    assert_eq!(ok[0].json()["userId"], w.user_id.as_str());
    for r in results.iter().filter(|r| r.status.as_u16() != 200) {
        r.error(404, "TICKET_NOT_FOUND");
    }
    w.app
        .verify_ticket(&w.app_id, &w.secret, &c, SERVICE)
        .await
        .error(404, "TICKET_NOT_FOUND");
}

/// Runs every future on its own task, so they truly overlap.
async fn spawn_all<F>(fs: impl Iterator<Item = F>) -> Vec<F::Output>
where
    F: std::future::Future + Send + 'static,
    F::Output: Send + 'static,
{
    let handles: Vec<_> = fs.map(tokio::spawn).collect();
    let mut out = Vec::new();
    for h in handles {
        out.push(h.await.expect("task"));
    }
    out
}

#[tokio::test]
async fn the_app_appears_among_recent_apps_after_a_ticket() {
    let w = world().await;
    let before = w.app.get_recent_apps(&w.user).await.ok(200);
    assert_eq!(before["apps"], json!([]));
    ticket(&w, SERVICE).await;
    let after = w.app.get_recent_apps(&w.user).await.ok(200);
    assert_eq!(after["apps"][0]["appId"], w.app_id.as_str());
    assert_eq!(after["apps"][0]["lastLoginTime"], w.app.now());
}

#[tokio::test]
async fn look_alike_service_urls_get_no_ticket() {
    let w = world().await;
    for bad in LOOK_ALIKES {
        let v = w
            .app
            .issue_ticket(&w.user, &w.app_id, bad)
            .await
            .error(400, "INVALID_PARAMETER");
        assert_eq!(v["field"], "serviceUrl", "{bad}: {v}");
    }
    w.app
        .issue_ticket(&w.user, "0000000000000000", SERVICE)
        .await
        .error(404, "APPID_NOT_FOUND");
}

/// Issue 23: the registry's `privacyUrl` (https only), shown to admins and linked from the
/// consent screen (`GET /auth/consent`), changed and removed by PATCH.
#[tokio::test]
async fn a_privacy_policy_url_is_https_only_and_reaches_the_consent_screen() {
    let w = world().await;
    let (app, admin, id) = (&w.app, &w.admin, &w.app_id);
    // None registered: empty, on both answers.
    assert_eq!(
        app.get_app(admin, id).await.ok(200)["app"]["privacyUrl"],
        ""
    );
    let ctx = app.get_consent(&w.user, id, SERVICE).await.ok(200);
    assert_eq!(ctx["privacyUrl"], "");
    for bad in [
        "http://factory.example.com/privacy",
        "javascript:alert(1)",
        "https://*.example.com/privacy",
        "factory.example.com/privacy",
    ] {
        let r = app
            .patch_app(admin, id, &json!({ "privacyUrl": bad }))
            .await;
        let e = r.error(400, "INVALID_PARAMETER");
        assert_eq!(e["field"], "privacyUrl", "{bad}");
    }
    // Nothing half-written by the refusals.
    assert_eq!(
        app.get_app(admin, id).await.ok(200)["app"]["privacyUrl"],
        ""
    );
    let policy = "https://factory.example.com/privacy";
    let patched = app
        .patch_app(admin, id, &json!({ "privacyUrl": policy }))
        .await
        .ok(200);
    assert_eq!(patched["app"]["privacyUrl"], policy);
    let ctx = app.get_consent(&w.user, id, SERVICE).await.ok(200);
    assert_eq!(ctx["privacyUrl"], policy);
    assert_eq!(ctx["logo"], "https://factory.example.com/logo.png");
    // Created with one.
    let mut body = new_app("Policy shop");
    body["privacyUrl"] = json!(policy);
    let created = app.create_app(admin, &body).await.ok(201);
    assert_eq!(created["app"]["privacyUrl"], policy);
    // Removed with an empty one.
    app.patch_app(admin, id, &json!({ "privacyUrl": "" }))
        .await
        .ok(200);
    assert_eq!(
        app.get_app(admin, id).await.ok(200)["app"]["privacyUrl"],
        ""
    );
}

/// Issue 23: the registry's `ownerMail`, the contact told when Ciam disables one of the app's
/// webhook endpoints: a valid e-mail (stored lower-case), shown to admins only — never in the
/// public app list nor the consent screen —, changed and removed by PATCH.
#[tokio::test]
async fn an_owner_mail_is_checked_kept_for_admins_and_never_shown_to_users() {
    let w = world().await;
    let (app, admin, id) = (&w.app, &w.admin, &w.app_id);
    assert_eq!(app.get_app(admin, id).await.ok(200)["app"]["ownerMail"], "");
    for bad in [
        "owner",
        "owner@",
        "owner@factory",
        "a b@factory.example.com",
    ] {
        let e = app
            .patch_app(admin, id, &json!({ "ownerMail": bad }))
            .await
            .error(400, "INVALID_MAIL");
        assert_eq!(e["field"], "ownerMail", "{bad}");
    }
    assert_eq!(app.get_app(admin, id).await.ok(200)["app"]["ownerMail"], "");
    let patched = app
        .patch_app(
            admin,
            id,
            &json!({ "ownerMail": " Ops@Factory.example.com " }),
        )
        .await
        .ok(200);
    assert_eq!(patched["app"]["ownerMail"], "ops@factory.example.com");
    // Not in what users and the public see.
    let public = app.get("/app/language/zh-CN", None).await.ok(200);
    assert!(!public.to_string().contains("ops@factory"), "{public}");
    let ctx = app.get_consent(&w.user, id, SERVICE).await.ok(200);
    assert!(!ctx.to_string().contains("ops@factory"), "{ctx}");
    // Created with one; removed with an empty one.
    let mut body = new_app("Owned shop");
    body["ownerMail"] = json!("owner@shop.example.com");
    let created = app.create_app(admin, &body).await.ok(201);
    assert_eq!(created["app"]["ownerMail"], "owner@shop.example.com");
    app.patch_app(admin, id, &json!({ "ownerMail": "" }))
        .await
        .ok(200);
    assert_eq!(app.get_app(admin, id).await.ok(200)["app"]["ownerMail"], "");
}
