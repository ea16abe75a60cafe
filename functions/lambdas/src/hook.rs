//! Over 500 lines because the check is one sequence read top to bottom: the deployment read, the probe, the verdict and its report to CodeDeploy.
//! The pre-traffic check of the gradual functions (issue 30 item 10, docs/operations.md §7 "The
//! pre-traffic check", its on-call row in §8.6). CodeDeploy shifts a gradual function's alias
//! `live` to its new version in steps and stops on the version's own Lambda errors; a function
//! that sees little traffic (a partner's ticket check, a token exchange at night) could take the
//! whole alias with a version that cannot start, because no request reached it during the
//! canary. So before the first request is shifted, CodeDeploy invokes this function
//! (`BeforeAllowTraffic`, SAM's `DeploymentPreference.Hooks.PreTraffic`), and it:
//!
//! 1. reads the deployment (`codedeploy:GetDeployment`, then `GetApplicationRevision` of its
//!    revision: GetDeployment leaves the AppSpec's content out, documented as "always null"): its
//!    AppSpec names the function and the version being deployed
//!    (`Resources[0].<name>.Properties.Name`, `TargetVersion`);
//! 2. finds that function among the gradual ones it knows (`CIAM_HOOK_TARGETS`, generated:
//!    `<function name>=<METHOD> <path>`, one per gradual row) and reads the origin header's value
//!    (`CIAM_ORIGIN_SECRET_ARN`, one `GetSecretValue`);
//! 3. invokes the NEW version, never the alias (`lambda:Invoke` with that version as qualifier,
//!    one call), with an API Gateway HTTP API (payload 2.0) request for the row's own method and
//!    path that writes nothing: a GET without credentials, or a POST of `{}` that the route
//!    refuses by validation;
//! 4. reports `Succeeded` when the answer is Ciam's (status below 500, Ciam's JSON shape, not the
//!    origin check's refusal: see [`verdict`]), else `Failed`
//!    (`codedeploy:PutLifecycleEventHookExecutionStatus`, one call). Every path that has the
//!    deployment's ids reports, a failure to invoke included; CodeDeploy then stops the
//!    deployment and CloudFormation keeps the old version.
//!
//! One hook for every gradual row (its name starts with `CodeDeployHook_`, which SAM's CodeDeploy
//! role, `AWSCodeDeployRoleForLambda`, may invoke): two resources whatever the number of rows;
//! why not one per row is in docs/operations.md §7.

use crate::decoder::Invoked;
use crate::origin::{OriginSource, HEADER as ORIGIN_HEADER};
use async_trait::async_trait;
use base64::engine::general_purpose::STANDARD;
use base64::Engine;
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

/// The hook function's `CIAM_ROUTE` (it serves no route; ciam-gen writes the same id).
pub const ID: &str = "pre_traffic_hook";
/// Its binary (src/bin/hook.rs, template.yaml's `BuildProperties.Binary`).
pub const BINARY: &str = "hook";

/// The gradual functions and their probes: `<function name>=<METHOD> <path>`, comma-separated
/// (ciam-gen writes it from the route table; the names are CloudFormation's).
pub const TARGETS_VAR: &str = "CIAM_HOOK_TARGETS";
/// The longest the hook waits for the new version's answer (a cold start with its init, then
/// the request). The hook's own timeout is longer, so a hanging version is still reported.
pub const INVOKE_TIMEOUT: Duration = Duration::from_secs(30);
/// The longest each CodeDeploy or Secrets Manager call may take.
pub const CALL_TIMEOUT: Duration = Duration::from_secs(10);
/// The probe's user agent: how its line is told from a user's in the function's logs.
pub const USER_AGENT: &str = "ciam-pre-traffic-check";

/// What the hook reports to CodeDeploy.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Status {
    Succeeded,
    Failed,
}

impl Status {
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Succeeded => "Succeeded",
            Status::Failed => "Failed",
        }
    }
}

/// The function and version a deployment shifts the alias to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Target {
    /// The function's name (as CloudFormation named it).
    pub function: String,
    /// The version number being deployed.
    pub version: String,
}

/// The request the check sends to a function: its row's method and path.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Probe {
    pub method: String,
    pub path: String,
}

