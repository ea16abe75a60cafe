/// Why one operation of a cancelled transaction did not apply.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CancelReason {
    /// This operation was fine; another one cancelled the transaction.
    None,
    /// Its condition did not hold.
    ConditionFailed,
    /// Another transaction was writing the same item at the same moment; retry.
    Conflict,
}

#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("the condition of the write did not hold")]
    ConditionFailed,
    #[error("the transaction was cancelled: {0:?}")]
    TxCanceled(Vec<CancelReason>),
    #[error("a concurrent write conflicted; retry")]
    Conflict,
    #[error("invalid request to the store: {0}")]
    Invalid(String),
    #[error("store backend failure: {0}")]
    Backend(String),
}

impl StoreError {
    /// True when the transaction failed because the condition of operation `index` did not hold.
    pub fn condition_failed_at(&self, index: usize) -> bool {
        matches!(self, StoreError::TxCanceled(r) if r.get(index) == Some(&CancelReason::ConditionFailed))
    }
}
