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
    /// The store could not be reached in time: a connect timeout, a failed dispatch (refused,
    /// reset, DNS), an operation timeout, the service's own 5xx, or (SQLite) a database that
    /// stayed busy or could not be opened. Transient: the caller answers 503 with Retry-After.
    #[error("the store is unavailable: {0}")]
    Unavailable(String),
}

impl StoreError {
    /// True when the store could not be reached in time (see [`StoreError::Unavailable`]).
    pub fn is_unavailable(&self) -> bool {
        matches!(self, StoreError::Unavailable(_))
    }

    /// True when the transaction failed because the condition of operation `index` did not hold.
    pub fn condition_failed_at(&self, index: usize) -> bool {
        matches!(self, StoreError::TxCanceled(r) if r.get(index) == Some(&CancelReason::ConditionFailed))
    }
}
