//! Over 500 lines because each account action's handler carries its operation's published
//! prose (docs/openapi.json is generated from these doc comments: docs/api-document.md §4).
//!
//! The operator console's routes (`/admin/...`, docs/console-design.md §5). Each handler takes
//! `extract::Op` first: the gate with its row's role (`Auth::Console`), and a fresh proof for
//! the methods that change something. No handler names a role.

use crate::error::ApiError;
use crate::extract::{Facts, Json, Lang, Op, Params};
use crate::reply::{done, Done, OrDownload, Reply};
use crate::AppState;
use axum::extract::{Path, State};
use ciam_core::console::accounts::{self, Lookup, Revealed, Summary};
use ciam_core::console::actions::{self, Action};
use ciam_core::console::roles::{self, Holder};
use ciam_core::console::{audit, audit_view, search, Operator, Role};
use ciam_core::directory;
use ciam_core::numbers::Overview;
use ciam_core::{Error, Reason};
use serde::{Deserialize, Serialize};

/// The signed-in operator.
#[derive(Serialize)]
#[cfg_attr(feature = "openapi", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
// The fields in the order the answer has always had (a `json!` map's: sorted).
pub struct ConsoleOperator {
    mail: Option<String>,
    /// The operator's console role.
    #[cfg_attr(feature = "openapi", schemars(transform = Role::names_schema))]
    role: &'static str,
    user_id: String,
}

/// The console operator
///
/// Console: the session's account must hold the role `viewer` or above (PERMISSION_DENIED), its
/// sign-in must have included a second factor (CONSOLE_MFA_REQUIRED), and the console must have
/// been used or a fresh proof made in the last 15 minutes (REAUTH_REQUIRED). The operator's role,
/// user id and mail.
///
/// Reasons: none.
///
/// Round trips: 1 (authentication; a second at most once a minute for the console's idle clock).
pub async fn me(Op(op): Op) -> Result<Reply<ConsoleOperator>, ApiError> {
    Ok(Reply(ConsoleOperator {
        role: op.role.as_str(),
        user_id: op.user.id,
        mail: op.user.mail,
    }))
}

/// Every account holding a console role.
#[derive(Serialize)]
#[cfg_attr(feature = "openapi", derive(schemars::JsonSchema))]
pub struct RoleHolders {
    holders: Vec<Holder>,
}

/// Console role holders
///
/// Console: the session's account must hold the role `admin` or above (PERMISSION_DENIED), its
/// sign-in must have included a second factor (CONSOLE_MFA_REQUIRED), and the console must have
/// been used or a fresh proof made in the last 15 minutes (REAUTH_REQUIRED). Every account holding
/// a console role (one query of the role index).
///
/// Reasons: none.
///
/// Round trips: 2.
pub async fn list_roles(
    Op(_): Op,
    State(s): State<AppState>,
) -> Result<Reply<RoleHolders>, ApiError> {
    Ok(Reply(RoleHolders {
        holders: roles::list(&s.ciam).await?,
    }))
}

/// The role to grant.
#[derive(Deserialize)]
#[cfg_attr(feature = "openapi", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct RoleBody {
    #[cfg_attr(feature = "openapi", schemars(transform = Role::names_schema))]
    role: String,
}

/// The role an account now holds.
#[derive(Serialize)]
#[cfg_attr(feature = "openapi", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
// The fields in the order the answer has always had (a `json!` map's: sorted).
pub struct RoleGranted {
    #[cfg_attr(feature = "openapi", schemars(transform = Role::names_schema))]
    role: &'static str,
    user_id: String,
}

/// Grant a console role
///
/// Console: the session's account must hold the role `admin` or above (PERMISSION_DENIED), its
/// sign-in must have included a second factor (CONSOLE_MFA_REQUIRED), and the console must have
/// been used or a fresh proof made in the last 15 minutes (REAUTH_REQUIRED). Changes something:
/// needs a fresh proof at most 5 minutes old (REAUTH_REQUIRED). Gives the account the role
/// `viewer`, `operator` or `admin`, replacing the console role it held; the user item, the role
/// index and an audit entry (`role.grant`) in one transaction. INVALID_PARAMETER on `userId` for
/// the admin's own account, on `role` for an unknown role; ACCOUNT_NOT_FOUND for an unknown or
/// deactivated account.
///
/// Reasons: ACCOUNT_NOT_FOUND.
///
/// Round trips: 3.
pub async fn put_role(
    Op(op): Op,
    State(s): State<AppState>,
    Facts(facts): Facts,
    Path(user_id): Path<String>,
    Json(b): Json<RoleBody>,
) -> Result<Reply<RoleGranted>, ApiError> {
    let role = Role::parse(&b.role).ok_or_else(|| {
        Error::field(
            Reason::INVALID_PARAMETER,
            "role",
            "角色应为 viewer、operator 或 admin",
            "The role is viewer, operator or admin",
        )
    })?;
    roles::set(&s.ciam, &op, &user_id, Some(role), &facts).await?;
    Ok(Reply(RoleGranted {
        user_id,
        role: role.as_str(),
    }))
}

