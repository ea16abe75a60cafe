//! The operator console's routes (`/admin/...`, docs/console-design.md §5). Each handler takes
//! `extract::Op` first: the gate with its row's role (`Auth::Console`), and a fresh proof for
//! the methods that change something. No handler names a role.

use crate::error::ApiError;
use crate::extract::{Facts, Json, Lang, Op, Params};
use crate::AppState;
use axum::extract::{Path, State};
use axum::response::{IntoResponse, Response};
use ciam_core::console::accounts::{self, Lookup};
use ciam_core::console::actions::{self, Action};
use ciam_core::console::{audit, roles, Operator, Role};
use ciam_core::directory;
use ciam_core::{Error, Reason};
use serde::Deserialize;
use serde_json::json;

type ApiResult = Result<Response, ApiError>;

/// `GET /admin/me`: the operator's role. Round trips: 1 (authentication; a second at most once a
/// minute for the console's idle clock).
pub async fn me(Op(op): Op) -> ApiResult {
    Ok(axum::Json(json!({
        "role": op.role.as_str(),
        "userId": op.user.id,
        "mail": op.user.mail,
    }))
    .into_response())
}

/// `GET /admin/roles`: every role holder. Round trips: 2.
pub async fn list_roles(Op(_): Op, State(s): State<AppState>) -> ApiResult {
    Ok(axum::Json(json!({ "holders": roles::list(&s.ciam).await? })).into_response())
}

#[derive(Deserialize)]
#[cfg_attr(feature = "openapi", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct RoleBody {
    role: String,
}

/// `PUT /admin/roles/{userId}`: grants a role (replacing the one held). Round trips: 3.
pub async fn put_role(
    Op(op): Op,
    State(s): State<AppState>,
    Facts(facts): Facts,
    Path(user_id): Path<String>,
    Json(b): Json<RoleBody>,
) -> ApiResult {
    let role = Role::parse(&b.role).ok_or_else(|| {
        Error::field(
            Reason::INVALID_PARAMETER,
            "role",
            "角色应为 viewer、operator 或 admin",
            "The role is viewer, operator or admin",
        )
    })?;
    roles::set(&s.ciam, &op, &user_id, Some(role), &facts).await?;
    Ok(axum::Json(json!({ "userId": user_id, "role": role.as_str() })).into_response())
}

/// `DELETE /admin/roles/{userId}`: revokes the console role. Round trips: 3.
pub async fn delete_role(
    Op(op): Op,
    State(s): State<AppState>,
    Facts(facts): Facts,
    Path(user_id): Path<String>,
) -> ApiResult {
    roles::set(&s.ciam, &op, &user_id, None, &facts).await?;
    Ok(axum::Json(json!({ "ok": true })).into_response())
}

/// `GET /admin/accounts?mail=|phone=|userName=|userId=`: one account by an exact value. Round
/// trips: 3.
pub async fn find(Op(_): Op, State(s): State<AppState>, Params(q): Params) -> ApiResult {
    let mut q = q;
    let by = Lookup::one_of(
        q.remove("mail"),
        q.remove("phone"),
        q.remove("userName"),
        q.remove("userId"),
    )?;
    let account = accounts::find(&s.ciam, &by).await?;
    Ok(axum::Json(json!({ "account": account })).into_response())
}

/// `GET /admin/directory?company=<prefix>|day=<yyyy-mm-dd>&after=`: accounts by company prefix or
/// sign-up day, newest first, 50 a page (`ciam_core::directory`). Round trips: 2 (authentication,
/// one query).
pub async fn directory(Op(_): Op, State(s): State<AppState>, Params(q): Params) -> ApiResult {
    let mut q = q;
    let after = q.remove("after");
    let page = match (q.remove("company"), q.remove("day")) {
        (Some(company), None) => {
            directory::by_company(&s.ciam, &company, after.as_deref(), directory::PAGE).await?
        }
        (None, Some(day)) => {
            directory::by_day(&s.ciam, &day, after.as_deref(), directory::PAGE).await?
        }
        _ => {
            return Err(Error::field(
                Reason::INVALID_PARAMETER,
                "query",
                "请给出公司名称开头或注册日期之一",
                "Give either a company prefix or a sign-up day",
            )
            .into())
        }
    };
    Ok(axum::Json(page).into_response())
}

