//! Organizations' verified domains (issue 35 item 3, docs/organizations-domains.md), on SQLite
//! and on DynamoDB Local: verification by a real DNS server the test runs (ciam_fakes::dns,
//! hickory-server on 127.0.0.1) and by a mail code; a domain claimed by two organizations; a
//! free-mail domain refused; enrolment only for people who prove an address there, through the
//! real sign-up, sign-in and binding routes. The domain routes themselves come next; these
//! tests drive `ciam_core::domains` as those routes will.

use crate::helpers::{TestApp, PASSWORD};
use ciam_core::domains::dns::Hickory;
use ciam_core::domains::enrol;
use ciam_core::domains::{claims, txt, verify, DomainName, Enrolment, Method};
use ciam_core::org::{self, OrgId, Role};
use ciam_core::{Lang, Reason};
use ciam_fakes::dns::DnsServer;
use ciam_store::dynamo_local::DynamoLocal;
use std::sync::Arc;
use std::time::Duration;

fn domain(d: &str) -> DomainName {
    DomainName::parse(d).expect("domain")
}

async fn dns() -> (DnsServer, Hickory) {
    let server = DnsServer::start().await.expect("dns server");
    let lookup = Hickory::at(server.addr(), Duration::from_millis(500), 1).expect("resolver");
    (server, lookup)
}

/// Adds `d` for `org` by DNS, publishes its record on `server` beside what is there, verifies.
async fn verified_by_dns(
    app: &TestApp,
    server: &DnsServer,
    lookup: &Hickory,
    org: &OrgId,
    d: &str,
) {
    let store = app.ciam.store.as_ref();
    let claim = claims::add(
        store,
        app.ciam.entropy.as_ref(),
        app.now(),
        org,
        &domain(d),
        Method::Dns,
        "ann",
    )
    .await
    .expect("add");
    server.set_txt(
        &txt::record_name(&domain(d)),
        &[&txt::record_value(&claim.token)],
    );
    verify::by_dns(&app.ciam, lookup, org, &domain(d))
        .await
        .expect("verified");
}