/// Revoke a console role
///
/// Console: the session's account must hold the role `admin` or above (PERMISSION_DENIED), its
/// sign-in must have included a second factor (CONSOLE_MFA_REQUIRED), and the console must have
/// been used or a fresh proof made in the last 15 minutes (REAUTH_REQUIRED). Changes something:
/// needs a fresh proof at most 5 minutes old (REAUTH_REQUIRED). Takes the account's console role
/// away (audit entry `role.revoke`); its console access ends on its next request. INVALID_PARAMETER
/// on `userId` for the admin's own account; ACCOUNT_NOT_FOUND for an unknown or deactivated
/// account.
///
/// Reasons: ACCOUNT_NOT_FOUND, INVALID_PARAMETER.
///
/// Round trips: 3.
pub async fn delete_role(
    Op(op): Op,
    State(s): State<AppState>,
    Facts(facts): Facts,
    Path(user_id): Path<String>,
) -> Result<Reply<Done>, ApiError> {
    roles::set(&s.ciam, &op, &user_id, None, &facts).await?;
    Ok(done())
}

/// The account found.
#[derive(Serialize)]
#[cfg_attr(feature = "openapi", derive(schemars::JsonSchema))]
pub struct FoundAccount {
    account: Summary,
}

/// Find an account
///
/// Console: the session's account must hold the role `viewer` or above (PERMISSION_DENIED), its
/// sign-in must have included a second factor (CONSOLE_MFA_REQUIRED), and the console must have
/// been used or a fresh proof made in the last 15 minutes (REAUTH_REQUIRED). Exactly one of the
/// query values: the account with exactly that mail or phone (normalised as at sign-in), user name
/// (folded as at sign-up) or user id; ACCOUNT_NOT_FOUND when none, INVALID_PARAMETER on `query`
/// when not exactly one is given. Mail and phone masked.
///
/// Reasons: ACCOUNT_NOT_FOUND, INVALID_MAIL, INVALID_PARAMETER, INVALID_PHONE.
///
/// The query: `?mail=|phone=|userName=|userId=`. Round trips: 3.
pub async fn find(
    Op(_): Op,
    State(s): State<AppState>,
    Params(q): Params,
) -> Result<Reply<FoundAccount>, ApiError> {
    let mut q = q;
    let by = Lookup::one_of(
        q.remove("mail"),
        q.remove("phone"),
        q.remove("userName"),
        q.remove("userId"),
    )?;
    let account = accounts::find(&s.ciam, &by).await?;
    Ok(Reply(FoundAccount { account }))
}

/// List accounts by company or sign-up day
///
/// Console: the session's account must hold the role `viewer` or above (PERMISSION_DENIED), its
/// sign-in must have included a second factor (CONSOLE_MFA_REQUIRED), and the console must have
/// been used or a fresh proof made in the last 15 minutes (REAUTH_REQUIRED). Exactly one of
/// `company` (the start of a company name, compared folded: case and width ignored; by company,
/// then newest first) or `day` (UTC, yyyy-mm-dd; newest first), else INVALID_PARAMETER on `query`.
/// 50 accounts a page; `next`, when present, is the `after` of the following page. One query, never
/// a scan (docs/data-model.md "The directory").
///
/// Reasons: INVALID_PARAMETER.
///
/// The query: `?company=<prefix>|day=<yyyy-mm-dd>&after=`; `ciam_core::directory`. Round trips: 2
/// (authentication, one query).
pub async fn directory(
    Op(_): Op,
    State(s): State<AppState>,
    Params(q): Params,
) -> Result<Reply<directory::Page>, ApiError> {
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
    Ok(Reply(page))
}

