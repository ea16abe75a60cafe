//! Remembered consents: the consent screen's context, Allow (the ticket) remembering the
//! decision, the personal centre's list and revocation, and deactivation forgetting them.

use crate::apps::{new_app, ticket, world, LOOK_ALIKES, SERVICE};
use crate::helpers::{json_request, request, TestApp, TestResponse, PASSWORD};
use axum::body::Body;
use axum::http::Method;
use ciam_core::user::user_pk;
use ciam_store::{Query, Store};
use serde_json::json;

const WITH_QUERY: &str = "https://factory.example.com/cb?x=1";

async fn consent_items(app: &TestApp, user_id: &str) -> usize {
    app.store
        .query(Query::partition(user_pk(user_id)).prefix("CONSENT#"))
        .await
        .expect("query")
        .len()
}

#[tokio::test]
async fn the_context_names_the_app_in_the_request_language_and_where_cancel_leads() {
    let w = world().await;
    let zh = w.app.get_consent(&w.user, &w.app_id, SERVICE).await.ok(200);
    assert_eq!(
        zh,
        json!({
            "appId": w.app_id,
            "name": "Factory 工厂",
            "logo": "https://factory.example.com/logo.png",
            // None registered (issue 23: the consent screen links it when there is one).
            "privacyUrl": "",
            "scopes": ["company", "email", "nickname"],
            "granted": false,
            "serviceUrl": SERVICE,
            "cancelUrl": format!("{SERVICE}?cError=access_denied"),
        })
    );
    let q = format!(
        "appId={}&serviceUrl={}",
        w.app_id,
        crate::helpers::url_encode(WITH_QUERY)
    );
    let en = w.app.get_consent_raw(&w.user, &q, "en-US").await.ok(200);
    assert_eq!(en["name"], "Factory");
    assert_eq!(en["serviceUrl"], WITH_QUERY);
    assert_eq!(
        en["cancelUrl"],
        format!("{WITH_QUERY}&cError=access_denied")
    );
    // Reading the context writes nothing.
    assert_eq!(consent_items(&w.app, &w.user_id).await, 0);
}

#[tokio::test]
async fn an_unknown_app_an_unregistered_service_or_a_missing_parameter_is_refused() {
    let w = world().await;
    w.app
        .get_consent(&w.user, "0000000000000000", SERVICE)
        .await
        .error(404, "APPID_NOT_FOUND");
    w.app
        .get_consent(&w.user, &"a".repeat(65), SERVICE)
        .await
        .error(404, "APPID_NOT_FOUND");
    for bad in LOOK_ALIKES.iter().chain(&["", "https://evil.example.com/"]) {
        let v = w
            .app
            .get_consent(&w.user, &w.app_id, bad)
            .await
            .error(400, "INVALID_PARAMETER");
        assert_eq!(v["field"], "serviceUrl", "{bad}: {v}");
    }
    // A URL registered for another app is not registered for this one.
    let mut other = new_app("Other");
    other["serviceUrls"] = json!(["https://other.example.com/cb"]);
    w.app.create_app(&w.admin, &other).await.ok(201);
    w.app
        .get_consent(&w.user, &w.app_id, "https://other.example.com/cb")
        .await
        .error(400, "INVALID_PARAMETER");

    let svc = crate::helpers::url_encode(SERVICE);
    for (query, field) in [
        (format!("serviceUrl={svc}"), "appId"),
        (format!("appId={}", w.app_id), "serviceUrl"),
        (String::new(), "appId"),
    ] {
        let v = w
            .app
            .get_consent_raw(&w.user, &query, "en-US")
            .await
            .error(400, "INVALID_PARAMETER");
        assert_eq!(v["field"], field, "{query}: {v}");
    }
    // Signed out: no context at all.
    let req = request(
        Method::GET,
        &format!("/auth/consent?appId={}&serviceUrl={svc}", w.app_id),
    )
    .body(Body::empty())
    .expect("request");
    w.app.call(req).await.error(401, "AUTHORIZATION_FAILED");
}

