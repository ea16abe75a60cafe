//! The support desk's notes on an account (docs/console-design.md §5), after the gate of its
//! row (`extract::Op`, with a fresh proof); the rules are `ciam_core::console::notes`'s.

use crate::error::ApiError;
use crate::extract::{Facts, Json, Op};
use crate::reply::Reply;
use crate::AppState;
use axum::extract::{Path, State};
use ciam_core::console::notes::{self, Notes};
use serde::{Deserialize, Serialize};

/// The desk's new text for the account.
#[derive(Deserialize)]
#[cfg_attr(feature = "openapi", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct NotesBody {
    /// The whole text (empty removes the notes).
    #[cfg_attr(feature = "openapi", schemars(length(max = 2000)))]
    notes: String,
}

/// The notes as saved.
#[derive(Serialize)]
#[cfg_attr(feature = "openapi", derive(schemars::JsonSchema))]
pub struct NotesSaved {
    /// None once emptied.
    notes: Option<Notes>,
}

/// Save the support notes
///
/// Console: the session's account must hold the role `operator` or above (PERMISSION_DENIED), its
/// sign-in must have included a second factor (CONSOLE_MFA_REQUIRED), and the console must have
/// been used or a fresh proof made in the last 15 minutes (REAUTH_REQUIRED). Changes something:
/// needs a fresh proof at most 5 minutes old (REAUTH_REQUIRED). Replaces the support desk's notes
/// on the account (trimmed; empty removes them) and records the operator and the time; the
/// customer never sees them, and they are deleted with the account. Over 2,000 characters or with
/// invisible characters: INVALID_PARAMETER on `notes`. Recorded in the audit log
/// (`account.notes`, detail: the length) in the same transaction. ACCOUNT_NOT_FOUND for an
/// unknown or deactivated id.
///
/// Reasons: ACCOUNT_NOT_FOUND.
///
/// Round trips: 3 (authentication, the account, one transaction).
pub async fn save(
    Op(op): Op,
    State(s): State<AppState>,
    Facts(facts): Facts,
    Path(user_id): Path<String>,
    Json(b): Json<NotesBody>,
) -> Result<Reply<NotesSaved>, ApiError> {
    let notes = notes::save(&s.ciam, &op, &user_id, &b.notes, &facts).await?;
    Ok(Reply(NotesSaved { notes }))
}