/// Find accounts
///
/// Console: the session's account must hold the role `viewer` or above (PERMISSION_DENIED), its
/// sign-in must have included a second factor (CONSOLE_MFA_REQUIRED), and the console must have
/// been used or a fresh proof made in the last 15 minutes (REAUTH_REQUIRED). The find box: `q` is
/// a mail, a phone (whole, with or without +86, or its last four digits), a user id, or the start
/// of a user name, a display name or a company (compared folded: case and width ignored). A group
/// per kind `q` could be (`mail`, `phone`, `phoneEnd`, `userId`, `userName`, `displayName`,
/// `company`), each with at most 20 accounts (mail and phone masked) and, when there are more, its
/// `next`: pass it as `after` with that `kind` for the group's next page. Each kind is one query
/// of the directory, side by side, never a scan (docs/data-model.md "The find box").
/// INVALID_PARAMETER on `q` when it is empty or over 100 characters, on `kind` when `q` cannot be
/// that kind or `after` comes without it.
///
/// Reasons: INVALID_MAIL, INVALID_PARAMETER, INVALID_PHONE.
///
/// The query: `?q=&kind=&after=`; `ciam_core::console::search`. Round trips: 3 (authentication,
/// the kinds' queries side by side, one `get_many`).
pub async fn search(
    Op(_): Op,
    State(s): State<AppState>,
    Params(q): Params,
) -> Result<Reply<search::Matches>, ApiError> {
    let mut q = q;
    let kind = q
        .remove("kind")
        .map(|k| search::Kind::parse(&k))
        .transpose()?;
    let after = q.remove("after");
    let text = q.remove("q").unwrap_or_default();
    Ok(Reply(
        search::search(&s.ciam, &text, kind, after.as_deref()).await?,
    ))
}

/// List locked or suspended accounts
///
/// Console: the session's account must hold the role `viewer` or above (PERMISSION_DENIED), its
/// sign-in must have included a second factor (CONSOLE_MFA_REQUIRED), and the console must have
/// been used or a fresh proof made in the last 15 minutes (REAUTH_REQUIRED). `status=locked`: the
/// accounts locked now, latest unlock time first (a lock past its time is not listed);
/// `status=suspended`: the suspended accounts, latest suspension first. 50 a page, mail and phone
/// masked; `next`, when present, is the `after` of the following page. INVALID_PARAMETER on
/// `status` for another value. One query, never a scan (docs/data-model.md "The find box").
///
/// Reasons: INVALID_PARAMETER.
///
/// The query: `?status=locked|suspended&after=`; `ciam_core::console::search::held`. Round trips:
/// 3 (authentication, one query, one `get_many`).
pub async fn held(
    Op(_): Op,
    State(s): State<AppState>,
    Params(q): Params,
) -> Result<Reply<search::HeldPage>, ApiError> {
    let mut q = q;
    let which = search::Held::parse(&q.remove("status").unwrap_or_default())?;
    let after = q.remove("after");
    Ok(Reply(
        search::held(&s.ciam, which, after.as_deref(), directory::PAGE).await?,
    ))
}

/// The numbers
///
/// Console: the session's account must hold the role `viewer` or above (PERMISSION_DENIED), its
/// sign-in must have included a second factor (CONSOLE_MFA_REQUIRED), and the console must have
/// been used or a fresh proof made in the last 15 minutes (REAUTH_REQUIRED). Accounts in total,
/// then for each of the last 30 UTC days (oldest first): new accounts, daily active accounts,
/// lockouts, and sign-ins by outcome (success, wrongSecret, locked, secondStepFailed, other) and by
/// method (password, code, passkey, staff, totp); and this month and the last: monthly active, new
/// accounts, deactivations. Counted as things happen; read in one store call of at most 9 items
/// whatever the number of accounts (docs/data-model.md).
///
/// Reasons: none.
///
/// `ciam_core::numbers::overview`. Round trips: 2 (authentication, one `get_many` of at most 9
/// items).
pub async fn overview(Op(_): Op, State(s): State<AppState>) -> Result<Reply<Overview>, ApiError> {
    let now = s.ciam.now();
    Ok(Reply(ciam_core::numbers::overview(&s.ciam, now).await?))
}

