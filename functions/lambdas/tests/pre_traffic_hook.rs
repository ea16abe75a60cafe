//! The pre-traffic check end to end (issue 30 item 10, `ciam_lambdas::hook`): the compiled `hook`
//! binary, run as Lambda runs it (a loopback Runtime API hands it CodeDeploy's events), with its
//! AWS SDK clients pointed (`AWS_ENDPOINT_URL`) at a small local emulation of the three APIs it
//! calls, following their documented protocols:
//!
//! - CodeDeploy (JSON 1.1, `X-Amz-Target: CodeDeploy_20141006.<Operation>`): `GetDeployment`
//!   answers the deployment's application and revision (`appSpecContent` with its `sha256` and,
//!   as its API reference says, a null `content`), `GetApplicationRevision` the AppSpec of that
//!   revision, `PutLifecycleEventHookExecutionStatus` records the status;
//! - Secrets Manager (JSON 1.1, `secretsmanager.GetSecretValue`): the origin secret;
//! - Lambda (`POST /2015-03-31/functions/<name>/invocations?Qualifier=<version>`): the version is
//!   the compiled `bootstrap` serving `auth_info_get`, started for the invocation with the
//!   configuration of that version, and its answer (or its init failure, as Lambda reports it:
//!   `X-Amz-Function-Error: Unhandled`) is the Invoke's answer.
//!
//! So the check is proved against a real Ciam function: version 7 reads its origin secret,
//! routes the probe and answers 401 (Succeeded); version 8 cannot read its secret and fails its
//! init (Failed); a deployment of a function the hook does not know is Failed without an invoke.

