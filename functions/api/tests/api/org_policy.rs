//! The organization's sign-in policy when an app asks for the organization (docs/oidc.md
//! "Organizations", docs/organizations-design.md §1): `mfaRequired` asks a session without a
//! second factor to step up (TOTP) before a code or a ticket carries the organization, and
//! refuses an account that has none to give; `allowedMethods` refuses a session made another
//! way. The `organization` parameter, the session's organization, the picker and the ticket
//! login all go through it; a passkey's fresh proof steps up too. On SQLite and DynamoDB Local.

use crate::helpers::{TestApp, PASSWORD};
use crate::oidc::{get, param, verify_jwt, world_on, World, CB, VERIFIER};
use crate::oidc_orgs::{join, org_of, ticket_app, ASKS, TICKET_URL};
use axum::http::Method;
use ciam_core::org::{self, Role};
use ciam_store::dynamo_local::DynamoLocal;
use ciam_store::{Cond, Update, Value as Stored};
use serde_json::{json, Value};
use std::sync::Arc;

/// Sets `org`'s `mfaRequired` and `allowedMethods` in the store.
async fn policy(app: &TestApp, org: &str, mfa: bool, methods: &[&str]) {
    let org = org::OrgId::parse(org).expect("id");
    let ops = vec![
        Update::Set("mfaRequired".into(), mfa.into()),
        Update::Set(
            "allowedMethods".into(),
            Stored::strings(methods.iter().copied()),
        ),
    ];
    app.ciam
        .store
        .update(&org::org_key(&org), ops, Some(Cond::Exists))
        .await
        .expect("settings");
}

/// The organization step of a request for `w` with `overrides`: the request's id and the step.
async fn step_of(w: &World, overrides: &[(&str, Option<&str>)]) -> (String, Value) {
    let id = w.request_id(overrides).await;
    let step = w.view(&id).await.ok(200)["organization"].clone();
    (id, step)
}

/// A code's id_token claims.
async fn claims_of_code(w: &World, to: &str) -> Value {
    let code = param(to, "code").expect("code");
    let tokens = w.redeem(&code, VERIFIER, CB).await.ok(200);
    let jwks = get(&w.app, "/oidc/jwks", &[]).await.ok(200);
    let (_, claims) =
        verify_jwt(tokens["id_token"].as_str().expect("id_token"), &jwks).expect("verified");
    claims
}

/// A member with the authenticator app, signed in by password alone: asked to step up, refused
/// until then (Allow and the ticket), then the code carries the organization, and the session
/// is not asked again.
async fn a_second_factor_is_asked_then_the_organization_goes_in(app: TestApp) {
    let e = crate::two_factor::enrolled_in(app).await;
    let w = world_on(e.app.clone()).await;
    let app = &w.app;
    let acme = org_of(app, &w.user_id, "Acme").await;
    join(app, &acme, &e.user_id, Role::Member).await;
    policy(app, &acme, true, &[]).await;
    // `e.token`: the password sign-in made before the authenticator was turned on.
    let tfa = w.as_user(&e.token);

    // The parameter names it: the view says stepUp, Allow is refused, the request stays.
    let named = [("organization", Some(acme.as_str()))];
    let (id, step) = step_of(&tfa, &named).await;
    assert_eq!(step["choices"][0]["orgId"], acme.as_str(), "{step}");
    assert_eq!(step["choices"][0]["need"], "stepUp", "{step}");
    assert!(step["choices"][0].get("allowedMethods").is_none(), "{step}");
    tfa.allow_with(&id, &json!({}))
        .await
        .error(403, "ORG_MFA_REQUIRED");
    // The ticket login of an app that asks for the organization: refused the same way.
    let admin = app.admin_session("admin@example.com").await;
    let created = ticket_app(app, &admin).await;
    let portal = created["app"]["appId"].as_str().unwrap().to_owned();
    let secret = created["appSecret"].as_str().unwrap().to_owned();
    let ctx = app.get_consent(&e.token, &portal, TICKET_URL).await.ok(200);
    assert_eq!(ctx["organization"]["choices"][0]["need"], "stepUp");
    app.issue_ticket(&e.token, &portal, TICKET_URL)
        .await
        .error(403, "ORG_MFA_REQUIRED");

    // The step-up: the authenticator's code on the same session.
    e.next_step();
    app.totp_verify(&e.token, &json!({ "code": e.code() }))
        .await
        .ok(200);
    let view = tfa.view(&id).await.ok(200);
    assert_eq!(view["organization"]["choices"][0]["need"], Value::Null);
    let to = tfa.allow_with(&id, &json!({})).await.ok(200)["redirect"]
        .as_str()
        .unwrap()
        .to_owned();
    let claims = claims_of_code(&tfa, &to).await;
    assert_eq!(
        (&claims["org_id"], &claims["org_roles"]),
        (&json!(acme), &json!(["member"]))
    );
    let amr = claims["amr"].as_array().expect("amr").clone();
    assert_eq!(amr.first(), Some(&json!("pwd")), "{claims}");
    assert!(amr.contains(&json!("otp")), "{claims}");
    assert!(amr.contains(&json!("mfa")), "{claims}");
    // Not asked again: the scope alone (its only organization), and the ticket.
    let (_, step) = step_of(&tfa, ASKS).await;
    assert_eq!(step["choices"][0]["need"], Value::Null, "{step}");
    let t = app
        .issue_ticket(&e.token, &portal, TICKET_URL)
        .await
        .ok(200);
    let v = app
        .verify_ticket(&portal, &secret, t["cTicket"].as_str().unwrap(), TICKET_URL)
        .await
        .ok(200);
    assert_eq!(v["orgId"], acme.as_str());
}

