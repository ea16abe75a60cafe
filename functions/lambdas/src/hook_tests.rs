// Test code: a panic is the failure report (clippy.toml allows unwrap and expect in tests).
use super::*;
use crate::origin::OriginValues;
use std::sync::Mutex;

const ORIGIN: &str = "Qm9vdHN0cmFwT3JpZ2luVmVyaWZ5VmFsdWVGb3JUZXN0c09ubHlOb3RBU2VjcmV0";
const FUNCTION: &str = "ciam-prod-AuthInfoGetFunction-Ab12Cd34";

fn api_response(status: u16, body: &str) -> Result<Invoked, String> {
    Ok(Invoked {
        function_error: None,
        payload: json!({
            "statusCode": status,
            "headers": {"content-type": "application/json"},
            "multiValueHeaders": {},
            "body": body,
            "isBase64Encoded": false,
            "cookies": [],
        })
        .to_string()
        .into_bytes(),
    })
}

fn ciam_error(status: u16, reason: &str) -> String {
    json!({"reason": reason, "message": "A message", "code": status}).to_string()
}

#[test]
fn a_200_and_a_4xx_ciam_answer_pass() {
    assert_eq!(
        verdict(&api_response(200, r#"{"userId": "u1"}"#)),
        Ok("200".to_owned())
    );
    for (status, reason) in [
        (400, "INVALID_PARAMETER"),
        (401, "UNAUTHENTICATED"),
        (429, "TOO_MANY_REQUESTS"),
    ] {
        assert_eq!(
            verdict(&api_response(status, &ciam_error(status, reason))),
            Ok(format!("{status} {reason}"))
        );
    }
    // /oidc/token answers RFC 6749's error body.
    let oauth = json!({"error": "invalid_request", "error_description": "not a form"}).to_string();
    assert_eq!(
        verdict(&api_response(400, &oauth)),
        Ok("400 invalid_request".to_owned())
    );
    // A body lambda_http sent as base64 is read as well.
    let mut res: Value = serde_json::from_slice(&api_response(401, "").unwrap().payload).unwrap();
    res["body"] = json!(STANDARD.encode(ciam_error(401, "UNAUTHENTICATED")));
    res["isBase64Encoded"] = json!(true);
    let invoked = Ok(Invoked {
        function_error: None,
        payload: res.to_string().into_bytes(),
    });
    assert_eq!(verdict(&invoked), Ok("401 UNAUTHENTICATED".to_owned()));
}

#[test]
fn a_5xx_fails_even_with_ciams_body() {
    for status in [500, 502, 503, 504] {
        let got = verdict(&api_response(
            status,
            &ciam_error(status, "SERVICE_UNAVAILABLE"),
        ));
        assert_eq!(got, Err(format!("the function answered {status}")));
    }
}

#[test]
fn a_function_error_fails_with_what_lambda_said() {
    let invoked = Ok(Invoked {
        function_error: Some("Unhandled".into()),
        payload: br#"{"errorType": "Runtime.ExitError", "errorMessage": "init failed"}"#.to_vec(),
    });
    let why = verdict(&invoked).unwrap_err();
    assert!(why.starts_with("the function failed (Unhandled)"), "{why}");
    assert!(why.contains("Runtime.ExitError"), "{why}");
}

#[test]
fn an_answer_that_is_not_ciams_fails() {
    for (status, body) in [
        (404, "<html>Not Found</html>"),
        (400, r#"{"message": "Bad Request"}"#),
        // A reason that is not a code, or a code that is not the status.
        (400, r#"{"reason": "bad request", "code": 400}"#),
        (400, &ciam_error(401, "UNAUTHENTICATED")),
        (200, "pong"),
        (200, "[]"),
        (302, ""),
    ] {
        assert!(
            verdict(&api_response(status, body)).is_err(),
            "{status} {body}"
        );
    }
    let not_api = Ok(Invoked {
        function_error: None,
        payload: b"null".to_vec(),
    });
    assert!(verdict(&not_api).unwrap_err().contains("no statusCode"));
    let garbage = Ok(Invoked {
        function_error: None,
        payload: b"\xff\xfe".to_vec(),
    });
    assert!(verdict(&garbage).unwrap_err().contains("not JSON"));
}

#[test]
fn the_origin_checks_refusal_fails_the_route_was_never_reached() {
    let why = verdict(&api_response(403, &ciam_error(403, "PERMISSION_DENIED"))).unwrap_err();
    assert!(why.contains("origin check"), "{why}");
}

#[test]
fn an_invoke_that_fails_fails() {
    let why = verdict(&Err("AccessDeniedException: not authorized".into())).unwrap_err();
    assert_eq!(
        why,
        "the invoke failed: AccessDeniedException: not authorized"
    );
}

#[test]
fn the_target_is_read_from_the_appspec_json_or_yaml() {
    let json_spec = json!({
        "version": 0.0,
        "Resources": [{"AuthInfoGetFunction": {"Type": "AWS::Lambda::Function", "Properties": {
            "Name": FUNCTION, "Alias": "live", "CurrentVersion": "6", "TargetVersion": "7"}}}],
    })
    .to_string();
    let want = Target {
        function: FUNCTION.into(),
        version: "7".into(),
    };
    assert_eq!(target_of(&json_spec), Ok(want.clone()));
    let yaml = format!(
        "version: 0.0\nResources:\n  - AuthInfoGetFunction:\n      Type: AWS::Lambda::Function\n      Properties:\n        Name: \"{FUNCTION}\"\n        Alias: live\n        CurrentVersion: '6'\n        TargetVersion: '7'\n"
    );
    assert_eq!(target_of(&yaml), Ok(want.clone()));
    // ARNs (a function's, a version's) name the same target.
    let arns = json!({"Resources": [{"F": {"Properties": {
        "Name": format!("arn:aws:lambda:us-east-1:123456789012:function:{FUNCTION}"),
        "TargetVersion": format!("arn:aws:lambda:us-east-1:123456789012:function:{FUNCTION}:7")}}}]})
    .to_string();
    assert_eq!(target_of(&arns), Ok(want));
    // Never an alias or $LATEST in the version's place.
    for version in ["live", "$LATEST", ""] {
        let spec = json!({"Resources": [{"F": {"Properties": {"Name": FUNCTION, "TargetVersion": version}}}]});
        assert!(target_of(&spec.to_string()).is_err(), "{version}");
    }
    assert!(target_of(r#"{"Resources": []}"#).is_err());
}

#[test]
fn the_targets_variable_maps_each_function_to_its_route() {
    let targets = parse_targets(&format!(
        "{FUNCTION}=GET /ciam/v1/auth/info, other-fn=post /ciam/v1/oidc/token"
    ))
    .unwrap();
    assert_eq!(
        targets[FUNCTION],
        Probe {
            method: "GET".into(),
            path: "/ciam/v1/auth/info".into()
        }
    );
    assert_eq!(targets["other-fn"].method, "POST");
    for bad in ["", "fn", "fn=GET", "fn=GET path", "=GET /x"] {
        assert!(parse_targets(bad).is_err(), "{bad}");
    }
}

#[test]
fn the_probe_is_the_rows_request_with_the_origin_header_and_an_empty_object() {
    let post = Probe {
        method: "POST".into(),
        path: "/ciam/v1/auth/login/password".into(),
    };
    let e = probe_event(&post, Some(ORIGIN), "d-1");
    assert_eq!(e["version"], "2.0");
    assert_eq!(e["routeKey"], "POST /ciam/v1/auth/login/password");
    assert_eq!(e["requestContext"]["http"]["method"], "POST");
    assert_eq!(e["rawPath"], "/ciam/v1/auth/login/password");
    assert_eq!(e["headers"]["x-ciam-origin-verify"], ORIGIN);
    assert_eq!(e["headers"]["content-type"], "application/json");
    assert_eq!(e["body"], "{}");
    let get = Probe {
        method: "GET".into(),
        path: "/ciam/v1/auth/info".into(),
    };
    let e = probe_event(&get, None, "d-1");
    assert_eq!(e["body"], Value::Null);
    assert!(e["headers"].get("x-ciam-origin-verify").is_none());
    assert!(
        e["headers"].get("authorization").is_none(),
        "no credentials"
    );
}

/// CodeDeploy and Lambda as the hook sees them, recording what it asked.
#[derive(Default)]
struct Fake {
    appspec: Option<String>,
    answer: Mutex<Option<Result<Invoked, String>>>,
    /// Never answers the invoke (a hanging version).
    hang: bool,
    report_fails: bool,
    invoked: Mutex<Vec<(String, String, Value)>>,
    reported: Mutex<Vec<(String, String, Status)>>,
}

#[async_trait]
impl Deployments for Fake {
    async fn appspec(&self, deployment_id: &str) -> Result<String, String> {
        assert_eq!(deployment_id, "d-ABC123");
        self.appspec
            .clone()
            .ok_or("DeploymentDoesNotExistException".into())
    }
    async fn report(&self, d: &str, e: &str, status: Status) -> Result<(), String> {
        self.reported
            .lock()
            .unwrap()
            .push((d.into(), e.into(), status));
        if self.report_fails {
            return Err("ThrottlingException".into());
        }
        Ok(())
    }
}

#[async_trait]
impl InvokeVersion for Fake {
    async fn invoke(&self, f: &str, v: &str, payload: Vec<u8>) -> Result<Invoked, String> {
        let event = serde_json::from_slice(&payload).unwrap();
        self.invoked
            .lock()
            .unwrap()
            .push((f.into(), v.into(), event));
        if self.hang {
            std::future::pending::<()>().await;
        }
        self.answer.lock().unwrap().take().unwrap()
    }
}

struct Origin;

#[async_trait]
impl OriginSource for Origin {
    async fn read(&self) -> Result<OriginValues, String> {
        Ok(OriginValues {
            current: ORIGIN.into(),
            previous: Some("previous".into()),
        })
    }
}

fn appspec(function: &str, version: &str) -> String {
    json!({"version": 0.0, "Resources": [{"F": {"Type": "AWS::Lambda::Function", "Properties": {
        "Name": function, "Alias": "live", "CurrentVersion": "3", "TargetVersion": version}}}]})
    .to_string()
}

fn hook(fake: Arc<Fake>) -> Hook {
    Hook {
        deployments: fake.clone(),
        lambda: fake,
        origin: Some(Arc::new(Origin)),
        targets: parse_targets(&format!("{FUNCTION}=GET /ciam/v1/auth/info")).unwrap(),
        invoke_timeout: Duration::from_millis(200),
    }
}

fn event() -> Value {
    json!({"DeploymentId": "d-ABC123", "LifecycleEventHookExecutionId": "exec-1"})
}

async fn run(fake: Fake) -> (Result<Checked, String>, Arc<Fake>) {
    let fake = Arc::new(fake);
    let got = hook(fake.clone()).handle(&event()).await;
    (got, fake)
}

fn reported(fake: &Fake) -> Vec<(String, String, Status)> {
    fake.reported.lock().unwrap().clone()
}

fn once(status: Status) -> Vec<(String, String, Status)> {
    vec![("d-ABC123".into(), "exec-1".into(), status)]
}

#[tokio::test]
async fn a_ciam_answer_of_the_new_version_reports_succeeded() {
    let (got, fake) = run(Fake {
        appspec: Some(appspec(FUNCTION, "7")),
        answer: Mutex::new(Some(api_response(401, &ciam_error(401, "UNAUTHENTICATED")))),
        ..Fake::default()
    })
    .await;
    let got = got.unwrap();
    assert_eq!(
        (got.status, got.detail.as_str()),
        (Status::Succeeded, "401 UNAUTHENTICATED")
    );
    assert_eq!(reported(&fake), once(Status::Succeeded));
    // The version named by the deployment, with the current origin value and the row's route.
    let invoked = fake.invoked.lock().unwrap();
    let [(function, version, event)] = invoked.as_slice() else {
        panic!("{invoked:?}");
    };
    assert_eq!((function.as_str(), version.as_str()), (FUNCTION, "7"));
    assert_eq!(event["routeKey"], "GET /ciam/v1/auth/info");
    assert_eq!(event["headers"]["x-ciam-origin-verify"], ORIGIN);
}

#[tokio::test]
async fn every_failure_is_reported_failed() {
    let cases: Vec<(&str, Fake)> = vec![
        (
            "a 5xx",
            Fake {
                appspec: Some(appspec(FUNCTION, "7")),
                answer: Mutex::new(Some(api_response(
                    503,
                    &ciam_error(503, "SERVICE_UNAVAILABLE"),
                ))),
                ..Fake::default()
            },
        ),
        (
            "a function error",
            Fake {
                appspec: Some(appspec(FUNCTION, "7")),
                answer: Mutex::new(Some(Ok(Invoked {
                    function_error: Some("Unhandled".into()),
                    payload: b"{}".to_vec(),
                }))),
                ..Fake::default()
            },
        ),
        (
            "a body that is not Ciam's",
            Fake {
                appspec: Some(appspec(FUNCTION, "7")),
                answer: Mutex::new(Some(api_response(404, "Not Found"))),
                ..Fake::default()
            },
        ),
        (
            "the invoke itself erring",
            Fake {
                appspec: Some(appspec(FUNCTION, "7")),
                answer: Mutex::new(Some(Err("AccessDeniedException".into()))),
                ..Fake::default()
            },
        ),
        (
            "a timeout",
            Fake {
                appspec: Some(appspec(FUNCTION, "7")),
                hang: true,
                ..Fake::default()
            },
        ),
        ("a deployment it cannot read", Fake::default()),
        (
            "a function that is not gradual",
            Fake {
                appspec: Some(appspec("someone-elses-function", "7")),
                ..Fake::default()
            },
        ),
    ];
    for (case, fake) in cases {
        let (got, fake) = run(fake).await;
        let got = got.unwrap_or_else(|e| panic!("{case}: {e}"));
        assert_eq!(got.status, Status::Failed, "{case}: {got:?}");
        assert_eq!(reported(&fake), once(Status::Failed), "{case}");
    }
}

#[tokio::test]
async fn a_report_codedeploy_refuses_fails_the_invocation_so_lambda_retries_it() {
    let (got, fake) = run(Fake {
        appspec: Some(appspec(FUNCTION, "7")),
        answer: Mutex::new(Some(api_response(200, "{}"))),
        report_fails: true,
        ..Fake::default()
    })
    .await;
    assert!(got.unwrap_err().contains("cannot report Succeeded"));
    assert_eq!(reported(&fake), once(Status::Succeeded));
}

#[tokio::test]
async fn an_event_without_the_ids_reports_nothing_and_fails() {
    let fake = Arc::new(Fake::default());
    let got = hook(fake.clone())
        .handle(&json!({"DeploymentId": "d-ABC123"}))
        .await;
    assert!(got.unwrap_err().contains("LifecycleEventHookExecutionId"));
    assert!(reported(&fake).is_empty());
}