// Test code: a panic is the failure report, so unwrap and expect are allowed here
// (the workspace denies them in the product, Cargo.toml [workspace.lints]).
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use axum::body::Bytes;
use axum::extract::{Path, Query, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use axum::Router;
use serde_json::{json, Value};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use support::{run_function, Outcome};

const REGION: &str = "us-east-1";
const KEY: &str = "8f3c2a1b9d7e6f5a4b3c2d1e0f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c4d3e2f1a";
const ORIGIN: &str = "Qm9vdHN0cmFwT3JpZ2luVmVyaWZ5VmFsdWVGb3JUZXN0c09ubHlOb3RBU2VjcmV0";
const ORIGIN_ARN: &str = "arn:aws:secretsmanager:us-east-1:123456789012:secret:ciam/origin-AbCdEf";
/// What version 8 was (mis)configured with: a secret that is not there.
const MISSING_ARN: &str = "arn:aws:secretsmanager:us-east-1:123456789012:secret:ciam/gone-AbCdEf";
const FUNCTION: &str = "ciam-test-AuthInfoGetFunction-Ab12Cd34";
const APPLICATION: &str = "ciam-test-ServerlessDeploymentApplication-1A2B3C";

/// The sha256 the emulation gives a deployment's AppSpec (any stable value per deployment).
fn sha256_of(deployment: &str) -> String {
    let hex: String = deployment.bytes().map(|b| format!("{b:02x}")).collect();
    format!("{hex:0>64}")
}

/// What the emulated APIs were asked.
#[derive(Default)]
struct Calls {
    /// (function, qualifier, payload) of each Invoke.
    invokes: Vec<(String, Option<String>, Value)>,
    /// The body of each PutLifecycleEventHookExecutionStatus.
    reports: Vec<Value>,
    /// The deployments GetDeployment was asked for.
    deployments: Vec<String>,
    /// The (application, sha256) GetApplicationRevision was asked for.
    revisions: Vec<(String, String)>,
}

#[derive(Clone)]
struct Aws {
    calls: Arc<Mutex<Calls>>,
    /// Deployment id -> its AppSpec.
    appspecs: Arc<HashMap<String, String>>,
}

fn json_11(status: StatusCode, body: Value) -> Response {
    (
        status,
        [("content-type", "application/x-amz-json-1.1")],
        body.to_string(),
    )
        .into_response()
}

fn error(kind: &str, message: &str) -> Response {
    json_11(
        StatusCode::BAD_REQUEST,
        json!({"__type": kind, "message": message}),
    )
}

/// The JSON 1.1 services: CodeDeploy and Secrets Manager, by `X-Amz-Target`.
async fn json_api(State(aws): State<Aws>, headers: HeaderMap, body: Bytes) -> Response {
    let target = headers
        .get("x-amz-target")
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_owned();
    let input: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
    match target.as_str() {
        "secretsmanager.GetSecretValue" => {
            if input["SecretId"] != ORIGIN_ARN {
                return error(
                    "ResourceNotFoundException",
                    "Secrets Manager can't find the specified secret.",
                );
            }
            json_11(
                StatusCode::OK,
                json!({
                    "ARN": ORIGIN_ARN,
                    "Name": "ciam/origin",
                    "VersionId": "v1",
                    "SecretString": json!({"originVerify": ORIGIN}).to_string(),
                }),
            )
        }
        "CodeDeploy_20141006.GetDeployment" => {
            let id = input["deploymentId"]
                .as_str()
                .unwrap_or_default()
                .to_owned();
            aws.calls.lock().unwrap().deployments.push(id.clone());
            if !aws.appspecs.contains_key(&id) {
                return error("DeploymentDoesNotExistException", "no such deployment");
            }
            json_11(
                StatusCode::OK,
                json!({"deploymentInfo": {
                    "deploymentId": id,
                    "applicationName": APPLICATION,
                    "deploymentGroupName": "ciam-test-AuthInfoGetFunctionDeploymentGroup-4D5E6F",
                    "status": "InProgress",
                    "revision": {
                        "revisionType": "AppSpecContent",
                        "appSpecContent": {"content": null, "sha256": sha256_of(&id)},
                    },
                }}),
            )
        }
        "CodeDeploy_20141006.GetApplicationRevision" => {
            let application = input["applicationName"].as_str().unwrap_or_default();
            let sha = input["revision"]["appSpecContent"]["sha256"]
                .as_str()
                .unwrap_or_default();
            aws.calls
                .lock()
                .unwrap()
                .revisions
                .push((application.to_owned(), sha.to_owned()));
            let found = aws
                .appspecs
                .iter()
                .find(|(id, _)| sha256_of(id) == sha && application == APPLICATION);
            let Some((_, appspec)) = found else {
                return error("RevisionDoesNotExistException", "no such revision");
            };
            json_11(
                StatusCode::OK,
                json!({
                    "applicationName": APPLICATION,
                    "revision": {
                        "revisionType": "AppSpecContent",
                        "appSpecContent": {"content": appspec, "sha256": sha},
                    },
                }),
            )
        }
        "CodeDeploy_20141006.PutLifecycleEventHookExecutionStatus" => {
            let execution = input["lifecycleEventHookExecutionId"].clone();
            aws.calls.lock().unwrap().reports.push(input);
            json_11(
                StatusCode::OK,
                json!({"lifecycleEventHookExecutionId": execution}),
            )
        }
        other => error("UnknownOperationException", other),
    }
}

/// The environment of `auth_info_get`'s version `qualifier`: 7 is sound, 8 names an origin
/// secret that is not there (as a version deployed with a bad setting would).
fn version_env(qualifier: &str, endpoint: &str) -> Vec<(&'static str, String)> {
    let origin = if qualifier == "7" {
        ORIGIN_ARN
    } else {
        MISSING_ARN
    };
    vec![
        ("CIAM_ROUTE", "auth_info_get".into()),
        ("AWS_REGION", REGION.into()),
        ("AWS_ACCESS_KEY_ID", "hookTest".into()),
        ("AWS_SECRET_ACCESS_KEY", "test".into()),
        ("AWS_ENDPOINT_URL", endpoint.into()),
        ("CIAM_TABLE", "ciam-hook-test".into()),
        ("CIAM_SECRET_KEY", KEY.into()),
        // Nothing listens there: the warm-up fails (tolerated), the probe never reaches the store.
        ("CIAM_DYNAMODB_ENDPOINT", "http://127.0.0.1:9".into()),
        ("CIAM_ORIGIN_SECRET_ARN", origin.into()),
    ]
}

/// Lambda's Invoke (RequestResponse): runs the version named by `Qualifier` on the payload.
async fn invoke(
    State((aws, endpoint)): State<(Aws, String)>,
    Path(function): Path<String>,
    Query(query): Query<HashMap<String, String>>,
    body: Bytes,
) -> Response {
    let payload: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
    let qualifier = query.get("Qualifier").cloned();
    aws.calls
        .lock()
        .unwrap()
        .invokes
        .push((function.clone(), qualifier.clone(), payload.clone()));
    if function != FUNCTION {
        return (
            StatusCode::NOT_FOUND,
            [("x-amzn-errortype", "ResourceNotFoundException")],
            json!({"Type": "User", "message": format!("Function not found: {function}")})
                .to_string(),
        )
            .into_response();
    }
    let version = qualifier.unwrap_or_else(|| "$LATEST".into());
    let (status, answer) = run_version(&version, &endpoint, payload).await;
    let mut headers = vec![("x-amz-executed-version", version)];
    if let Some(kind) = status {
        headers.push(("x-amz-function-error", kind.to_owned()));
    }
    let headers: HeaderMap = headers
        .into_iter()
        .map(|(k, v)| (k.parse().unwrap(), v.parse().unwrap()))
        .collect();
    (StatusCode::OK, headers, answer.to_string()).into_response()
}

/// One invocation of `auth_info_get`'s version `version` as Lambda makes it: a fresh execution
/// environment (the `bootstrap` binary against a loopback Runtime API) and the event. The
/// answer, or Lambda's function error: `Unhandled` with what the runtime reported, or
/// `Runtime.ExitError` when the runtime exits during its init (a failed init exits nonzero).
async fn run_version(version: &str, endpoint: &str, event: Value) -> (Option<&'static str>, Value) {
    let mut runtime = support::runtime_api(vec![("probe".into(), event)]).await;
    let mut cmd = tokio::process::Command::new(env!("CARGO_BIN_EXE_bootstrap"));
    cmd.env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("AWS_LAMBDA_RUNTIME_API", &runtime.addr)
        .env("AWS_LAMBDA_FUNCTION_NAME", FUNCTION)
        .env("AWS_LAMBDA_FUNCTION_MEMORY_SIZE", "256")
        .env("AWS_LAMBDA_FUNCTION_VERSION", version)
        .env("AWS_EC2_METADATA_DISABLED", "true")
        .envs(version_env(version, endpoint))
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .kill_on_drop(true);
    let mut child = cmd.spawn().expect("bootstrap starts");
    let outcome = tokio::select! {
        got = runtime.outcomes.recv() => got.map(|(_, o)| o),
        exited = child.wait() => {
            let message = format!(
                "RequestId: probe Error: Runtime exited with error: {}",
                exited.map(|s| s.to_string()).unwrap_or_default()
            );
            return (
                Some("Unhandled"),
                json!({"errorType": "Runtime.ExitError", "errorMessage": message}),
            );
        }
    };
    child.kill().await.ok();
    match outcome {
        Some(Outcome::Response(answer)) => (None, answer),
        Some(Outcome::Error(report)) => (
            Some("Unhandled"),
            json!({"errorType": "Runtime.Error", "errorMessage": report}),
        ),
        None => panic!("the version's runtime API closed without an outcome"),
    }
}

async fn emulator(appspecs: HashMap<String, String>) -> (String, Arc<Mutex<Calls>>) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let endpoint = format!("http://{}", listener.local_addr().unwrap());
    let aws = Aws {
        calls: Arc::new(Mutex::new(Calls::default())),
        appspecs: Arc::new(appspecs),
    };
    let lambda = Router::new()
        .route("/2015-03-31/functions/{function}/invocations", post(invoke))
        .with_state((aws.clone(), endpoint.clone()));
    let app = Router::new()
        .route("/", post(json_api))
        .with_state(aws.clone())
        .merge(lambda);
    tokio::spawn(async move { axum::serve(listener, app).await });
    (endpoint, aws.calls)
}

