//! No files of `ciam_api` import each other in a circle (issues 19 §1.4 and 31): `error` renders
//! and names errors, `extract` reads requests, `route` says what a route is, `middleware` wraps,
//! the handlers in `routes` use them, and nothing runs back up; and no file is over 500 lines
//! without a reason on its first line. The checker is the one every crate shares (core's
//! `layering.rs`, included by path; its fixtures are core's).

#[path = "../../core/src/layering.rs"]
mod layering;
#[macro_use]
#[path = "../../core/src/shape_tests.rs"]
mod shape_tests;

crate_shape_tests!(
    |g| g["middleware.rs"].contains("extract.rs") && g["middleware.rs"].contains("error.rs")
);