async fn dns_and_mail_verification(app: TestApp) {
    let (server, lookup) = dns().await;
    let store = app.ciam.store.as_ref();
    let a = app.active_org("ann", "Acme").await;
    let acme = domain("Acme.Example");

    // DNS: the record Ciam asks for, missing, wrong, then right.
    let claim = claims::add(
        store,
        app.ciam.entropy.as_ref(),
        app.now(),
        &a,
        &acme,
        Method::Dns,
        "ann",
    )
    .await
    .expect("add");
    assert_eq!(claim.token.len(), 26);
    assert_eq!(claim.verified_at, None);
    let e = verify::by_dns(&app.ciam, &lookup, &a, &acme)
        .await
        .unwrap_err();
    assert_eq!(
        e.reason,
        Reason::DOMAIN_TXT_NOT_FOUND,
        "nothing published (NXDOMAIN)"
    );
    server.set_txt("_ciam-verify.acme.example", &["ciam-verify=someone-elses"]);
    let e = verify::by_dns(&app.ciam, &lookup, &a, &acme)
        .await
        .unwrap_err();
    assert_eq!(e.reason, Reason::DOMAIN_TXT_NOT_FOUND, "a wrong value");
    assert_eq!(claims::owner_of(store, &acme).await.expect("read"), None);
    server.set_txt(
        "_ciam-verify.acme.example",
        &[
            "ciam-verify=someone-elses",
            &format!("ciam-verify={}", claim.token),
        ],
    );
    let done = verify::by_dns(&app.ciam, &lookup, &a, &acme)
        .await
        .expect("verified");
    assert_eq!(done.verified_at, Some(app.now()));
    let owner = claims::owner_of(store, &acme)
        .await
        .expect("read")
        .expect("owner");
    assert_eq!((owner.org, owner.enrolment), (a.clone(), Enrolment::Off));
    // Verifying again is harmless (a retry), and the record may go away: no re-check.
    server.remove("_ciam-verify.acme.example");
    verify::by_dns(&app.ciam, &lookup, &a, &acme)
        .await
        .expect("still verified");

    // The DNS server not answering is not a verdict.
    let other = domain("other.example");
    claims::add(
        store,
        app.ciam.entropy.as_ref(),
        app.now(),
        &a,
        &other,
        Method::Dns,
        "ann",
    )
    .await
    .expect("add");
    server.fail("_ciam-verify.other.example");
    let e = verify::by_dns(&app.ciam, &lookup, &a, &other)
        .await
        .unwrap_err();
    assert_eq!(e.reason, Reason::DOMAIN_DNS_UNAVAILABLE);

    // Mail: only an administrative mailbox of that very domain, then its code.
    let cn = domain("acme-cn.example");
    claims::add(
        store,
        app.ciam.entropy.as_ref(),
        app.now(),
        &a,
        &cn,
        Method::Mail,
        "ann",
    )
    .await
    .expect("add");
    for typed in ["zhang.san@acme-cn.example", "admin@acme.example", "admin"] {
        let e = verify::send_mail_code(&app.ciam, &a, &cn, typed, None, Lang::EnUs)
            .await
            .unwrap_err();
        assert_eq!(e.reason, Reason::DOMAIN_MAIL_NOT_ADMIN, "{typed}");
    }
    let captcha = app.solved_captcha().await;
    verify::send_mail_code(
        &app.ciam,
        &a,
        &cn,
        "Admin@acme-cn.example",
        Some(&captcha),
        Lang::ZhCn,
    )
    .await
    .expect("sent");
    let code = app.code_for("admin@acme-cn.example", "domain");
    let wrong = if code == "000000" { "111111" } else { "000000" };
    assert!(
        verify::by_mail(&app.ciam, &a, &cn, "admin@acme-cn.example", wrong)
            .await
            .is_err()
    );
    let e = verify::by_dns(&app.ciam, &lookup, &a, &cn)
        .await
        .unwrap_err();
    assert_eq!(
        e.reason,
        Reason::INVALID_PARAMETER,
        "a mail claim is not verified by DNS"
    );
    verify::by_mail(&app.ciam, &a, &cn, "admin@acme-cn.example", &code)
        .await
        .expect("verified by mail");
    assert_eq!(
        claims::owner_of(store, &cn)
            .await
            .expect("read")
            .map(|o| o.org),
        Some(a.clone())
    );

    // Public and free-mail domains never reach the store.
    for public in ["qq.com", "163.com", "gmail.com", "com.cn"] {
        assert_eq!(
            DomainName::parse(public).unwrap_err().reason,
            Reason::DOMAIN_PUBLIC
        );
    }
    let listed: Vec<String> = claims::list(store, &a)
        .await
        .expect("list")
        .into_iter()
        .map(|c| c.domain.to_string())
        .collect();
    assert_eq!(listed, ["acme-cn.example", "acme.example", "other.example"]);
}

#[tokio::test]
async fn a_domain_is_verified_by_a_real_dns_server_and_by_a_code_to_its_admin_mailbox() {
    dns_and_mail_verification(TestApp::spawn().await).await;
}

#[tokio::test]
async fn on_dynamodb_a_domain_is_verified_by_a_real_dns_server_and_by_a_code_to_its_admin_mailbox()
{
    let local = Arc::new(DynamoLocal::start().await);
    dns_and_mail_verification(TestApp::on_dynamo(&local, "org_domains_verify").await).await;
}

