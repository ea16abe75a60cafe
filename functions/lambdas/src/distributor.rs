//! The key distributor: the one function that reads `RootSecret`. It writes each key purpose's
//! secret from it (`purpose_keys::distribute`) when CloudFormation creates or updates its custom
//! resource (`KeyDistribution`), and when the rotation runbook invokes it directly
//! (docs/operations.md §1). It runs in the `bootstrap` binary with `CIAM_ROUTE=key_distributor`;
//! it serves no HTTP route.

use crate::purpose_keys::{self, SecretsManager};
use ciam_core::KeyPurpose;
use lambda_http::{lambda_runtime, service_fn, LambdaEvent};
use serde_json::{json, Value};
use std::collections::BTreeMap;

/// Its `CIAM_ROUTE`.
pub const DISTRIBUTOR: &str = "key_distributor";
/// The custom resource's physical id: one distribution per stack, never replaced.
const PHYSICAL_ID: &str = "ciam-key-distribution";

/// Where it reads and writes: `CIAM_ROOT_SECRET_ARN` and every purpose's
/// `CIAM_<PURPOSE>_KEY_SECRET_ARN`.
pub struct Targets {
    pub root: String,
    pub purposes: BTreeMap<KeyPurpose, String>,
}

impl Targets {
    pub fn from_vars(get: impl Fn(&str) -> Option<String>) -> Result<Targets, String> {
        let root = get(crate::secrets::ROOT_VAR)
            .ok_or_else(|| format!("{} is required", crate::secrets::ROOT_VAR))?;
        let purposes = KeyPurpose::ALL
            .into_iter()
            .filter(|p| p.distributed())
            .map(|p| {
                let var = purpose_keys::var(p);
                get(&var)
                    .map(|arn| (p, arn))
                    .ok_or_else(|| format!("{var} is required"))
            })
            .collect::<Result<_, _>>()?;
        Ok(Targets { root, purposes })
    }
}

/// What one invocation asks: a CloudFormation custom resource event (answered at its
/// `ResponseURL`), or anything else (the runbook's `aws lambda invoke`): distribute.
#[derive(Debug, PartialEq)]
pub enum Request {
    Stack { kind: String, response_url: String },
    Direct,
}

impl Request {
    pub fn of(event: &Value) -> Request {
        match (
            event.get("RequestType").and_then(Value::as_str),
            event.get("ResponseURL").and_then(Value::as_str),
        ) {
            (Some(kind), Some(url)) => Request::Stack {
                kind: kind.to_owned(),
                response_url: url.to_owned(),
            },
            _ => Request::Direct,
        }
    }
}

/// The body CloudFormation expects at the `ResponseURL` (never a key in it).
pub fn stack_answer(event: &Value, outcome: &Result<purpose_keys::Distributed, String>) -> Value {
    let field = |f: &str| event.get(f).cloned().unwrap_or(Value::Null);
    let mut body = json!({
        "Status": if outcome.is_ok() { "SUCCESS" } else { "FAILED" },
        "Reason": match outcome {
            Ok(_) => "distributed".to_owned(),
            Err(e) => e.clone(),
        },
        "PhysicalResourceId": PHYSICAL_ID,
        "StackId": field("StackId"),
        "RequestId": field("RequestId"),
        "LogicalResourceId": field("LogicalResourceId"),
    });
    if let Ok(d) = outcome {
        body["Data"] = json!({ "Written": d.written.len(), "Unchanged": d.unchanged.len() });
    }
    body
}

/// Handles one event with `port`: distributes unless CloudFormation deletes the resource
/// (the secrets stay; the stack deletes them itself), and says what happened.
pub async fn handle(
    port: &dyn purpose_keys::SecretsPort,
    targets: &Targets,
    event: &Value,
) -> (Request, Result<purpose_keys::Distributed, String>) {
    let request = Request::of(event);
    let outcome = match &request {
        Request::Stack { kind, .. } if kind == "Delete" => Ok(purpose_keys::Distributed {
            written: Vec::new(),
            unchanged: Vec::new(),
        }),
        _ => purpose_keys::distribute(port, &targets.root, &targets.purposes).await,
    };
    match &outcome {
        Ok(d) => tracing::info!(
            written = ?d.written.iter().map(|p| p.name()).collect::<Vec<_>>(),
            unchanged = d.unchanged.len(),
            "keys distributed"
        ),
        Err(e) => tracing::error!(error = %e, "key distribution failed"),
    }
    (request, outcome)
}

/// Serves the distributor until the Lambda environment is shut down.
pub async fn run() -> Result<(), lambda_http::Error> {
    let targets = Targets::from_vars(|v| std::env::var(v).ok().filter(|s| !s.is_empty()))?;
    let sdk = crate::setup::load_sdk().await;
    let port = SecretsManager(aws_sdk_secretsmanager::Client::new(&sdk));
    let (port, targets) = (&port, &targets);
    lambda_runtime::run(service_fn(move |event: LambdaEvent<Value>| async move {
        let (request, outcome) = handle(port, targets, &event.payload).await;
        match request {
            Request::Stack { response_url, .. } => {
                let body = stack_answer(&event.payload, &outcome).to_string();
                let status = ciam_api::https_put(&response_url, body).await?;
                if !(200..300).contains(&status) {
                    return Err(format!("CloudFormation's response URL answered {status}").into());
                }
                Ok::<Value, lambda_http::Error>(json!({ "answered": status }))
            }
            Request::Direct => {
                let d = outcome?;
                Ok(json!({
                    "written": d.written.iter().map(|p| p.name()).collect::<Vec<_>>(),
                    "unchanged": d.unchanged.iter().map(|p| p.name()).collect::<Vec<_>>(),
                }))
            }
        }
    }))
    .await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stack_events_are_told_from_direct_invocations() {
        let e = json!({"RequestType": "Create", "ResponseURL": "https://s3/x", "StackId": "s",
            "RequestId": "r", "LogicalResourceId": "KeyDistribution"});
        assert_eq!(
            Request::of(&e),
            Request::Stack {
                kind: "Create".into(),
                response_url: "https://s3/x".into()
            }
        );
        assert_eq!(Request::of(&json!({})), Request::Direct);
        let ok = Ok(purpose_keys::Distributed {
            written: vec![KeyPurpose::Session],
            unchanged: vec![],
        });
        let body = stack_answer(&e, &ok);
        assert_eq!(body["Status"], "SUCCESS");
        assert_eq!(body["PhysicalResourceId"], PHYSICAL_ID);
        assert_eq!(body["LogicalResourceId"], "KeyDistribution");
        assert_eq!(body["Data"]["Written"], 1);
        let body = stack_answer(&e, &Err("CIAM_X is required".into()));
        assert_eq!(body["Status"], "FAILED");
        assert_eq!(body["Reason"], "CIAM_X is required");
    }

    #[test]
    fn every_distributed_purpose_needs_its_variable() {
        let all = |v: &str| Some(format!("arn:{v}"));
        let t = Targets::from_vars(all).unwrap();
        assert_eq!(t.purposes.len(), 11);
        assert_eq!(t.root, "arn:CIAM_ROOT_SECRET_ARN");
        assert_eq!(
            t.purposes[&KeyPurpose::Session],
            "arn:CIAM_SESSION_KEY_SECRET_ARN"
        );
        let err = Targets::from_vars(|v| all(v).filter(|_| v != "CIAM_SEAL_KEY_SECRET_ARN"))
            .err()
            .unwrap();
        assert_eq!(err, "CIAM_SEAL_KEY_SECRET_ARN is required");
    }
}
