//! The layering and size checks of `ciam_notify`: no files import each other in a circle, and
//! none is over 500 lines without a reason on its first line. The checker is the one every
//! crate shares (core's `layering.rs`, included by path).

#[path = "../../core/src/layering.rs"]
mod layering;

use std::path::{Path, PathBuf};

fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

#[test]
fn no_notify_files_import_each_other_in_a_circle() {
    let g = layering::graph(&src());
    assert!(
        g["aliyun.rs"].contains("sign.rs") && g["failover.rs"].is_empty(),
        "the scan finds imports: {g:?}"
    );
    assert_eq!(
        layering::circles(&g),
        Vec::<Vec<String>>::new(),
        "these files import each other in a circle"
    );
}

#[test]
fn no_notify_file_is_over_500_lines_without_a_reason_at_its_top() {
    let mut files = Vec::new();
    layering::walk(&src(), &src(), &mut files);
    assert_eq!(
        layering::unexplained(&files),
        Vec::<String>::new(),
        "split these files, or give the reason on their first line: `{}...`",
        layering::REASON
    );
}
