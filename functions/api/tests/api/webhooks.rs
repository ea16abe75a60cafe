//! Webhook endpoints (issue 23): the registry's sub-resource, secrets shown once and sealed, the
//! URL checks; delivery to a real receiver on 127.0.0.1 with the backoff on the manual clock,
//! the log, replay, 410, and the SSRF guard; on SQLite and on DynamoDB Local.

use crate::apps::{world_on, World, SERVICE};
use crate::helpers::TestApp;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::IntoResponse;
use axum::routing::post;
use ciam_api::webhook_transport::{DnsResolver, HttpTransport};
use ciam_core::events::{Event, Kind};
use ciam_core::webhooks::guard::StaticResolver;
use ciam_core::webhooks::{queue, sign};
use ciam_store::dynamo_local::DynamoLocal;
use http::Method;
use serde_json::{json, Map, Value};
use std::sync::{Arc, Mutex};

/// A receiver on 127.0.0.1: answers the scripted statuses in turn (then 200), records each
/// request's webhook headers and body.
#[derive(Clone, Default)]
struct Receiver {
    script: Arc<Mutex<Vec<u16>>>,
    got: Arc<Mutex<Vec<(HeaderMap, String)>>>,
    hits_elsewhere: Arc<Mutex<usize>>,
}

async fn hook(
    State(r): State<Receiver>,
    headers: HeaderMap,
    body: String,
) -> axum::response::Response {
    r.got.lock().unwrap().push((headers, body));
    let next = {
        let mut s = r.script.lock().unwrap();
        if s.is_empty() {
            200
        } else {
            s.remove(0)
        }
    };
    let status = StatusCode::from_u16(next).unwrap();
    if status.is_redirection() {
        return (status, [("location", "/elsewhere")], "moved").into_response();
    }
    (status, "x".repeat(3000)).into_response()
}

async fn elsewhere(State(r): State<Receiver>) -> &'static str {
    *r.hits_elsewhere.lock().unwrap() += 1;
    "followed"
}

impl Receiver {
    async fn start(script: &[u16]) -> (Receiver, String) {
        let r = Receiver::default();
        r.script.lock().unwrap().extend_from_slice(script);
        let router = axum::Router::new()
            .route("/hook", post(hook))
            .route("/elsewhere", post(elsewhere).get(elsewhere))
            .with_state(r.clone());
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = listener.local_addr().unwrap().port();
        tokio::spawn(async move { axum::serve(listener, router).await.unwrap() });
        (r, format!("http://127.0.0.1:{port}/hook"))
    }

    fn count(&self) -> usize {
        self.got.lock().unwrap().len()
    }
}

async fn local_world(app: TestApp) -> World {
    world_on(app.configure(|c| c.webhooks_local_http = true)).await
}

async fn add_endpoint(w: &World, url: &str, events: &[&str]) -> (String, String) {
    let body = json!({ "url": url, "events": events, "description": "orders" });
    let p = format!("/admin/apps/{}/webhooks", w.app_id);
    let got = w
        .app
        .send_json(Method::POST, &p, Some(&w.admin), &body)
        .await
        .ok(201);
    (
        got["endpoint"]["endpointId"].as_str().unwrap().to_owned(),
        got["secret"].as_str().unwrap().to_owned(),
    )
}

/// Writes an event of the user with its outbox marker in one transaction (what a cause does).
async fn emit(w: &World, kind: Kind, nickname: &str) -> Event {
    let mut data = Map::new();
    data.insert("nickname".into(), json!(nickname));
    data.insert("duty".into(), json!("never sent"));
    let e = Event::new(&w.app.ciam, &w.user_id, kind, data);
    let tx = vec![e.op(), queue::pending_op(&e.key()).unwrap()];
    w.app.ciam.store.transact(tx).await.unwrap();
    e
}

async fn run(w: &World) -> Option<i64> {
    queue::fan_out_pending(&w.app.ciam).await.unwrap();
    queue::drain(&w.app.ciam, &HttpTransport, &DnsResolver)
        .await
        .unwrap()
}

async fn log(w: &World, ep: &str) -> Vec<Value> {
    let p = format!("/admin/apps/{}/webhooks/{ep}/deliveries", w.app_id);
    let got = w.app.get(&p, Some(&w.admin)).await.ok(200);
    got["deliveries"].as_array().unwrap().clone()
}