/// An account's page
///
/// Console: the session's account must hold the role `viewer` or above (PERMISSION_DENIED), its
/// sign-in must have included a second factor (CONSOLE_MFA_REQUIRED), and the console must have
/// been used or a fresh proof made in the last 15 minutes (REAUTH_REQUIRED). Profile, status,
/// two-factor, passkeys, live sessions, recent apps, consents and security activity; mail and phone
/// masked. The failed sign-in attempts still kept (wrong passwords, sign-in codes and second
/// factors: time, address, device; at most 15, newest first) and the support desk's notes.
/// ACCOUNT_NOT_FOUND for an unknown id.
///
/// Reasons: ACCOUNT_NOT_FOUND.
///
/// Round trips: 4.
pub async fn account(
    Op(_): Op,
    State(s): State<AppState>,
    Lang(lang): Lang,
    Path(user_id): Path<String>,
) -> Result<Reply<accounts::Page>, ApiError> {
    Ok(Reply(accounts::page(&s.ciam, &user_id, lang).await?))
}

/// The operator's reason.
#[derive(Deserialize)]
#[cfg_attr(feature = "openapi", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct RevealBody {
    /// Why (required; recorded in the audit log).
    #[cfg_attr(feature = "openapi", schemars(length(max = 500)))]
    reason: String,
}

/// Reveal a mail and phone
///
/// Console: the session's account must hold the role `operator` or above (PERMISSION_DENIED), its
/// sign-in must have included a second factor (CONSOLE_MFA_REQUIRED), and the console must have
/// been used or a fresh proof made in the last 15 minutes (REAUTH_REQUIRED). Changes something:
/// needs a fresh proof at most 5 minutes old (REAUTH_REQUIRED). The unmasked mail and phone,
/// recorded in the audit log (`account.reveal`) with the reason given (required, at most 500
/// characters: INVALID_PARAMETER on `reason`). ACCOUNT_NOT_FOUND for an unknown id.
///
/// Reasons: ACCOUNT_NOT_FOUND.
///
/// Round trips: 3.
pub async fn reveal(
    Op(op): Op,
    State(s): State<AppState>,
    Facts(facts): Facts,
    Path(user_id): Path<String>,
    Json(b): Json<RevealBody>,
) -> Result<Reply<Revealed>, ApiError> {
    Ok(Reply(
        accounts::reveal(&s.ciam, &op, &user_id, &b.reason, &facts).await?,
    ))
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
) -> Result<Reply<Done>, ApiError> {
    actions::act(&s.ciam, op, user_id, action, reason, facts).await?;
    Ok(done())
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
        ) -> Result<Reply<Done>, ApiError> {
            act(&s, &op, &facts, &user_id, $action, &b.reason).await
        }
    };
}

