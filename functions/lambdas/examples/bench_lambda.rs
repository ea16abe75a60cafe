//! `npm run bench:lambda`: the Lambda functions as Lambda runs them, measured. Each function binary
//! (built in the shipped `release` profile by scripts/bench-lambda.sh) runs against a loopback
//! Lambda Runtime API and DynamoDB Local; for `GET /auth/info`, `POST /auth/login/password` and
//! `POST /auth/login/token` it prints:
//!
//! - init: from the process start to its first request for an event (what Lambda reports as the
//!   init duration), median of the cold starts;
//! - first invocation: the first event's latency in a fresh process (the warm-up GetItem in the
//!   init should make it close to a warm one), median;
//! - warm p50/p99: the latency of each later event, from handing it out to receiving the response;
//! - CPU per request: the function process's utime+stime (/proc/<pid>/stat) over the warm events;
//! - peak RSS: the process's VmHWM after them.
//!
//! It also times the C reference of argon2id (argon2-cffi, the same parameters) in the same run
//! and prints the ratio of the CPU of one password sign-in to one reference hash (issue 10: at
//! most 1.1).
//!
//! Arguments: `--bin-dir DIR` (where `bootstrap`, or the per-route binaries, are), `--python PATH`
//! (a Python with argon2-cffi), `--cold N` (cold starts per route, default 10), `--scale X`
//! (multiplies the warm request counts, default 1), `--host-certs` (let the function load the
//! host's CA certificates as they are, rather than one bundle as on Lambda; see `lambda_certs`).

// A benchmark: a panic is the failure report, so unwrap and expect are allowed here
// (the workspace denies them in the product, Cargo.toml [workspace.lints]).
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "../tests/support/mod.rs"]
mod support;

use axum::body::Bytes;
use axum::extract::{Path as UrlPath, State};
use axum::http::StatusCode;
use axum::response::Response;
use axum::routing::{get, post};
use axum::Router;
use ciam_core::user::{unique_key, User, ADMIN};
use ciam_core::{sessions, Keys};
use ciam_store::dynamo_local::DynamoLocal;
use ciam_store::Store;
use serde_json::{json, Value};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use support::{dynamo_table, Event};
use tokio::sync::{mpsc, Notify};

const KEY: &str = "5c1e0a9b8d7f6e5d4c3b2a1908f7e6d5c4b3a29180f7e6d5c4b3a2918070f6e5";
const TABLE: &str = "ciam-bench";
const ACCESS_KEY: &str = "ciamBench";
const REGION: &str = "us-east-1";
const MAIL: &str = "bench@example.com";
const PASSWORD: &str = "Bench-Passw0rd!";
const SERVICE_URL: &str = "https://partner.example.com/cb";
/// argon2id as Ciam hashes (functions/core/src/password.rs): m=19 MiB, t=2, p=1, 32 bytes.
const REFERENCE: &str = r#"
import sys, time
from argon2.low_level import hash_secret_raw, Type
n = int(sys.argv[1])
h = lambda: hash_secret_raw(b"Bench-Passw0rd!", b"0123456789abcdef", 2, 19456, 1, 32, Type.ID)
h(); h()
c = time.process_time(); w = time.perf_counter()
for _ in range(n):
    h()
print((time.process_time() - c) * 1000 / n, (time.perf_counter() - w) * 1000 / n)
"#;

// ---- the Lambda Runtime API, one event at a time ----

#[derive(Clone)]
struct Api {
    events: Arc<tokio::sync::Mutex<mpsc::UnboundedReceiver<(String, Value)>>>,
    handed: Arc<Mutex<HashMap<String, Instant>>>,
    answers: mpsc::UnboundedSender<(String, Instant, Value)>,
    first_next: Arc<Mutex<Option<Instant>>>,
    waiting: Arc<Notify>,
}

async fn next(State(api): State<Api>) -> Response {
    api.first_next
        .lock()
        .unwrap()
        .get_or_insert_with(Instant::now);
    api.waiting.notify_one();
    let event = api.events.lock().await.recv().await;
    let Some((id, event)) = event else {
        return std::future::pending().await;
    };
    api.handed
        .lock()
        .unwrap()
        .insert(id.clone(), Instant::now());
    support::invocation(id, &event, "bench")
}

