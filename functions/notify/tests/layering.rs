//! The layering and size checks of `ciam_notify`: no files import each other in a circle, and
//! none is over 500 lines without a reason on its first line. The checker is the one every
//! crate shares (core's `layering.rs`, included by path).

#[path = "../../core/src/layering.rs"]
mod layering;
#[macro_use]
#[path = "../../core/src/shape_tests.rs"]
mod shape_tests;

crate_shape_tests!(|g| g["aliyun.rs"].contains("sign.rs") && g["failover.rs"].is_empty());
