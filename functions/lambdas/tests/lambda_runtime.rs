//! Proof that the Lambda binary is a Lambda: the compiled `bootstrap`, serving `auth_info_get`
//! (`CIAM_ROUTE`), talks to a loopback
//! implementation of the Lambda Runtime API, receives API Gateway HTTP API (payload 2.0) events,
//! reads DynamoDB Local, and posts API Gateway responses back.

// Test code: a panic is the failure report, so unwrap and expect are allowed here
// (the workspace denies them in the product, Cargo.toml [workspace.lints]).
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use ciam_core::user::User;
use ciam_core::Keys;
use ciam_store::dynamo_local::DynamoLocal;
use ciam_store::Store;
use serde_json::{json, Value};
use std::sync::Arc;
use support::{body_json, dynamo_table, header, response, run_function, Event, WAIT};

const KEY: &str = "8f3c2a1b9d7e6f5a4b3c2d1e0f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c4d3e2f1a";
const TABLE: &str = "ciam-lambda-test";
const USER_ID: &str = "0123456789abcdef0123456789abcdef";
/// DynamoDB Local keeps one database per access key and region: the test and the function
/// must use the same ones (letters and digits only, as DynamoDB Local demands).
const ACCESS_KEY: &str = "ciamLambdaTest";
const REGION: &str = "us-east-1";

