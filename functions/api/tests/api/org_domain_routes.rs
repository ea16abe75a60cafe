//! Verified domains over HTTP (docs/organizations-domains.md §5), on SQLite and on DynamoDB
//! Local: "My company"'s domain routes by an owner, an admin, a member (refused) and another
//! organization's owner (as if absent); the staff and free-mail domains refused; DNS
//! verification through the route against the real DNS server the test runs (ciam_fakes::dns);
//! mail-code verification through the route (the test mailbox); a domain claimed by two
//! organizations; automatic enrolment for proven addresses only; `GET /org/suggested` with
//! accept and decline; the console's twins (a viewer reads, an operator acts with a reason), and
//! every change in the organization's audit slice and the console's day log.

use crate::helpers::org_connections::Setup;
use crate::helpers::{TestApp, TestResponse, PASSWORD};
use axum::http::Method;
use ciam_fakes::dns::DnsServer;
use ciam_store::dynamo_local::DynamoLocal;
use serde_json::{json, Value};
use std::sync::Arc;

impl TestApp {
    async fn call_as(&self, m: Method, p: &str, token: &str, body: Option<&Value>) -> TestResponse {
        self.admin_call(m, p, Some(token), body).await
    }

    /// The organizations `token`'s person belongs to (their ids).
    async fn orgs_of(&self, token: &str) -> Vec<String> {
        self.call_as(Method::GET, "/org/mine", token, None)
            .await
            .ok(200)["organizations"]
            .as_array()
            .expect("organizations")
            .iter()
            .map(|o| o["organization"]["orgId"].as_str().expect("id").to_owned())
            .collect()
    }

    /// The domain entries of the organization's audit slice (action, target, reason), sorted
    /// (entries of the same millisecond have no order).
    async fn slice(&self, token: &str, org: &str) -> Vec<(String, String, Option<String>)> {
        let p = format!("/org/{org}/audit");
        let mut v: Vec<_> = self.call_as(Method::GET, &p, token, None).await.ok(200)["entries"]
            .as_array()
            .expect("entries")
            .iter()
            .filter(|e| {
                e["action"]
                    .as_str()
                    .is_some_and(|a| a.starts_with("domain."))
            })
            .map(|e| {
                (
                    e["action"].as_str().unwrap_or_default().to_owned(),
                    e["target"].as_str().unwrap_or_default().to_owned(),
                    e["reason"].as_str().map(str::to_owned),
                )
            })
            .collect();
        v.sort();
        v
    }
}