async fn answer(State(api): State<Api>, UrlPath(id): UrlPath<String>, body: Bytes) -> StatusCode {
    let at = Instant::now();
    let v = serde_json::from_slice(&body).unwrap_or_else(
        |_| json!({ "statusCode": 0, "body": String::from_utf8_lossy(&body).into_owned() }),
    );
    let _ = api.answers.send((id, at, v));
    StatusCode::ACCEPTED
}

async fn failed(State(api): State<Api>, UrlPath(id): UrlPath<String>, body: Bytes) -> StatusCode {
    let v = json!({ "statusCode": 0, "error": String::from_utf8_lossy(&body).into_owned() });
    let _ = api.answers.send((id, Instant::now(), v));
    StatusCode::ACCEPTED
}

async fn init_failed(body: Bytes) -> StatusCode {
    eprintln!("init error: {}", String::from_utf8_lossy(&body));
    StatusCode::ACCEPTED
}

/// One function process and its Runtime API.
struct Function {
    child: tokio::process::Child,
    pid: u32,
    spawned: Instant,
    api: Api,
    events: mpsc::UnboundedSender<(String, Value)>,
    answers: mpsc::UnboundedReceiver<(String, Instant, Value)>,
    seq: u64,
}

impl Function {
    async fn start(exe: &Path, route: Option<&str>, endpoint: &str) -> Function {
        let (events, rx) = mpsc::unbounded_channel();
        let (answers_tx, answers) = mpsc::unbounded_channel();
        let api = Api {
            events: Arc::new(tokio::sync::Mutex::new(rx)),
            handed: Arc::default(),
            answers: answers_tx,
            first_next: Arc::default(),
            waiting: Arc::new(Notify::new()),
        };
        let app = Router::new()
            .route("/2018-06-01/runtime/invocation/next", get(next))
            .route("/2018-06-01/runtime/invocation/{id}/response", post(answer))
            .route("/2018-06-01/runtime/invocation/{id}/error", post(failed))
            .route("/2018-06-01/runtime/init/error", post(init_failed))
            .with_state(api.clone());
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap().to_string();
        tokio::spawn(async move { axum::serve(listener, app).await });

        let mut cmd = tokio::process::Command::new(exe);
        cmd.env_clear()
            .env("PATH", std::env::var("PATH").unwrap_or_default())
            .env("AWS_LAMBDA_RUNTIME_API", &addr)
            .env("AWS_LAMBDA_FUNCTION_NAME", route.unwrap_or("bench"))
            .env("AWS_LAMBDA_FUNCTION_MEMORY_SIZE", "1024")
            .env("AWS_LAMBDA_FUNCTION_VERSION", "$LATEST")
            .env("AWS_EC2_METADATA_DISABLED", "true")
            .env("AWS_REGION", REGION)
            .env("AWS_ACCESS_KEY_ID", ACCESS_KEY)
            .env("AWS_SECRET_ACCESS_KEY", "bench")
            .env("CIAM_TABLE", TABLE)
            .env("CIAM_SECRET_KEY", KEY)
            .env("CIAM_DYNAMODB_ENDPOINT", endpoint)
            .env("RUST_LOG", "warn");
        if let Some(route) = route {
            cmd.env("CIAM_ROUTE", route);
        }
        if let Some((file, dir)) = lambda_certs() {
            cmd.env("SSL_CERT_FILE", file).env("SSL_CERT_DIR", dir);
        }
        let spawned = Instant::now();
        let child = cmd
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::inherit())
            .kill_on_drop(true)
            .spawn()
            .unwrap_or_else(|e| panic!("{} does not start: {e}", exe.display()));
        let pid = child.id().expect("a pid");
        Function {
            child,
            pid,
            spawned,
            api,
            events,
            answers,
            seq: 0,
        }
    }

    /// Waits for the first request for an event; the init's duration and CPU.
    async fn init(&mut self) -> (Duration, f64) {
        loop {
            if let Some(at) = *self.api.first_next.lock().unwrap() {
                return (at - self.spawned, thread_cpu_ms(self.pid));
            }
            let waiting = self.api.waiting.notified();
            tokio::select! {
                _ = waiting => {}
                _ = tokio::time::sleep(Duration::from_millis(2)) => {}
            }
            if let Ok(Some(status)) = self.child.try_wait() {
                panic!("the function exited during its init: {status}");
            }
            assert!(
                self.spawned.elapsed() < Duration::from_secs(30),
                "no init end"
            );
        }
    }

    /// One event; its latency and the response.
    async fn invoke(&mut self, event: &Value) -> (Duration, Value) {
        self.seq += 1;
        let id = format!("bench-{}", self.seq);
        self.events.send((id.clone(), event.clone())).unwrap();
        let (got, at, v) = tokio::time::timeout(Duration::from_secs(30), self.answers.recv())
            .await
            .expect("an answer within 30 s")
            .expect("the Runtime API runs");
        assert_eq!(got, id);
        let handed = self.api.handed.lock().unwrap().remove(&id).unwrap();
        (at - handed, v)
    }

    async fn stop(mut self) {
        let _ = self.child.kill().await;
    }
}

