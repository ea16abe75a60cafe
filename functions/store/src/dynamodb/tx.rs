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

/// The reasons of a cancelled transaction, one per operation, in order.
pub(super) fn canceled(e: &TransactionCanceledException, n: usize) -> StoreError {
    let raw = e.cancellation_reasons();
    if let Some(r) = raw.iter().find(|r| r.code() == Some("ValidationError")) {
        // Not a race: the request itself is wrong (e.g. adding to a non-number).
        return StoreError::Invalid(format!(
            "TransactWriteItems: {}",
            r.message().unwrap_or("an operation was rejected")
        ));
    }
    let mut reasons: Vec<CancelReason> = raw
        .iter()
        .map(|r| match r.code() {
            Some("None") | None => CancelReason::None,
            Some("ConditionalCheckFailed") => CancelReason::ConditionFailed,
            Some(_) => CancelReason::Conflict,
        })
        .collect();
    if reasons.len() != n {
        reasons.resize(n, CancelReason::Conflict);
    }
    StoreError::TxCanceled(reasons)
}
