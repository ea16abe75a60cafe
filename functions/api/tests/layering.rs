//! No files of `ciam_api` import each other in a circle (issues 19 §1.4 and 31): `error` renders
//! and names errors, `extract` reads requests, `route` says what a route is, `middleware` wraps,
//! the handlers in `routes` use them, and nothing runs back up; and no file is over 500 lines
//! without a reason on its first line. The checker is the one every crate shares (core's
//! `layering.rs`, included by path; its fixtures are core's).

#[path = "../../core/src/layering.rs"]
mod layering;

use std::path::{Path, PathBuf};

fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

#[test]
fn no_api_files_import_each_other_in_a_circle() {
    let g = layering::graph(&src());
    assert!(
        g["middleware.rs"].contains("extract.rs") && g["middleware.rs"].contains("error.rs"),
        "the scan finds imports: {g:?}"
    );
    assert_eq!(
        layering::circles(&g),
        Vec::<Vec<String>>::new(),
        "these files import each other in a circle"
    );
}

#[test]
fn no_api_file_is_over_500_lines_without_a_reason_at_its_top() {
    let mut files = Vec::new();
    layering::walk(&src(), &src(), &mut files);
    assert_eq!(
        layering::unexplained(&files),
        Vec::<String>::new(),
        "split these files, or give the reason on their first line: `{}...`",
        layering::REASON
    );
}
