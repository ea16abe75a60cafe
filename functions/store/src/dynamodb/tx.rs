//! TransactWriteItems: one write item per operation, and the reasons of a cancellation.

use super::convert::{build_error, item_map, key_map};
use super::expr::{self, Expr, Placeholders};
use crate::{CancelReason, StoreError, TxOp};
use aws_sdk_dynamodb::types::error::TransactionCanceledException;
use aws_sdk_dynamodb::types::{ConditionCheck, Delete, Put, TransactWriteItem, Update};

/// The write item of one operation, its condition seeing the live item at `now`.
pub(super) fn item(table: &str, op: &TxOp, now: i64) -> Result<TransactWriteItem, StoreError> {
    let mut p = Placeholders::default();
    let item = match op {
        TxOp::Put { item, cond } => {
            let condition = expr::cond(cond.as_ref(), &mut p, now).condition(&mut p);
            let (names, values) = p.into_parts();
            let put = Put::builder()
                .table_name(table)
                .set_item(Some(item_map(item)))
                .set_condition_expression(condition)
                .set_expression_attribute_names(names)
                .set_expression_attribute_values(values)
                .build()
                .map_err(build_error)?;
            TransactWriteItem::builder().put(put).build()
        }
        TxOp::Update { key, ops, cond } => {
            let update = expr::update(ops, &mut p)?;
            // An expired leftover cannot be replaced atomically: the update is cancelled.
            let guard = Expr::and(vec![
                expr::not_stale(&mut p, now),
                expr::cond(cond.as_ref(), &mut p, now),
            ]);
            let condition = guard.condition(&mut p);
            let (names, values) = p.into_parts();
            let update = Update::builder()
                .table_name(table)
                .set_key(Some(key_map(key)))
                .update_expression(update)
                .set_condition_expression(condition)
                .set_expression_attribute_names(names)
                .set_expression_attribute_values(values)
                .build()
                .map_err(build_error)?;
            TransactWriteItem::builder().update(update).build()
        }
        TxOp::Delete { key, cond } => {
            let condition = expr::cond(cond.as_ref(), &mut p, now).condition(&mut p);
            let (names, values) = p.into_parts();
            let delete = Delete::builder()
                .table_name(table)
                .set_key(Some(key_map(key)))
                .set_condition_expression(condition)
                .set_expression_attribute_names(names)
                .set_expression_attribute_values(values)
                .build()
                .map_err(build_error)?;
            TransactWriteItem::builder().delete(delete).build()
        }
        TxOp::Check { key, cond } => {
            let condition = expr::cond(Some(cond), &mut p, now).required(&mut p);
            let (names, values) = p.into_parts();
            let check = ConditionCheck::builder()
                .table_name(table)
                .set_key(Some(key_map(key)))
                .condition_expression(condition)
                .set_expression_attribute_names(names)
                .set_expression_attribute_values(values)
                .build()
                .map_err(build_error)?;
            TransactWriteItem::builder().condition_check(check).build()
        }
    };
    Ok(item)
}

/// Cancellation codes DynamoDB gives an operation it refused for its rate.
const THROTTLED: [&str; 3] = [
    "ThrottlingError",
    "ProvisionedThroughputExceeded",
    "RequestLimitExceeded",
];

