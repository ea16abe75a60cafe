//! The root key rotation drill (docs/operations.md §1 "Root key rotation"): the runbook's four
//! steps with the key distributor and the purposes' secrets (in process, as Secrets Manager
//! holds them), through the real routers of the functions' Lambda code (`key_refresh`). The
//! aliased functions' environments (`auth_login_password`, `auth_info_get`,
//! `auth_login_token_verify`: behind `live`, which `recycle` does not restart) start before
//! step 1 and serve every step; the other functions' environments are started again at each
//! step, as `recycle` makes them. A partner's webhook endpoint gets a delivery at every step.
//! Not one request is refused and not one delivery fails; the step-2 distribution that stops
//! part-way starts a two-purpose function all the same.

// Test code: a panic is the failure report, so unwrap and expect are allowed here
// (the workspace denies them in the product, Cargo.toml [workspace.lints]).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use async_trait::async_trait;
use axum::body::Body;
use ciam_core::sessions::Session;
use ciam_core::webhooks::deliver;
use ciam_core::webhooks::guard::{StaticResolver, Target};
use ciam_core::webhooks::outbound::Step;
use ciam_core::webhooks::{sign, Answer, EndpointFields, Outbound, Transport};
use ciam_core::{Ciam, KeyPurpose, Keys, Purposes};
use ciam_lambdas::key_refresh::{KeySecrets, Refreshing, Signers, Timing};
use ciam_lambdas::purpose_keys::{distribute, keys_from_secrets, read_all, SecretsPort};
use http::{Method, Request, StatusCode};
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tower::ServiceExt;

const OLD: &str = "a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1";
const NEW: &str = "b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2";
const PASSWORD: &str = "correct horse battery";
const MAIL: &str = "ann@example.com";
const SERVICE: &str = "https://partner.example/after-sign-in";
const HOOK: &str = "https://hooks.partner.example/ciam";
const ROOT: &str = "RootSecret";

/// Secrets Manager in process: the SecretStrings by id, reads counted; a `put` fails from the
/// `fail_from`-th on while set (a distribution that stops part-way).
#[derive(Default)]
struct Secrets {
    texts: Mutex<BTreeMap<String, String>>,
    reads: AtomicUsize,
    puts: AtomicUsize,
    fail_from: Mutex<Option<usize>>,
}

#[async_trait]
impl SecretsPort for Secrets {
    async fn get(&self, id: &str) -> Result<String, String> {
        self.reads.fetch_add(1, Ordering::SeqCst);
        self.texts
            .lock()
            .unwrap()
            .get(id)
            .cloned()
            .ok_or_else(|| format!("no {id}"))
    }
    async fn put(&self, id: &str, text: &str) -> Result<(), String> {
        let n = self.puts.fetch_add(1, Ordering::SeqCst) + 1;
        if self.fail_from.lock().unwrap().is_some_and(|f| n >= f) {
            return Err(format!("cannot write {id}: throttled"));
        }
        self.texts
            .lock()
            .unwrap()
            .insert(id.to_owned(), text.to_owned());
        Ok(())
    }
}

fn arn(p: KeyPurpose) -> String {
    format!("{}KeySecret", p.name())
}

fn targets() -> BTreeMap<KeyPurpose, String> {
    KeyPurpose::ALL
        .into_iter()
        .filter(|p| p.distributed())
        .map(|p| (p, arn(p)))
        .collect()
}

/// The partner's receiver: answers 200 to a delivery signed with the secret it was shown.
struct Receiver {
    secret: Vec<u8>,
    got: Mutex<Vec<u16>>,
}

