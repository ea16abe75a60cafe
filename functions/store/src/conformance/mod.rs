//! The conformance suite: the same cases on every engine. An engine passes when `run_all`
//! returns; the first broken case panics with its name. Each case works in partitions of its
//! own (a random namespace), so one store serves the whole run.
//!
//! Test code behind the `testing` feature: a panic is how a case reports, so unwrap and expect
//! are allowed here (the workspace denies them elsewhere).
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod ctx;
mod items;
mod queries;
mod races;
mod tokens;
mod transactions;

use crate::{ManualClock, Store};
use ctx::Ctx;
use items::*;
use queries::*;
use races::*;
use std::sync::Arc;
use tokens::*;
use transactions::*;

macro_rules! case {
    ($name:ident) => {
        (stringify!($name), |c| Box::pin($name(c)))
    };
}

type CaseFn = fn(Arc<Ctx>) -> std::pin::Pin<Box<dyn std::future::Future<Output = ()> + Send>>;

pub async fn run_all(store: Arc<dyn Store>, clock: ManualClock) {
    store.ensure_schema().await.expect("ensure_schema");
    store
        .ensure_schema()
        .await
        .expect("ensure_schema is idempotent");
    let cases: Vec<(&str, CaseFn)> = vec![
        case!(put_then_get_round_trips_every_value_type),
        case!(get_of_a_missing_item_is_none),
        case!(conditional_put_if_absent_succeeds_once),
        case!(conditional_put_on_attribute_values),
        case!(conditional_update_and_delete),
        case!(update_creates_missing_items_and_returns_the_new_item),
        case!(atomic_counters_add_and_subtract),
        case!(update_or_current_answers_a_failed_condition_with_the_item),
        case!(remove_and_expiry_updates),
        case!(delete_of_a_missing_item_succeeds),
        case!(get_many_keeps_order_and_hides_missing_and_expired),
        case!(expired_items_are_absent_everywhere),
        case!(update_of_an_expired_item_starts_afresh),
        case!(transaction_applies_all_operations),
        case!(transaction_is_all_or_nothing_with_per_item_reasons),
        case!(transaction_check_on_expired_items),
        case!(transaction_rejects_touching_one_item_twice),
        case!(query_orders_filters_by_prefix_and_limits),
        case!(query_skips_expired_items_and_still_fills_the_limit),
        case!(query_pages_after_a_sort_key_both_ways),
        case!(a_prefix_is_a_range_that_holds_every_continuation),
        case!(reserved_attribute_names_are_rejected),
        case!(racing_conditional_puts_have_exactly_one_winner),
        case!(racing_conditional_updates_have_exactly_one_winner),
        case!(racing_transactions_have_exactly_one_winner),
        case!(concurrent_counter_increments_are_not_lost),
        case!(failures_are_read_as_their_kind),
        case!(a_token_write_applies_once_whatever_the_retries),
        case!(a_token_is_recognised_after_four_other_writes),
        case!(a_token_write_with_a_false_condition_is_refused),
        case!(a_token_write_on_an_absent_item_creates_it),
        case!(a_token_write_on_an_expired_item_starts_afresh),
        case!(the_token_ring_is_engine_owned),
        case!(a_scan_finds_every_live_item_of_a_prefix_and_sort_key),
    ];
    for (i, (name, f)) in cases.into_iter().enumerate() {
        let ctx = Arc::new(Ctx {
            store: store.clone(),
            clock: clock.clone(),
            ns: format!("conf{}-{i}", std::process::id()),
        });
        eprintln!("conformance: {name}");
        f(ctx).await;
    }
}
