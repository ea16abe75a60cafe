//! No partner starves another in `ciam serve` (issue 30 item 2): the worker attempts each app's
//! deliveries in a lane of its own (`webhooks::queue::Lanes`), and an app's logout notices in
//! another, over real HTTP listeners. One app's endpoint hangs (the attempt's 5 s limit), another
//! answers in 4 s, both with deliveries pending; a third app's event and a logout notice are each
//! delivered within a second. And one account that writes 10,000 profile changes makes a bounded
//! number of `user.updated` events and deliveries (coalescing), while another account's event is
//! delivered at once.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use ciam_core::apps::App;
use ciam_core::consents::Consent;
use ciam_core::events::{self, Event, Kind};
use ciam_core::user::User;
use ciam_core::webhooks::{self, EndpointFields};
use ciam_core::Ciam;
use ciam_local::webhooks::{spawn_with, NoticingStore};
use ciam_store::{Item, Key, TxOp};
use serde_json::{json, Map};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::sync::Notify;

/// What a listener received: (path, body, when).
type Got = Arc<Mutex<Vec<(String, String, Instant)>>>;

/// A listener on 127.0.0.1 that answers each POST after `delay` (None: never), recording it.
async fn listener(delay: Option<Duration>, got: Got) -> String {
    let router = axum::Router::new().fallback(axum::routing::post(
        move |uri: axum::http::Uri, body: String| {
            let got = got.clone();
            async move {
                got.lock()
                    .unwrap()
                    .push((uri.path().to_owned(), body, Instant::now()));
                match delay {
                    Some(d) => tokio::time::sleep(d).await,
                    None => std::future::pending::<()>().await,
                }
                "ok"
            }
        },
    ));
    let l = tokio::net::TcpListener::bind(("127.0.0.1", 0))
        .await
        .unwrap();
    let addr = l.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(l, router).await.unwrap() });
    format!("http://{addr}")
}

/// The worker's `Ciam` (the raw store: its own writes do not wake it) and the writers' (the
/// noticing store over the same one, waking it), as `ciam serve` wires them.
async fn world(now: i64) -> (Ciam, Ciam, Arc<Notify>, ciam_store::ManualClock) {
    let config = ciam_core::Config {
        webhooks_local_http: true,
        ..Default::default()
    };
    let b = ciam_core::testing::Builder::new(now).config(config);
    let clock = b.clock();
    let worker = b.build().await;
    let wake = Arc::new(Notify::new());
    let writer = Ciam {
        store: Arc::new(NoticingStore::new(worker.store.clone(), wake.clone())),
        ..worker.clone()
    };
    (worker, writer, wake, clock)
}

async fn app(c: &Ciam, id: &str, backchannel: Option<&str>) {
    let a = App {
        app_id: id.into(),
        backchannel_logout_uri: backchannel.unwrap_or_default().into(),
        ..App::default()
    };
    c.store.put(a.to_item(), None).await.unwrap();
}

async fn endpoint(c: &Ciam, app: &str, url: &str) {
    let f = EndpointFields {
        url: Some(url.into()),
        events: Some(vec!["user.updated".into(), "session.ended".into()]),
        description: Some(String::new()),
        ..EndpointFields::default()
    };
    webhooks::create(c, app, f, |_| None).await.unwrap();
}

async fn consent(c: &Ciam, user: &str, app: &str) {
    let now = c.now();
    let k = Consent {
        user_id: user.into(),
        app_id: app.into(),
        scopes: vec!["nickname".into()],
        granted_at: now,
        since: now,
    };
    c.store.put(k.to_item(), None).await.unwrap();
}

/// An event of `user` written as a cause writes it (through the noticing store: its outbox
/// marker in the same transaction, the worker woken).
async fn emit(c: &Ciam, user: &str, kind: Kind, data: Map<String, serde_json::Value>) -> Event {
    let e = Event::new(c, user, kind, data);
    c.store.transact(vec![e.op()]).await.unwrap();
    e
}

