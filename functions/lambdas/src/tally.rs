//! The console's numbers counted from the table's stream (issue 30 item 9, docs/data-model.md
//! "The numbers", docs/cost.md): in AWS a password sign-in's success writes no counter on its
//! request (`Config::numbers_from_stream`, set by the init); its session item carries what is
//! counted (`numbers::TALLY_METHOD`, and `numbers::TALLY_NEWS` on its sign-in name's first
//! success of the day). The fan-out's event source mapping passes those inserts too (its third
//! filter, functions/gen/src/webhooks.rs), and the fan-out sets them apart from the events
//! ([`is_tallied`]) and hands the batch's sessions here once its events are sent: one
//! `numbers::tally` per batch, which writes a few `ADD`s on one random shard of the week's
//! (and the month's) counters whatever the batch size, after the user item's read (and at most
//! one conditional update) per session whose sign-in name was news today.
//!
//! Best effort, like every counter: a tally that fails or runs out of [`BUDGET`] is a warning
//! line, never a failed batch (the stream would hand the batch back, and the sessions counted
//! already would be counted twice, the events fanned out twice).

use ciam_core::Ciam;
use ciam_store::Item;
use std::future::Future;
use std::time::Duration;

/// How long one batch's tally may take of the fan-out's invocation (its timeout is 30 s; the
/// coalescing wait takes at most 6): a store that answers slowly gives up counting, not the
/// batch.
pub const BUDGET: Duration = Duration::from_secs(10);

/// Whether an inserted item is the tally's (a password sign-in's session carrying its count),
/// not an event to fan out.
pub fn is_tallied(item: &Item) -> bool {
    ciam_core::numbers::is_tallied(item)
}

/// Counts the sign-ins `sessions` carry by `tally` (the fan-out's: the pipeline's
/// `webhooks::Pipeline::tally` of them), within [`BUDGET`]; the number counted (0 when it
/// failed). Never an error: a failure is a warning.
pub async fn count(sessions: &[Item], tally: impl Future<Output = Result<usize, String>>) -> usize {
    if sessions.is_empty() {
        return 0;
    }
    match tokio::time::timeout(BUDGET, tally).await {
        Ok(Ok(n)) => {
            tracing::debug!(
                sessions = sessions.len(),
                counted = n,
                "numbers: sign-ins counted from the stream"
            );
            n
        }
        Ok(Err(e)) => {
            tracing::warn!(sessions = sessions.len(), error = %e,
                "numbers: the batch's sign-ins were not counted");
            0
        }
        Err(_) => {
            tracing::warn!(
                sessions = sessions.len(),
                budget_ms = u64::try_from(BUDGET.as_millis()).unwrap_or(u64::MAX),
                "numbers: counting the batch's sign-ins ran out of its budget (some not counted)"
            );
            0
        }
    }
}

/// The domain's tally (`numbers::tally_items`): round trips, for a batch of one day, 1 write of
/// the week's shard (and of the month's when an account's month is news), after 1 read and at
/// most 1 conditional update of the user item per session whose sign-in name was news today.
/// Its store failures are warnings of its own (each counter is best effort).
pub async fn tally_items(ciam: &Ciam, sessions: &[Item]) -> Result<usize, String> {
    Ok(ciam_core::numbers::tally_items(ciam, sessions).await)
}