/// The CA certificates as Lambda's `provided.al2023` has them: one bundle, and no directory of
/// hashed links (Debian's `/etc/ssl/certs` holds ~400 files, which the TLS client parses on top of
/// the bundle: ~4 ms of init CPU that Lambda does not spend). `--host-certs` keeps the host's.
fn lambda_certs() -> Option<(PathBuf, PathBuf)> {
    if std::env::args().any(|a| a == "--host-certs") {
        return None;
    }
    let bundle = [
        "/etc/ssl/certs/ca-certificates.crt",
        "/etc/pki/tls/certs/ca-bundle.crt",
    ]
    .iter()
    .map(PathBuf::from)
    .find(|p| p.exists())?;
    let empty = std::env::temp_dir().join(format!("ciam-bench-certs-{}", std::process::id()));
    std::fs::create_dir_all(&empty).ok()?;
    Some((bundle, empty))
}

/// utime + stime of the process, in ms (/proc/<pid>/stat, clock ticks of 10 ms).
fn cpu_ms(pid: u32) -> f64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    let after = stat.rsplit_once(')').map(|(_, s)| s).unwrap_or("");
    let f: Vec<&str> = after.split_whitespace().collect();
    // Fields 14 and 15 of stat; 12 and 13 after the command's closing parenthesis.
    let ticks = |i: usize| f.get(i).and_then(|v| v.parse::<f64>().ok()).unwrap_or(0.0);
    // USER_HZ: 100 on Linux.
    (ticks(11) + ticks(12)) * 10.0
}

/// CPU time of the process's threads in ms, to the nanosecond (/proc/<pid>/task/*/schedstat):
/// the init's few milliseconds are below the 10 ms ticks of `stat`.
fn thread_cpu_ms(pid: u32) -> f64 {
    let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) else {
        return 0.0;
    };
    tasks
        .flatten()
        .filter_map(|t| std::fs::read_to_string(t.path().join("schedstat")).ok())
        .filter_map(|s| s.split_whitespace().next()?.parse::<f64>().ok())
        .sum::<f64>()
        / 1e6
}

fn peak_rss_mib(pid: u32) -> f64 {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmHWM:"))
                .and_then(|l| l.split_whitespace().nth(1))
                .and_then(|v| v.parse::<f64>().ok())
        })
        .unwrap_or(0.0)
        / 1024.0
}

// ---- the routes ----

struct Route {
    id: &'static str,
    name: &'static str,
    event: Value,
    warm: usize,
}

fn event(
    method: &'static str,
    path: &'static str,
    token: Option<&str>,
    body: Option<Value>,
) -> Value {
    let mut headers = json!({ "accept-language": "en-US", "content-type": "application/json" });
    if let Some(t) = token {
        headers["authorization"] = json!(format!("Bearer {t}"));
    }
    Event {
        method,
        path,
        headers,
        body: body.map(|b| b.to_string()),
    }
    .json("apigw-bench")
}