#[async_trait]
impl Transport for Receiver {
    async fn post(&self, _: &Target, headers: &[(&'static str, String)], body: &str) -> Answer {
        let h = |n: &str| {
            headers
                .iter()
                .find(|(k, _)| *k == n)
                .map(|(_, v)| v.clone())
                .unwrap_or_default()
        };
        let ts: i64 = h("webhook-timestamp").parse().unwrap_or_default();
        let expected = sign::signature(&self.secret, &h("webhook-id"), ts, body);
        let ok = h("webhook-signature")
            .split(' ')
            .any(|s| s == expected.as_str());
        let code = if ok { 200 } else { 401 };
        self.got.lock().unwrap().push(code);
        Answer::Status {
            code,
            body: Vec::new(),
            latency_ms: 1,
        }
    }
}

struct Drill {
    secrets: Arc<Secrets>,
    /// Everything but the keys (one table for every function).
    base: Ciam,
    refused: Vec<String>,
    requests: usize,
}

impl Drill {
    fn set_root(&self, v: Value) {
        self.secrets
            .texts
            .lock()
            .unwrap()
            .insert(ROOT.into(), v.to_string());
    }

    /// The runbook's `recycle`, as far as the secrets go: the distributor runs.
    async fn distribute(&self) -> Result<(), String> {
        distribute(self.secrets.as_ref(), ROOT, &targets())
            .await
            .map(|_| ())
    }

    /// An execution environment of `route` starting now: its init reads its purposes' secrets.
    async fn start(&self, route: &'static str) -> Refreshing {
        self.start_timed(route, Duration::from_millis(1)).await
    }

    /// [`Drill::start`] with a window between reads after a miss.
    async fn start_timed(&self, route: &'static str, window: Duration) -> Refreshing {
        let def = ciam_api::ROUTES
            .iter()
            .find(|r| r.id == route)
            .expect("a route");
        let purposes = def.lambda.keys;
        let arns: BTreeMap<KeyPurpose, String> = purposes
            .iter()
            .filter(|p| p.distributed())
            .map(|p| (p, arn(p)))
            .collect();
        let texts = read_all(self.secrets.as_ref(), &arns, Duration::from_secs(4))
            .await
            .expect("the init reads its secrets");
        let keys = keys_from_secrets(purposes, &texts).expect("the init takes its keys");
        let ciam = Ciam {
            keys,
            ..self.base.clone()
        };
        let source = KeySecrets {
            port: self.secrets.clone(),
            arns,
            purposes,
        };
        let build: ciam_lambdas::key_refresh::Build =
            Arc::new(move |ciam| ciam_api::router_for(ciam_api::ROUTES, route, ciam));
        // The functions' own ages; the runbook's waits are in hours, and the drill ages the
        // environments explicitly (`age_by`).
        let timing = Timing {
            miss_window: window,
            ..Timing::default()
        };
        Refreshing::new(source, texts, ciam, Signers::default(), build, timing).expect("router")
    }

    async fn call(&mut self, env: &Refreshing, what: &str, req: Request<Body>) -> Value {
        self.requests += 1;
        let res = env.clone().into_router().oneshot(req).await.unwrap();
        let status = res.status();
        let bytes = axum::body::to_bytes(res.into_body(), usize::MAX)
            .await
            .unwrap();
        let body: Value = serde_json::from_slice(&bytes).unwrap_or(Value::Null);
        if !status.is_success() {
            self.refused.push(format!("{what}: {status} {body}"));
        }
        body
    }

    async fn sign_in(&mut self, env: &Refreshing, what: &str) -> String {
        let req = Request::builder()
            .method(Method::POST)
            .uri("/ciam/v1/auth/login/password")
            .header("content-type", "application/json")
            .body(Body::from(
                json!({"account": MAIL, "password": PASSWORD}).to_string(),
            ))
            .unwrap();
        let body = self.call(env, what, req).await;
        body["token"].as_str().unwrap_or_default().to_owned()
    }

    async fn read_info(&mut self, env: &Refreshing, token: &str, what: &str) {
        let req = Request::builder()
            .uri("/ciam/v1/auth/info")
            .header("authorization", format!("Bearer {token}"))
            .body(Body::empty())
            .unwrap();
        self.call(env, what, req).await;
    }

    async fn ticket(&mut self, env: &Refreshing, token: &str, app_id: &str, what: &str) -> String {
        let req = Request::builder()
            .method(Method::POST)
            .uri("/ciam/v1/auth/login/token")
            .header("authorization", format!("Bearer {token}"))
            .header("content-type", "application/json")
            .body(Body::from(
                json!({"appId": app_id, "serviceUrl": SERVICE}).to_string(),
            ))
            .unwrap();
        let body = self.call(env, what, req).await;
        body["cTicket"].as_str().unwrap_or_default().to_owned()
    }

    async fn verify(
        &mut self,
        env: &Refreshing,
        app_id: &str,
        secret: &str,
        ticket: &str,
        what: &str,
    ) {
        let enc = |s: &str| -> String {
            s.bytes()
                .map(|b| match b {
                    b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                        (b as char).to_string()
                    }
                    _ => format!("%{b:02X}"),
                })
                .collect()
        };
        let uri = format!(
            "/ciam/v1/auth/login/token/verify?appId={}&appSecret={}&cTicket={}&serviceUrl={}",
            enc(app_id),
            enc(secret),
            enc(ticket),
            enc(SERVICE)
        );
        let req = Request::builder().uri(uri).body(Body::empty()).unwrap();
        self.call(env, what, req).await;
    }
}

/// The keys of a function holding every purpose (the test's own set-up, under the old root).
fn all_purposes() -> Purposes {
    KeyPurpose::ALL
        .into_iter()
        .fold(Purposes::NONE, |s, p| s.with(p))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_full_rotation_refuses_no_request_and_fails_no_delivery() {
    let secrets = Arc::new(Secrets::default());
    let base = ciam_core::testing::Builder::new(1_800_000_000)
        .build()
        .await;
    let mut d = Drill {
        secrets,
        base,
        refused: Vec::new(),
        requests: 0,
    };
    d.set_root(json!({ "rootKey": OLD }));
    d.distribute().await.unwrap();

    // Before step 1: a customer, a partner app (its secret hashed under the old root) and its
    // webhook endpoint (its secret sealed under the old root).
    let setup = Ciam {
        keys: Keys::from_hex(OLD).unwrap().restricted(all_purposes()),
        config: ciam_core::Config {
            public_url: "https://id.example".into(),
            ..d.base.config.clone()
        },
        ..d.base.clone()
    };
    let mut admin = ciam_core::user::User {
        id: "0123456789abcdef0123456789abcdef".into(),
        user_name: "admin".into(),
        ..Default::default()
    };
    admin.roles = vec!["admin".into()];
    let session = Session {
        user: admin,
        key: ciam_store::Key::new("SESSION#x", "SESSION"),
        created_at: 1_800_000_000,
        auth_at: 1_800_000_000,
        amr: vec!["pwd".into()],
        console_at: None,
        org: None,
        method: None,
    };
    let op = ciam_core::console::Operator {
        user: session.user.clone(),
        role: ciam_core::console::Role::Admin,
        session: session.key.clone(),
    };
    let app = ciam_core::console::apps::create(
        &setup,
        &op,
        ciam_core::apps::AppFields {
            name: Some(ciam_core::apps::Names {
                zh_cn: "合作方".into(),
                en_us: "Partner".into(),
            }),
            service_urls: Some(vec![SERVICE.into()]),
            ..Default::default()
        },
        "the drill",
        &Default::default(),
    )
    .await
    .unwrap();
    let app = serde_json::to_value(&app).unwrap();
    let app_id = app["app"]["appId"].as_str().unwrap().to_owned();
    let app_secret = app["appSecret"].as_str().unwrap().to_owned();
    let hook = ciam_core::webhooks::create(
        &setup,
        &app_id,
        EndpointFields {
            url: Some(HOOK.into()),
            events: Some(vec!["user.updated".into()]),
            ..Default::default()
        },
        |_| None,
    )
    .await
    .unwrap();
    let receiver = Receiver {
        secret: sign::secret_bytes(hook.secret.as_deref().unwrap()).unwrap(),
        got: Mutex::new(Vec::new()),
    };
    let resolver = StaticResolver(vec![(
        "hooks.partner.example".into(),
        vec!["93.184.216.34".parse().unwrap()],
    )]);
    let hash = ciam_core::password::hash(PASSWORD.into(), [7; 16])
        .await
        .unwrap();
    let user = ciam_core::user::User {
        id: "fedcba9876543210fedcba9876543210".into(),
        user_name: "ann".into(),
        mail: Some(MAIL.into()),
        pwd_hash: Some(hash),
        created_at: 1_800_000_000,
        ..Default::default()
    };
    let identity = ciam_core::validate::Identity::parse(MAIL).unwrap();
    d.base
        .store
        .transact(ciam_core::testing::account_ops(&user, &identity))
        .await
        .unwrap();

    // The aliased functions' environments: started before step 1, never restarted.
    let login = d.start("auth_login_password").await;
    let info = d.start("auth_info_get").await;
    let verify = d.start("auth_login_token_verify").await;

    let mut deliveries = 0;
    let step_names = [
        "before",
        "1 announce",
        "2 mixed",
        "2 switch",
        "3 overlap",
        "4 retire",
    ];
    for step in step_names {
        match step {
            "1 announce" => {
                d.set_root(json!({ "rootKey": OLD, "nextRootKey": NEW }));
                d.distribute().await.unwrap();
            }
            "2 mixed" => {
                // A step-2 distribution that stops at its third secret (before `Ticket`):
                // a function with Session and Ticket starts all the same.
                d.set_root(json!({ "rootKey": NEW, "previousRootKey": OLD }));
                *d.secrets.fail_from.lock().unwrap() =
                    Some(d.secrets.puts.load(Ordering::SeqCst) + 3);
                assert!(d.distribute().await.is_err());
                *d.secrets.fail_from.lock().unwrap() = None;
            }
            "2 switch" => {
                // `recycle 2` run again after the failure: every secret at step 2.
                d.distribute().await.unwrap();
            }
            "3 overlap" => {
                // Nothing left to write: the overlap is the switch's state, for hours.
                d.distribute().await.unwrap();
            }
            "4 retire" => {
                // At least 12 hours after the switch: longer than any environment holds keys.
                for env in [&login, &info, &verify] {
                    env.age_by(ciam_lambdas::key_refresh::MAX_AGE);
                }
                d.set_root(json!({ "rootKey": NEW }));
                d.distribute().await.unwrap();
            }
            _ => {}
        }
        // `recycle`: fresh environments of the other functions.
        let fresh_info = d.start("auth_info_get").await;
        let fresh_ticket = d.start("auth_login_token").await;
        let fresh_login = d.start("auth_login_password").await;

        // Sign-ins by the old environment, read by old and new; and the other way round.
        let old_token = d.sign_in(&login, &format!("{step}: aliased sign-in")).await;
        d.read_info(
            &info,
            &old_token,
            &format!("{step}: aliased read of an aliased session"),
        )
        .await;
        d.read_info(
            &fresh_info,
            &old_token,
            &format!("{step}: fresh read of an aliased session"),
        )
        .await;
        let new_token = d
            .sign_in(&fresh_login, &format!("{step}: fresh sign-in"))
            .await;
        d.read_info(
            &info,
            &new_token,
            &format!("{step}: aliased read of a fresh session"),
        )
        .await;
        // A partner sign-in: the ticket from a fresh environment, redeemed by the aliased one
        // with the secret the partner was given before the rotation.
        let t = d
            .ticket(
                &fresh_ticket,
                &new_token,
                &app_id,
                &format!("{step}: ticket"),
            )
            .await;
        d.verify(
            &verify,
            &app_id,
            &app_secret,
            &t,
            &format!("{step}: aliased redeem"),
        )
        .await;

        // A delivery by the delivery function as `recycle` leaves it (fresh keys).
        let texts = read_all(
            d.secrets.as_ref(),
            &BTreeMap::from([(KeyPurpose::Webhook, arn(KeyPurpose::Webhook))]),
            Duration::from_secs(4),
        )
        .await
        .unwrap();
        let keys = keys_from_secrets(Purposes::of(&[KeyPurpose::Webhook]), &texts).unwrap();
        let delivery = Ciam {
            keys,
            ..d.base.clone()
        };
        let now = delivery.now();
        let ob = Outbound {
            app_id: app_id.clone(),
            endpoint_id: hook.endpoint.endpoint_id.clone(),
            user_id: user.id.clone(),
            event_id: format!("msg_{deliveries}"),
            event_sk: format!("{now}#msg_{deliveries}"),
            kind: "user.updated".into(),
            body: json!({"type": "user.updated", "step": step}).to_string(),
            event_at: now,
            since: now,
            attempts: 0,
        };
        deliveries += 1;
        let outcome = deliver::attempt(&delivery, &receiver, &resolver, &ob)
            .await
            .unwrap();
        assert_eq!(outcome, Step::Delivered, "{step}: the delivery");
    }

    assert!(d.refused.is_empty(), "refused: {:#?}", d.refused);
    assert_eq!(d.requests, 6 * 7, "seven requests at each of six steps");
    assert_eq!(*receiver.got.lock().unwrap(), vec![200; deliveries]);
    // The aliased environments caught up on their own (a miss, then the age).
    assert!(info.generation() >= 2, "{}", info.generation());
    assert!(login.generation() >= 1, "{}", login.generation());
    // After "retire" the aliased sign-in mints under the new root only: a function that holds
    // only the new root's keys accepts its session with no read again.
    let only_new = d.start("auth_info_get").await;
    let token = d.sign_in(&login, "after: aliased sign-in").await;
    let reads = d.secrets.reads.load(Ordering::SeqCst);
    d.read_info(&only_new, &token, "after: fresh read").await;
    assert_eq!(d.secrets.reads.load(Ordering::SeqCst), reads, "no miss");
    assert!(d.refused.is_empty(), "refused: {:#?}", d.refused);
}

#[tokio::test]
async fn a_wrong_credential_reads_the_secrets_again_at_most_once_per_window() {
    let secrets = Arc::new(Secrets::default());
    let base = ciam_core::testing::Builder::new(1_800_000_000)
        .build()
        .await;
    let d = Drill {
        secrets,
        base,
        refused: Vec::new(),
        requests: 0,
    };
    d.set_root(json!({ "rootKey": OLD }));
    d.distribute().await.unwrap();
    // A window longer than the test: a flood of made-up tokens costs one read.
    let info = d
        .start_timed("auth_info_get", Duration::from_secs(3600))
        .await;
    let before = d.secrets.reads.load(Ordering::SeqCst);
    for n in 0..20 {
        let req = Request::builder()
            .uri("/ciam/v1/auth/info")
            .header("authorization", format!("Bearer made-up-{n}"))
            .body(Body::empty())
            .unwrap();
        let res = info.clone().into_router().oneshot(req).await.unwrap();
        assert_eq!(res.status(), StatusCode::UNAUTHORIZED);
    }
    let reads = d.secrets.reads.load(Ordering::SeqCst) - before;
    assert_eq!(reads, 1, "one read (of its one secret) for twenty refusals");
    assert_eq!(info.generation(), 0, "nothing changed: the same keys");
}
