//! The console's last account actions (docs/console-design.md §4, §5): suspend, reactivate and
//! reset the passkeys (operator), replace the bound mail or phone (admin). Each passes
//! `console::gate` first with its row's role and a fresh proof.

use crate::error::ApiError;
use crate::extract::{Authed, Facts, Json};
use crate::AppState;
use axum::extract::{Path, State};
use axum::response::{IntoResponse, Response};
use ciam_core::console::actions::{self, Action};
use ciam_core::console::{audit, gate, identity, Role};
use serde::Deserialize;
use serde_json::json;

type ApiResult = Result<Response, ApiError>;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ReasonBody {
    reason: String,
}

/// One account action after the gate (operator, a fresh proof).
async fn act(
    s: &AppState,
    sess: &ciam_core::sessions::Session,
    facts: &audit::RequestFacts,
    user_id: &str,
    action: Action,
    reason: &str,
) -> ApiResult {
    let op = gate(&s.ciam, sess, Role::Operator, true).await?;
    actions::act(&s.ciam, &op, user_id, action, reason, facts).await?;
    Ok(axum::Json(json!({ "ok": true })).into_response())
}

macro_rules! action_handler {
    ($(#[$doc:meta])* $name:ident, $action:expr) => {
        $(#[$doc])*
        pub async fn $name(
            State(s): State<AppState>,
            Authed(sess): Authed,
            Facts(facts): Facts,
            Path(user_id): Path<String>,
            Json(b): Json<ReasonBody>,
        ) -> ApiResult {
            act(&s, &sess, &facts, &user_id, $action, &b.reason).await
        }
    };
}

action_handler!(
    /// `POST /admin/accounts/{userId}/suspend`: no sign-in by any method until reactivated; the
    /// sessions end. Round trips: 3.
    suspend,
    Action::Suspend
);
action_handler!(
    /// `POST /admin/accounts/{userId}/reactivate`: lifts the suspension. Round trips: 3.
    reactivate,
    Action::Reactivate
);
action_handler!(
    /// `POST /admin/accounts/{userId}/reset-passkeys`: removes every passkey; the sessions end.
    /// Round trips: 4 (authentication, the user, the passkeys, one transaction).
    reset_passkeys,
    Action::ResetPasskeys
);

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct IdentityBody {
    reason: String,
    mail: Option<String>,
    phone: Option<String>,
    country: Option<String>,
}

/// `PUT /admin/accounts/{userId}/identity`: replaces the bound mail (`mail`) or phone (`phone`,
/// `country`) (admin, a fresh proof). Round trips: 3, then the notice to the old address.
pub async fn replace_identity(
    State(s): State<AppState>,
    Authed(sess): Authed,
    Facts(facts): Facts,
    Path(user_id): Path<String>,
    Json(b): Json<IdentityBody>,
) -> ApiResult {
    let op = gate(&s.ciam, &sess, Role::Admin, true).await?;
    let new = identity::new_identity(b.mail.as_deref(), b.phone.as_deref(), b.country.as_deref())?;
    identity::replace(&s.ciam, &op, &user_id, new, &b.reason, &facts).await?;
    Ok(axum::Json(json!({ "ok": true })).into_response())
}