/// A user with a password, a session, and a partner app, written as the routes would.
async fn seed(store: Arc<dyn Store>) -> (String, String) {
    let ciam = support::seeder(store.clone(), Keys::from_hex(KEY).unwrap())
        .build()
        .await;
    let hash = ciam_core::password::hash(PASSWORD.into(), [3; 16])
        .await
        .expect("hash");
    let user = User {
        id: "0000000000000000000000000000b001".into(),
        user_name: "bench".into(),
        mail: Some(MAIL.into()),
        pwd_hash: Some(hash),
        roles: vec![ADMIN.to_owned()],
        ..Default::default()
    };
    store.put(user.to_item(), None).await.expect("user");
    // The identity's item carries the sign-in record (the password hash, the lock's counters).
    let mail = ciam_core::validate::Identity::parse(MAIL).expect("a mail address");
    let identity = ciam_core::signin::new_identity_item(unique_key(mail.unique_pk()), &user);
    store.put(identity, None).await.expect("mail");
    let (token, session) = sessions::mint(&ciam, &user, &Default::default());
    store.put(session, None).await.expect("session");
    // The app, as the console's POST /admin/apps registers it.
    let op = ciam_core::console::Operator {
        user: user.clone(),
        role: ciam_core::console::Role::Admin,
        session: ciam_store::Key::new("", ""),
    };
    let fields = ciam_core::apps::AppFields {
        name: Some(ciam_core::apps::Names {
            zh_cn: "基准".into(),
            en_us: "Bench".into(),
        }),
        service_urls: Some(vec![SERVICE_URL.into()]),
        scopes: Some(vec!["nickname".into(), "email".into()]),
        ..Default::default()
    };
    let created =
        ciam_core::console::apps::create(&ciam, &op, fields, "bench", &Default::default())
            .await
            .expect("the app is created");
    let created = serde_json::to_value(&created).expect("json");
    let app_id = created["app"]["appId"].as_str().expect("appId").to_owned();
    (token, app_id)
}

// ---- the reference hash ----

/// CPU ms (and wall ms) of one argon2id hash by the C reference, from `python`.
fn reference(python: &Path, n: usize) -> (f64, f64) {
    let out = std::process::Command::new(python)
        .args(["-c", REFERENCE, &n.to_string()])
        .output()
        .unwrap_or_else(|e| panic!("{} does not run: {e}", python.display()));
    assert!(
        out.status.success(),
        "the reference hash needs argon2-cffi in {} (scripts/setup.sh installs it): {}",
        python.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout);
    let mut v = text.split_whitespace().map(|x| x.parse::<f64>().unwrap());
    (v.next().unwrap(), v.next().unwrap())
}

// ---- figures ----

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn pct(v: &[Duration], p: f64) -> f64 {
    let mut v: Vec<f64> = v.iter().map(|d| d.as_secs_f64() * 1000.0).collect();
    v.sort_by(f64::total_cmp);
    v[((v.len() as f64 - 1.0) * p).round() as usize]
}

struct Figures {
    init: f64,
    init_cpu: f64,
    first: f64,
    p50: f64,
    p99: f64,
    cpu: f64,
    rss: f64,
}

fn arg(name: &str) -> Option<String> {
    let args: Vec<String> = std::env::args().collect();
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1).cloned())
}

/// The binary of `route`: the one `bootstrap` (route from CIAM_ROUTE) when it is there, else the
/// route's own binary.
fn binary(dir: &Path, route: &'static str) -> (PathBuf, Option<&'static str>) {
    let bootstrap = dir.join("bootstrap");
    if bootstrap.exists() {
        (bootstrap, Some(route))
    } else {
        (dir.join(route), None)
    }
}

async fn measure(dir: &Path, endpoint: &str, route: &Route, cold: usize) -> Figures {
    let (exe, env_route) = binary(dir, route.id);
    let (mut inits, mut init_cpus, mut firsts) = (Vec::new(), Vec::new(), Vec::new());
    let mut warm_process = None;
    for i in 0..cold {
        let mut f = Function::start(&exe, env_route, endpoint).await;
        let (init, init_cpu) = f.init().await;
        let (first, res) = f.invoke(&route.event).await;
        assert_eq!(res["statusCode"], json!(200), "{}: {res}", route.name);
        inits.push(init.as_secs_f64() * 1000.0);
        init_cpus.push(init_cpu);
        firsts.push(first.as_secs_f64() * 1000.0);
        if i + 1 == cold {
            warm_process = Some(f);
        } else {
            f.stop().await;
        }
    }
    let mut f = warm_process.expect("at least one cold start");
    // A few events first, so the figures are of a warm process.
    for _ in 0..3 {
        f.invoke(&route.event).await;
    }
    let cpu_before = cpu_ms(f.pid);
    let mut lat = Vec::with_capacity(route.warm);
    for _ in 0..route.warm {
        let (d, res) = f.invoke(&route.event).await;
        assert_eq!(res["statusCode"], json!(200), "{}: {res}", route.name);
        lat.push(d);
    }
    let cpu = (cpu_ms(f.pid) - cpu_before) / route.warm as f64;
    let rss = peak_rss_mib(f.pid);
    f.stop().await;
    Figures {
        init: median(&mut inits),
        init_cpu: median(&mut init_cpus),
        first: median(&mut firsts),
        p50: pct(&lat, 0.5),
        p99: pct(&lat, 0.99),
        cpu,
        rss,
    }
}