/// `CIAM_HOOK_TARGETS` read: function name -> its probe. An entry without `=`, a method or a
/// path that does not start with `/` is an error naming the entry.
pub fn parse_targets(text: &str) -> Result<BTreeMap<String, Probe>, String> {
    let mut out = BTreeMap::new();
    for entry in text.split(',').map(str::trim).filter(|e| !e.is_empty()) {
        let parsed = entry.split_once('=').and_then(|(name, route)| {
            let (method, path) = route.trim().split_once(' ')?;
            let (name, method, path) = (name.trim(), method.trim(), path.trim());
            (!name.is_empty() && !method.is_empty() && path.starts_with('/')).then(|| {
                (
                    name.to_owned(),
                    Probe {
                        method: method.to_ascii_uppercase(),
                        path: path.to_owned(),
                    },
                )
            })
        });
        let (name, probe) = parsed.ok_or_else(|| {
            format!("{TARGETS_VAR}: `{entry}` is not `<function>=<METHOD> <path>`")
        })?;
        out.insert(name, probe);
    }
    if out.is_empty() {
        return Err(format!("{TARGETS_VAR} names no function"));
    }
    Ok(out)
}

/// The ids CodeDeploy sends the hook: (`DeploymentId`, `LifecycleEventHookExecutionId`).
pub fn hook_ids(event: &Value) -> Result<(String, String), String> {
    let field = |name: &str| {
        event[name]
            .as_str()
            .filter(|v| !v.trim().is_empty())
            .map(str::to_owned)
            .ok_or_else(|| format!("the hook event has no {name}"))
    };
    Ok((
        field("DeploymentId")?,
        field("LifecycleEventHookExecutionId")?,
    ))
}

/// The last `:`-separated part of an ARN, or the value itself (a name or a bare version).
fn last_part(value: &str) -> &str {
    value.rsplit(':').next().unwrap_or(value)
}

/// The function name of a name or an ARN (`arn:aws:lambda:<region>:<account>:function:<name>[:<q>]`).
fn function_name(value: &str) -> String {
    if value.starts_with("arn:") {
        value.split(':').nth(6).unwrap_or(value).to_owned()
    } else {
        value.split(':').next().unwrap_or(value).to_owned()
    }
}

/// The target of a Lambda deployment's AppSpec (JSON, or the YAML form CodeDeploy also accepts):
/// the first resource's `Name` and `TargetVersion`. The version must be a number: the hook never
/// invokes `$LATEST` or an alias in its place.
pub fn target_of(appspec: &str) -> Result<Target, String> {
    let (name, version) = match serde_json::from_str::<Value>(appspec) {
        Ok(doc) => {
            let resource = doc["Resources"]
                .get(0)
                .and_then(Value::as_object)
                .and_then(|r| r.values().next())
                .ok_or("the AppSpec names no resource")?;
            let props = &resource["Properties"];
            let text = |v: &Value| match v {
                Value::String(s) => Some(s.clone()),
                Value::Number(n) => Some(n.to_string()),
                _ => None,
            };
            (text(&props["Name"]), text(&props["TargetVersion"]))
        }
        Err(_) => {
            // YAML: `Name: ...` and `TargetVersion: ...` lines of the first resource.
            let value = |key: &str| {
                appspec.lines().find_map(|line| {
                    let rest = line.trim().strip_prefix(key)?.strip_prefix(':')?;
                    let v = rest.trim().trim_matches(|c| c == '"' || c == '\'');
                    (!v.is_empty()).then(|| v.to_owned())
                })
            };
            (value("Name"), value("TargetVersion"))
        }
    };
    let name = name.ok_or("the AppSpec names no function")?;
    let version = version.ok_or("the AppSpec names no target version")?;
    let version = last_part(&version).to_owned();
    if version.is_empty() || !version.bytes().all(|b| b.is_ascii_digit()) {
        return Err(format!(
            "the AppSpec's target version `{version}` is not a version number"
        ));
    }
    Ok(Target {
        function: function_name(&name),
        version,
    })
}

/// The API Gateway HTTP API event (payload format 2.0) of the probe, with CloudFront's origin
/// header when the stack has one. A POST carries `{}`: every gradual route that takes a body
/// refuses it by validation (or, `/oidc/token`, as a request that is not a form) before it
/// reads or writes anything.
pub fn probe_event(probe: &Probe, origin: Option<&str>, request_id: &str) -> Value {
    let mut headers = json!({
        "accept": "application/json",
        "accept-language": "en-US",
        "user-agent": USER_AGENT,
        "x-forwarded-proto": "https",
    });
    let body = (probe.method != "GET" && probe.method != "HEAD").then(|| {
        headers["content-type"] = json!("application/json");
        "{}".to_owned()
    });
    if let Some(value) = origin {
        headers[ORIGIN_HEADER] = json!(value);
    }
    let route = format!("{} {}", probe.method, probe.path);
    json!({
        "version": "2.0",
        "routeKey": route,
        "rawPath": probe.path,
        "rawQueryString": "",
        "headers": headers,
        "requestContext": {
            "http": {
                "method": probe.method,
                "path": probe.path,
                "protocol": "HTTP/1.1",
                "sourceIp": "127.0.0.1",
                "userAgent": USER_AGENT,
            },
            "requestId": request_id,
            "routeKey": route,
            "stage": "$default",
        },
        "body": body,
        "isBase64Encoded": false,
    })
}