/// The environment of a route function over the test table in DynamoDB Local at `endpoint`.
fn function_env(route: &str, endpoint: String) -> [(&'static str, String); 7] {
    [
        ("CIAM_ROUTE", route.into()),
        ("AWS_REGION", REGION.into()),
        ("AWS_ACCESS_KEY_ID", ACCESS_KEY.into()),
        ("AWS_SECRET_ACCESS_KEY", "test".into()),
        ("CIAM_TABLE", TABLE.into()),
        ("CIAM_SECRET_KEY", KEY.into()),
        ("CIAM_DYNAMODB_ENDPOINT", endpoint),
    ]
}

/// An API Gateway HTTP API event for `GET /ciam/v1/auth/info`.
fn info_event(request_id: &str, bearer: Option<&str>) -> Value {
    let mut headers = json!({ "accept-language": "en-US" });
    if let Some(token) = bearer {
        headers["authorization"] = json!(format!("Bearer {token}"));
    }
    Event {
        method: "GET",
        path: "/ciam/v1/auth/info",
        headers,
        body: None,
    }
    .json(request_id)
}

async fn table(endpoint: &str) -> Arc<dyn Store> {
    dynamo_table(endpoint, TABLE, ACCESS_KEY, REGION).await
}

/// A user and a live session in the table, written through the domain as the routes would.
async fn seed(store: Arc<dyn Store>) -> String {
    let ciam = support::seeder(store.clone(), Keys::from_hex(KEY).unwrap())
        .build()
        .await;
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

#[tokio::test]
async fn the_info_binary_serves_api_gateway_events_from_the_lambda_runtime_api() {
    let dynamo = DynamoLocal::start().await;
    let token = seed(table(&dynamo.endpoint).await).await;

    let run = run_function(
        env!("CARGO_BIN_EXE_bootstrap"),
        &function_env("auth_info_get", dynamo.endpoint.clone()),
        vec![
            (
                "invoke-signed-in".into(),
                info_event("apigw-1", Some(&token)),
            ),
            ("invoke-anonymous".into(), info_event("apigw-2", None)),
        ],
    )
    .await;
    let (got, logs) = (&run.outcomes, &run.logs);
    assert!(
        got.len() == 2,
        "no responses within {WAIT:?} (exit: {:?}); got {got:?}\n--- function output ---\n{logs}",
        run.exited
    );

    let signed_in = response(got, "invoke-signed-in", logs);
    assert_eq!(signed_in["statusCode"], json!(200), "{signed_in}\n{logs}");
    let info = body_json(signed_in);
    assert_eq!(info["userName"], json!("lambda-user"), "{info}");
    assert_eq!(info["userId"], json!(USER_ID), "{info}");
    assert!(
        header(signed_in, "x-request-id").is_some_and(|v| !v.is_empty()),
        "no x-request-id: {signed_in}"
    );

    let anonymous = response(got, "invoke-anonymous", logs);
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

/// A Lambda function URL event (payload format 2.0, as the function URL sends it: route key
/// `$default`, the URL's own domain) for `POST /ciam/v1/auth/login/password`.
fn function_url_event(request_id: &str, body: &Value) -> Value {
    let host = "a1b2c3d4e5f6g7h8i9j0k1l2m3n4o5p6.lambda-url.us-east-1.on.aws";
    let path = "/ciam/v1/auth/login/password";
    json!({
        "version": "2.0",
        "routeKey": "$default",
        "rawPath": path,
        "rawQueryString": "",
        "headers": {
            "accept-language": "en-US",
            "content-type": "application/json",
            "host": host,
            "x-forwarded-for": "203.0.113.7",
            "x-forwarded-proto": "https",
            "x-forwarded-port": "443"
        },
        "requestContext": {
            "accountId": "anonymous",
            "apiId": "a1b2c3d4e5f6g7h8i9j0k1l2m3n4o5p6",
            "domainName": host,
            "domainPrefix": "a1b2c3d4e5f6g7h8i9j0k1l2m3n4o5p6",
            "http": {
                "method": "POST",
                "path": path,
                "protocol": "HTTP/1.1",
                "sourceIp": "203.0.113.7",
                "userAgent": "Amazon CloudFront"
            },
            "requestId": request_id,
            "routeKey": "$default",
            "stage": "$default",
            "time": "01/Jan/2025:00:00:00 +0000",
            "timeEpoch": 1735689600000_i64
        },
        "body": body.to_string(),
        "isBase64Encoded": false
    })
}

/// CloudFront calls the password sign-in through the function's URL (template.yaml): the same
/// binary answers a function URL event as it answers API Gateway's.
#[tokio::test]
async fn the_sign_in_function_answers_its_function_url_events() {
    let dynamo = DynamoLocal::start().await;
    table(&dynamo.endpoint).await;
    let body = json!({ "account": "nobody@example.com", "password": "Str0ng!Passw0rd" });
    let run = run_function(
        env!("CARGO_BIN_EXE_bootstrap"),
        &function_env("auth_login_password", dynamo.endpoint.clone()),
        vec![("invoke-url".into(), function_url_event("url-1", &body))],
    )
    .await;
    let (got, logs) = (&run.outcomes, &run.logs);
    let answer = response(got, "invoke-url", logs);
    assert_eq!(answer["statusCode"], json!(401), "{answer}\n{logs}");
    assert_eq!(
        body_json(answer)["reason"],
        json!("PASSWORD_ERROR"),
        "{answer}"
    );
}

/// Issue 30 item 9: the Lambda init counts a password sign-in's success from the table's stream
/// (`Config::numbers_from_stream`): the sign-in function's success writes no counter on its
/// request, and its session carries what the fan-out counts (`tm`, and `tn` on the name's first
/// success of the day; functions/lambdas/tests/tally_stream.rs counts it).
#[tokio::test]
async fn the_sign_in_function_leaves_its_count_on_the_session_for_the_stream() {
    let dynamo = DynamoLocal::start().await;
    let store = table(&dynamo.endpoint).await;
    let ciam = support::seeder(store.clone(), Keys::from_hex(KEY).unwrap())
        .build()
        .await;
    let password = "Str0ng!Passw0rd";
    let mail = "counted@example.com";
    let user = User {
        id: USER_ID.into(),
        user_name: "counted".into(),
        mail: Some(mail.into()),
        pwd_hash: Some(
            ciam_core::password::hash(password.into(), [3; 16])
                .await
                .unwrap(),
        ),
        ..Default::default()
    };
    let id = ciam_core::validate::Identity::parse(mail).unwrap();
    store
        .transact(ciam_core::testing::account_ops(&user, &id))
        .await
        .unwrap();
    let body = json!({ "account": mail, "password": password });
    let run = run_function(
        env!("CARGO_BIN_EXE_bootstrap"),
        &function_env("auth_login_password", dynamo.endpoint.clone()),
        vec![("invoke-url".into(), function_url_event("url-1", &body))],
    )
    .await;
    let (got, logs) = (&run.outcomes, &run.logs);
    let answer = response(got, "invoke-url", logs);
    assert_eq!(answer["statusCode"], json!(200), "{answer}\n{logs}");
    let sessions = store
        .query(ciam_store::Query::partition(ciam_core::user::user_pk(USER_ID)).prefix("SESSION#"))
        .await
        .unwrap();
    assert_eq!(sessions.len(), 1);
    assert_eq!(
        (
            sessions[0].s(ciam_core::numbers::TALLY_METHOD),
            sessions[0].n(ciam_core::numbers::TALLY_NEWS)
        ),
        (Some("password"), Some(1))
    );
    assert!(ciam_core::numbers::is_tallied(&sessions[0]));
    // Nothing counted on the request: no counter item of this week or month exists.
    let today = ciam_core::numbers::Day::of(ciam.now());
    let mut keys = ciam_core::numbers::week_keys(today);
    keys.extend(ciam_core::numbers::month_keys(today));
    keys.push(ciam_core::numbers::total_key());
    let counters = store.get_many(&keys).await.unwrap();
    assert!(counters.iter().all(Option::is_none), "{counters:?}");
}

/// A function without a route, or with one the binary does not know, never starts serving: the
/// init fails at once with a message naming `CIAM_ROUTE`, and the process exits nonzero.
#[test]
fn a_missing_or_unknown_route_fails_the_init() {
    for (route, expected) in [
        (None, "CIAM_ROUTE is not set"),
        (
            Some("auth_nope"),
            "CIAM_ROUTE=\\\"auth_nope\\\" is not a route id",
        ),
    ] {
        let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_bootstrap"));
        cmd.env_clear()
            // Nothing listens here: the binary must fail before it asks the Runtime API.
            .env("AWS_LAMBDA_RUNTIME_API", "127.0.0.1:9");
        if let Some(route) = route {
            cmd.env("CIAM_ROUTE", route);
        }
        let out = cmd.output().expect("bootstrap starts");
        let logs = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(!out.status.success(), "{route:?}: exited {:?}", out.status);
        assert!(logs.contains(expected), "{route:?}: {logs}");
        assert!(logs.contains("init failed"), "{route:?}: {logs}");
    }
}

/// Each binary serves its own table only (docs/passkeys-design.md §1.4): `bootstrap` refuses a
/// ceremony route and `passkeys` a route of `ROUTES` or the embedded page, at init, before the
/// Runtime API is asked.
#[test]
fn each_binary_refuses_the_routes_of_the_other() {
    for (exe, route, table) in [
        (
            env!("CARGO_BIN_EXE_bootstrap"),
            "auth_login_passkey",
            "ciam_api::ROUTES",
        ),
        (
            env!("CARGO_BIN_EXE_passkeys"),
            "auth_login_password",
            "ciam_api::CEREMONY_ROUTES",
        ),
        (
            env!("CARGO_BIN_EXE_passkeys"),
            "embedded_page",
            "ciam_api::CEREMONY_ROUTES",
        ),
        (env!("CARGO_BIN_EXE_passkeys"), "", "CIAM_ROUTE is not set"),
        // The DNS check is binary `domains`' only (docs/organizations-domains.md §1.1).
        (
            env!("CARGO_BIN_EXE_bootstrap"),
            "org_domain_verify",
            "ciam_api::ROUTES",
        ),
        (
            env!("CARGO_BIN_EXE_domains"),
            "auth_login_password",
            "ciam_api::DOMAIN_ROUTES",
        ),
        // The avatar decoder is binary `decoder`'s only function; `bootstrap` no longer runs it.
        (
            env!("CARGO_BIN_EXE_bootstrap"),
            "avatar_decode",
            "ciam_api::ROUTES",
        ),
        (
            env!("CARGO_BIN_EXE_decoder"),
            "auth_info_get",
            "is not the image decoder",
        ),
        (env!("CARGO_BIN_EXE_decoder"), "", "CIAM_ROUTE is not set"),
    ] {
        let out = std::process::Command::new(exe)
            .env_clear()
            .env("AWS_LAMBDA_RUNTIME_API", "127.0.0.1:9")
            .env("CIAM_ROUTE", route)
            .output()
            .expect("the binary starts");
        let logs = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(
            !out.status.success(),
            "{exe} {route}: exited {:?}",
            out.status
        );
        assert!(logs.contains("init failed"), "{exe} {route}: {logs}");
        assert!(logs.contains(table), "{exe} {route}: {logs}");
    }
}

/// The avatar decoder is a binary of its own (`decoder`, the only one that links the image
/// crates, docs/operations.md §10): it answers Lambda invocations with the thumbnail of an image,
/// or a refusal, reading nothing at init.
#[tokio::test]
async fn the_decoder_binary_answers_invocations_with_a_thumbnail_or_a_refusal() {
    use base64::engine::general_purpose::STANDARD;
    use base64::Engine;
    let picture = image::RgbImage::from_fn(300, 200, |x, y| image::Rgb([x as u8, y as u8, 90]));
    let mut png = std::io::Cursor::new(Vec::new());
    image::DynamicImage::ImageRgb8(picture)
        .write_to(&mut png, image::ImageFormat::Png)
        .unwrap();
    let events = vec![
        (
            "ok".into(),
            json!({ "image": STANDARD.encode(png.into_inner()) }),
        ),
        ("bad".into(), json!({ "image": "***" })),
    ];
    let env = [("CIAM_ROUTE", "avatar_decode".to_owned())];
    let run = run_function(env!("CARGO_BIN_EXE_decoder"), &env, events).await;
    let ok = response(&run.outcomes, "ok", &run.logs);
    let thumbnail = STANDARD.decode(ok["png"].as_str().unwrap()).unwrap();
    let back = image::load_from_memory(&thumbnail).unwrap();
    assert_eq!((back.width(), back.height()), (256, 256), "{}", run.logs);
    let bad = response(&run.outcomes, "bad", &run.logs);
    assert_eq!(bad["error"]["reason"], json!("AVATAR_INVALID"), "{bad}");
}

/// The ceremony binary is a Lambda too: it initialises with the store and the keys only (no
/// S3, SES, SNS or KMS) and serves its route from the Runtime API. Without a public URL there is
/// no RP ID, so the passkey sign-in options answer 503 PASSKEY_UNAVAILABLE (§3.6); the route
/// never touches the table, so no DynamoDB is needed.
#[tokio::test]
async fn the_passkeys_binary_serves_a_ceremony_route_from_the_lambda_runtime_api() {
    let event = Event {
        method: "POST",
        path: "/ciam/v1/auth/login/passkey/options",
        headers: json!({ "accept-language": "en-US", "content-type": "application/json" }),
        body: Some("{}".into()),
    }
    .json("pk-1");
    let env = without_a_table("auth_login_passkey_options");
    let run = run_function(
        env!("CARGO_BIN_EXE_passkeys"),
        &env,
        vec![("pk-1".into(), event)],
    )
    .await;
    let (got, logs) = (&run.outcomes, &run.logs);
    let answer = response(got, "pk-1", logs);
    assert_eq!(answer["statusCode"], json!(503), "{answer}\n{logs}");
    assert_eq!(
        body_json(answer)["reason"],
        json!("PASSKEY_UNAVAILABLE"),
        "{answer}"
    );
    assert!(logs.contains("auth_login_passkey_options"), "{logs}");
}

/// An API Gateway event for `POST /ciam/v1/auth/login/password`.
fn login_event(request_id: &str) -> Value {
    Event {
        method: "POST",
        path: "/ciam/v1/auth/login/password",
        headers: json!({ "accept-language": "en-US", "content-type": "application/json" }),
        body: Some(
            json!({ "account": "nobody@example.com", "password": "Str0ng!Passw0rd" }).to_string(),
        ),
    }
    .json(request_id)
}

/// A loopback endpoint where connecting hangs, like a blackholed address: a listener whose
/// accept queue (backlog 0: one connection) is full drops every further SYN. Keep both values.
fn blackhole() -> (tokio::net::TcpListener, std::net::TcpStream, String) {
    let socket = tokio::net::TcpSocket::new_v4().unwrap();
    socket.bind("127.0.0.1:0".parse().unwrap()).unwrap();
    let listener = socket.listen(0).unwrap();
    let addr = listener.local_addr().unwrap();
    let filler = std::net::TcpStream::connect(addr).unwrap();
    (listener, filler, format!("http://{addr}"))
}

/// How long the init may take with the store down. The target (issue 10: 300 ms) is measured on
/// the release build by `npm run bench:lambda`; this debug build shares the machine with the
/// rest of the suite (321 ms seen under load), so the test asks what tells a good init from a
/// bad one: less than one store connect timeout (an init that waited for the store would take
/// at least `CONNECT_TIMEOUT`, 500 ms, and with the blackholed endpoint far longer).
const INIT_BOUND: std::time::Duration = std::time::Duration::from_millis(480);

#[tokio::test]
async fn with_the_store_unreachable_the_init_stays_short_and_requests_answer_503_with_retry_after()
{
    let closed = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let (_listener, _filler, blackholed) = blackhole();
    for (what, endpoint) in [
        ("refused", format!("http://127.0.0.1:{closed}")),
        ("blackholed", blackholed),
    ] {
        let run = run_function(
            env!("CARGO_BIN_EXE_bootstrap"),
            &function_env("auth_login_password", endpoint),
            vec![("invoke-1".into(), login_event("apigw-1"))],
        )
        .await;
        let logs = &run.logs;
        let init = run
            .init
            .unwrap_or_else(|| panic!("{what}: no init end\n{logs}"));
        assert!(init < INIT_BOUND, "{what}: init took {init:?}\n{logs}");
        eprintln!("store {what}: init {init:?}");
        let res = response(&run.outcomes, "invoke-1", logs);
        assert_eq!(res["statusCode"], json!(503), "{what}: {res}\n{logs}");
        assert_eq!(header(res, "retry-after"), Some("1"), "{what}: {res}");
        let body = body_json(res);
        assert_eq!(
            body["reason"],
            json!("SERVICE_UNAVAILABLE"),
            "{what}: {body}"
        );
    }
}

/// An event of API Gateway's `$default` route (template.yaml `Api` DefinitionBody): a request
/// no route matched, as the version function receives it.
fn default_route_event(request_id: &str, method: &'static str, path: &'static str) -> Value {
    let mut event = Event {
        method,
        path,
        headers: json!({ "accept-language": "en-US" }),
        body: None,
    }
    .json(request_id);
    event["routeKey"] = json!("$default");
    event["requestContext"]["routeKey"] = json!("$default");
    event
}

/// The `$default` route's function is the version function: a path no route matches gets
/// Ciam's own 404 body (as under `ciam serve`), not API Gateway's `{"message":"Not Found"}`; a
/// method its path does not take gets Ciam's 405; the console's paths with Console=false
/// (their functions left out) get the 404; and the version itself still answers.
#[tokio::test]
async fn the_version_function_answers_the_default_route_with_ciams_own_errors() {
    let env = without_a_table("version");
    let events = vec![
        (
            "unknown".into(),
            default_route_event("d-1", "GET", "/ciam/v1/nowhere"),
        ),
        (
            "deep".into(),
            default_route_event("d-2", "POST", "/ciam/v1/auth/nowhere/at/all"),
        ),
        (
            "console-off".into(),
            default_route_event("d-3", "GET", "/ciam/v1/admin/me"),
        ),
        (
            "method".into(),
            default_route_event("d-4", "DELETE", "/ciam/v1/version"),
        ),
        (
            "version".into(),
            Event {
                method: "GET",
                path: "/ciam/v1/version",
                headers: json!({}),
                body: None,
            }
            .json("d-5"),
        ),
    ];
    let run = run_function(env!("CARGO_BIN_EXE_bootstrap"), &env, events).await;
    let (got, logs) = (&run.outcomes, &run.logs);
    for id in ["unknown", "deep", "console-off"] {
        let answer = response(got, id, logs);
        assert_eq!(answer["statusCode"], json!(404), "{id}: {answer}\n{logs}");
        let body = body_json(answer);
        assert_eq!(body["reason"], json!("NOT_FOUND"), "{id}: {body}");
        assert_eq!(body["code"], json!(404), "{id}: {body}");
        assert!(body.get("message").is_some(), "{id}: {body}");
        assert!(
            header(answer, "content-type").is_some_and(|v| v.starts_with("application/json")),
            "{id}: {answer}"
        );
        assert!(header(answer, "x-request-id").is_some(), "{id}: {answer}");
    }
    let method = response(got, "method", logs);
    assert_eq!(method["statusCode"], json!(405), "{method}");
    assert_eq!(body_json(method)["reason"], json!("METHOD_NOT_ALLOWED"));
    let version = response(got, "version", logs);
    assert_eq!(version["statusCode"], json!(200), "{version}\n{logs}");
}

/// The environment of `route`'s function with a table endpoint where nothing listens: for the
/// routes that must answer without the table.
fn without_a_table(route: &str) -> [(&'static str, String); 7] {
    [
        ("CIAM_ROUTE", route.to_owned()),
        ("AWS_REGION", REGION.into()),
        ("AWS_ACCESS_KEY_ID", ACCESS_KEY.into()),
        ("AWS_SECRET_ACCESS_KEY", "test".into()),
        ("CIAM_TABLE", TABLE.into()),
        ("CIAM_SECRET_KEY", KEY.into()),
        ("CIAM_DYNAMODB_ENDPOINT", "http://127.0.0.1:9".into()),
    ]
}