action_handler!(
    /// Unlock an account
    ///
    /// Console: the session's account must hold the role `operator` or above (PERMISSION_DENIED),
    /// its sign-in must have included a second factor (CONSOLE_MFA_REQUIRED), and the console must
    /// have been used or a fresh proof made in the last 15 minutes (REAUTH_REQUIRED). Changes
    /// something: needs a fresh proof at most 5 minutes old (REAUTH_REQUIRED). Clears the failure
    /// counters and the lock on the user item and every identity item; the customer may sign in at
    /// once, and is told by a notice. Recorded in the audit log (`account.unlock`) with the reason
    /// given (required, at most 500 characters: INVALID_PARAMETER on `reason`), and in the
    /// account's security activity (`unlockedBySupport`). ACCOUNT_NOT_FOUND for an unknown or
    /// deactivated id.
    ///
    /// Reasons: ACCOUNT_NOT_FOUND.
    ///
    /// Round trips: 3.
    unlock,
    Action::Unlock
);
action_handler!(
    /// End an account's sessions
    ///
    /// Console: the session's account must hold the role `operator` or above (PERMISSION_DENIED),
    /// its sign-in must have included a second factor (CONSOLE_MFA_REQUIRED), and the console must
    /// have been used or a fresh proof made in the last 15 minutes (REAUTH_REQUIRED). Changes
    /// something: needs a fresh proof at most 5 minutes old (REAUTH_REQUIRED). Ends every session
    /// of the account and revokes its OpenID Connect access tokens (`sessGen`); the customer is
    /// told by a notice. Recorded in the audit log (`account.endSessions`) with the reason given
    /// (required, at most 500 characters: INVALID_PARAMETER on `reason`), and in the account's
    /// security activity (`sessionsEndedBySupport`). ACCOUNT_NOT_FOUND for an unknown or
    /// deactivated id.
    ///
    /// Reasons: ACCOUNT_NOT_FOUND.
    ///
    /// Round trips: 3.
    end_sessions,
    Action::EndSessions
);
action_handler!(
    /// Turn an account's two-factor sign-in off
    ///
    /// Console: the session's account must hold the role `operator` or above (PERMISSION_DENIED),
    /// its sign-in must have included a second factor (CONSOLE_MFA_REQUIRED), and the console must
    /// have been used or a fresh proof made in the last 15 minutes (REAUTH_REQUIRED). Changes
    /// something: needs a fresh proof at most 5 minutes old (REAUTH_REQUIRED). Turns TOTP off and
    /// voids the backup codes, without the customer's session; passkeys stay; the account's
    /// sessions end, as with the customer's own turning off; the customer is told by a notice. When
    /// it is off already, nothing changes (the audit entry says `nothing to change`). Recorded in
    /// the audit log (`account.resetTwoFactor`) with the reason given (required, at most 500
    /// characters: INVALID_PARAMETER on `reason`), and in the account's security activity
    /// (`twoFactorResetBySupport`). ACCOUNT_NOT_FOUND for an unknown or deactivated id.
    ///
    /// Reasons: ACCOUNT_NOT_FOUND.
    ///
    /// Round trips: 3, and the backup codes' sweep.
    reset_two_factor,
    Action::ResetTwoFactor
);
action_handler!(
    /// Send a password-reset code
    ///
    /// Console: the session's account must hold the role `operator` or above (PERMISSION_DENIED),
    /// its sign-in must have included a second factor (CONSOLE_MFA_REQUIRED), and the console must
    /// have been used or a fresh proof made in the last 15 minutes (REAUTH_REQUIRED). Changes
    /// something: needs a fresh proof at most 5 minutes old (REAUTH_REQUIRED). Sends a
    /// password-reset code to the account's mail, else its phone, as `POST /auth/identity` with
    /// purpose `resetPassword` does (the same limits: VERIFYCODE_SENDING_TOO_QUICKLY,
    /// VERIFYCODE_SENDING_LIMIT); the operator never sees the code. Recorded in the audit log
    /// (`account.sendResetCode`) with the reason given (required, at most 500 characters:
    /// INVALID_PARAMETER on `reason`), and in the account's security activity
    /// (`resetCodeSentBySupport`). ACCOUNT_NOT_FOUND for an unknown or deactivated id.
    ///
    /// Reasons: ACCOUNT_NOT_FOUND, VERIFICATION_CODE_LIMIT, VERIFYCODE_SENDING_LIMIT.
    ///
    /// Round trips: 4.
    send_reset_code,
    Action::SendResetCode
);

action_handler!(
    /// Suspend an account
    ///
    /// Console: the session's account must hold the role `operator` or above (PERMISSION_DENIED),
    /// its sign-in must have included a second factor (CONSOLE_MFA_REQUIRED), and the console must
    /// have been used or a fresh proof made in the last 15 minutes (REAUTH_REQUIRED). Changes
    /// something: needs a fresh proof at most 5 minutes old (REAUTH_REQUIRED). Suspends the
    /// account: it cannot sign in by any method (password, code, passkey, staff sign-in), each
    /// answering exactly what a wrong password, a wrong code or an unknown passkey answers; its
    /// sessions end, its OpenID Connect access tokens and outstanding tickets are refused; the
    /// customer is told by a notice. Suspending a suspended account (or reactivating one that is
    /// not suspended) changes nothing and answers `{"ok":true}`; only the audit entry is written,
    /// with the detail `nothing to change`. Recorded in the audit log (`account.suspend`) with the
    /// reason given (required, at most 500 characters: INVALID_PARAMETER on `reason`), and in the
    /// account's security activity (`suspendedBySupport`). ACCOUNT_NOT_FOUND for an unknown or
    /// deactivated id.
    ///
    /// Reasons: ACCOUNT_NOT_FOUND.
    ///
    /// Round trips: 3.
    suspend,
    Action::Suspend
);
action_handler!(
    /// Reactivate a suspended account
    ///
    /// Console: the session's account must hold the role `operator` or above (PERMISSION_DENIED),
    /// its sign-in must have included a second factor (CONSOLE_MFA_REQUIRED), and the console must
    /// have been used or a fresh proof made in the last 15 minutes (REAUTH_REQUIRED). Changes
    /// something: needs a fresh proof at most 5 minutes old (REAUTH_REQUIRED). Lifts the
    /// suspension: the account signs in again (the failure counters and a lock are not touched);
    /// the customer is told by a notice. Suspending a suspended account (or reactivating one that
    /// is not suspended) changes nothing and answers `{"ok":true}`; only the audit entry is
    /// written, with the detail `nothing to change`. Recorded in the audit log
    /// (`account.reactivate`) with the reason given (required, at most 500 characters:
    /// INVALID_PARAMETER on `reason`), and in the account's security activity
    /// (`reactivatedBySupport`). ACCOUNT_NOT_FOUND for an unknown or deactivated id.
    ///
    /// Reasons: ACCOUNT_NOT_FOUND.
    ///
    /// Round trips: 3.
    reactivate,
    Action::Reactivate
);
action_handler!(
    /// Remove every passkey of an account
    ///
    /// Console: the session's account must hold the role `operator` or above (PERMISSION_DENIED),
    /// its sign-in must have included a second factor (CONSOLE_MFA_REQUIRED), and the console must
    /// have been used or a fresh proof made in the last 15 minutes (REAUTH_REQUIRED). Changes
    /// something: needs a fresh proof at most 5 minutes old (REAUTH_REQUIRED). Removes every
    /// passkey of the account and ends its sessions (as resetting two-factor does); the customer is
    /// told by a notice. An account without a passkey changes nothing (only the audit entry, detail
    /// `nothing to change`). Recorded in the audit log (`account.resetPasskeys`) with the reason
    /// given (required, at most 500 characters: INVALID_PARAMETER on `reason`), and in the
    /// account's security activity (`passkeysResetBySupport`). ACCOUNT_NOT_FOUND for an unknown or
    /// deactivated id.
    ///
    /// Reasons: ACCOUNT_NOT_FOUND.
    ///
    /// Round trips: 4 (authentication, the user, the passkeys, one transaction).
    reset_passkeys,
    Action::ResetPasskeys
);