/// Whether `reason` looks like a Ciam reason code (`INVALID_PARAMETER`, `UNAUTHENTICATED`).
fn is_reason(reason: &str) -> bool {
    !reason.is_empty()
        && reason
            .bytes()
            .all(|b| b.is_ascii_uppercase() || b.is_ascii_digit() || b == b'_')
}

/// The decision: `Ok(what answered)` when the new version answered as Ciam answers, else
/// `Err(why not)`. A Ciam answer is an API Gateway response with a status below 500 whose body
/// is
/// - a 4xx: Ciam's error (`{reason, message, code}`, `code` the status), or an RFC 6749 error
///   (`{"error": ...}`, the `/oidc/*` routes), but not the origin check's refusal (403
///   `PERMISSION_DENIED`: the request never reached the route);
/// - a 2xx: a JSON object; a 3xx: a `Location`.
///
/// Anything else fails: the invoke's own failure (the Lambda API, a timeout), a function error
/// (a crash, an init that failed, a timeout of the function), a 5xx (503 included: a version that
/// cannot reach its table is not one to shift to), a body that is not Ciam's.
pub fn verdict(invoked: &Result<Invoked, String>) -> Result<String, String> {
    let invoked = invoked
        .as_ref()
        .map_err(|e| format!("the invoke failed: {e}"))?;
    if let Some(kind) = &invoked.function_error {
        let detail: String = String::from_utf8_lossy(&invoked.payload)
            .chars()
            .take(300)
            .collect();
        return Err(format!("the function failed ({kind}): {detail}"));
    }
    let res: Value = serde_json::from_slice(&invoked.payload)
        .map_err(|_| "the answer is not an API Gateway response (not JSON)".to_owned())?;
    let status = res["statusCode"]
        .as_u64()
        .ok_or("the answer is not an API Gateway response (no statusCode)")?;
    if status >= 500 {
        return Err(format!("the function answered {status}"));
    }
    let text = res["body"].as_str().unwrap_or_default();
    let bytes = if res["isBase64Encoded"] == json!(true) {
        STANDARD
            .decode(text)
            .map_err(|_| format!("{status}: the body is not base64"))?
    } else {
        text.as_bytes().to_vec()
    };
    let body: Option<Value> = serde_json::from_slice(&bytes).ok();
    match status {
        400..=499 => {
            let body = body.ok_or(format!("{status}: the body is not JSON"))?;
            if let Some(reason) = body["reason"].as_str() {
                if !is_reason(reason) || body["code"].as_u64() != Some(status) {
                    return Err(format!("{status}: not Ciam's error body"));
                }
                if status == 403 && reason == "PERMISSION_DENIED" {
                    return Err(
                        "403 PERMISSION_DENIED: the origin check refused the probe, so the route was never reached"
                            .to_owned(),
                    );
                }
                Ok(format!("{status} {reason}"))
            } else if let Some(error) = body["error"].as_str().filter(|e| !e.is_empty()) {
                Ok(format!("{status} {error}"))
            } else {
                Err(format!("{status}: not Ciam's error body"))
            }
        }
        300..=399 => {
            let location = res["headers"]
                .as_object()
                .and_then(|h| h.iter().find(|(k, _)| k.eq_ignore_ascii_case("location")));
            location
                .map(|_| format!("{status} redirect"))
                .ok_or(format!("{status} without a Location"))
        }
        200..=299 if body.as_ref().is_some_and(Value::is_object) => Ok(format!("{status}")),
        _ => Err(format!("{status}: not Ciam's answer")),
    }
}

/// CodeDeploy, as far as the hook uses it: the AppSpec of a deployment, and the hook's report.
#[async_trait]
pub trait Deployments: Send + Sync {
    /// The AppSpec content of `deployment_id` (`GetDeployment`'s revision, its content from
    /// `GetApplicationRevision`).
    async fn appspec(&self, deployment_id: &str) -> Result<String, String>;
    /// `PutLifecycleEventHookExecutionStatus`.
    async fn report(
        &self,
        deployment_id: &str,
        execution_id: &str,
        status: Status,
    ) -> Result<(), String>;
}