fn appspec(function: &str, version: &str) -> String {
    json!({
        "version": 0.0,
        "Resources": [{"AuthInfoGetFunction": {"Type": "AWS::Lambda::Function", "Properties": {
            "Name": function, "Alias": "live", "CurrentVersion": "6", "TargetVersion": version}}}],
    })
    .to_string()
}

fn hook_event(deployment: &str, execution: &str) -> Value {
    json!({"DeploymentId": deployment, "LifecycleEventHookExecutionId": execution})
}

#[tokio::test]
async fn the_hook_runs_the_version_being_deployed_and_reports_what_it_answered() {
    let (endpoint, calls) = emulator(HashMap::from([
        ("d-GOOD".to_owned(), appspec(FUNCTION, "7")),
        ("d-BROKEN".to_owned(), appspec(FUNCTION, "8")),
        (
            "d-STRANGER".to_owned(),
            appspec("someone-elses-function", "3"),
        ),
    ]))
    .await;
    let env = [
        ("CIAM_ROUTE", "pre_traffic_hook".to_owned()),
        ("AWS_REGION", REGION.into()),
        ("AWS_ACCESS_KEY_ID", "hookTest".into()),
        ("AWS_SECRET_ACCESS_KEY", "test".into()),
        ("AWS_ENDPOINT_URL", endpoint.clone()),
        ("CIAM_ORIGIN_SECRET_ARN", ORIGIN_ARN.into()),
        (
            "CIAM_HOOK_TARGETS",
            format!("{FUNCTION}=GET /ciam/v1/auth/info,other-fn=POST /ciam/v1/oidc/token"),
        ),
    ];
    let run = run_function(
        env!("CARGO_BIN_EXE_hook"),
        &env,
        vec![
            ("good".into(), hook_event("d-GOOD", "exec-good")),
            ("broken".into(), hook_event("d-BROKEN", "exec-broken")),
            ("stranger".into(), hook_event("d-STRANGER", "exec-stranger")),
        ],
    )
    .await;
    let logs = &run.logs;
    let answer = |id: &str| support::response(&run.outcomes, id, logs).clone();

    // The sound version answered the probe as Ciam does (no session: 401), through its origin
    // check: Succeeded.
    let good = answer("good");
    assert_eq!(good["status"], "Succeeded", "{good}\n{logs}");
    assert_eq!(good["detail"], "401 AUTHORIZATION_FAILED", "{good}");
    // The version that cannot read its secret failed its init: Failed.
    let broken = answer("broken");
    assert_eq!(broken["status"], "Failed", "{broken}\n{logs}");
    assert!(
        broken["detail"]
            .as_str()
            .unwrap()
            .starts_with("the function failed (Unhandled)"),
        "{broken}"
    );
    assert!(
        broken["detail"]
            .as_str()
            .unwrap()
            .contains("Runtime.ExitError"),
        "{broken}"
    );
    // A function the hook does not check is never invoked, and Failed.
    let stranger = answer("stranger");
    assert_eq!(stranger["status"], "Failed", "{stranger}");

    let calls = calls.lock().unwrap();
    assert_eq!(calls.deployments, ["d-GOOD", "d-BROKEN", "d-STRANGER"]);
    // The AppSpec of each, from its application's revision by sha256.
    let revisions: Vec<(String, String)> = calls.revisions.clone();
    let want: Vec<(String, String)> = ["d-GOOD", "d-BROKEN", "d-STRANGER"]
        .iter()
        .map(|d| (APPLICATION.to_owned(), sha256_of(d)))
        .collect();
    assert_eq!(revisions, want);
    // Each deployment's own version, by qualifier, never the alias; the row's request with the
    // origin header's current value and no credentials.
    let invoked: Vec<(&str, Option<&str>)> = calls
        .invokes
        .iter()
        .map(|(f, q, _)| (f.as_str(), q.as_deref()))
        .collect();
    assert_eq!(invoked, [(FUNCTION, Some("7")), (FUNCTION, Some("8"))]);
    for (_, _, event) in &calls.invokes {
        assert_eq!(event["routeKey"], "GET /ciam/v1/auth/info");
        assert_eq!(event["requestContext"]["http"]["method"], "GET");
        assert_eq!(event["headers"]["x-ciam-origin-verify"], ORIGIN);
        assert!(event["headers"].get("authorization").is_none());
    }
    // One report per hook execution, with its ids and the right status.
    let reports: Vec<(&str, &str, &str)> = calls
        .reports
        .iter()
        .map(|r| {
            (
                r["deploymentId"].as_str().unwrap(),
                r["lifecycleEventHookExecutionId"].as_str().unwrap(),
                r["status"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        reports,
        [
            ("d-GOOD", "exec-good", "Succeeded"),
            ("d-BROKEN", "exec-broken", "Failed"),
            ("d-STRANGER", "exec-stranger", "Failed"),
        ]
    );
}

/// The environment of a route's function whose table cannot be reached: any store call of the
/// probe would turn into a 503 and fail the check.
fn storeless_env(route: &str) -> Vec<(&'static str, String)> {
    vec![
        ("CIAM_ROUTE", route.into()),
        ("AWS_REGION", REGION.into()),
        ("AWS_ACCESS_KEY_ID", "hookTest".into()),
        ("AWS_SECRET_ACCESS_KEY", "test".into()),
        ("CIAM_TABLE", "ciam-hook-test".into()),
        ("CIAM_SECRET_KEY", KEY.into()),
        ("CIAM_PUBLIC_URL", "https://ciam.example".into()),
        ("CIAM_DYNAMODB_ENDPOINT", "http://127.0.0.1:9".into()),
    ]
}

/// What the check sends each gradual row is answered by that row's real function as Ciam
/// answers, without the table: the probe writes nothing (and reads nothing), so a check never
/// changes data and a version passes only when it started and routed.
#[tokio::test]
async fn every_gradual_rows_probe_gets_a_ciam_answer_without_touching_the_table() {
    use ciam_lambdas::hook::{probe_event, verdict, Probe};
    let rows: Vec<(&str, &str, &str, &str)> = ciam_api::ROUTES
        .iter()
        .map(|r| (r, env!("CARGO_BIN_EXE_bootstrap")))
        .chain(
            ciam_api::CEREMONY_ROUTES
                .iter()
                .map(|r| (r, env!("CARGO_BIN_EXE_passkeys"))),
        )
        .filter(|(r, _)| r.lambda.gradual)
        .map(|(r, exe)| (r.id, r.method, r.path, exe))
        .collect();
    assert_eq!(rows.len(), 6, "the gradual rows: {rows:?}");
    for (id, method, path, exe) in rows {
        let probe = Probe {
            method: method.into(),
            path: format!("{}{path}", ciam_api::BASE),
        };
        let run = run_function(
            exe,
            &storeless_env(id),
            vec![("probe".into(), probe_event(&probe, None, "d-1"))],
        )
        .await;
        let answer = support::response(&run.outcomes, "probe", &run.logs).clone();
        let invoked = Ok(ciam_lambdas::decoder::Invoked {
            function_error: None,
            payload: answer.to_string().into_bytes(),
        });
        let got = verdict(&invoked);
        assert!(got.is_ok(), "{id}: {got:?}\n{answer}\n{}", run.logs);
        println!("{id}: {}", got.unwrap());
    }
}