fn verify(secret: &str, h: &HeaderMap, body: &str) -> bool {
    let id = h["webhook-id"].to_str().unwrap();
    let ts: i64 = h["webhook-timestamp"].to_str().unwrap().parse().unwrap();
    let want = sign::signature(&sign::secret_bytes(secret).unwrap(), id, ts, body);
    h["webhook-signature"]
        .to_str()
        .unwrap()
        .split(' ')
        .any(|s| s == want)
}

#[tokio::test]
async fn admins_register_endpoints_whose_secrets_are_shown_once_and_stored_sealed() {
    let w = world_on(TestApp::spawn().await).await;
    let base = format!("/admin/apps/{}/webhooks", w.app_id);
    let (ep, secret) = add_endpoint(
        &w,
        "https://hooks.factory.example.com/ciam",
        &["user.updated", "session.ended"],
    )
    .await;
    assert!(ep.starts_with("ep_"));
    let bytes = sign::secret_bytes(&secret).unwrap();
    assert_eq!(bytes.len(), 32);
    // Sealed: the stored item holds neither the secret's text nor its bytes.
    let item = w
        .app
        .ciam
        .store
        .get(&ciam_store::Key::new(
            format!("WHE#{}", w.app_id),
            format!("EP#{ep}"),
        ))
        .await
        .unwrap()
        .unwrap();
    let stored = item.b("secret").unwrap();
    assert!(!stored.windows(32).any(|x| x == bytes.as_slice()));
    assert!(!format!("{:?}", item).contains(&secret));

    let list = w.app.get(&base, Some(&w.admin)).await.ok(200);
    assert_eq!(list["endpoints"][0]["endpointId"], ep.as_str());
    assert_eq!(
        list["endpoints"][0]["events"],
        json!(["user.updated", "session.ended"])
    );
    assert!(list["endpoints"][0].get("secret").is_none());
    let one = w
        .app
        .get(&format!("{base}/{ep}"), Some(&w.admin))
        .await
        .ok(200);
    assert_eq!(one["enabled"], true);

    // Rotation: a new secret once, the previous one signing for 24 hours.
    let rotated = w
        .app
        .send_json(
            Method::PATCH,
            &format!("{base}/{ep}"),
            Some(&w.admin),
            &json!({"rotateSecret": true}),
        )
        .await
        .ok(200);
    let new_secret = rotated["secret"].as_str().unwrap();
    assert_ne!(new_secret, secret);
    assert_eq!(
        rotated["endpoint"]["previousSecretUntil"],
        w.app.now() + 86_400
    );
    let disabled = w
        .app
        .send_json(
            Method::PATCH,
            &format!("{base}/{ep}"),
            Some(&w.admin),
            &json!({"enabled": false, "description": "paused"}),
        )
        .await
        .ok(200);
    assert_eq!(disabled["endpoint"]["enabled"], false);
    assert!(disabled.get("secret").is_none());
    let enabled = w
        .app
        .send_json(
            Method::PATCH,
            &format!("{base}/{ep}"),
            Some(&w.admin),
            &json!({"enabled": true}),
        )
        .await
        .ok(200);
    assert_eq!(enabled["endpoint"]["enabled"], true);
    assert_eq!(enabled["endpoint"]["description"], "paused");

    // Refusals, each with its reason and nothing written.
    for (url, reason) in [
        ("http://hooks.factory.example.com/", "WEBHOOK_URL_NOT_HTTPS"),
        ("http://localhost:9000/hook", "WEBHOOK_URL_NOT_HTTPS"),
        (
            "https://user:pw@hooks.factory.example.com/",
            "WEBHOOK_URL_USERINFO",
        ),
        (
            "https://hooks.factory.example.com/#frag",
            "WEBHOOK_URL_FRAGMENT",
        ),
        ("not a url", "WEBHOOK_URL_INVALID"),
        ("https://127.0.0.1/hook", "WEBHOOK_URL_PRIVATE"),
        ("https://10.0.0.1/hook", "WEBHOOK_URL_PRIVATE"),
        (
            "https://169.254.169.254/latest/meta-data",
            "WEBHOOK_URL_PRIVATE",
        ),
        ("https://[::1]/hook", "WEBHOOK_URL_PRIVATE"),
    ] {
        let r = w
            .app
            .send_json(
                Method::POST,
                &base,
                Some(&w.admin),
                &json!({"url": url, "events": ["user.updated"]}),
            )
            .await;
        r.error(400, reason);
    }
    let long = format!("https://hooks.factory.example.com/{}", "a".repeat(2048));
    w.app
        .send_json(
            Method::POST,
            &base,
            Some(&w.admin),
            &json!({"url": long, "events": ["user.updated"]}),
        )
        .await
        .error(400, "WEBHOOK_URL_TOO_LONG");
    for events in [json!([]), json!(["user.created"]), json!("user.updated")] {
        let r = w
            .app
            .send_json(
                Method::POST,
                &base,
                Some(&w.admin),
                &json!({"url": "https://hooks.factory.example.com/", "events": events}),
            )
            .await;
        assert_eq!(r.error(400, "INVALID_PARAMETER")["field"], "events");
    }
    assert_eq!(
        w.app.get(&base, Some(&w.admin)).await.ok(200)["endpoints"]
            .as_array()
            .unwrap()
            .len(),
        1
    );

    // Only admins; unknown ids.
    w.app
        .get(&base, Some(&w.user))
        .await
        .error(403, "PERMISSION_DENIED");
    w.app
        .send_json(
            Method::POST,
            &base,
            Some(&w.user),
            &json!({"url": "https://a.example.com/", "events": ["user.updated"]}),
        )
        .await
        .error(403, "PERMISSION_DENIED");
    w.app
        .get("/admin/apps/0000000000000000/webhooks", Some(&w.admin))
        .await
        .error(404, "APPID_NOT_FOUND");
    w.app
        .get(&format!("{base}/ep_nope"), Some(&w.admin))
        .await
        .error(404, "WEBHOOK_NOT_FOUND");
    w.app
        .send_json(
            Method::DELETE,
            &format!("{base}/{ep}"),
            Some(&w.admin),
            &json!({}),
        )
        .await
        .ok(200);
    w.app
        .send_json(
            Method::DELETE,
            &format!("{base}/{ep}"),
            Some(&w.admin),
            &json!({}),
        )
        .await
        .error(404, "WEBHOOK_NOT_FOUND");
}

