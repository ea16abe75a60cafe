//! Shared by the Lambda binary tests: a loopback Lambda Runtime API, a way to run a function
//! binary against it, and readers of API Gateway responses.
#![allow(dead_code)] // each test binary uses its own part

pub mod moto;

use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::Router;
use serde_json::{json, Value};
use std::collections::{HashMap, VecDeque};
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::sync::mpsc;

pub const WAIT: Duration = Duration::from_secs(60);

/// What the function posted for one invocation: its response, or an error report.
#[derive(Debug)]
pub enum Outcome {
    Response(Value),
    Error(String),
}

/// The Lambda Runtime API, as far as a function uses it: hands out queued events one by one
/// (then holds `next` forever, as Lambda does while no request comes), and records outcomes.
#[derive(Clone)]
struct RuntimeApi {
    events: Arc<Mutex<VecDeque<(String, Value)>>>,
    outcomes: mpsc::UnboundedSender<(String, Outcome)>,
    /// When the function first asked for an event: the end of its init.
    first_next: Arc<Mutex<Option<Instant>>>,
}

async fn next_invocation(State(api): State<RuntimeApi>) -> Response {
    api.first_next
        .lock()
        .unwrap()
        .get_or_insert_with(Instant::now);
    let event = api.events.lock().unwrap().pop_front();
    let Some((id, event)) = event else {
        return std::future::pending().await;
    };
    invocation(id, &event, "auth_info_get")
}

/// The Runtime API's answer to `next`: the event with the headers a function reads.
pub fn invocation(id: String, event: &Value, function: &str) -> Response {
    let deadline = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis()
        + 30_000;
    (
        [
            ("content-type", "application/json".to_owned()),
            ("lambda-runtime-aws-request-id", id),
            ("lambda-runtime-deadline-ms", deadline.to_string()),
            (
                "lambda-runtime-invoked-function-arn",
                format!("arn:aws:lambda:us-east-1:123456789012:function:{function}"),
            ),
            (
                "lambda-runtime-trace-id",
                "Root=1-5759e988-bd862e3fe1be46a994272793;Parent=53995c3f42cd8ad8;Sampled=0"
                    .to_owned(),
            ),
        ],
        event.to_string(),
    )
        .into_response()
}

async fn invocation_response(
    State(api): State<RuntimeApi>,
    Path(id): Path<String>,
    body: Bytes,
) -> StatusCode {
    let outcome = match serde_json::from_slice(&body) {
        Ok(v) => Outcome::Response(v),
        Err(e) => Outcome::Error(format!(
            "response is not JSON ({e}): {}",
            String::from_utf8_lossy(&body)
        )),
    };
    let _ = api.outcomes.send((id, outcome));
    StatusCode::ACCEPTED
}

async fn invocation_error(
    State(api): State<RuntimeApi>,
    Path(id): Path<String>,
    headers: HeaderMap,
    body: Bytes,
) -> StatusCode {
    let kind = headers
        .get("lambda-runtime-function-error-type")
        .and_then(|v| v.to_str().ok())
        .unwrap_or("?");
    let report = format!("{kind}: {}", String::from_utf8_lossy(&body));
    let _ = api.outcomes.send((id, Outcome::Error(report)));
    StatusCode::ACCEPTED
}

async fn init_error(State(api): State<RuntimeApi>, body: Bytes) -> StatusCode {
    let report = format!("init error: {}", String::from_utf8_lossy(&body));
    let _ = api.outcomes.send(("init".into(), Outcome::Error(report)));
    StatusCode::ACCEPTED
}

/// The Runtime API of one function run: where it listens, the outcomes the function posts, and
/// when it first asked for an event (the end of its init).
pub struct Runtime {
    pub addr: String,
    pub outcomes: mpsc::UnboundedReceiver<(String, Outcome)>,
    pub first_next: Arc<Mutex<Option<Instant>>>,
}

