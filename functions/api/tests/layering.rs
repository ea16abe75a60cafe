//! No files of `ciam_api` import each other in a circle (issue 19 §1.4): `error` renders and
//! names errors, `extract` reads requests, `route` says what a route is, `middleware` wraps, the
//! handlers in `routes` use them, and nothing runs back up. The same check as core's.

#[path = "../../core/src/layering.rs"]
mod layering;

use std::path::Path;

#[test]
fn no_api_modules_import_each_other_in_a_circle() {
    let refs = layering::references(&Path::new(env!("CARGO_MANIFEST_DIR")).join("src"));
    assert!(
        refs["routes"].contains("extract") && refs["middleware"].contains("error"),
        "the scan finds imports: {refs:?}"
    );
    assert_eq!(
        layering::circle(&refs),
        None,
        "these modules import each other in a circle"
    );
}