async fn retries_until_the_third_attempt(w: World) {
    let (rx, url) = Receiver::start(&[500, 503]).await;
    let (ep, secret) = add_endpoint(&w, &url, &["user.updated"]).await;
    // No consent yet: the app hears nothing.
    emit(&w, Kind::UserUpdated, "before").await;
    assert_eq!(run(&w).await, None);
    assert_eq!(rx.count(), 0);
    w.app
        .issue_ticket(&w.user, &w.app_id, SERVICE)
        .await
        .ok(200);

    let e = emit(&w, Kind::UserUpdated, "小王").await;
    w.app.clock.advance(1);
    let later = emit(&w, Kind::UserUpdated, "小李").await;
    let t0 = w.app.now();
    assert_eq!(run(&w).await, Some(t0 + 5), "retried after 5 s");
    assert_eq!(
        rx.count(),
        1,
        "the later event waits behind the earlier one"
    );
    w.app.clock.advance(4);
    assert_eq!(run(&w).await, Some(t0 + 5));
    assert_eq!(rx.count(), 1);
    w.app.clock.advance(1);
    assert_eq!(run(&w).await, Some(t0 + 35), "then after 30 s");
    assert_eq!(rx.count(), 2);
    w.app.clock.advance(30);
    assert_eq!(run(&w).await, None, "delivered, then the later one at once");
    let got = rx.got.lock().unwrap().clone();
    assert_eq!(got.len(), 4);
    for (h, body) in &got[..3] {
        assert_eq!(h["webhook-id"], e.id.as_str());
        assert!(verify(&secret, h, body));
        let b: Value = serde_json::from_str(body).unwrap();
        assert_eq!(b["type"], "user.updated");
        assert_eq!(b["data"], json!({"nickname": "小王", "userId": w.user_id}));
    }
    assert_eq!(got[3].0["webhook-id"], later.id.as_str());

    let entries = log(&w, &ep).await;
    let mine: Vec<&Value> = entries
        .iter()
        .filter(|x| x["eventId"] == e.id.as_str())
        .collect();
    assert_eq!(mine.len(), 3, "{entries:?}");
    assert_eq!(
        mine.iter()
            .map(|x| x["attempt"].as_i64().unwrap())
            .collect::<Vec<_>>(),
        [3, 2, 1]
    );
    assert_eq!(
        mine.iter()
            .map(|x| x["status"].as_i64().unwrap())
            .collect::<Vec<_>>(),
        [200, 503, 500]
    );
    assert_eq!(mine[0]["outcome"], "delivered");
    assert_eq!(mine[1]["outcome"], "retry");
    assert_eq!(
        mine[0]["answer"].as_str().unwrap().len(),
        1024,
        "at most 1 KB kept"
    );
    // Paging.
    let p = format!("/admin/apps/{}/webhooks/{ep}/deliveries?limit=2", w.app_id);
    let page = w.app.get(&p, Some(&w.admin)).await.ok(200);
    assert_eq!(page["deliveries"].as_array().unwrap().len(), 2);
    let next = page["next"].as_str().unwrap();
    let p2 = format!(
        "/admin/apps/{}/webhooks/{ep}/deliveries?limit=2&after={}",
        w.app_id,
        next.replace('#', "%23")
    );
    let page2 = w.app.get(&p2, Some(&w.admin)).await.ok(200);
    assert_eq!(page2["deliveries"].as_array().unwrap().len(), 2);
    assert!(page2["next"].is_null());

    // Replay of one event, then of a range: the same webhook-id again.
    let replay = format!("/admin/apps/{}/webhooks/{ep}/replay", w.app_id);
    let r = w
        .app
        .send_json(
            Method::POST,
            &replay,
            Some(&w.admin),
            &json!({"eventId": e.id}),
        )
        .await
        .ok(200);
    assert_eq!(r["eventIds"], json!([e.id]));
    assert_eq!(run(&w).await, None);
    assert_eq!(rx.got.lock().unwrap()[4].0["webhook-id"], e.id.as_str());
    let r = w
        .app
        .send_json(
            Method::POST,
            &replay,
            Some(&w.admin),
            &json!({"from": t0, "to": w.app.now()}),
        )
        .await
        .ok(200);
    assert_eq!(r["eventIds"].as_array().unwrap().len(), 2);
    assert_eq!(run(&w).await, None);
    let ids: Vec<String> = rx.got.lock().unwrap()[5..]
        .iter()
        .map(|(h, _)| h["webhook-id"].to_str().unwrap().to_owned())
        .collect();
    assert_eq!(ids, [e.id.clone(), later.id.clone()]);
    w.app
        .send_json(
            Method::POST,
            &replay,
            Some(&w.admin),
            &json!({"eventId": "msg_unknown"}),
        )
        .await
        .error(404, "NOT_FOUND");
    w.app
        .send_json(Method::POST, &replay, Some(&w.admin), &json!({}))
        .await
        .error(400, "INVALID_PARAMETER");
}