/// What a cancelled transaction means, from its reasons (one per operation, in order):
///
/// - a request DynamoDB found wrong (`ValidationError`): `Invalid`;
/// - else an operation whose condition did not hold (`ConditionalCheckFailed`): `TxCanceled`, one
///   reason per operation; a verdict on the data, whatever happened to the other operations;
/// - else a reason the store does not expect (`ItemCollectionSizeLimitExceeded`, an unknown
///   code): `Backend`;
/// - else an operation throttled (`ThrottlingError`, `ProvisionedThroughputExceeded`,
///   `RequestLimitExceeded`): `Throttled`; one that met another transaction
///   (`TransactionConflict`), or no reason at all: `Conflict`. Nothing was written: retryable.
pub(super) fn canceled(e: &TransactionCanceledException, n: usize) -> StoreError {
    let raw = e.cancellation_reasons();
    if let Some(r) = raw.iter().find(|r| r.code() == Some("ValidationError")) {
        // Not a race: the request itself is wrong (e.g. adding to a non-number).
        return StoreError::Invalid(format!(
            "TransactWriteItems: {}",
            r.message().unwrap_or("an operation was rejected")
        ));
    }
    let mut reasons = Vec::with_capacity(n.max(raw.len()));
    let (mut throttled, mut unexpected) = (None, None);
    for r in raw {
        reasons.push(match r.code() {
            Some("None") | None => CancelReason::None,
            Some("ConditionalCheckFailed") => CancelReason::ConditionFailed,
            Some("TransactionConflict") => CancelReason::Conflict,
            Some(code) if THROTTLED.contains(&code) => {
                throttled = throttled.or(Some(code));
                CancelReason::Conflict
            }
            Some(_) => {
                unexpected = unexpected.or(Some(r));
                CancelReason::Conflict
            }
        });
    }
    if reasons.contains(&CancelReason::ConditionFailed) {
        reasons.resize(n, CancelReason::Conflict);
        return StoreError::TxCanceled(reasons);
    }
    if let Some(r) = unexpected {
        return StoreError::Backend(format!(
            "TransactWriteItems cancelled: {}: {}",
            r.code().unwrap_or_default(),
            r.message().unwrap_or("an operation was rejected")
        ));
    }
    match throttled {
        Some(code) => StoreError::Throttled(format!("TransactWriteItems cancelled: {code}")),
        None => StoreError::Conflict,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use aws_sdk_dynamodb::types::CancellationReason;

    fn cancelled(codes: &[&str]) -> StoreError {
        let e = TransactionCanceledException::builder()
            .set_cancellation_reasons(Some(
                codes
                    .iter()
                    .map(|c| {
                        CancellationReason::builder()
                            .code(*c)
                            .message("why")
                            .build()
                    })
                    .collect(),
            ))
            .build();
        canceled(&e, codes.len())
    }

    #[test]
    fn a_condition_that_did_not_hold_is_a_cancellation_with_per_item_reasons() {
        let e = cancelled(&["None", "ConditionalCheckFailed", "None"]);
        assert!(e.condition_failed_at(1), "{e:?}");
        assert!(!e.condition_failed_at(0) && !e.is_retryable(), "{e:?}");
        // A real verdict stays one even when another operation was throttled.
        let e = cancelled(&["ThrottlingError", "ConditionalCheckFailed"]);
        assert!(
            e.condition_failed_at(1) && !e.condition_failed_at(0),
            "{e:?}"
        );
    }

    #[test]
    fn a_throttled_transaction_is_retryable_never_a_failed_condition() {
        for code in THROTTLED {
            let e = cancelled(&["None", code, "None"]);
            assert!(matches!(e, StoreError::Throttled(_)), "{code}: {e:?}");
            assert!(
                e.is_retryable() && !e.is_condition_failed(),
                "{code}: {e:?}"
            );
            assert!((0..3).all(|i| !e.condition_failed_at(i)), "{code}: {e:?}");
        }
        let e = cancelled(&["TransactionConflict", "ThrottlingError"]);
        assert!(matches!(e, StoreError::Throttled(_)), "{e:?}");
    }

    #[test]
    fn a_conflicting_transaction_is_retryable_never_a_failed_condition() {
        let e = cancelled(&["None", "TransactionConflict"]);
        assert!(matches!(e, StoreError::Conflict), "{e:?}");
        // No reasons at all: nothing says a condition failed.
        assert!(matches!(cancelled(&[]), StoreError::Conflict));
    }

    #[test]
    fn a_rejected_request_is_permanent() {
        let e = cancelled(&["None", "ValidationError"]);
        assert!(matches!(e, StoreError::Invalid(_)), "{e:?}");
        let e = cancelled(&["ItemCollectionSizeLimitExceeded", "None"]);
        assert!(matches!(e, StoreError::Backend(_)), "{e:?}");
        assert!(!e.is_retryable(), "{e:?}");
    }
}
