//! `ciam admin apps create --reason R --json '<fields>'`: registers a partner app from the
//! command line, for scripts and break-glass (docs/partners.md §1). The body is the one
//! `POST /admin/apps` takes (without `reason`, which is `--reason`), read by the route's own
//! parser, and the app is registered through the function the route calls
//! (`console::apps::create`) as the local admin (`cli:<os user>`), the audit entry in the app's
//! transaction. Prints the route's answer; a refused body prints the route's error body.

use crate::admin_cli::{ciam, operator};
use crate::StoreOptions;
use ciam_core::console::audit::RequestFacts;
use ciam_core::{Error, Lang, OsEntropy, Reason};

#[derive(Clone, Debug, clap::Subcommand)]
pub enum AppsCommand {
    /// Registers an app; prints `{"app": {...}, "appSecret": "..."}` (the secret shown this
    /// once), as `POST /admin/apps` answers.
    Create {
        /// Why (kept in the audit log; required).
        #[arg(long)]
        reason: String,
        /// The `POST /admin/apps` body without `reason`: `{"name": {"zh-CN": .., "en-US": ..},
        /// "serviceUrls": [..], ...}`.
        #[arg(long)]
        json: String,
        #[command(flatten)]
        store: StoreOptions,
    },
}

/// Why a command failed.
#[derive(Debug)]
pub enum Failure {
    /// The body or the registry refused it: the API's error body (JSON, en-US).
    Refused(String),
    /// Anything else (the store could not be opened): a sentence.
    Other(String),
}

fn refused(e: &Error) -> Failure {
    let body = ciam_api::error_body(e, Lang::EnUs);
    Failure::Refused(serde_json::to_string(&body).unwrap_or_else(|_| e.reason.code().to_owned()))
}

/// Runs one command; answers the JSON to print.
pub async fn run(cmd: AppsCommand) -> Result<String, Failure> {
    match cmd {
        AppsCommand::Create {
            reason,
            json,
            store,
        } => {
            let mut body = match serde_json::from_str::<serde_json::Value>(&json) {
                Ok(serde_json::Value::Object(m)) => m,
                _ => {
                    return Err(refused(&Error::field(
                        Reason::INVALID_PARAMETER,
                        "body",
                        "--json 应为一个 JSON 对象",
                        "--json is one JSON object",
                    )))
                }
            };
            if body.contains_key("reason") {
                return Err(refused(&Error::field(
                    Reason::INVALID_PARAMETER,
                    "reason",
                    "原因请用 --reason 给出",
                    "Give the reason with --reason",
                )));
            }
            body.insert("reason".into(), reason.into());
            let bytes = serde_json::to_vec(&body).map_err(|e| Failure::Other(e.to_string()))?;
            let (fields, reason) = ciam_api::app_change(&bytes).map_err(|e| refused(&e.0))?;
            let c = ciam(&store).await.map_err(Failure::Other)?;
            let facts = RequestFacts {
                request_id: hex::encode(ciam_core::random::<16>(&OsEntropy)),
                ip: None,
                device: Some("ciam admin (command line)".to_owned()),
            };
            let created =
                ciam_core::console::apps::create(&c, &operator(), fields, &reason, &facts)
                    .await
                    .map_err(|e| refused(&e))?;
            serde_json::to_string(&created).map_err(|e| Failure::Other(e.to_string()))
        }
    }
}
