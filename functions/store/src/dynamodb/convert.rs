//! Items and values to and from DynamoDB attribute values, and SDK errors to `StoreError`.

use crate::{reserved, Attrs, Item, Key, StoreError, Token, Value, EXPIRES_AT, PK, RING_ATTRS, SK};
use aws_sdk_dynamodb::config::http::HttpResponse;
use aws_sdk_dynamodb::error::{DisplayErrorContext, ProvideErrorMetadata, SdkError};
use aws_sdk_dynamodb::primitives::Blob;
use aws_sdk_dynamodb::types::AttributeValue;
use std::collections::{BTreeMap, HashMap};

pub(crate) type AvMap = HashMap<String, AttributeValue>;

pub(crate) fn to_av(v: &Value) -> AttributeValue {
    match v {
        Value::S(s) => AttributeValue::S(s.clone()),
        Value::N(n) => AttributeValue::N(n.to_string()),
        Value::Bool(b) => AttributeValue::Bool(*b),
        Value::B(b) => AttributeValue::B(Blob::new(b.clone())),
        Value::L(l) => AttributeValue::L(l.iter().map(to_av).collect()),
        Value::M(m) => AttributeValue::M(m.iter().map(|(k, v)| (k.clone(), to_av(v))).collect()),
    }
}

fn bad(what: &str) -> StoreError {
    StoreError::Backend(format!("unexpected attribute in the table: {what}"))
}

fn number(n: &str) -> Result<i64, StoreError> {
    n.parse()
        .map_err(|_| bad("a number that is not a 64-bit integer"))
}

pub(crate) fn from_av(av: &AttributeValue) -> Result<Value, StoreError> {
    Ok(match av {
        AttributeValue::S(s) => Value::S(s.clone()),
        AttributeValue::N(n) => Value::N(number(n)?),
        AttributeValue::Bool(b) => Value::Bool(*b),
        AttributeValue::B(b) => Value::B(b.as_ref().to_vec()),
        AttributeValue::L(l) => Value::L(l.iter().map(from_av).collect::<Result<_, _>>()?),
        AttributeValue::M(m) => Value::M(
            m.iter()
                .map(|(k, v)| Ok((k.clone(), from_av(v)?)))
                .collect::<Result<BTreeMap<_, _>, StoreError>>()?,
        ),
        _ => return Err(bad("a type the store does not use")),
    })
}

pub(crate) fn key_map(key: &Key) -> AvMap {
    HashMap::from([
        (PK.to_owned(), AttributeValue::S(key.pk.clone())),
        (SK.to_owned(), AttributeValue::S(key.sk.clone())),
    ])
}

pub(crate) fn item_map(item: &Item) -> AvMap {
    let mut m = key_map(&item.key);
    for (k, v) in &item.attrs {
        m.insert(k.clone(), to_av(v));
    }
    if let Some(t) = item.expires_at {
        m.insert(EXPIRES_AT.to_owned(), AttributeValue::N(t.to_string()));
    }
    m
}

fn string(m: &AvMap, name: &str) -> Result<String, StoreError> {
    match m.get(name) {
        Some(AttributeValue::S(s)) => Ok(s.clone()),
        _ => Err(bad("an item without a string key")),
    }
}

/// The item as stored, live or not, as callers see it: without the engine's own attributes
/// (keys and expiry are fields of `Item`; the token ring is not shown).
pub(crate) fn item_from_map(m: &AvMap) -> Result<Item, StoreError> {
    let key = Key {
        pk: string(m, PK)?,
        sk: string(m, SK)?,
    };
    let expires_at = match m.get(EXPIRES_AT) {
        None => None,
        Some(AttributeValue::N(n)) => Some(number(n)?),
        Some(_) => return Err(bad("an expiry that is not a number")),
    };
    let mut attrs = Attrs::new();
    for (k, v) in m {
        if !reserved(k) {
            attrs.insert(k.clone(), from_av(v)?);
        }
    }
    Ok(Item {
        key,
        attrs,
        expires_at,
    })
}

/// Whether the stored item's token ring holds `token`.
pub(crate) fn ring_holds(m: &AvMap, token: &Token) -> bool {
    RING_ATTRS
        .iter()
        .any(|n| matches!(m.get(*n), Some(AttributeValue::S(s)) if *s == token.0))
}

/// The item when it is live at `now`.
pub(crate) fn live_item(m: Option<&AvMap>, now: i64) -> Result<Option<Item>, StoreError> {
    Ok(m.map(item_from_map).transpose()?.filter(|i| i.is_live(now)))
}