#[tokio::test]
async fn allow_is_remembered_until_the_app_asks_for_more() {
    let w = world().await;
    let granted = |w: &crate::apps::World| {
        let (app, user, id) = (w.app.clone(), w.user.clone(), w.app_id.clone());
        async move { app.get_consent(&user, &id, SERVICE).await.ok(200)["granted"].clone() }
    };
    assert_eq!(granted(&w).await, json!(false));
    // Allow = the ticket; it remembers the decision, for every registered serviceUrl.
    ticket(&w, SERVICE).await;
    assert_eq!(granted(&w).await, json!(true));
    let other = w
        .app
        .get_consent(&w.user, &w.app_id, WITH_QUERY)
        .await
        .ok(200);
    assert_eq!(other["granted"], true);

    // Fewer scopes: still covered.
    w.app
        .patch_app(
            &w.admin,
            &w.app_id,
            &json!({ "scopes": ["nickname", "email"] }),
        )
        .await
        .ok(200);
    assert_eq!(granted(&w).await, json!(true));
    // A new scope: ask again.
    w.app
        .patch_app(
            &w.admin,
            &w.app_id,
            &json!({ "scopes": ["nickname", "email", "phone"] }),
        )
        .await
        .ok(200);
    let ctx = w.app.get_consent(&w.user, &w.app_id, SERVICE).await.ok(200);
    assert_eq!(
        (ctx["granted"].clone(), ctx["scopes"].clone()),
        (json!(false), json!(["email", "nickname", "phone"]))
    );
    ticket(&w, SERVICE).await;
    assert_eq!(granted(&w).await, json!(true));
}

/// Allow on the consent screen: `POST /auth/login/token` with the scopes the screen showed.
async fn allow_shown(w: &crate::apps::World, scopes: serde_json::Value) -> TestResponse {
    let body = json!({ "appId": w.app_id, "serviceUrl": SERVICE, "scopes": scopes });
    w.app
        .call(json_request(
            Method::POST,
            "/auth/login/token",
            Some(&w.user),
            &body,
        ))
        .await
}

async fn listed_scopes(w: &crate::apps::World) -> serde_json::Value {
    w.app.get_consents(&w.user, "en-US").await.ok(200)["apps"][0]["scopes"].clone()
}

#[tokio::test]
async fn a_consent_grows_with_each_allow_and_keeps_what_was_allowed_before() {
    let w = world().await;
    let set = |scopes: serde_json::Value| {
        let (app, admin, id) = (w.app.clone(), w.admin.clone(), w.app_id.clone());
        async move {
            app.patch_app(&admin, &id, &json!({ "scopes": scopes }))
                .await
                .ok(200);
        }
    };
    set(json!(["nickname", "email"])).await;
    ticket(&w, SERVICE).await;
    assert_eq!(listed_scopes(&w).await, json!(["email", "nickname"]));
    // The app now asks for something else only: the new Allow adds it to the old one.
    set(json!(["phone"])).await;
    let ctx = w.app.get_consent(&w.user, &w.app_id, SERVICE).await.ok(200);
    assert_eq!(ctx["granted"], false);
    ticket(&w, SERVICE).await;
    assert_eq!(
        listed_scopes(&w).await,
        json!(["email", "nickname", "phone"])
    );
    // Back to what was allowed first: still covered, no screen.
    set(json!(["nickname", "email"])).await;
    let ctx = w.app.get_consent(&w.user, &w.app_id, SERVICE).await.ok(200);
    assert_eq!(ctx["granted"], true);
}