async fn domain_routes(app: TestApp) {
    let dns = DnsServer::start().await.expect("dns server");
    let app = app.configure(|c| c.dns_resolver = Some(dns.addr()));
    let Setup {
        org,
        other_org,
        owner: owner_t,
        admin: adm_t,
        member: mem_t,
        other: other_t,
        viewer,
        operator: op,
    } = app.conn_setup().await;
    let at = |p: &str| format!("/org/{org}/domains{p}");
    let add = |t: &str, o: &str, d: &str, m: &str| {
        let (t, p, b) = (
            t.to_owned(),
            format!("/org/{o}/domains"),
            json!({ "domain": d, "method": m }),
        );
        let app = &app;
        async move { app.call_as(Method::POST, &p, &t, Some(&b)).await }
    };

    // An owner adds a domain by DNS: the record to publish comes back.
    let added = add(&owner_t, &org, "Acme-Test.example", "dns")
        .await
        .ok(201);
    assert_eq!(added["domain"], "acme-test.example");
    assert_eq!(added["status"], "pending");
    assert_eq!(added["record"]["name"], "_ciam-verify.acme-test.example");
    assert_eq!(added["record"]["type"], "TXT");
    let value = added["record"]["value"].as_str().expect("value").to_owned();
    assert!(value.starts_with("ciam-verify="), "{value}");
    // A member may not read nor change them; another organization's owner learns nothing.
    for p in ["", "/acme-test.example"] {
        app.call_as(Method::GET, &at(p), &mem_t, None)
            .await
            .error(403, "ORG_ROLE_FORBIDDEN");
        app.call_as(Method::GET, &at(p), &other_t, None)
            .await
            .error(404, "ORG_NOT_FOUND");
    }
    add(&mem_t, &org, "m.example", "dns")
        .await
        .error(403, "ORG_ROLE_FORBIDDEN");
    add(&other_t, &org, "m.example", "dns")
        .await
        .error(404, "ORG_NOT_FOUND");
    app.call_as(Method::DELETE, &at("/acme-test.example"), &other_t, None)
        .await
        .error(404, "ORG_NOT_FOUND");
    app.call_as(
        Method::POST,
        &at("/acme-test.example/verify"),
        &other_t,
        Some(&json!({})),
    )
    .await
    .error(404, "ORG_NOT_FOUND");
    // Staff, free-mail and malformed domains are refused.
    add(&owner_t, &org, "staff.ciam.example", "dns")
        .await
        .error(422, "DOMAIN_PUBLIC");
    add(&owner_t, &org, "eu.staff.ciam.example", "dns")
        .await
        .error(422, "DOMAIN_PUBLIC");
    add(&owner_t, &org, "qq.com", "mail")
        .await
        .error(422, "DOMAIN_PUBLIC");
    add(&owner_t, &org, "not a domain", "dns")
        .await
        .error(400, "DOMAIN_INVALID");
    add(&owner_t, &org, "fine.example", "carrier-pigeon")
        .await
        .error(400, "INVALID_PARAMETER");

    // DNS through the route: nothing published, then the record.
    let verify = |t: &str, o: &str, d: &str, b: Value| {
        let (t, p) = (t.to_owned(), format!("/org/{o}/domains/{d}/verify"));
        let app = &app;
        async move { app.call_as(Method::POST, &p, &t, Some(&b)).await }
    };
    let e = verify(&adm_t, &org, "acme-test.example", json!({}))
        .await
        .error(422, "DOMAIN_TXT_NOT_FOUND");
    assert!(
        e["message"].as_str().unwrap_or_default().contains(&value),
        "{e}"
    );
    dns.set_txt("_ciam-verify.acme-test.example", &["v=spf1 -all", &value]);
    let done = verify(&adm_t, &org, "acme-test.example", json!({}))
        .await
        .ok(200);
    assert_eq!(done["status"], "verified");
    assert_eq!(done["verifiedAt"], app.now());
    let listed = app
        .call_as(Method::GET, &at(""), &adm_t, None)
        .await
        .ok(200);
    assert_eq!(listed["domains"][0]["status"], "verified");
    // Another organization cannot add a verified domain.
    add(&other_t, &other_org, "acme-test.example", "dns")
        .await
        .error(409, "DOMAIN_ALREADY_VERIFIED");

    // Claimed by two organizations: the first proof wins.
    let theirs = add(&other_t, &other_org, "shared.example", "dns")
        .await
        .ok(201);
    add(&adm_t, &org, "shared.example", "mail").await.ok(201);
    let code_path = at("/shared.example/code");
    let send = |t: &str, mail: &str| {
        let (t, p, mail) = (t.to_owned(), code_path.clone(), mail.to_owned());
        let app = &app;
        async move {
            let captcha = app.solved_captcha().await;
            let b = json!({ "mail": mail, "captcha": captcha });
            app.call_as(Method::POST, &p, &t, Some(&b)).await
        }
    };
    send(&adm_t, "bob@shared.example")
        .await
        .error(422, "DOMAIN_MAIL_NOT_ADMIN");
    send(&adm_t, "admin@other.example")
        .await
        .error(422, "DOMAIN_MAIL_NOT_ADMIN");
    send(&mem_t, "admin@shared.example")
        .await
        .error(403, "ORG_ROLE_FORBIDDEN");
    send(&adm_t, "Admin@shared.example").await.ok(200);
    let code = app.code_for("admin@shared.example", "domain");
    let wrong = if code == "000000" { "111111" } else { "000000" };
    verify(
        &adm_t,
        &org,
        "shared.example",
        json!({ "mail": "admin@shared.example", "code": wrong }),
    )
    .await
    .error(400, "CODE_ERROR");
    let by_mail = verify(
        &adm_t,
        &org,
        "shared.example",
        json!({ "mail": "admin@shared.example", "code": code }),
    )
    .await
    .ok(200);
    assert_eq!(
        (by_mail["status"].clone(), by_mail["record"].clone()),
        (json!("verified"), Value::Null)
    );
    let theirs_value = theirs["record"]["value"].as_str().expect("value");
    dns.set_txt("_ciam-verify.shared.example", &[theirs_value]);
    verify(&other_t, &other_org, "shared.example", json!({}))
        .await
        .error(409, "DOMAIN_ALREADY_VERIFIED");

    // Enrolment: automatic only for proven addresses.
    let before = app.sign_up("carol", "carol@acme-test.example").await;
    let _ = before;
    let patch = |t: &str, d: &str, e: &str| {
        let (t, p, b) = (
            t.to_owned(),
            at(&format!("/{d}")),
            json!({ "enrolment": e }),
        );
        let app = &app;
        async move { app.call_as(Method::PATCH, &p, &t, Some(&b)).await }
    };
    patch(&mem_t, "acme-test.example", "automatic")
        .await
        .error(403, "ORG_ROLE_FORBIDDEN");
    patch(&adm_t, "acme-test.example", "always")
        .await
        .error(400, "INVALID_PARAMETER");
    assert_eq!(
        patch(&adm_t, "acme-test.example", "automatic")
            .await
            .ok(200)["enrolment"],
        "automatic"
    );
    let carol_t = app.sign_in("carol@acme-test.example", PASSWORD).await;
    assert!(
        !app.orgs_of(&carol_t).await.contains(&org),
        "a password sign-in proves nothing"
    );
    app.sign_up("dave", "dave@acme-test.example").await;
    let dave_t = app.sign_in("dave@acme-test.example", PASSWORD).await;
    assert_eq!(
        app.orgs_of(&dave_t).await,
        [org.as_str()],
        "a sign-up by mail code enrols"
    );

    // Suggest: listed, declined (never again), accepted.
    patch(&owner_t, "shared.example", "suggest").await.ok(200);
    app.sign_up("yan", "yan@shared.example").await;
    let yan_t = app.sign_in("yan@shared.example", PASSWORD).await;
    let offered = app
        .call_as(Method::GET, "/org/suggested", &yan_t, None)
        .await
        .ok(200);
    assert_eq!(offered["suggestions"][0]["orgId"], json!(org));
    assert_eq!(offered["suggestions"][0]["nameEn"], "Acme");
    assert_eq!(offered["suggestions"][0]["domain"], "shared.example");
    let answer = format!("/org/suggested/{org}");
    let declined = app
        .call_as(
            Method::POST,
            &answer,
            &yan_t,
            Some(&json!({ "accept": false })),
        )
        .await
        .ok(200);
    assert_eq!(declined["membership"], Value::Null);
    assert_eq!(
        app.call_as(Method::GET, "/org/suggested", &yan_t, None)
            .await
            .ok(200)["suggestions"],
        json!([])
    );
    app.call_as(
        Method::POST,
        &answer,
        &yan_t,
        Some(&json!({ "accept": true })),
    )
    .await
    .error(404, "DOMAIN_NOT_FOUND");
    app.sign_up("xu", "xu@shared.example").await;
    let xu_t = app.sign_in("xu@shared.example", PASSWORD).await;
    let joined = app
        .call_as(
            Method::POST,
            &answer,
            &xu_t,
            Some(&json!({ "accept": true })),
        )
        .await
        .ok(200);
    assert_eq!(joined["membership"]["role"], "member");
    assert_eq!(app.orgs_of(&xu_t).await, [org.as_str()]);
    // Both ways in are in the organization's slice, by the person who joined.
    let p = format!("/org/{org}/audit");
    let mut joins: Vec<(String, bool)> = app.call_as(Method::GET, &p, &owner_t, None).await.ok(200)
        ["entries"]
        .as_array()
        .expect("entries")
        .iter()
        .filter(|e| e["action"] == "member.join")
        .map(|e| {
            (
                e["detail"].as_str().unwrap_or_default().to_owned(),
                e["actor"] == e["target"],
            )
        })
        .collect();
    joins.sort();
    assert_eq!(
        joins,
        [
            ("domain:acme-test.example".to_owned(), true),
            ("domain:shared.example".to_owned(), true)
        ]
    );
    assert_eq!(
        app.call_as(Method::GET, "/org/suggested", &xu_t, None)
            .await
            .ok(200)["suggestions"],
        json!([])
    );

    // The console: a viewer reads; an operator acts with a reason.
    let console = format!("/admin/organizations/{org}/domains");
    let seen = app
        .call_as(Method::GET, &console, &viewer, None)
        .await
        .ok(200);
    assert_eq!(seen["domains"].as_array().map(Vec::len), Some(2));
    app.call_as(
        Method::GET,
        &format!("{console}/shared.example"),
        &viewer,
        None,
    )
    .await
    .ok(200);
    let op_add =
        json!({ "reason": "customer's ticket 42", "domain": "acme-eu.example", "method": "dns" });
    app.call_as(Method::POST, &console, &viewer, Some(&op_add))
        .await
        .error(403, "PERMISSION_DENIED");
    app.call_as(
        Method::POST,
        &console,
        &op,
        Some(&json!({ "reason": "", "domain": "acme-eu.example", "method": "dns" })),
    )
    .await
    .error(400, "INVALID_PARAMETER");
    let eu = app
        .call_as(Method::POST, &console, &op, Some(&op_add))
        .await
        .ok(201);
    dns.set_txt(
        "_ciam-verify.acme-eu.example",
        &[eu["record"]["value"].as_str().expect("value")],
    );
    let why = json!({ "reason": "customer's ticket 42" });
    app.call_as(
        Method::POST,
        &format!("{console}/acme-eu.example/verify"),
        &op,
        Some(&why),
    )
    .await
    .ok(200);
    let suggest = json!({ "reason": "customer's ticket 42", "enrolment": "suggest" });
    let eu_path = format!("{console}/acme-eu.example");
    let set = app
        .call_as(Method::PATCH, &eu_path, &op, Some(&suggest))
        .await
        .ok(200);
    assert_eq!(set["enrolment"], "suggest");
    app.call_as(Method::DELETE, &eu_path, &op, Some(&why))
        .await
        .ok(200);
    let cn =
        json!({ "reason": "customer's ticket 42", "domain": "acme-cn.example", "method": "mail" });
    app.call_as(Method::POST, &console, &op, Some(&cn))
        .await
        .ok(201);
    let captcha = app.solved_captcha().await;
    let code = json!({ "reason": "customer's ticket 42", "mail": "postmaster@acme-cn.example", "captcha": captcha });
    app.call_as(
        Method::POST,
        &format!("{console}/acme-cn.example/code"),
        &op,
        Some(&code),
    )
    .await
    .ok(200);
    app.code_for("postmaster@acme-cn.example", "domain");
    // Sending a code changes nothing: not in the log.
    assert_eq!(app.audit_entries_of(&op, "org.domain").await, 5);

    // The owner removes a domain; its people stay.
    app.call_as(Method::DELETE, &at("/acme-test.example"), &owner_t, None)
        .await
        .ok(200);
    app.call_as(Method::GET, &at("/acme-test.example"), &owner_t, None)
        .await
        .error(404, "DOMAIN_NOT_FOUND");
    assert_eq!(app.orgs_of(&dave_t).await, [org.as_str()]);

    let ticket = Some("customer's ticket 42".to_owned());
    let none = None;
    let t = |a: &str, d: &str, r: &Option<String>| (a.to_owned(), d.to_owned(), r.clone());
    let mut expected = vec![
        t("domain.add", "acme-test.example", &none),
        t("domain.verify", "acme-test.example", &none),
        t("domain.add", "shared.example", &none),
        t("domain.verify", "shared.example", &none),
        t("domain.enrolment", "acme-test.example", &none),
        t("domain.enrolment", "shared.example", &none),
        t("domain.add", "acme-eu.example", &ticket),
        t("domain.verify", "acme-eu.example", &ticket),
        t("domain.enrolment", "acme-eu.example", &ticket),
        t("domain.remove", "acme-eu.example", &ticket),
        t("domain.add", "acme-cn.example", &ticket),
        t("domain.remove", "acme-test.example", &none),
    ];
    expected.sort();
    assert_eq!(app.slice(&owner_t, &org).await, expected);
}

impl TestApp {
    /// How many entries of `action` the console's log holds today.
    async fn audit_entries_of(&self, token: &str, action: &str) -> usize {
        let day = self.today();
        let p = format!("/admin/audit?from={day}&to={day}&action={action}");
        self.call_as(Method::GET, &p, token, None).await.ok(200)["entries"]
            .as_array()
            .map_or(0, Vec::len)
    }
}

#[tokio::test]
async fn domains_are_added_verified_enrolled_and_removed_over_http_by_whom_may() {
    domain_routes(TestApp::spawn().await).await;
}

#[tokio::test]
async fn on_dynamodb_the_domain_routes_behave_alike() {
    let local = Arc::new(DynamoLocal::start().await);
    domain_routes(TestApp::on_dynamo(&local, "org_domain_routes").await).await;
}