/// Codes DynamoDB uses when it refuses a request for its rate: retry later.
pub(crate) const THROTTLED: [&str; 3] = [
    "ThrottlingException",
    "ProvisionedThroughputExceededException",
    "RequestLimitExceeded",
];

/// Codes DynamoDB uses when another write was busy with the same item: retry. Among them
/// `TransactionInProgressException`: the SDK sent a transaction again with its
/// `ClientRequestToken` after the connection dropped, and the first one (maybe committed) was
/// still being processed; it was answered 500 (a `Backend` error) until issue 30, where every
/// other lost answer is 503 with its way forward (docs/api.md "After a 503").
pub(crate) const CONFLICT: [&str; 3] = [
    "TransactionConflictException",
    "ReplicatedWriteConflictException",
    "TransactionInProgressException",
];

/// Whether a single-item write failed on its condition (`ConditionalCheckFailedException`).
pub(crate) fn condition_failed<E: ProvideErrorMetadata>(err: &SdkError<E, HttpResponse>) -> bool {
    err.code() == Some("ConditionalCheckFailedException")
}

/// Maps an SDK failure. Messages carry the operation, the error code and DynamoDB's message,
/// never request contents or credentials.
pub(crate) fn sdk_error<E>(op: &str, err: &SdkError<E, HttpResponse>) -> StoreError
where
    E: ProvideErrorMetadata + std::error::Error + 'static,
{
    if let Some(why) = unreachable(err) {
        return StoreError::Unavailable(format!("{op}: {why}: {}", DisplayErrorContext(err)));
    }
    match err.code() {
        Some(code) if THROTTLED.contains(&code) => StoreError::Throttled(format!("{op}: {code}")),
        Some(code) if CONFLICT.contains(&code) => StoreError::Conflict,
        Some("ValidationException") => StoreError::Invalid(format!(
            "{op}: {}",
            err.message().unwrap_or("the request was rejected")
        )),
        _ => StoreError::Backend(format!("{op}: {}", DisplayErrorContext(err))),
    }
}

/// Why the store could not be reached in time, if that is what happened: the connection was
/// not made (refused, reset, DNS, connect timeout), the operation timed out, the answer broke
/// off, DynamoDB itself answered 5xx after the retries, or what answered is not DynamoDB (no
/// error code: a proxy's or load balancer's page).
fn unreachable<E>(err: &SdkError<E, HttpResponse>) -> Option<&'static str>
where
    E: ProvideErrorMetadata,
{
    match err {
        SdkError::TimeoutError(_) => Some("no answer within the timeout"),
        SdkError::DispatchFailure(d) if d.is_timeout() => Some("connect timeout"),
        SdkError::DispatchFailure(d) if !d.is_user() => Some("the request could not be sent"),
        SdkError::ResponseError(_) => Some("the answer broke off"),
        SdkError::ServiceError(s) if s.raw().status().is_server_error() => {
            Some("DynamoDB is unavailable")
        }
        SdkError::ServiceError(_) if err.code().is_none() => Some("the endpoint is not DynamoDB"),
        _ => None,
    }
}

pub(crate) fn build_error(err: aws_sdk_dynamodb::error::BuildError) -> StoreError {
    StoreError::Backend(format!("building a DynamoDB request: {err}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn items_round_trip() {
        let item = Item::new(Key::new("p", "s"))
            .with("s", "x")
            .with("n", -42)
            .with("b", true)
            .with("bin", Value::B(vec![0, 1, 255]))
            .with("l", Value::L(vec![Value::N(1), Value::S("a".into())]))
            .with(
                "m",
                Value::M(BTreeMap::from([("k".to_owned(), Value::Bool(false))])),
            )
            .expires(1_900_000_000);
        let m = item_map(&item);
        assert_eq!(
            m.get(EXPIRES_AT),
            Some(&AttributeValue::N("1900000000".into()))
        );
        assert_eq!(item_from_map(&m).ok(), Some(item.clone()));
        assert_eq!(live_item(Some(&m), 1_900_000_000).ok(), Some(None));
        assert_eq!(
            live_item(Some(&m), 1_899_999_999).ok(),
            Some(Some(item.clone()))
        );
        // The token ring is read, never shown.
        let mut with_ring = m.clone();
        with_ring.insert("tok0".into(), AttributeValue::S("t".into()));
        with_ring.insert("tok1".into(), AttributeValue::S(String::new()));
        assert!(ring_holds(&with_ring, &Token::new("t")));
        assert!(!ring_holds(&with_ring, &Token::new("u")));
        assert!(!ring_holds(&m, &Token::new("t")));
        assert_eq!(item_from_map(&with_ring).ok(), Some(item));
    }
}
