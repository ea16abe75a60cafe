//! The layering and size checks of the storage engines (issue 31): no files of `ciam_store` import each other, directly or round a longer
//! circle, and none is over 500 lines without a reason on its first line. The checker is the one
//! every crate shares (core's `layering.rs`, included by path; its fixtures are core's).

#[path = "../../core/src/layering.rs"]
mod layering;

use std::path::{Path, PathBuf};

fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

#[test]
fn no_store_files_import_each_other_in_a_circle() {
    let g = layering::graph(&src());
    assert!(
        g["dynamodb/tx.rs"].contains("dynamodb/expr.rs")
            && g["conformance/items.rs"].contains("conformance/ctx.rs"),
        "the scan finds imports: {g:?}"
    );
    assert_eq!(
        layering::circles(&g),
        Vec::<Vec<String>>::new(),
        "these files import each other in a circle"
    );
}

#[test]
fn no_store_file_is_over_500_lines_without_a_reason_at_its_top() {
    let mut files = Vec::new();
    layering::walk(&src(), &src(), &mut files);
    assert_eq!(
        layering::unexplained(&files),
        Vec::<String>::new(),
        "split these files, or give the reason on their first line: `{}...`",
        layering::REASON
    );
}