#[tokio::main]
async fn main() {
    let dir = PathBuf::from(arg("--bin-dir").unwrap_or_else(|| "target/release".into()));
    let python = PathBuf::from(arg("--python").unwrap_or_else(|| ".venv/bin/python".into()));
    let cold: usize = arg("--cold").and_then(|v| v.parse().ok()).unwrap_or(10);
    let scale: f64 = arg("--scale").and_then(|v| v.parse().ok()).unwrap_or(1.0);
    let warm = |n: usize| ((n as f64 * scale).round() as usize).max(5);

    let dynamo = DynamoLocal::start().await;
    let store = dynamo_table(&dynamo.endpoint, TABLE, ACCESS_KEY, REGION).await;
    let (token, app_id) = seed(store).await;
    let (kind, _) = binary(&dir, "auth_info_get");
    println!(
        "Lambda benchmark: {} (release profile), loopback Runtime API, DynamoDB Local; {} cold starts per route",
        kind.display(),
        cold
    );

    let routes = [
        Route {
            id: "auth_info_get",
            name: "GET /auth/info",
            event: event("GET", "/ciam/v1/auth/info", Some(&token), None),
            warm: warm(2000),
        },
        Route {
            id: "auth_login_password",
            name: "POST /auth/login/password",
            event: event(
                "POST",
                "/ciam/v1/auth/login/password",
                None,
                Some(json!({ "account": MAIL, "password": PASSWORD })),
            ),
            warm: warm(100),
        },
        Route {
            id: "auth_login_token",
            name: "POST /auth/login/token",
            event: event(
                "POST",
                "/ciam/v1/auth/login/token",
                Some(&token),
                Some(json!({ "appId": app_id, "serviceUrl": SERVICE_URL })),
            ),
            warm: warm(1000),
        },
    ];

    let reference_before = reference(&python, 30);
    let mut rows = Vec::new();
    for route in &routes {
        rows.push((route, measure(&dir, &dynamo.endpoint, route, cold).await));
    }
    let reference_after = reference(&python, 30);
    let reference_cpu = (reference_before.0 + reference_after.0) / 2.0;

    println!();
    println!(
        "| Route | init ms (median) | init CPU ms | first invocation ms | warm p50 ms | warm p99 ms | CPU ms/request | peak RSS MiB | warm n |"
    );
    println!("|---|---:|---:|---:|---:|---:|---:|---:|---:|");
    for (route, f) in &rows {
        println!(
            "| `{}` | {:.1} | {:.1} | {:.2} | {:.2} | {:.2} | {:.2} | {:.1} | {} |",
            route.name, f.init, f.init_cpu, f.first, f.p50, f.p99, f.cpu, f.rss, route.warm
        );
    }
    let sign_in = rows
        .iter()
        .find(|(r, _)| r.id == "auth_login_password")
        .map(|(_, f)| f.cpu)
        .unwrap_or(0.0);
    println!();
    println!(
        "reference argon2id (argon2-cffi, m=19456 KiB, t=2, p=1): {:.2} ms CPU per hash ({:.2} before, {:.2} after the routes)",
        reference_cpu, reference_before.0, reference_after.0
    );
    println!(
        "CPU per password sign-in / reference hash: {:.2} (issue 10: at most 1.10)",
        sign_in / reference_cpu
    );
    let worst_init = rows.iter().map(|(_, f)| f.init).fold(0.0, f64::max);
    println!("highest init median: {worst_init:.1} ms (issue 10: at most 20)");
}