/// A person with no second factor is refused (the page's `secondFactor`) whichever way the
/// organization was chosen: the parameter, the session's organization, the picker.
async fn no_second_factor_is_refused_every_way(app: TestApp) {
    let w = world_on(app).await;
    let app = &w.app;
    let acme = org_of(app, &w.user_id, "Acme").await;
    let beta = org_of(app, &w.user_id, "Beta").await;
    policy(app, &beta, true, &[]).await;

    // The parameter.
    let named = [("organization", Some(beta.as_str()))];
    let (id, step) = step_of(&w, &named).await;
    assert_eq!(step["choices"][0]["need"], "secondFactor", "{step}");
    w.allow_with(&id, &json!({}))
        .await
        .error(403, "ORG_MFA_REQUIRED");
    // The picker: each choice says its own need; picking the one that needs nothing is fine.
    let (id, step) = step_of(&w, ASKS).await;
    let choices = step["choices"].as_array().expect("choices").clone();
    assert_eq!(choices.len(), 2, "{step}");
    let need = |org: &str| {
        choices
            .iter()
            .find(|c| c["orgId"] == org)
            .map(|c| c["need"].clone())
    };
    assert_eq!(need(&acme), Some(Value::Null));
    assert_eq!(need(&beta), Some(json!("secondFactor")));
    w.allow_with(&id, &json!({ "organization": beta }))
        .await
        .error(403, "ORG_MFA_REQUIRED");
    let to = w
        .allow_with(&id, &json!({ "organization": acme }))
        .await
        .ok(200)["redirect"]
        .as_str()
        .unwrap()
        .to_owned();
    assert_eq!(claims_of_code(&w, &to).await["org_id"], acme.as_str());
    // The session's organization (as a company sign-in through Beta's connection leaves it).
    for s in app.sessions_of(&w.user_id).await {
        app.ciam
            .store
            .update(
                &s.key,
                vec![Update::Set("org".into(), beta.as_str().into())],
                None,
            )
            .await
            .expect("org");
    }
    let (id, step) = step_of(&w, ASKS).await;
    assert_eq!(step["choices"].as_array().unwrap().len(), 1, "{step}");
    assert_eq!(step["choices"][0]["orgId"], beta.as_str(), "{step}");
    assert_eq!(step["choices"][0]["need"], "secondFactor", "{step}");
    w.allow_with(&id, &json!({}))
        .await
        .error(403, "ORG_MFA_REQUIRED");
    // Without the organization: nothing is asked.
    let id = w.request_id(&[]).await;
    w.allow_with(&id, &json!({})).await.ok(200);
}