#[tokio::test]
async fn allow_names_the_scopes_shown_and_is_refused_when_the_app_changed_meanwhile() {
    let w = world().await;
    // The scopes the screen showed, in any order: a ticket.
    let ctx = w.app.get_consent(&w.user, &w.app_id, SERVICE).await.ok(200);
    assert_eq!(ctx["scopes"], json!(["company", "email", "nickname"]));
    let t = allow_shown(&w, json!(["nickname", "company", "email"]))
        .await
        .ok(200);
    assert!(t["cTicket"].is_string());
    // The app asks for more while a second screen is open: that Allow is refused, and neither a
    // ticket nor a consent to the new scope comes out of it.
    w.app.delete_consent(&w.user, &w.app_id).await.ok(200);
    let shown = w.app.get_consent(&w.user, &w.app_id, SERVICE).await.ok(200)["scopes"].clone();
    w.app
        .patch_app(
            &w.admin,
            &w.app_id,
            &json!({ "scopes": ["nickname", "email", "company", "phone"] }),
        )
        .await
        .ok(200);
    for stale in [
        shown.clone(),
        json!(["email"]),
        json!([]),
        json!(["company", "email", "nickname", "phone", "avatar"]),
    ] {
        let v = allow_shown(&w, stale.clone())
            .await
            .error(400, "INVALID_PARAMETER");
        assert_eq!(v["field"], "scopes", "{stale}: {v}");
    }
    let v = allow_shown(&w, json!("email"))
        .await
        .error(400, "INVALID_PARAMETER");
    assert_eq!(v["field"], "scopes", "{v}");
    assert_eq!(consent_items(&w.app, &w.user_id).await, 0);
    // The screen reloads the context and shows the new scopes; that Allow goes through.
    let ctx = w.app.get_consent(&w.user, &w.app_id, SERVICE).await.ok(200);
    allow_shown(&w, ctx["scopes"].clone()).await.ok(200);
    assert_eq!(
        listed_scopes(&w).await,
        json!(["company", "email", "nickname", "phone"])
    );
    // Without `scopes` (API clients): the app's current scopes, as before.
    w.app
        .issue_ticket(&w.user, &w.app_id, SERVICE)
        .await
        .ok(200);
}

#[tokio::test]
async fn a_ticket_answers_the_claims_of_the_scopes_it_was_issued_for() {
    let w = world().await;
    w.app
        .patch_app(&w.admin, &w.app_id, &json!({ "scopes": ["nickname"] }))
        .await
        .ok(200);
    let c = ticket(&w, SERVICE).await;
    // The app widens its scopes before redeeming: the user never allowed those for this ticket.
    w.app
        .patch_app(
            &w.admin,
            &w.app_id,
            &json!({ "scopes": ["nickname", "email", "company"] }),
        )
        .await
        .ok(200);
    let claims = w
        .app
        .verify_ticket(&w.app_id, &w.secret, &c, SERVICE)
        .await
        .ok(200);
    assert_eq!(claims, json!({ "userId": w.user_id, "nickname": "ann" }));
}

#[tokio::test]
async fn consents_are_listed_newest_first_and_revoked_per_user() {
    let w = world().await;
    let empty = w.app.get_consents(&w.user, "zh-CN").await.ok(200);
    assert_eq!(empty, json!({ "apps": [] }));

    let mut second = new_app("Second");
    second["serviceUrls"] = json!(["https://second.example.com/cb"]);
    second["logo"] = json!("");
    second["scopes"] = json!(["avatar"]);
    let created = w.app.create_app(&w.admin, &second).await.ok(201);
    let second_id = created["app"]["appId"].as_str().expect("id").to_owned();

    let first_at = w.app.now();
    ticket(&w, SERVICE).await;
    w.app.clock.advance(10);
    w.app
        .issue_ticket(&w.user, &second_id, "https://second.example.com/cb")
        .await
        .ok(200);
    let list = w.app.get_consents(&w.user, "en-US").await.ok(200);
    assert_eq!(
        list,
        json!({ "apps": [
            { "appId": second_id, "name": "Second", "logo": "", "scopes": ["avatar"],
              "grantedAt": first_at + 10 },
            { "appId": w.app_id, "name": "Factory",
              "logo": "https://factory.example.com/logo.png",
              "scopes": ["company", "email", "nickname"], "grantedAt": first_at },
        ] })
    );
    let zh = w.app.get_consents(&w.user, "zh-CN").await.ok(200);
    assert_eq!(zh["apps"][1]["name"], "Factory 工厂");

    // Bob allows the first app too.
    w.app.sign_up("bob", "bob@example.com").await;
    let bob = w.app.sign_in("bob@example.com", PASSWORD).await;
    w.app.issue_ticket(&bob, &w.app_id, SERVICE).await.ok(200);

    // Ann revokes it: her next visit asks again; Bob's decision stands.
    let ok = w.app.delete_consent(&w.user, &w.app_id).await.ok(200);
    assert_eq!(ok, json!({ "ok": true }));
    let list = w.app.get_consents(&w.user, "en-US").await.ok(200);
    assert_eq!(list["apps"].as_array().map(Vec::len), Some(1));
    assert_eq!(list["apps"][0]["appId"], second_id.as_str());
    let ctx = w.app.get_consent(&w.user, &w.app_id, SERVICE).await.ok(200);
    assert_eq!(ctx["granted"], false);
    let bobs = w.app.get_consents(&bob, "en-US").await.ok(200);
    assert_eq!(bobs["apps"][0]["appId"], w.app_id.as_str());
    let ctx = w.app.get_consent(&bob, &w.app_id, SERVICE).await.ok(200);
    assert_eq!(ctx["granted"], true);

    // Idempotent, and harmless for an app never allowed or unknown.
    w.app.delete_consent(&w.user, &w.app_id).await.ok(200);
    w.app
        .delete_consent(&w.user, "0000000000000000")
        .await
        .ok(200);
    // The security activity shows the one revocation that happened, not the no-ops.
    let kinds = |events: serde_json::Value| -> Vec<String> {
        events["events"]
            .as_array()
            .expect("events")
            .iter()
            .filter_map(|e| e["kind"].as_str().map(str::to_owned))
            .filter(|k| k == "appRevoked")
            .collect()
    };
    assert_eq!(
        kinds(w.app.get_activity(&w.user).await.ok(200)),
        ["appRevoked"]
    );
    assert!(kinds(w.app.get_activity(&bob).await.ok(200)).is_empty());
    let req = request(Method::DELETE, &format!("/auth/consents/{}", w.app_id))
        .body(Body::empty())
        .expect("request");
    w.app.call(req).await.error(401, "AUTHORIZATION_FAILED");

    // An app deleted since drops out of the list.
    w.app.delete_app(&w.admin, &second_id).await.ok(200);
    let list = w.app.get_consents(&w.user, "en-US").await.ok(200);
    assert_eq!(list, json!({ "apps": [] }));
}

