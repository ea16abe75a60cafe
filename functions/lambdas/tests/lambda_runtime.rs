//! Proof that a Lambda binary is a Lambda: the compiled `auth_info_get` talks to a loopback
//! implementation of the Lambda Runtime API, receives API Gateway HTTP API (payload 2.0) events,
//! reads DynamoDB Local, and posts API Gateway responses back.

use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::Router;
use ciam_core::user::User;
use ciam_core::{Ciam, CodeMessage, Config, Keys, Notifier, OsEntropy, SystemClock};
use ciam_store::dynamo_local::DynamoLocal;
use ciam_store::dynamodb::DynamoStore;
use ciam_store::{Clock, Store};
use serde_json::{json, Value};
use std::collections::{HashMap, VecDeque};
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::sync::mpsc;

const KEY: &str = "8f3c2a1b9d7e6f5a4b3c2d1e0f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c4d3e2f1a";
const TABLE: &str = "ciam-lambda-test";
const USER_ID: &str = "0123456789abcdef0123456789abcdef";
const WAIT: Duration = Duration::from_secs(60);
/// DynamoDB Local keeps one database per access key and region: the test and the function
/// must use the same ones (letters and digits only, as DynamoDB Local demands).
const ACCESS_KEY: &str = "ciamLambdaTest";
const REGION: &str = "us-east-1";

/// Seeding never sends codes.
struct NoMail;

#[async_trait::async_trait]
impl Notifier for NoMail {
    async fn send_code(&self, _: &CodeMessage) -> Result<(), String> {
        Err("no notifier in this test".into())
    }
    async fn send_notice(&self, _: &ciam_core::NoticeMessage) -> Result<(), String> {
        Err("no notifier in this test".into())
    }
}

/// What the function posted for one invocation: its response, or an error report.
#[derive(Debug)]
enum Outcome {
    Response(Value),
    Error(String),
}

/// The Lambda Runtime API, as far as a function uses it: hands out queued events one by one
/// (then holds `next` forever, as Lambda does while no request comes), and records outcomes.
#[derive(Clone)]
struct RuntimeApi {
    events: Arc<Mutex<VecDeque<(String, Value)>>>,
    outcomes: mpsc::UnboundedSender<(String, Outcome)>,
}

async fn next_invocation(State(api): State<RuntimeApi>) -> Response {
    let event = api.events.lock().unwrap().pop_front();
    let Some((id, event)) = event else {
        return std::future::pending().await;
    };
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
                "arn:aws:lambda:us-east-1:123456789012:function:auth_info_get".to_owned(),
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

/// Starts the Runtime API on a free loopback port; returns `host:port` and the outcomes.
async fn runtime_api(
    events: Vec<(String, Value)>,
) -> (String, mpsc::UnboundedReceiver<(String, Outcome)>) {
    let (tx, rx) = mpsc::unbounded_channel();
    let api = RuntimeApi {
        events: Arc::new(Mutex::new(events.into())),
        outcomes: tx,
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
    (addr, rx)
}

/// An API Gateway HTTP API event, payload format 2.0, for `GET /ciam/v1/auth/info`.
fn info_event(request_id: &str, bearer: Option<&str>) -> Value {
    let mut headers = json!({
        "accept": "application/json",
        "accept-language": "en-US",
        "host": "abc123.execute-api.us-east-1.amazonaws.com",
        "user-agent": "lambda-runtime-test",
        "x-forwarded-for": "203.0.113.7",
        "x-forwarded-port": "443",
        "x-forwarded-proto": "https"
    });
    if let Some(token) = bearer {
        headers["authorization"] = json!(format!("Bearer {token}"));
    }
    json!({
        "version": "2.0",
        "routeKey": "GET /ciam/v1/auth/info",
        "rawPath": "/ciam/v1/auth/info",
        "rawQueryString": "",
        "headers": headers,
        "requestContext": {
            "accountId": "123456789012",
            "apiId": "abc123",
            "domainName": "abc123.execute-api.us-east-1.amazonaws.com",
            "domainPrefix": "abc123",
            "http": {
                "method": "GET",
                "path": "/ciam/v1/auth/info",
                "protocol": "HTTP/1.1",
                "sourceIp": "203.0.113.7",
                "userAgent": "lambda-runtime-test"
            },
            "requestId": request_id,
            "routeKey": "GET /ciam/v1/auth/info",
            "stage": "$default",
            "time": "01/Jan/2025:00:00:00 +0000",
            "timeEpoch": 1735689600000_i64
        },
        "isBase64Encoded": false
    })
}

/// The test's own view of the table, created with the credentials the function will use.
async fn table(endpoint: &str) -> Arc<dyn Store> {
    use aws_sdk_dynamodb::config::{BehaviorVersion, Credentials, Region};
    let conf = aws_sdk_dynamodb::Config::builder()
        .behavior_version(BehaviorVersion::latest())
        .region(Region::new(REGION))
        .endpoint_url(endpoint)
        .credentials_provider(Credentials::new(ACCESS_KEY, "test", None, None, "test"))
        .build();
    let client = aws_sdk_dynamodb::Client::from_conf(conf);
    let store = DynamoStore::new(client, TABLE, Arc::new(SystemClock));
    store.ensure_schema().await.expect("the table is created");
    Arc::new(store)
}

/// A user and a live session in the table, written through the domain as the routes would.
async fn seed(store: Arc<dyn Store>) -> String {
    let clock: Arc<dyn Clock> = Arc::new(SystemClock);
    let ciam = Ciam {
        store: store.clone(),
        clock,
        entropy: Arc::new(OsEntropy),
        keys: Keys::from_hex(KEY).unwrap(),
        notifier: Arc::new(NoMail),
        blobs: Arc::new(ciam_core::MemoryBlobs::default()),
        config: Config::default(),
    };
    let user = User {
        id: USER_ID.into(),
        user_name: "lambda-user".into(),
        ..Default::default()
    };
    store.put(user.to_item(), None).await.unwrap();
    let (token, session) = ciam_core::sessions::mint(&ciam, &user, &Default::default());
    store.put(session, None).await.unwrap();
    token
}

/// Collects the function's output lines, so a failure can show them; ends at end of file.
fn collect_lines<R>(stream: R, into: Arc<Mutex<Vec<String>>>) -> tokio::task::JoinHandle<()>
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
fn response<'a>(got: &'a HashMap<String, Outcome>, id: &str, logs: &str) -> &'a Value {
    match got.get(id) {
        Some(Outcome::Response(v)) => v,
        Some(Outcome::Error(report)) => {
            panic!("{id} failed: {report}\n--- function output ---\n{logs}")
        }
        None => panic!("{id} got no outcome: {got:?}\n--- function output ---\n{logs}"),
    }
}