/// `allowedMethods`: a password session is refused by an organization that allows codes only
/// (the view tells the methods), fine once password is allowed; the console validates the names.
async fn allowed_methods_refuse_another_way_in(app: TestApp) {
    let w = world_on(app).await;
    let app = &w.app;
    let acme = org_of(app, &w.user_id, "Acme").await;
    let op = app.admin_session("admin@example.com").await;
    app.fresh_proof(&op).await;
    let path = format!("/admin/organizations/{acme}");
    let change = |methods: Value| json!({ "reason": "contract", "allowedMethods": methods });
    let bad = app
        .admin_call(
            Method::PATCH,
            &path,
            Some(&op),
            Some(&change(json!(["sms"]))),
        )
        .await;
    assert_eq!(
        bad.error(400, "INVALID_PARAMETER")["field"],
        "allowedMethods"
    );
    let set = app
        .admin_call(
            Method::PATCH,
            &path,
            Some(&op),
            Some(&change(json!(["organization", "code", "code"]))),
        )
        .await
        .ok(200);
    assert_eq!(
        set["settings"]["allowedMethods"],
        json!(["code", "organization"])
    );

    let (id, step) = step_of(&w, ASKS).await;
    let choice = &step["choices"][0];
    assert_eq!(
        (&choice["need"], &choice["allowedMethods"]),
        (&json!("method"), &json!(["code", "organization"])),
        "{step}"
    );
    w.allow_with(&id, &json!({}))
        .await
        .error(403, "ORG_METHOD_NOT_ALLOWED");
    // A sign-in by code is one of them.
    let code = app.fresh_code("ann@example.com", "login").await;
    let by_code = app.login_code("ann@example.com", &code).await.ok(200)["token"]
        .as_str()
        .unwrap()
        .to_owned();
    let coded = w.as_user(&by_code);
    let (id, step) = step_of(&coded, ASKS).await;
    assert_eq!(step["choices"][0]["need"], Value::Null, "{step}");
    coded.allow_with(&id, &json!({})).await.ok(200);
    // Password allowed too: the password session goes on.
    app.admin_call(
        Method::PATCH,
        &path,
        Some(&op),
        Some(&change(json!(["password", "code"]))),
    )
    .await
    .ok(200);
    let (claims, _) = w.claims(ASKS, &json!({})).await;
    assert_eq!(claims["org_id"], acme.as_str());
    // Not asked for the organization: nothing refused whatever the method.
    policy(app, &acme, true, &["passkey"]).await;
    let (claims, _) = w.claims(&[], &json!({})).await;
    assert!(claims.get("org_id").is_none(), "{claims}");
    let fresh = app.sign_in("ann@example.com", PASSWORD).await;
    let (_, step) = step_of(&w.as_user(&fresh), ASKS).await;
    assert_eq!(step["choices"][0]["need"], "method", "{step}");
}

/// A member whose second factor is a passkey: the step-up is a passkey's fresh proof, which adds
/// to the session's `amr`, so the session still signed in by password (`allowedMethods`).
async fn a_passkey_steps_up_and_the_method_stays(app: TestApp) {
    use crate::passkeys::{add, handle, soft};
    let w = world_on(app).await;
    let app = &w.app;
    let acme = org_of(app, &w.user_id, "Acme").await;
    policy(app, &acme, true, &["password"]).await;
    let (_, step) = step_of(&w, ASKS).await;
    assert_eq!(step["choices"][0]["need"], "secondFactor", "{step}");
    let mut key = soft(42);
    add(app, &w.user, &mut key).await.ok(200);
    let (id, step) = step_of(&w, ASKS).await;
    assert_eq!(step["choices"][0]["need"], "stepUp", "{step}");
    let o = app.passkey_reauth_options(&w.user).await.ok(200);
    let credential = key.get(&o["publicKey"], &handle(&w.user_id));
    app.passkey_reauth(
        &w.user,
        &json!({ "passkeyChallenge": o["passkeyChallenge"], "credential": credential }),
    )
    .await
    .ok(200);
    let view = w.view(&id).await.ok(200);
    assert_eq!(view["organization"]["choices"][0]["need"], Value::Null);
    let to = w.allow_with(&id, &json!({})).await.ok(200)["redirect"]
        .as_str()
        .unwrap()
        .to_owned();
    let claims = claims_of_code(&w, &to).await;
    assert_eq!(claims["org_id"], acme.as_str());
    assert_eq!(claims["amr"], json!(["pwd", "hwk", "user", "mfa"]));
}

#[tokio::test]
async fn a_passkey_is_a_step_up_too_and_the_sign_in_method_stays_the_password() {
    a_passkey_steps_up_and_the_method_stays(crate::passkeys::app().await).await;
}

#[tokio::test]
async fn an_organization_that_requires_a_second_factor_asks_for_it_then_goes_on() {
    a_second_factor_is_asked_then_the_organization_goes_in(TestApp::spawn().await).await;
}

#[tokio::test]
async fn an_organization_that_requires_a_second_factor_refuses_a_person_without_one() {
    no_second_factor_is_refused_every_way(TestApp::spawn().await).await;
}

#[tokio::test]
async fn an_organization_refuses_a_sign_in_method_it_does_not_allow() {
    allowed_methods_refuse_another_way_in(TestApp::spawn().await).await;
}

#[tokio::test]
async fn on_dynamodb_the_organization_policy_behaves_alike() {
    let local = Arc::new(DynamoLocal::start().await);
    a_second_factor_is_asked_then_the_organization_goes_in(
        TestApp::on_dynamo(&local, "org_policy_mfa").await,
    )
    .await;
    no_second_factor_is_refused_every_way(TestApp::on_dynamo(&local, "org_policy_none").await)
        .await;
    allowed_methods_refuse_another_way_in(TestApp::on_dynamo(&local, "org_policy_methods").await)
        .await;
    a_passkey_steps_up_and_the_method_stays(
        crate::passkeys::app_on(&local, "org_policy_passkey").await,
    )
    .await;
}
