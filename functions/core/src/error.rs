use crate::Reason;
use ciam_store::StoreError;
use std::borrow::Cow;

/// A domain failure: a stable reason for the client, and optionally the field at fault, a
/// message that replaces the catalogue text (the unlock time of a lock, the rule a field broke),
/// extra data for the client (a challenge), and an internal cause that only reaches the log.
#[derive(Debug, Clone, PartialEq)]
pub struct Error {
    pub reason: Reason,
    pub field: Option<Cow<'static, str>>,
    pub message: Option<Message>,
    pub challenge: Option<String>,
    pub cause: Option<String>,
    /// The kind of store failure behind it (`StoreError::kind`), for the log and the metrics.
    pub store_kind: Option<ciam_store::FailureKind>,
}

/// A message tailored to the failure, in both languages, or a fixed value (e.g. unix seconds).
#[derive(Debug, Clone, PartialEq)]
pub enum Message {
    Text {
        zh: &'static str,
        en: &'static str,
    },
    Raw(String),
    /// The catalogue's text, and the other cell's origin for the body's `otherCell`
    /// (PHONE_MAINLAND_SERVICE_ONLY, `cell::sign_up_here`). A message variant rather than a field
    /// of `Error`, which stays as small as it was.
    OtherCell(String),
    /// The catalogue's text, and the connection the address must sign in through for the
    /// body's `connection` (ORG_SIGN_IN_REQUIRED, `domains::sign_in::refusal`).
    Connection(String),
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    pub fn new(reason: Reason) -> Self {
        Error {
            reason,
            field: None,
            message: None,
            challenge: None,
            cause: None,
            store_kind: None,
        }
    }

    /// INVALID_PARAMETER (or another reason) naming the field and the rule it broke.
    pub fn field(reason: Reason, field: &'static str, zh: &'static str, en: &'static str) -> Self {
        Error {
            field: Some(Cow::Borrowed(field)),
            message: Some(Message::Text { zh, en }),
            ..Error::new(reason)
        }
    }

    pub fn internal(cause: impl std::fmt::Display) -> Self {
        Error {
            cause: Some(cause.to_string()),
            ..Error::new(Reason::INTERNAL_SERVER_ERROR)
        }
    }

    pub fn raw_message(mut self, m: impl Into<String>) -> Self {
        self.message = Some(Message::Raw(m.into()));
        self
    }
}

impl From<Reason> for Error {
    fn from(r: Reason) -> Self {
        Error::new(r)
    }
}

impl From<StoreError> for Error {
    fn from(e: StoreError) -> Self {
        // Retryable: a concurrent write, a throttle, a store that could not be reached in time.
        // Nothing says the data is other than expected: the API answers 503 with Retry-After.
        if e.is_retryable() {
            return Error {
                cause: Some(format!("store {}: {e}", e.kind())),
                store_kind: Some(e.failure_kind()),
                ..Error::new(Reason::SERVICE_UNAVAILABLE)
            };
        }
        Error {
            store_kind: Some(e.failure_kind()),
            ..Error::internal(e)
        }
    }
}

/// A store write that can lose a race: its condition no longer held (`ConditionFailed`), or an
/// operation of its transaction failed its condition (`TxCanceled`). Only such a verdict on the
/// data is a lost race; any other store failure (a throttle, a conflict, an outage) is passed on
/// unchanged, so `?` maps it as it maps every store error (503 when retryable, 500 otherwise).
pub(crate) trait LostRace<T> {
    /// A lost race becomes `lost` (usually a [`Reason`]).
    fn or_reason(self, lost: impl Into<Error>) -> Result<T>;
    /// `Some` when the write applied, `None` when it lost the race.
    fn won(self) -> Result<Option<T>, StoreError>;
}

impl<T> LostRace<T> for Result<T, StoreError> {
    fn or_reason(self, lost: impl Into<Error>) -> Result<T> {
        match self.won() {
            Ok(Some(v)) => Ok(v),
            Ok(None) => Err(lost.into()),
            Err(e) => Err(e.into()),
        }
    }

    fn won(self) -> Result<Option<T>, StoreError> {
        match self {
            Ok(v) => Ok(Some(v)),
            Err(e) if e.is_condition_failed() => Ok(None),
            Err(e) => Err(e),
        }
    }
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.reason)?;
        if let Some(field) = &self.field {
            write!(f, " ({field})")?;
        }
        if let Some(c) = &self.cause {
            write!(f, ": {c}")?;
        }
        Ok(())
    }
}

impl std::error::Error for Error {}