/// Starts the Runtime API on a free loopback port.
pub async fn runtime_api(events: Vec<(String, Value)>) -> Runtime {
    let (tx, rx) = mpsc::unbounded_channel();
    let first_next = Arc::new(Mutex::new(None));
    let api = RuntimeApi {
        events: Arc::new(Mutex::new(events.into())),
        outcomes: tx,
        first_next: first_next.clone(),
    };
    let app = Router::new()
        .route("/2018-06-01/runtime/invocation/next", get(next_invocation))
        .route(
            "/2018-06-01/runtime/invocation/{id}/response",
            post(invocation_response),
        )
        .route(
            "/2018-06-01/runtime/invocation/{id}/error",
            post(invocation_error),
        )
        .route("/2018-06-01/runtime/init/error", post(init_error))
        .with_state(api);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap().to_string();
    tokio::spawn(async move { axum::serve(listener, app).await });
    Runtime {
        addr,
        outcomes: rx,
        first_next,
    }
}

/// Collects the function's output lines, so a failure can show them; ends at end of file.
pub fn collect_lines<R>(stream: R, into: Arc<Mutex<Vec<String>>>) -> tokio::task::JoinHandle<()>
where
    R: tokio::io::AsyncRead + Unpin + Send + 'static,
{
    tokio::spawn(async move {
        let mut lines = BufReader::new(stream).lines();
        while let Ok(Some(line)) = lines.next_line().await {
            into.lock().unwrap().push(line);
        }
    })
}

/// The response the function posted for `id`; a reported error fails the test.
pub fn response<'a>(got: &'a HashMap<String, Outcome>, id: &str, logs: &str) -> &'a Value {
    match got.get(id) {
        Some(Outcome::Response(v)) => v,
        Some(Outcome::Error(report)) => {
            panic!("{id} failed: {report}\n--- function output ---\n{logs}")
        }
        None => panic!("{id} got no outcome: {got:?}\n--- function output ---\n{logs}"),
    }
}

pub fn header<'a>(response: &'a Value, name: &str) -> Option<&'a str> {
    response["headers"]
        .as_object()?
        .iter()
        .find(|(k, _)| k.eq_ignore_ascii_case(name))
        .and_then(|(_, v)| v.as_str())
}

pub fn body_json(response: &Value) -> Value {
    let body = response["body"].as_str().unwrap_or_default();
    assert_eq!(response["isBase64Encoded"], json!(false), "{response}");
    serde_json::from_str(body).unwrap_or_else(|e| panic!("body is not JSON ({e}): {response}"))
}

/// An API Gateway HTTP API event (payload format 2.0).
pub struct Event<'a> {
    pub method: &'a str,
    pub path: &'a str,
    pub headers: Value,
    pub body: Option<String>,
}

impl Event<'_> {
    pub fn json(&self, request_id: &str) -> Value {
        let mut headers = json!({
            "accept": "application/json",
            "host": "abc123.execute-api.us-east-1.amazonaws.com",
            "user-agent": "lambda-runtime-test",
            "x-forwarded-for": "203.0.113.7",
            "x-forwarded-port": "443",
            "x-forwarded-proto": "https"
        });
        if let (Some(all), Some(extra)) = (headers.as_object_mut(), self.headers.as_object()) {
            all.extend(extra.clone());
        }
        let route = format!("{} {}", self.method, self.path);
        json!({
            "version": "2.0",
            "routeKey": route,
            "rawPath": self.path,
            "rawQueryString": "",
            "headers": headers,
            "requestContext": {
                "accountId": "123456789012",
                "apiId": "abc123",
                "domainName": "abc123.execute-api.us-east-1.amazonaws.com",
                "domainPrefix": "abc123",
                "http": {
                    "method": self.method,
                    "path": self.path,
                    "protocol": "HTTP/1.1",
                    "sourceIp": "203.0.113.7",
                    "userAgent": "lambda-runtime-test"
                },
                "requestId": request_id,
                "routeKey": route,
                "stage": "$default",
                "time": "01/Jan/2025:00:00:00 +0000",
                "timeEpoch": 1735689600000_i64
            },
            "body": self.body,
            "isBase64Encoded": false
        })
    }
}