#[tokio::test]
async fn a_receiver_failing_twice_gets_the_event_on_the_third_attempt_and_replays_resend_it() {
    retries_until_the_third_attempt(local_world(TestApp::spawn().await).await).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn on_dynamodb_a_receiver_failing_twice_gets_the_event_on_the_third_attempt() {
    let local = Arc::new(DynamoLocal::start().await);
    retries_until_the_third_attempt(
        local_world(TestApp::on_dynamo(&local, "webhooks").await).await,
    )
    .await;
}

#[tokio::test]
async fn a_410_disables_the_endpoint_at_once_and_a_redirect_is_not_followed() {
    let w = local_world(TestApp::spawn().await).await;
    w.app
        .issue_ticket(&w.user, &w.app_id, SERVICE)
        .await
        .ok(200);
    set_owner(&w, "owner@factory.example.com").await;
    let (gone, gone_url) = Receiver::start(&[410]).await;
    let (moved, moved_url) = Receiver::start(&[302, 302]).await;
    let (ep_gone, _) = add_endpoint(&w, &gone_url, &["user.updated"]).await;
    let (ep_moved, _) = add_endpoint(&w, &moved_url, &["user.updated"]).await;
    emit(&w, Kind::UserUpdated, "a").await;
    let next = run(&w).await;
    assert_eq!(gone.count(), 1);
    let one = w
        .app
        .get(
            &format!("/admin/apps/{}/webhooks/{ep_gone}", w.app_id),
            Some(&w.admin),
        )
        .await
        .ok(200);
    assert_eq!(one["enabled"], false);
    assert_eq!(one["disabledAt"], w.app.now());
    // Its owner is told, once, in both languages, what to do.
    let told = disabled_notices(&w);
    assert_eq!(told.len(), 1, "{told:?}");
    assert_eq!(told[0].to.as_str(), "owner@factory.example.com");
    let text = told[0].text();
    assert!(
        text.contains(&gone_url) && text.contains(&ep_gone),
        "{text}"
    );
    assert!(
        text.contains("410 Gone") && text.contains("已停用"),
        "{text}"
    );
    assert!(text.contains(&format!(
        "PATCH /ciam/v1/admin/apps/{}/webhooks/{ep_gone}",
        w.app_id
    )));
    let l = log(&w, &ep_gone).await;
    assert_eq!(
        (l[0]["status"].as_i64(), l[0]["outcome"].as_str()),
        (Some(410), Some("failed"))
    );
    // The redirect: answered 302, counted as a failure, its target never asked.
    assert_eq!(moved.count(), 1);
    assert_eq!(*moved.hits_elsewhere.lock().unwrap(), 0);
    let l = log(&w, &ep_moved).await;
    assert_eq!(
        (l[0]["status"].as_i64(), l[0]["outcome"].as_str()),
        (Some(302), Some("retry"))
    );
    assert_eq!(l[0]["error"], "redirect not followed");
    assert_eq!(next, Some(w.app.now() + 5));
    // A disabled endpoint hears nothing more.
    emit(&w, Kind::UserUpdated, "b").await;
    w.app.clock.advance(5);
    run(&w).await;
    assert_eq!(gone.count(), 1);
    assert_eq!(disabled_notices(&w).len(), 1, "told once");
}

/// Registers `mail` as the app's owner (PATCH /admin/apps/{appId}).
async fn set_owner(w: &World, mail: &str) {
    let got = w
        .app
        .send_json(
            Method::PATCH,
            &format!("/admin/apps/{}", w.app_id),
            Some(&w.admin),
            &json!({ "ownerMail": mail }),
        )
        .await
        .ok(200);
    assert_eq!(got["app"]["ownerMail"], mail);
}

/// The owner notices of disabled endpoints sent so far.
fn disabled_notices(w: &World) -> Vec<ciam_core::NoticeMessage> {
    w.app
        .outbox
        .notices()
        .into_iter()
        .filter(|n| n.notice.kind() == "webhookDisabled")
        .collect()
}

#[tokio::test]
async fn in_strict_mode_names_resolving_to_inside_addresses_are_refused_before_any_connection() {
    let w = world_on(TestApp::spawn().await).await;
    w.app
        .issue_ticket(&w.user, &w.app_id, SERVICE)
        .await
        .ok(200);
    let (rx, url) = Receiver::start(&[]).await;
    let port = url::Url::parse(&url).unwrap().port().unwrap();
    let names = [
        ("loop.hooks.example.com", "127.0.0.1"),
        ("ten.hooks.example.com", "10.0.0.1"),
        ("meta.hooks.example.com", "169.254.169.254"),
        ("six.hooks.example.com", "::1"),
        ("mapped.hooks.example.com", "::ffff:127.0.0.1"),
    ];
    let resolver = StaticResolver(
        names
            .iter()
            .map(|(n, ip)| (n.to_string(), vec![ip.parse().unwrap()]))
            .collect(),
    );
    let mut eps = Vec::new();
    for (name, _) in names {
        eps.push(
            add_endpoint(
                &w,
                &format!("https://{name}:{port}/hook"),
                &["user.updated"],
            )
            .await
            .0,
        );
    }
    emit(&w, Kind::UserUpdated, "a").await;
    queue::fan_out_pending(&w.app.ciam).await.unwrap();
    queue::drain(&w.app.ciam, &HttpTransport, &resolver)
        .await
        .unwrap();
    assert_eq!(rx.count(), 0, "nothing connected");
    for (ep, (name, ip)) in eps.iter().zip(names) {
        let l = log(&w, ep).await;
        assert_eq!(l[0]["status"], 0, "{name}");
        let err = l[0]["error"].as_str().unwrap();
        assert!(err.starts_with("refused") && err.contains(name), "{err}");
        assert!(
            err.contains(&ip.parse::<std::net::IpAddr>().unwrap().to_string()),
            "{err}"
        );
    }
}

#[tokio::test]
async fn an_endpoint_failing_for_three_days_without_a_success_is_disabled_and_re_enabled_by_an_admin(
) {
    let mut w = local_world(TestApp::spawn().await).await;
    w.app
        .issue_ticket(&w.user, &w.app_id, SERVICE)
        .await
        .ok(200);
    let (rx, url) = Receiver::start(&[500; 40]).await;
    let (ep, _) = add_endpoint(&w, &url, &["user.updated"]).await;
    let one = format!("/admin/apps/{}/webhooks/{ep}", w.app_id);
    let t0 = w.app.now();
    emit(&w, Kind::UserUpdated, "a").await;
    // Retried through its 24 hours, then failed.
    let mut next = run(&w).await;
    while let Some(at) = next {
        w.app.clock.advance(at - w.app.now());
        next = run(&w).await;
    }
    assert!(w.app.now() <= t0 + 86_400, "no retry after 24 h");
    // The admin's session ended meanwhile: a new one.
    w.admin = w.app.admin_session("admin@example.com").await;
    let tries = rx.count();
    assert!((10..=20).contains(&tries), "{tries} attempts in 24 h");
    let l = log(&w, &ep).await;
    assert_eq!(l[0]["outcome"], "failed");
    let got = w.app.get(&one, Some(&w.admin)).await.ok(200);
    assert_eq!(
        (got["enabled"].as_bool(), got["failingSince"].as_i64()),
        (Some(true), Some(t0))
    );
    // Three days after the first failure, still no success: the next failure disables it.
    w.app.clock.advance(t0 + 3 * 86_400 - w.app.now());
    w.admin = w.app.admin_session("admin@example.com").await;
    emit(&w, Kind::UserUpdated, "b").await;
    assert_eq!(run(&w).await, None);
    let got = w.app.get(&one, Some(&w.admin)).await.ok(200);
    assert_eq!(got["enabled"], false);
    assert_eq!(got["disabledAt"], w.app.now());
    // The app has no ownerMail: nobody to mail (the registry and the console show it disabled).
    assert!(disabled_notices(&w).is_empty());
    emit(&w, Kind::UserUpdated, "c").await;
    run(&w).await;
    assert_eq!(rx.count(), tries + 1, "a disabled endpoint hears nothing");
    // Re-enabled by an admin: failures forgotten, deliveries again.
    let body = json!({"enabled": true});
    let got = w
        .app
        .send_json(Method::PATCH, &one, Some(&w.admin), &body)
        .await
        .ok(200);
    assert_eq!(
        (
            got["endpoint"]["enabled"].as_bool(),
            got["endpoint"]["failingSince"].as_i64()
        ),
        (Some(true), None)
    );
    rx.script.lock().unwrap().clear();
    emit(&w, Kind::UserUpdated, "d").await;
    assert_eq!(run(&w).await, None);
    assert_eq!(rx.count(), tries + 2);
    let got = w.app.get(&one, Some(&w.admin)).await.ok(200);
    assert_eq!(got["lastSuccessAt"], w.app.now());
}

/// A deactivation deletes the consents in its transaction; the event keeps who heard the user
/// then (`audience`), and the fan-out sends to them, not to nobody.
#[tokio::test]
async fn a_deactivation_reaches_the_apps_that_had_a_consent_after_the_consents_are_gone() {
    let w = local_world(TestApp::spawn().await).await;
    let (ep, _) = add_endpoint(
        &w,
        "https://hooks.factory.example.com/ciam",
        &["user.deactivated"],
    )
    .await;
    let mut e = Event::new(&w.app.ciam, &w.user_id, Kind::Deactivated, Map::new());
    e.audience = Some([(w.app_id.clone(), vec!["nickname".to_owned()])].into());
    let out = ciam_core::webhooks::deliver::fan_out(&w.app.ciam, &e)
        .await
        .unwrap();
    assert_eq!(out.len(), 1, "{out:?}");
    assert_eq!(out[0].endpoint_id, ep);
    let body: Value = serde_json::from_str(&out[0].body).unwrap();
    assert_eq!(body["type"], "user.deactivated");
    assert_eq!(body["data"], json!({ "userId": w.user_id }));
    // Another app's audience only: this app hears nothing.
    e.audience = Some([("another-app".to_owned(), vec![])].into());
    assert!(ciam_core::webhooks::deliver::fan_out(&w.app.ciam, &e)
        .await
        .unwrap()
        .is_empty());
}
