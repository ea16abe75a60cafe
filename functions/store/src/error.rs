/// Why one operation of a cancelled transaction did not apply.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CancelReason {
    /// This operation was fine; another one cancelled the transaction.
    None,
    /// Its condition did not hold.
    ConditionFailed,
    /// It was throttled or met another transaction on its item (beside an operation whose
    /// condition did not hold; without one the transaction is `Throttled` or `Conflict`).
    Conflict,
}

/// The kind of a [`StoreError`] (`StoreError::failure_kind`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FailureKind {
    Condition,
    Conflict,
    Throttled,
    Unavailable,
    Invalid,
    Backend,
}

impl FailureKind {
    /// Its name in logs and metrics.
    pub fn as_str(self) -> &'static str {
        match self {
            FailureKind::Condition => "condition",
            FailureKind::Conflict => "conflict",
            FailureKind::Throttled => "throttled",
            FailureKind::Unavailable => "unavailable",
            FailureKind::Invalid => "invalid",
            FailureKind::Backend => "backend",
        }
    }
}

/// The store contract's failures, in three kinds (`kind()`):
///
/// - a condition that was evaluated and did not hold: `ConditionFailed` (one item) or
///   `TxCanceled` (a transaction; at least one of its reasons is `ConditionFailed`). Only these
///   are a verdict on the data, which the domain may answer with a refusal of its own;
/// - retryable (`is_retryable()`): `Conflict`, `Throttled`, `Unavailable`. Nothing says the
///   data is other than expected; the caller answers 503 with Retry-After;
/// - permanent: `Invalid` (the request is wrong), `Backend` (anything else).
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("the condition of the write did not hold")]
    ConditionFailed,
    /// A transaction of which at least one operation failed its condition (the engines never
    /// report a cancellation without one this way: see `Throttled` and `Conflict`).
    #[error("the transaction was cancelled: {0:?}")]
    TxCanceled(Vec<CancelReason>),
    /// Another transaction was writing the same item at the same moment (DynamoDB's
    /// `TransactionConflict`, as an exception or as the reasons of a cancelled transaction).
    #[error("a concurrent write conflicted; retry")]
    Conflict,
    /// The backend refused the request for its rate: DynamoDB's `ThrottlingException`,
    /// `ProvisionedThroughputExceededException`, `RequestLimitExceeded`, or a transaction
    /// cancelled with `ThrottlingError` / `ProvisionedThroughputExceeded` among its reasons.
    #[error("the store is throttling: {0}")]
    Throttled(String),
    #[error("invalid request to the store: {0}")]
    Invalid(String),
    #[error("store backend failure: {0}")]
    Backend(String),
    /// The store could not be reached in time: a connect timeout, a failed dispatch (refused,
    /// reset, DNS), an operation timeout, the service's own 5xx, or (SQLite) a database that
    /// stayed busy or locked or could not be opened. Transient: the caller answers 503 with
    /// Retry-After.
    #[error("the store is unavailable: {0}")]
    Unavailable(String),
}

impl StoreError {
    /// True when the store could not be reached in time (see [`StoreError::Unavailable`]).
    pub fn is_unavailable(&self) -> bool {
        matches!(self, StoreError::Unavailable(_))
    }

    /// True when the failure says nothing about the data and the same request may succeed
    /// later: a conflict, a throttle, a store that could not be reached.
    pub fn is_retryable(&self) -> bool {
        matches!(
            self,
            StoreError::Conflict | StoreError::Throttled(_) | StoreError::Unavailable(_)
        )
    }

    /// True when a condition was evaluated and did not hold (of the item, or of at least one
    /// operation of the transaction).
    pub fn is_condition_failed(&self) -> bool {
        match self {
            StoreError::ConditionFailed => true,
            StoreError::TxCanceled(r) => r.contains(&CancelReason::ConditionFailed),
            _ => false,
        }
    }

    /// The failure's kind, for logs and metrics: `condition`, `conflict`, `throttled`,
    /// `unavailable`, `invalid` or `backend`.
    pub fn kind(&self) -> &'static str {
        self.failure_kind().as_str()
    }

    /// The failure's kind, as a value small enough to travel with a domain error.
    pub fn failure_kind(&self) -> FailureKind {
        match self {
            StoreError::ConditionFailed | StoreError::TxCanceled(_) => FailureKind::Condition,
            StoreError::Conflict => FailureKind::Conflict,
            StoreError::Throttled(_) => FailureKind::Throttled,
            StoreError::Unavailable(_) => FailureKind::Unavailable,
            StoreError::Invalid(_) => FailureKind::Invalid,
            StoreError::Backend(_) => FailureKind::Backend,
        }
    }

    /// True when the transaction failed because the condition of operation `index` did not hold.
    pub fn condition_failed_at(&self, index: usize) -> bool {
        matches!(self, StoreError::TxCanceled(r) if r.get(index) == Some(&CancelReason::ConditionFailed))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_conditions_that_did_not_hold_are_condition_failures() {
        use CancelReason as R;
        assert!(StoreError::ConditionFailed.is_condition_failed());
        assert!(StoreError::TxCanceled(vec![R::None, R::ConditionFailed]).is_condition_failed());
        assert!(!StoreError::TxCanceled(vec![R::None, R::Conflict]).is_condition_failed());
        for e in [
            StoreError::Conflict,
            StoreError::Throttled("t".into()),
            StoreError::Unavailable("u".into()),
            StoreError::Invalid("i".into()),
            StoreError::Backend("b".into()),
        ] {
            assert!(!e.is_condition_failed(), "{e:?}");
        }
    }

    #[test]
    fn conflicts_throttles_and_outages_are_retryable_and_nothing_else() {
        let retryable = [
            StoreError::Conflict,
            StoreError::Throttled("t".into()),
            StoreError::Unavailable("u".into()),
        ];
        for e in &retryable {
            assert!(e.is_retryable(), "{e:?}");
        }
        for e in [
            StoreError::ConditionFailed,
            StoreError::TxCanceled(vec![CancelReason::ConditionFailed]),
            StoreError::Invalid("i".into()),
            StoreError::Backend("b".into()),
        ] {
            assert!(!e.is_retryable(), "{e:?}");
        }
        let kinds: Vec<_> = retryable.iter().map(StoreError::kind).collect();
        assert_eq!(kinds, ["conflict", "throttled", "unavailable"]);
    }
}
