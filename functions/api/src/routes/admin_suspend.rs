//! Replacing a customer's bound mail or phone (admin, docs/console-design.md §5), after the
//! gate of its row (`extract::Op`, with a fresh proof). The other account actions are `admin.rs`'s.

use crate::error::ApiError;
use crate::extract::{Facts, Json, Op};
use crate::reply::{done, Done, Reply};
use crate::AppState;
use axum::extract::{Path, State};
use ciam_core::console::identity;
use serde::Deserialize;

/// The new mail, or the new phone, and the operator's reason.
#[derive(Deserialize)]
#[cfg_attr(feature = "openapi", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct IdentityBody {
    /// Why (required; recorded in the audit log).
    #[cfg_attr(feature = "openapi", schemars(length(max = 500)))]
    reason: String,
    /// The new mail (or give `phone`).
    mail: Option<String>,
    /// The new phone number, mainland China (or give `mail`).
    phone: Option<String>,
    /// The phone's country: `CN` (the only one supported).
    country: Option<String>,
}

/// Replace the bound mail or phone
///
/// Console: the session's account must hold the role `admin` (PERMISSION_DENIED), its sign-in must
/// have included a second factor (CONSOLE_MFA_REQUIRED), and the console must have been used or a
/// fresh proof made in the last 15 minutes (REAUTH_REQUIRED). Changes something: needs a fresh
/// proof at most 5 minutes old (REAUTH_REQUIRED). Replaces the account's mail (`mail`) or phone
/// (`phone`, `country`) in one transaction: the new one is taken (MAIL_EXIST / PHONE_EXIST when
/// another account has it), the old one released, the sessions end. A staff account's mail or an
/// internal address: EIAM_MAIL_PERMISSION_DENIED; the current value again, or neither or both of
/// `mail` and `phone`: INVALID_PARAMETER; a malformed value: INVALID_MAIL / INVALID_PHONE. The old
/// address is told by a notice. Recorded in the audit log (`account.replaceIdentity`) with the
/// reason given (required, at most 500 characters: INVALID_PARAMETER on `reason`), and in the
/// account's security activity (`identityReplacedBySupport`) (the audit entry's detail names the
/// kind and the masked old and new values). ACCOUNT_NOT_FOUND for an unknown or deactivated id.
///
/// Reasons: ACCOUNT_NOT_FOUND, EIAM_MAIL_PERMISSION_DENIED, INVALID_MAIL, INVALID_PHONE,
/// MAIL_EXIST, PHONE_EXIST.
///
/// Admin, a fresh proof. Round trips: 3, then the notice to the old address.
pub async fn replace_identity(
    Op(op): Op,
    State(s): State<AppState>,
    Facts(facts): Facts,
    Path(user_id): Path<String>,
    Json(b): Json<IdentityBody>,
) -> Result<Reply<Done>, ApiError> {
    let new = identity::new_identity(b.mail.as_deref(), b.phone.as_deref(), b.country.as_deref())?;
    identity::replace(&s.ciam, &op, &user_id, new, &b.reason, &facts).await?;
    Ok(done())
}