async fn two_organizations_claim_one_domain(app: TestApp) {
    let (server, lookup) = dns().await;
    let store = app.ciam.store.as_ref();
    let entropy = app.ciam.entropy.as_ref();
    let (a, b) = (
        app.active_org("ann", "Acme").await,
        app.active_org("bob", "Acme").await,
    );
    let d = domain("shared.example");
    let ca = claims::add(store, entropy, app.now(), &a, &d, Method::Dns, "ann")
        .await
        .expect("a");
    let cb = claims::add(store, entropy, app.now(), &b, &d, Method::Dns, "bob")
        .await
        .expect("b");
    assert_ne!(ca.token, cb.token, "each claim has its own token");
    // Both records are published; B verifies first.
    server.set_txt(
        "_ciam-verify.shared.example",
        &[&txt::record_value(&ca.token), &txt::record_value(&cb.token)],
    );
    verify::by_dns(&app.ciam, &lookup, &b, &d)
        .await
        .expect("b verifies");
    let e = verify::by_dns(&app.ciam, &lookup, &a, &d)
        .await
        .unwrap_err();
    assert_eq!(e.reason, Reason::DOMAIN_ALREADY_VERIFIED);
    assert_eq!(e.reason.status(), 409);
    let e = claims::add(store, entropy, app.now(), &a, &d, Method::Mail, "ann")
        .await
        .unwrap_err();
    assert_eq!(
        e.reason,
        Reason::DOMAIN_ALREADY_VERIFIED,
        "nor claimed again"
    );
    assert_eq!(
        claims::owner_of(store, &d)
            .await
            .expect("read")
            .map(|o| o.org),
        Some(b.clone())
    );
    // A's removal of its own pending claim leaves B's verified domain alone.
    claims::remove(store, &a, &d)
        .await
        .expect("a's pending claim removed");
    assert_eq!(
        claims::owner_of(store, &d)
            .await
            .expect("read")
            .map(|o| o.org),
        Some(b.clone())
    );
    // B lets it go; then A may claim and verify it.
    claims::remove(store, &b, &d).await.expect("b removes");
    assert_eq!(claims::owner_of(store, &d).await.expect("read"), None);
    let ca = claims::add(store, entropy, app.now(), &a, &d, Method::Dns, "ann")
        .await
        .expect("again");
    server.set_txt(
        "_ciam-verify.shared.example",
        &[&txt::record_value(&ca.token)],
    );
    verify::by_dns(&app.ciam, &lookup, &a, &d)
        .await
        .expect("a verifies");
    let e = claims::remove(store, &b, &d).await.unwrap_err();
    assert_eq!(e.reason, Reason::DOMAIN_NOT_FOUND, "B has no claim left");
    assert_eq!(
        claims::owner_of(store, &d)
            .await
            .expect("read")
            .map(|o| o.org),
        Some(a)
    );
}

#[tokio::test]
async fn of_two_organizations_claiming_one_domain_only_the_first_to_verify_gets_it() {
    two_organizations_claim_one_domain(TestApp::spawn().await).await;
}

#[tokio::test]
async fn on_dynamodb_of_two_organizations_claiming_one_domain_only_the_first_to_verify_gets_it() {
    let local = Arc::new(DynamoLocal::start().await);
    two_organizations_claim_one_domain(TestApp::on_dynamo(&local, "org_domains_two").await).await;
}

async fn member_of(app: &TestApp, org: &OrgId, user: &str) -> Option<Role> {
    org::role_of(app.ciam.store.as_ref(), org, user)
        .await
        .expect("read")
}

