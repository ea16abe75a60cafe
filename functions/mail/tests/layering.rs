//! The layering and size checks of `ciam_mail` (issue 31's rules for every crate): no files of it
//! import each other, directly or round a longer circle, and none is over 500 lines without a
//! reason on its first line. The checker is the one every crate shares (core's `layering.rs`).

#[path = "../../core/src/layering.rs"]
mod layering;
#[macro_use]
#[path = "../../core/src/shape_tests.rs"]
mod shape_tests;

crate_shape_tests!(
    |g| g["relay.rs"].contains("message.rs") && g["notifier.rs"].contains("relay.rs")
);