/// The audit log
///
/// Console: the session's account must hold the role `viewer` or above (PERMISSION_DENIED), its
/// sign-in must have included a second factor (CONSOLE_MFA_REQUIRED), and the console must have
/// been used or a fresh proof made in the last 15 minutes (REAUTH_REQUIRED). The entries of the
/// days `from` to `to` (UTC, yyyy-mm-dd, at most 31 days: INVALID_PARAMETER beyond, or on a
/// malformed date), newest first, filtered by actor, target and action. `actor` and `target`
/// take a user id or an app id as the entries keep them, a username (its account), or a mail or
/// a phone with or without +86 (its account; ACCOUNT_NOT_FOUND on that field when no account has
/// it); `action` is one of the entries' actions (INVALID_PARAMETER otherwise).
/// The answer names who and what its entries point at: `people` (the actors, and the targets of
/// account actions, masked as the account page masks them) and `apps` (the targets of app and
/// webhook actions), each by id; an id missing there no longer exists.
/// With `format=csv` or `format=json` the same entries as a download (`Content-Disposition:
/// attachment; filename="ciam-audit-<from>-<to>.csv|jsonl"`): CSV (`text/csv; charset=utf-8`) with
/// a header row (time as ISO 8601 UTC, actor, actorRole, action, target, reason, requestId, ip,
/// detail), RFC 4180 quoting and a leading `'` on a cell starting with = + - @ tab or CR (no
/// formula in a spreadsheet); or JSON Lines (`application/jsonl`), one entry a line. The export is
/// produced a day at a time (one store query a day, newest first); in AWS the answer is buffered
/// and limited to 6 MB (narrow the range, or use `ciam admin audit export`; docs/operations.md).
///
/// Reasons: INVALID_PARAMETER, ACCOUNT_NOT_FOUND.
///
/// The query: `?from=&to=&actor=&target=&action=&format=`; with `format` the export
/// (`admin_export`, streamed a day at a time), its content types in docs/openapi/source.json.
/// Round trips: 0–1 (the filter's names) + 1 a day + 1 (the page's names, two batch reads side
/// by side).
pub async fn audit_log(
    Op(_): Op,
    State(s): State<AppState>,
    Params(q): Params,
) -> Result<OrDownload<audit_view::Page>, ApiError> {
    let filter = audit::Filter {
        from: q.get("from").cloned().unwrap_or_default(),
        to: q.get("to").cloned().unwrap_or_default(),
        actor: q.get("actor").cloned(),
        target: q.get("target").cloned(),
        action: q.get("action").cloned(),
    };
    if let Some(format) = q.get("format") {
        let filter = audit_view::resolved(&s.ciam, filter).await?;
        let file = super::admin_export::export(&s, filter, format).await?;
        return Ok(OrDownload::File(file));
    }
    Ok(OrDownload::Json(audit_view::page(&s.ciam, filter).await?))
}
