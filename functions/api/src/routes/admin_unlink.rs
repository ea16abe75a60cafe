//! Unlinking a customer's linked identity from the console (docs/federation-design.md §4.4),
//! after the gate of its row (`extract::Op`, with a fresh proof); the rules are
//! `ciam_core::console::unlink`'s, the customer's own removal `identities.rs`.

use crate::error::ApiError;
use crate::extract::{Facts, Json, Op};
use crate::reply::{done, Done, Reply};
use crate::AppState;
use axum::extract::{Path, State};
use ciam_core::console::unlink;
use serde::Deserialize;

/// The provider to unlink and the operator's reason.
#[derive(Deserialize)]
#[cfg_attr(feature = "openapi", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct UnlinkBody {
    /// the provider's name (`wechat`, ...)
    provider: String,
    /// Why (required; recorded in the audit log).
    #[cfg_attr(feature = "openapi", schemars(length(max = 500)))]
    reason: String,
}

/// Unlink a customer's linked identity
///
/// Console: the session's account must hold the role `operator` or above (PERMISSION_DENIED), its
/// sign-in must have included a second factor (CONSOLE_MFA_REQUIRED), and the console must have
/// been used or a fresh proof made in the last 15 minutes (REAUTH_REQUIRED). Changes something:
/// needs a fresh proof at most 5 minutes old (REAUTH_REQUIRED). Removes the account's link to
/// the provider as the customer's own removal does (never the last way in:
/// FEDERATION_LAST_WAY_IN), with the activity entry `identityUnlinkedBySupport` and the partner
/// event `user.identity_changed`; the customer is told by a notice. An account without that
/// link changes nothing (only the audit entry, detail `nothing to change`); a provider that
/// does not link (staff) or is unknown: INVALID_PARAMETER on `provider`. Recorded in the audit log (`account.unlinkIdentity`, detail
/// `provider: <name>`) with the reason given (required, at most 500 characters:
/// INVALID_PARAMETER on `reason`). ACCOUNT_NOT_FOUND for an unknown or deactivated id.
///
/// Reasons: ACCOUNT_NOT_FOUND, FEDERATION_LAST_WAY_IN.
///
/// Round trips: 4 (authentication, the user, its link, one transaction), then the notice.
pub async fn unlink_identity(
    Op(op): Op,
    State(s): State<AppState>,
    Facts(facts): Facts,
    Path(user_id): Path<String>,
    Json(b): Json<UnlinkBody>,
) -> Result<Reply<Done>, ApiError> {
    unlink::unlink_identity(&s.ciam, &op, &user_id, &b.provider, &b.reason, &facts).await?;
    Ok(done())
}