fn nickname(n: &str) -> Map<String, serde_json::Value> {
    let mut d = Map::new();
    d.insert("nickname".into(), json!(n));
    d
}

async fn wait_for(got: &Got, n: usize, within: Duration) -> bool {
    let deadline = Instant::now() + within;
    while Instant::now() < deadline {
        if got.lock().unwrap().len() >= n {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    false
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_hanging_and_a_slow_endpoint_delay_only_their_own_apps() {
    let (worker, c, wake, _clock) = world(1_700_000_000).await;
    let (hung, slow, quick, notices): (Got, Got, Got, Got) = Default::default();
    let hung_url = listener(None, hung.clone()).await;
    let slow_url = listener(Some(Duration::from_secs(4)), slow.clone()).await;
    let quick_url = listener(Some(Duration::ZERO), quick.clone()).await;
    let notice_url = listener(Some(Duration::ZERO), notices.clone()).await;
    // The hanging app also registers a back-channel logout URI: its notices must not wait
    // behind its own events either.
    app(&c, "hang", Some(&format!("{notice_url}/backchannel"))).await;
    app(&c, "slow", None).await;
    app(&c, "quick", None).await;
    endpoint(&c, "hang", &format!("{hung_url}/hook")).await;
    endpoint(&c, "slow", &format!("{slow_url}/hook")).await;
    endpoint(&c, "quick", &format!("{quick_url}/hook")).await;
    for u in ["h1", "h2", "h3"] {
        consent(&c, u, "hang").await;
    }
    for u in ["s1", "s2"] {
        consent(&c, u, "slow").await;
    }
    consent(&c, "q1", "quick").await;
    // Pending: three deliveries to the hanging endpoint, two to the slow one.
    for u in ["h1", "h2", "h3"] {
        emit(&c, u, Kind::UserUpdated, nickname("h")).await;
    }
    for u in ["s1", "s2"] {
        emit(&c, u, Kind::UserUpdated, nickname("s")).await;
    }
    spawn_with(
        worker.clone(),
        wake.clone(),
        Arc::new(ciam_api::webhook_transport::HttpTransport),
        Arc::new(ciam_api::webhook_transport::DnsResolver),
    );
    assert!(
        wait_for(&hung, 1, Duration::from_secs(3)).await,
        "hanging endpoint tried"
    );
    assert!(
        wait_for(&slow, 1, Duration::from_secs(3)).await,
        "slow endpoint tried"
    );

    // Now another app's event, and the sign-out of h1's session at the hanging app.
    let sid = "0123456789abcdef0123456789abcdef";
    let record = Item::new(ciam_core::app_sessions::record_key("h1", sid, "hang"))
        .with("appId", "hang")
        .with("at", c.now() - 10);
    c.store.put(record, None).await.unwrap();
    let t0 = Instant::now();
    emit(&c, "q1", Kind::UserUpdated, nickname("quick")).await;
    let ended = events::session_ended(Some(sid.into()), events::SIGNED_OUT);
    emit(&c, "h1", Kind::SessionEnded, ended).await;

    assert!(
        wait_for(&quick, 1, Duration::from_secs(1)).await,
        "the third app's event within a second"
    );
    assert!(
        wait_for(&notices, 1, Duration::from_secs(1)).await,
        "the logout notice within a second"
    );
    let q = quick.lock().unwrap()[0].clone();
    let n = notices.lock().unwrap()[0].clone();
    assert!(q.2 - t0 < Duration::from_secs(1) && n.2 - t0 < Duration::from_secs(1));
    assert!(q.1.contains("\"quick\""), "{}", q.1);
    assert_eq!(n.0, "/backchannel");
    assert!(n.1.starts_with("logout_token="), "{}", n.1);
    // Meanwhile the hanging app still waits on its first attempt, the slow one on its first
    // answer: they did not hold the others.
    assert_eq!(hung.lock().unwrap().len(), 1);
    assert_eq!(slow.lock().unwrap().len(), 1);
    // The slow app's second delivery follows its first (its own lane, one at a time).
    assert!(wait_for(&slow, 2, Duration::from_secs(6)).await);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn ten_thousand_profile_changes_make_a_bounded_number_of_deliveries() {
    let (worker, c, wake, clock) = world(1_700_000_000).await;
    let (busy, other): (Got, Got) = Default::default();
    let busy_url = listener(Some(Duration::ZERO), busy.clone()).await;
    let other_url = listener(Some(Duration::ZERO), other.clone()).await;
    app(&c, "shop", None).await;
    app(&c, "news", None).await;
    endpoint(&c, "shop", &format!("{busy_url}/hook")).await;
    endpoint(&c, "news", &format!("{other_url}/hook")).await;
    consent(&c, "loop", "shop").await;
    consent(&c, "calm", "news").await;
    spawn_with(
        worker.clone(),
        wake.clone(),
        Arc::new(ciam_api::webhook_transport::HttpTransport),
        Arc::new(ciam_api::webhook_transport::DnsResolver),
    );
    let user = User {
        id: "loop".into(),
        user_name: "loop".into(),
        consents: Some(1),
        ..User::default()
    };
    // 10,000 nickname changes at the route's 100 a second: 100 s of the clock.
    let mut calm_window_end = None;
    let mut calm_due = None;
    for i in 0..10_000 {
        if i % 100 == 0 && i > 0 {
            clock.advance(1);
            if calm_due.is_none() && calm_window_end.is_some_and(|end| c.now() >= end) {
                calm_due = Some(Instant::now());
            }
        }
        let op = events::op_for(&c, &user, Kind::UserUpdated, nickname(&format!("n{i}"))).unwrap();
        let change = TxOp::Update {
            key: Key::new("USER#loop", "PROFILE"),
            ops: vec![ciam_store::Update::Set(
                "displayName".into(),
                format!("n{i}").into(),
            )],
            cond: None,
        };
        c.store.transact(vec![change, op]).await.unwrap();
        if i == 5_000 {
            // Another account changes its profile meanwhile (its own window).
            let calm = User {
                id: "calm".into(),
                consents: Some(1),
                ..user.clone()
            };
            let op = events::op_for(&c, &calm, Kind::UserUpdated, nickname("calm")).unwrap();
            c.store.transact(vec![op]).await.unwrap();
            calm_window_end = Some(
                c.now() - c.now() % events::COALESCE_SECS
                    + events::COALESCE_SECS
                    + webhooks::queue::LATE_SECS,
            );
        }
    }
    // The last window closes.
    clock.advance(events::COALESCE_SECS + 1);
    wake.notify_one();
    let kept = events::list(&worker, "loop").await.unwrap();
    let bound = usize::try_from(100 / events::COALESCE_SECS + 2).unwrap();
    assert!(
        kept.len() <= bound,
        "{} events for 10,000 changes",
        kept.len()
    );
    // Each event holds the last nickname of its window; the last is the last change.
    assert_eq!(kept.last().unwrap().data["nickname"], "n9999");
    // Every event is delivered once, in time; nothing more.
    assert!(wait_for(&busy, kept.len(), Duration::from_secs(20)).await);
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert_eq!(busy.lock().unwrap().len(), kept.len());
    // Deliveries keep no order (docs/partners.md §10: order by `timestamp`): the last window's
    // event is among them, wherever it arrived, with the window's last value (a change that
    // lands while its window is being fanned out brings the event back: `queue::taken_op`).
    let delivered: Vec<String> = busy.lock().unwrap().iter().map(|d| d.1.clone()).collect();
    assert!(
        delivered
            .iter()
            .any(|d| d.contains("\"nickname\":\"n9999\"")),
        "{delivered:?}"
    );
    // The other account's change was delivered promptly once its window ended (on the clock).
    assert!(wait_for(&other, 1, Duration::from_secs(5)).await);
    let got = other.lock().unwrap()[0].clone();
    assert!(got.1.contains("calm"));
    let waited = got.2.saturating_duration_since(calm_due.unwrap());
    assert!(waited < Duration::from_secs(1), "{waited:?}");
}