fn header<'a>(response: &'a Value, name: &str) -> Option<&'a str> {
    response["headers"]
        .as_object()?
        .iter()
        .find(|(k, _)| k.eq_ignore_ascii_case(name))
        .and_then(|(_, v)| v.as_str())
}

fn body_json(response: &Value) -> Value {
    let body = response["body"].as_str().unwrap_or_default();
    assert_eq!(response["isBase64Encoded"], json!(false), "{response}");
    serde_json::from_str(body).unwrap_or_else(|e| panic!("body is not JSON ({e}): {response}"))
}

#[tokio::test]
async fn the_info_binary_serves_api_gateway_events_from_the_lambda_runtime_api() {
    let dynamo = DynamoLocal::start().await;
    let token = seed(table(&dynamo.endpoint).await).await;

    let (runtime, mut outcomes) = runtime_api(vec![
        (
            "invoke-signed-in".into(),
            info_event("apigw-1", Some(&token)),
        ),
        ("invoke-anonymous".into(), info_event("apigw-2", None)),
    ])
    .await;

    let mut child = tokio::process::Command::new(env!("CARGO_BIN_EXE_auth_info_get"))
        .env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("AWS_LAMBDA_RUNTIME_API", &runtime)
        .env("AWS_LAMBDA_FUNCTION_NAME", "auth_info_get")
        .env("AWS_LAMBDA_FUNCTION_MEMORY_SIZE", "256")
        .env("AWS_LAMBDA_FUNCTION_VERSION", "$LATEST")
        .env("AWS_REGION", REGION)
        .env("AWS_ACCESS_KEY_ID", ACCESS_KEY)
        .env("AWS_SECRET_ACCESS_KEY", "test")
        .env("AWS_EC2_METADATA_DISABLED", "true")
        .env("CIAM_TABLE", TABLE)
        .env("CIAM_SECRET_KEY", KEY)
        .env("CIAM_DYNAMODB_ENDPOINT", &dynamo.endpoint)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .expect("the auth_info_get binary starts");
    let logs = Arc::new(Mutex::new(Vec::new()));
    let readers = [
        collect_lines(child.stdout.take().unwrap(), logs.clone()),
        collect_lines(child.stderr.take().unwrap(), logs.clone()),
    ];

    let mut got: HashMap<String, Outcome> = HashMap::new();
    let waited = tokio::time::timeout(WAIT, async {
        while got.len() < 2 {
            match outcomes.recv().await {
                Some((id, outcome)) => {
                    got.insert(id, outcome);
                }
                None => break,
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
    assert!(
        waited.is_ok() && got.len() == 2,
        "no responses within {WAIT:?} (exit: {exited:?}); got {got:?}\n--- function output ---\n{logs}"
    );

    let signed_in = response(&got, "invoke-signed-in", &logs);
    assert_eq!(signed_in["statusCode"], json!(200), "{signed_in}\n{logs}");
    let info = body_json(signed_in);
    assert_eq!(info["userName"], json!("lambda-user"), "{info}");
    assert_eq!(info["userId"], json!(USER_ID), "{info}");
    assert!(
        header(signed_in, "x-request-id").is_some_and(|v| !v.is_empty()),
        "no x-request-id: {signed_in}"
    );

    let anonymous = response(&got, "invoke-anonymous", &logs);
    assert_eq!(anonymous["statusCode"], json!(401), "{anonymous}");
    let refusal = body_json(anonymous);
    assert_eq!(
        refusal["reason"],
        json!("AUTHORIZATION_FAILED"),
        "{refusal}"
    );
    assert_eq!(refusal["code"], json!(401), "{refusal}");
    assert!(header(anonymous, "x-request-id").is_some(), "{anonymous}");

    // The logs are JSON lines for CloudWatch, and no secret reaches them.
    assert!(!logs.is_empty(), "the function logged nothing");
    for line in logs.lines() {
        let parsed: Result<Value, _> = serde_json::from_str(line);
        assert!(parsed.is_ok(), "a log line is not JSON: {line}");
    }
    let secret = token.split_once('.').map(|(_, s)| s).unwrap_or(&token);
    assert!(!logs.contains(secret), "the session token reached the log");
    assert!(!logs.contains(KEY), "the secret key reached the log");
}
