//! The layering and size checks of the Lambda crate (issue 31): no files of `ciam_lambdas` import each other, directly or round a longer
//! circle, and none is over 500 lines without a reason on its first line. The checker is the one
//! every crate shares (core's `layering.rs`, included by path; its fixtures are core's).

#[path = "../../core/src/layering.rs"]
mod layering;
#[macro_use]
#[path = "../../core/src/shape_tests.rs"]
mod shape_tests;

crate_shape_tests!(
    |g| g["init.rs"].contains("key_refresh.rs") && g["webhooks/mod.rs"].contains("tally.rs")
);