async fn enrolment_only_for_proven_addresses(app: TestApp) {
    let (server, lookup) = dns().await;
    let store = app.ciam.store.as_ref();
    let a = app.active_org("ann", "Acme").await;
    let b = app.active_org("bob", "Acme").await;
    verified_by_dns(&app, &server, &lookup, &a, "auto.example").await;
    verified_by_dns(&app, &server, &lookup, &b, "maybe.example").await;

    // Off (the default): a proven address does nothing.
    let carol = app.sign_up("carol", "carol@auto.example").await;
    assert_eq!(member_of(&app, &a, &carol).await, None);

    claims::set_enrolment(store, &a, &domain("auto.example"), Enrolment::Automatic)
        .await
        .expect("automatic");
    claims::set_enrolment(store, &b, &domain("maybe.example"), Enrolment::Suggest)
        .await
        .expect("suggest");

    // A password sign-in proves no address: carol stays outside.
    app.sign_in("carol@auto.example", PASSWORD).await;
    assert_eq!(member_of(&app, &a, &carol).await, None);
    // A sign-in by a code to that mail proves it.
    let code = app.fresh_code("carol@auto.example", "login").await;
    app.login_code("carol@auto.example", &code).await.ok(200);
    assert_eq!(member_of(&app, &a, &carol).await, Some(Role::Member));

    // Sign-up with a mail code: automatic.
    let dave = app.sign_up("dave", "dave@auto.example").await;
    assert_eq!(member_of(&app, &a, &dave).await, Some(Role::Member));
    let o = org::get(store, &a).await.expect("read").expect("org");
    assert_eq!(o.members, 3, "the owner, carol and dave");

    // Binding a mail by code: automatic too.
    let erin = app.sign_up("erin", "erin@elsewhere.example").await;
    let token = app.sign_in("erin@elsewhere.example", PASSWORD).await;
    assert_eq!(member_of(&app, &a, &erin).await, None);
    let code = app.fresh_code("erin@auto.example", "bind").await;
    app.patch_mail(&token, "erin@auto.example", &code)
        .await
        .ok(200);
    assert_eq!(member_of(&app, &a, &erin).await, Some(Role::Member));

    // Suggest: the person is offered the organization, and decides.
    let fay = app.sign_up("fay", "fay@maybe.example").await;
    assert_eq!(member_of(&app, &b, &fay).await, None);
    let offered = enrol::suggested(&app.ciam, &fay).await.expect("read");
    assert_eq!(offered.len(), 1);
    assert_eq!(
        (offered[0].org_id.clone(), offered[0].domain.as_str()),
        (b.clone(), "maybe.example")
    );
    enrol::accept(&app.ciam, &fay, &b).await.expect("accepted");
    assert_eq!(member_of(&app, &b, &fay).await, Some(Role::Member));
    assert!(enrol::suggested(&app.ciam, &fay)
        .await
        .expect("read")
        .is_empty());
    let gus = app.sign_up("gus", "gus@maybe.example").await;
    enrol::decline(&app.ciam, &gus, &b).await.expect("declined");
    assert!(enrol::suggested(&app.ciam, &gus)
        .await
        .expect("read")
        .is_empty());
    let code = app.fresh_code("gus@maybe.example", "login").await;
    app.login_code("gus@maybe.example", &code).await.ok(200);
    assert!(
        enrol::suggested(&app.ciam, &gus)
            .await
            .expect("read")
            .is_empty(),
        "a declined suggestion is not made again"
    );
    assert_eq!(member_of(&app, &b, &gus).await, None);

    // A removed domain enrols nobody more; its members stay.
    claims::remove(store, &a, &domain("auto.example"))
        .await
        .expect("removed");
    let hal = app.sign_up("hal", "hal@auto.example").await;
    assert_eq!(member_of(&app, &a, &hal).await, None);
    assert_eq!(member_of(&app, &a, &dave).await, Some(Role::Member));
}

#[tokio::test]
async fn only_a_proven_address_at_a_verified_domain_enrols_and_suggest_waits_for_the_person() {
    enrolment_only_for_proven_addresses(TestApp::spawn().await).await;
}

#[tokio::test]
async fn on_dynamodb_only_a_proven_address_at_a_verified_domain_enrols_and_suggest_waits_for_the_person(
) {
    let local = Arc::new(DynamoLocal::start().await);
    enrolment_only_for_proven_addresses(TestApp::on_dynamo(&local, "org_domains_enrol").await)
        .await;
}