#[tokio::test]
async fn deactivation_forgets_consents_and_an_outstanding_ticket_fails() {
    let w = world().await;
    ticket(&w, SERVICE).await;
    let outstanding = ticket(&w, SERVICE).await;
    assert_eq!(consent_items(&w.app, &w.user_id).await, 1);

    w.app.sign_up("bob", "bob@example.com").await;
    let bob = w.app.sign_in("bob@example.com", PASSWORD).await;
    w.app.issue_ticket(&bob, &w.app_id, SERVICE).await.ok(200);

    w.app
        .deactivate(&w.user, &json!({ "password": PASSWORD }))
        .await
        .ok(200);
    assert_eq!(consent_items(&w.app, &w.user_id).await, 0);
    w.app
        .verify_ticket(&w.app_id, &w.secret, &outstanding, SERVICE)
        .await
        .error(404, "TICKET_NOT_FOUND");
    // Only hers went.
    let bobs = w.app.get_consents(&bob, "en-US").await.ok(200);
    assert_eq!(bobs["apps"].as_array().map(Vec::len), Some(1));
}

/// The consent life cycle on the engine of `app` (run on DynamoDB Local by dynamo.rs): context,
/// Allow, list, revoke, and deactivation.
pub(crate) async fn consent_life_cycle(app: TestApp) {
    let w = crate::apps::world_on(app).await;
    let ctx = w.app.get_consent(&w.user, &w.app_id, SERVICE).await.ok(200);
    assert_eq!(ctx["granted"], false);
    ticket(&w, SERVICE).await;
    let ctx = w.app.get_consent(&w.user, &w.app_id, SERVICE).await.ok(200);
    assert_eq!(ctx["granted"], true);
    let list = w.app.get_consents(&w.user, "en-US").await.ok(200);
    assert_eq!(list["apps"][0]["appId"], w.app_id.as_str());
    w.app.delete_consent(&w.user, &w.app_id).await.ok(200);
    let list = w.app.get_consents(&w.user, "en-US").await.ok(200);
    assert_eq!(list, json!({ "apps": [] }));
    let outstanding = ticket(&w, SERVICE).await;
    assert_eq!(consent_items(&w.app, &w.user_id).await, 1);
    w.app
        .deactivate(&w.user, &json!({ "password": PASSWORD }))
        .await
        .ok(200);
    assert_eq!(consent_items(&w.app, &w.user_id).await, 0);
    w.app
        .verify_ticket(&w.app_id, &w.secret, &outstanding, SERVICE)
        .await
        .error(404, "TICKET_NOT_FOUND");
}

#[tokio::test]
async fn the_consent_life_cycle_on_sqlite() {
    consent_life_cycle(TestApp::spawn().await).await;
}
