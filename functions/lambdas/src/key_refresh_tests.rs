use super::*;
use crate::purpose_keys::{purpose_secret, SecretsPort};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Mutex;

const A: [u8; 32] = [0xa1; 32];
const B: [u8; 32] = [0xb2; 32];

/// One purpose secret (`Session`), its reads counted; unreadable while `down`.
#[derive(Default)]
struct Secret {
    text: Mutex<String>,
    reads: AtomicUsize,
    down: AtomicBool,
}

#[async_trait::async_trait]
impl SecretsPort for Secret {
    async fn get(&self, _: &str) -> Result<String, String> {
        self.reads.fetch_add(1, Ordering::SeqCst);
        if self.down.load(Ordering::SeqCst) {
            return Err("throttled".into());
        }
        Ok(self.text.lock().unwrap().clone())
    }
    async fn put(&self, _: &str, _: &str) -> Result<(), String> {
        Err("read only".into())
    }
}

impl Secret {
    fn set(&self, root: &Keys) {
        *self.text.lock().unwrap() = purpose_secret(root, KeyPurpose::Session).to_string();
    }
    fn reads(&self) -> usize {
        self.reads.load(Ordering::SeqCst)
    }
}

/// A route that answers the hash of the bearer under the `session` key it holds, and refuses
/// (401) a bearer whose expected hash (`?want=`) it does not make: a lookup that misses.
fn build() -> Build {
    Arc::new(|ciam: Ciam| {
        let keys = ciam.keys.clone();
        Some(axum::Router::new().route(
            "/k",
            axum::routing::get(move |q: axum::extract::RawQuery| {
                let keys = keys.clone();
                async move {
                    let made = keys.keyed_hash("session", b"token");
                    let want = q.0.unwrap_or_default();
                    let want = want.strip_prefix("want=").unwrap_or_default();
                    let found = want.is_empty()
                        || made == want
                        || keys
                            .previous()
                            .is_some_and(|p| p.keyed_hash("session", b"token") == want);
                    if found {
                        (StatusCode::OK, made)
                    } else {
                        (StatusCode::UNAUTHORIZED, made)
                    }
                }
            }),
        ))
    })
}

async fn env(secret: &Arc<Secret>, timing: Timing) -> Refreshing {
    let purposes = Purposes::of(&[KeyPurpose::Session]);
    let arns = BTreeMap::from([(KeyPurpose::Session, "SessionKeySecret".to_owned())]);
    let texts = read_all(secret.as_ref(), &arns, Duration::from_secs(1))
        .await
        .unwrap();
    let keys = keys_from_secrets(purposes, &texts).unwrap();
    let base = ciam_core::testing::Builder::new(1_800_000_000)
        .build()
        .await;
    let ciam = Ciam { keys, ..base };
    let source = KeySecrets {
        port: secret.clone(),
        arns,
        purposes,
    };
    Refreshing::new(source, texts, ciam, Signers::default(), build(), timing).unwrap()
}

async fn get(env: &Refreshing, want: Option<&str>) -> (StatusCode, String) {
    let uri = match want {
        Some(w) => format!("/k?want={w}"),
        None => "/k".to_owned(),
    };
    let req = Request::builder().uri(uri).body(Body::empty()).unwrap();
    let res = env.clone().into_router().oneshot(req).await.unwrap();
    let status = res.status();
    let body = axum::body::to_bytes(res.into_body(), usize::MAX)
        .await
        .unwrap();
    (status, String::from_utf8(body.to_vec()).unwrap())
}

fn hash(root: [u8; 32]) -> String {
    Keys::from_root(root).keyed_hash("session", b"token")
}

const LONG: Duration = Duration::from_secs(3600);

fn timing(window: Duration) -> Timing {
    Timing {
        max_age: LONG,
        announced_max_age: Duration::from_secs(30),
        miss_window: window,
    }
}

#[tokio::test]
async fn a_miss_reads_the_secret_again_and_serves_the_same_request_with_the_new_keys() {
    let secret = Arc::new(Secret::default());
    secret.set(&Keys::from_root(A));
    let env = env(&secret, timing(Duration::from_millis(1))).await;
    // The switch: made under B now, A accepted.
    secret.set(&Keys::from_root(B).with_previous(A));
    let (status, made) = get(&env, Some(&hash(B))).await;
    assert_eq!(status, StatusCode::OK, "served again, not refused");
    assert_eq!(made, hash(B), "and it now makes under the new root");
    assert_eq!(env.generation(), 1);
    // What the old root made is still found (the overlap).
    assert_eq!(get(&env, Some(&hash(A))).await.0, StatusCode::OK);
}

#[tokio::test]
async fn a_refusal_with_the_same_keys_stays_a_refusal_and_costs_one_read_per_window() {
    let secret = Arc::new(Secret::default());
    secret.set(&Keys::from_root(A));
    let env = env(&secret, timing(LONG)).await;
    let before = secret.reads();
    for _ in 0..10 {
        assert_eq!(get(&env, Some("nope")).await.0, StatusCode::UNAUTHORIZED);
    }
    assert_eq!(secret.reads() - before, 1);
    assert_eq!(env.generation(), 0);
}

#[tokio::test]
async fn keys_held_too_long_are_read_again_before_the_request_and_sooner_when_announced() {
    let secret = Arc::new(Secret::default());
    secret.set(&Keys::from_root(A).with_next(B));
    let env = env(&secret, timing(LONG)).await;
    assert!(env.held().announced);
    // Within the announced age nothing is read.
    let before = secret.reads();
    assert_eq!(get(&env, None).await.1, hash(A));
    assert_eq!(secret.reads(), before);
    // The switch lands; 30 s later the environment mints under B without any miss.
    secret.set(&Keys::from_root(B).with_previous(A));
    env.age_by(Duration::from_secs(31));
    assert_eq!(get(&env, None).await.1, hash(B));
    assert_eq!(secret.reads(), before + 1);
    assert!(!env.held().announced);
    // Then the usual age applies: 31 s more read nothing.
    env.age_by(Duration::from_secs(31));
    get(&env, None).await;
    assert_eq!(secret.reads(), before + 1);
    // Retired: after the max age it holds B alone.
    secret.set(&Keys::from_root(B));
    env.age_by(LONG);
    get(&env, None).await;
    assert_eq!(get(&env, Some(&hash(A))).await.0, StatusCode::UNAUTHORIZED);
}

#[tokio::test]
async fn a_secret_that_cannot_be_read_keeps_the_keys_held_and_serves() {
    let secret = Arc::new(Secret::default());
    secret.set(&Keys::from_root(A));
    let env = env(&secret, timing(Duration::from_secs(30))).await;
    secret.down.store(true, Ordering::SeqCst);
    env.age_by(LONG);
    let (status, made) = get(&env, None).await;
    assert_eq!((status, made), (StatusCode::OK, hash(A)));
    // Not read again on every request: once per miss window.
    let reads = secret.reads();
    get(&env, None).await;
    assert_eq!(secret.reads(), reads);
    // A secret that does not parse is the same.
    secret.down.store(false, Ordering::SeqCst);
    *secret.text.lock().unwrap() = "{\"key\": 1}".into();
    env.age_by(LONG);
    assert_eq!(get(&env, None).await.1, hash(A));
}

#[test]
fn only_refusals_may_be_misses() {
    for code in [400, 401, 403, 404] {
        assert!(missed(StatusCode::from_u16(code).unwrap()), "{code}");
    }
    for code in [200, 201, 204, 409, 413, 429, 500, 503] {
        assert!(!missed(StatusCode::from_u16(code).unwrap()), "{code}");
    }
}