/// What a function binary answered, and everything it wrote.
pub struct Run {
    pub outcomes: HashMap<String, Outcome>,
    pub logs: String,
    pub exited: Option<std::process::ExitStatus>,
    /// From the start of the process to its first request for an event (what Lambda reports as
    /// the init duration, plus the process start).
    pub init: Option<Duration>,
}

/// Runs the binary `exe` with exactly `env` (plus PATH and the Lambda variables) against a
/// Runtime API that hands out `events`, until each has an outcome (or `WAIT` passes).
pub async fn run_function(exe: &str, env: &[(&str, String)], events: Vec<(String, Value)>) -> Run {
    let expected = events.len();
    let Runtime {
        addr: runtime,
        mut outcomes,
        first_next,
    } = runtime_api(events).await;
    let name = std::path::Path::new(exe)
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let mut cmd = tokio::process::Command::new(exe);
    cmd.env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("AWS_LAMBDA_RUNTIME_API", &runtime)
        .env("AWS_LAMBDA_FUNCTION_NAME", &name)
        .env("AWS_LAMBDA_FUNCTION_MEMORY_SIZE", "256")
        .env("AWS_LAMBDA_FUNCTION_VERSION", "$LATEST")
        .env("AWS_EC2_METADATA_DISABLED", "true");
    for (k, v) in env {
        cmd.env(k, v);
    }
    let spawned = Instant::now();
    let mut child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .unwrap_or_else(|e| panic!("{exe} does not start: {e}"));
    let logs = Arc::new(Mutex::new(Vec::new()));
    let readers = [
        collect_lines(child.stdout.take().unwrap(), logs.clone()),
        collect_lines(child.stderr.take().unwrap(), logs.clone()),
    ];
    let mut got: HashMap<String, Outcome> = HashMap::new();
    let _ = tokio::time::timeout(WAIT, async {
        while got.len() < expected {
            match outcomes.recv().await {
                Some((id, outcome)) => {
                    got.insert(id, outcome);
                }
                None => break,
            }
            // An init error ends the function: nothing more will come.
            if got.contains_key("init") {
                break;
            }
        }
    })
    .await;
    let exited = child.try_wait().ok().flatten();
    child.kill().await.ok();
    for reader in readers {
        let _ = tokio::time::timeout(Duration::from_secs(5), reader).await;
    }
    let logs = logs.lock().unwrap().join("\n");
    let init = first_next.lock().unwrap().map(|t| t - spawned);
    Run {
        outcomes: got,
        logs,
        exited,
        init,
    }
}

/// A table in DynamoDB Local seen with the credentials the function binary will use (DynamoDB
/// Local keeps one database per access key and region), created if missing.
pub async fn dynamo_table(
    endpoint: &str,
    table: &str,
    access_key: &str,
    region: &'static str,
) -> Arc<dyn ciam_store::Store> {
    use aws_sdk_dynamodb::config::{BehaviorVersion, Credentials, Region};
    use ciam_store::Store;
    let conf = aws_sdk_dynamodb::Config::builder()
        .behavior_version(BehaviorVersion::latest())
        .region(Region::new(region))
        .endpoint_url(endpoint)
        .credentials_provider(Credentials::new(access_key, "test", None, None, "test"))
        .build();
    let store = ciam_store::dynamodb::DynamoStore::new(
        aws_sdk_dynamodb::Client::from_conf(conf),
        table,
        Arc::new(ciam_core::SystemClock),
    );
    store.ensure_schema().await.expect("the table is created");
    Arc::new(store)
}

/// The application a test seeds a function's table with: the system's time (the function reads
/// the table in real time), that table, and the root key the function is given.
pub fn seeder(
    store: Arc<dyn ciam_store::Store>,
    keys: ciam_core::Keys,
) -> ciam_core::testing::Builder {
    ciam_core::testing::Builder::new(0)
        .system_clock()
        .store(store)
        .keys(keys)
}