/// A synchronous invocation of one version of a function.
#[async_trait]
pub trait InvokeVersion: Send + Sync {
    async fn invoke(
        &self,
        function: &str,
        version: &str,
        payload: Vec<u8>,
    ) -> Result<Invoked, String>;
}

/// The check, with what it talks to.
pub struct Hook {
    pub deployments: Arc<dyn Deployments>,
    pub lambda: Arc<dyn InvokeVersion>,
    /// The origin secret (None where the stack has none: the functions then check nothing).
    pub origin: Option<Arc<dyn OriginSource>>,
    pub targets: BTreeMap<String, Probe>,
    pub invoke_timeout: Duration,
}

/// What one hook invocation did: the deployment's target (when it was read), the status
/// reported, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Checked {
    pub target: Option<Target>,
    pub status: Status,
    pub detail: String,
}

impl Hook {
    /// The check of one deployment, without the report: its target and `Ok(answer)` or
    /// `Err(why it fails)`. Round trips: GetDeployment,
    /// GetApplicationRevision, GetSecretValue, Invoke.
    pub async fn check(&self, deployment_id: &str) -> (Option<Target>, Result<String, String>) {
        let target = match self.deployments.appspec(deployment_id).await {
            Ok(appspec) => target_of(&appspec),
            Err(e) => Err(format!("cannot read the deployment: {e}")),
        };
        let target = match target {
            Ok(t) => t,
            Err(e) => return (None, Err(e)),
        };
        let Some(probe) = self.targets.get(&target.function) else {
            let e = format!(
                "{} is not a gradual function of this stack ({TARGETS_VAR})",
                target.function
            );
            return (Some(target), Err(e));
        };
        let origin = match &self.origin {
            None => None,
            Some(source) => match source.read().await {
                Ok(values) => Some(values.current),
                Err(e) => return (Some(target), Err(e)),
            },
        };
        let event = probe_event(probe, origin.as_deref(), deployment_id);
        let call = self.lambda.invoke(
            &target.function,
            &target.version,
            event.to_string().into_bytes(),
        );
        let invoked = match tokio::time::timeout(self.invoke_timeout, call).await {
            Ok(r) => r,
            Err(_) => Err(format!("no answer within {:?}", self.invoke_timeout)),
        };
        (Some(target), verdict(&invoked))
    }

    /// One hook invocation: the check, then its status reported to CodeDeploy, whatever the
    /// check found. An error (no ids in the event, the report refused) fails the invocation, so
    /// Lambda retries it (CodeDeploy invokes the hook asynchronously).
    pub async fn handle(&self, event: &Value) -> Result<Checked, String> {
        let (deployment_id, execution_id) = hook_ids(event)?;
        let (target, outcome) = self.check(&deployment_id).await;
        let (status, detail) = match outcome {
            Ok(answer) => (Status::Succeeded, answer),
            Err(why) => (Status::Failed, why),
        };
        let (function, version) = target
            .as_ref()
            .map(|t| (t.function.as_str(), t.version.as_str()))
            .unwrap_or_default();
        if status == Status::Succeeded {
            tracing::info!(
                deployment = %deployment_id, function, version, answer = %detail,
                "pre-traffic check passed"
            );
        } else {
            tracing::error!(
                deployment = %deployment_id, function, version, cause = %detail,
                "pre-traffic check failed: the deployment stops and keeps the old version"
            );
        }
        self.deployments
            .report(&deployment_id, &execution_id, status)
            .await
            .map_err(|e| format!("cannot report {} to CodeDeploy: {e}", status.as_str()))?;
        Ok(Checked {
            target,
            status,
            detail,
        })
    }
}

/// CodeDeploy through `aws-sdk-codedeploy`.
pub struct SdkDeployments(pub aws_sdk_codedeploy::Client);

#[async_trait]
impl Deployments for SdkDeployments {
    async fn appspec(&self, deployment_id: &str) -> Result<String, String> {
        let call = self.0.get_deployment().deployment_id(deployment_id).send();
        let out = tokio::time::timeout(CALL_TIMEOUT, call)
            .await
            .map_err(|_| format!("no answer from CodeDeploy within {CALL_TIMEOUT:?}"))?
            .map_err(|e| aws_sdk_codedeploy::error::DisplayErrorContext(&e).to_string())?;
        let info = out.deployment_info().ok_or("the deployment has no info")?;
        let revision = info.revision().ok_or("the deployment has no revision")?;
        if let Some(content) = content_of(revision) {
            return Ok(content);
        }
        // GetDeployment's appSpecContent.content is "always null" (its API reference): the
        // revision, by its sha256, gives it.
        let application = info
            .application_name()
            .ok_or("the deployment names no application")?;
        let call = self
            .0
            .get_application_revision()
            .application_name(application)
            .revision(revision.clone())
            .send();
        let out = tokio::time::timeout(CALL_TIMEOUT, call)
            .await
            .map_err(|_| format!("no answer from CodeDeploy within {CALL_TIMEOUT:?}"))?
            .map_err(|e| aws_sdk_codedeploy::error::DisplayErrorContext(&e).to_string())?;
        out.revision()
            .and_then(content_of)
            .ok_or_else(|| "the deployment's revision has no AppSpec content".to_owned())
    }