/// `GET /admin/overview`: the numbers (`ciam_core::numbers::overview`). Round trips: 2
/// (authentication, one `get_many` of at most 9 items).
pub async fn overview(Op(_): Op, State(s): State<AppState>) -> ApiResult {
    let now = s.ciam.now();
    Ok(axum::Json(ciam_core::numbers::overview(&s.ciam, now).await?).into_response())
}

/// `GET /admin/accounts/{userId}`: the account's page, masked. Round trips: 4.
pub async fn account(
    Op(_): Op,
    State(s): State<AppState>,
    Lang(lang): Lang,
    Path(user_id): Path<String>,
) -> ApiResult {
    Ok(axum::Json(accounts::page(&s.ciam, &user_id, lang).await?).into_response())
}

#[derive(Deserialize)]
#[cfg_attr(feature = "openapi", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct RevealBody {
    reason: String,
}

/// `POST /admin/accounts/{userId}/reveal`: the unmasked mail and phone, audited. Round trips: 3.
pub async fn reveal(
    Op(op): Op,
    State(s): State<AppState>,
    Facts(facts): Facts,
    Path(user_id): Path<String>,
    Json(b): Json<RevealBody>,
) -> ApiResult {
    Ok(
        axum::Json(accounts::reveal(&s.ciam, &op, &user_id, &b.reason, &facts).await?)
            .into_response(),
    )
}

/// One account action (`console::actions`), after the gate (`Op`: the row's role, a fresh
/// proof).
async fn act(
    s: &AppState,
    op: &Operator,
    facts: &audit::RequestFacts,
    user_id: &str,
    action: Action,
    reason: &str,
) -> ApiResult {
    actions::act(&s.ciam, op, user_id, action, reason, facts).await?;
    Ok(axum::Json(json!({ "ok": true })).into_response())
}

/// The account actions' handlers: `POST /admin/accounts/{userId}/<action>` with `{reason}`.
macro_rules! action_handler {
    ($(#[$doc:meta])* $name:ident, $action:expr) => {
        $(#[$doc])*
        pub async fn $name(
            Op(op): Op,
            State(s): State<AppState>,
            Facts(facts): Facts,
            Path(user_id): Path<String>,
            Json(b): Json<RevealBody>,
        ) -> ApiResult {
            act(&s, &op, &facts, &user_id, $action, &b.reason).await
        }
    };
}

action_handler!(
    /// `POST /admin/accounts/{userId}/unlock`: clears the lock and the failure counters. Round
    /// trips: 3.
    unlock,
    Action::Unlock
);
action_handler!(
    /// `POST /admin/accounts/{userId}/end-sessions`: ends every session and access token. Round
    /// trips: 3.
    end_sessions,
    Action::EndSessions
);
action_handler!(
    /// `POST /admin/accounts/{userId}/reset-two-factor`: turns TOTP off (passkeys stay). Round
    /// trips: 3, and the backup codes' sweep.
    reset_two_factor,
    Action::ResetTwoFactor
);
action_handler!(
    /// `POST /admin/accounts/{userId}/send-reset-code`: a password-reset code to the account's
    /// mail, else phone; the operator never sees it. Round trips: 4.
    send_reset_code,
    Action::SendResetCode
);

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

/// `GET /admin/audit?from=&to=&actor=&target=&action=&format=`: the audit entries of a range of
/// at most 31 days, newest first; with `format=csv|json` the export (`admin_export`, streamed a
/// day at a time). Round trips: 1 + 1 a day.
pub async fn audit_log(Op(_): Op, State(s): State<AppState>, Params(q): Params) -> ApiResult {
    let filter = audit::Filter {
        from: q.get("from").cloned().unwrap_or_default(),
        to: q.get("to").cloned().unwrap_or_default(),
        actor: q.get("actor").cloned(),
        target: q.get("target").cloned(),
        action: q.get("action").cloned(),
    };
    if let Some(format) = q.get("format") {
        return super::admin_export::export(&s, filter, format).await;
    }
    let entries = audit::list(&s.ciam, &filter).await?;
    Ok(axum::Json(json!({ "entries": entries })).into_response())
}