    async fn report(
        &self,
        deployment_id: &str,
        execution_id: &str,
        status: Status,
    ) -> Result<(), String> {
        use aws_sdk_codedeploy::types::LifecycleEventStatus;
        let status = match status {
            Status::Succeeded => LifecycleEventStatus::Succeeded,
            Status::Failed => LifecycleEventStatus::Failed,
        };
        let call = self
            .0
            .put_lifecycle_event_hook_execution_status()
            .deployment_id(deployment_id)
            .lifecycle_event_hook_execution_id(execution_id)
            .status(status)
            .send();
        tokio::time::timeout(CALL_TIMEOUT, call)
            .await
            .map_err(|_| format!("no answer from CodeDeploy within {CALL_TIMEOUT:?}"))?
            .map_err(|e| aws_sdk_codedeploy::error::DisplayErrorContext(&e).to_string())?;
        Ok(())
    }
}

/// A revision's AppSpec: `appSpecContent` for Lambda deployments, the deprecated `string` form
/// as well; None when absent or empty.
fn content_of(revision: &aws_sdk_codedeploy::types::RevisionLocation) -> Option<String> {
    revision
        .app_spec_content()
        .and_then(|c| c.content())
        .or_else(|| revision.string().and_then(|s| s.content()))
        .filter(|c| !c.trim().is_empty())
        .map(str::to_owned)
}

/// The Lambda API (`aws-sdk-lambda`): `Invoke` with the version as `Qualifier`.
pub struct SdkInvokeVersion(pub aws_sdk_lambda::Client);

#[async_trait]
impl InvokeVersion for SdkInvokeVersion {
    async fn invoke(
        &self,
        function: &str,
        version: &str,
        payload: Vec<u8>,
    ) -> Result<Invoked, String> {
        let out = self
            .0
            .invoke()
            .function_name(function)
            .qualifier(version)
            .payload(aws_sdk_lambda::primitives::Blob::new(payload))
            .send()
            .await
            .map_err(|e| aws_sdk_lambda::error::DisplayErrorContext(&e).to_string())?;
        Ok(Invoked {
            function_error: out.function_error().map(str::to_owned),
            payload: out
                .payload()
                .map(|b| b.as_ref().to_vec())
                .unwrap_or_default(),
        })
    }
}

/// The hook function: reads its targets at init (a bad `CIAM_HOOK_TARGETS` fails the init), then
/// checks each deployment CodeDeploy hands it.
pub async fn run() -> Result<(), lambda_http::Error> {
    crate::setup::init_tracing();
    let targets = parse_targets(&std::env::var(TARGETS_VAR).unwrap_or_default())?;
    let sdk = crate::load_sdk().await;
    let origin = std::env::var(crate::secrets::ORIGIN_VAR)
        .ok()
        .filter(|v| !v.trim().is_empty())
        .map(|arn| {
            Arc::new(crate::secrets::OriginSecret {
                client: aws_sdk_secretsmanager::Client::new(&sdk),
                arn,
            }) as Arc<dyn OriginSource>
        });
    let hook = Arc::new(Hook {
        deployments: Arc::new(SdkDeployments(aws_sdk_codedeploy::Client::new(&sdk))),
        lambda: Arc::new(SdkInvokeVersion(aws_sdk_lambda::Client::new(&sdk))),
        origin,
        targets,
        invoke_timeout: INVOKE_TIMEOUT,
    });
    lambda_http::lambda_runtime::run(lambda_http::service_fn(
        move |event: lambda_http::LambdaEvent<Value>| {
            let hook = hook.clone();
            async move {
                let checked = hook.handle(&event.payload).await?;
                Ok::<Value, lambda_http::Error>(json!({
                    "status": checked.status.as_str(),
                    "detail": checked.detail,
                }))
            }
        },
    ))
    .await
}

#[cfg(test)]
#[path = "hook_tests.rs"]
mod tests;
