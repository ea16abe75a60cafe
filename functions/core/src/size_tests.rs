//! Files small enough to read in one sitting (docs: DESIGN.md §4, issues 19 and 31): a file of
//! this crate over [`MAX_LINES`] lines says why on its first line (`//! Over 500 lines because
//! ...`), else it is split. The checker (`layering.rs`) is the one every crate's test includes.

use crate::layering::{unexplained, walk, MAX_LINES, REASON};
use std::path::Path;

#[test]
fn no_core_file_is_over_500_lines_without_a_reason_at_its_top() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    walk(&src, &src, &mut files);
    assert!(
        files.iter().any(|(p, _)| p == "passkey/items.rs"),
        "the walk finds the nested files"
    );
    assert_eq!(
        unexplained(&files),
        Vec::<String>::new(),
        "split these files, or give the reason on their first line: `{REASON}...`"
    );
}

#[test]
fn the_check_refuses_a_long_file_unless_its_first_line_gives_a_reason() {
    let long = |first: &str| format!("{first}\n{}", "x\n".repeat(MAX_LINES));
    let files = vec![
        ("short.rs".to_owned(), "//! short\nfn f() {}\n".to_owned()),
        ("bare.rs".to_owned(), long("//! A module.")),
        ("empty_reason.rs".to_owned(), long(REASON)),
        (
            "reason.rs".to_owned(),
            long("//! Over 500 lines because the table is one unit."),
        ),
        (
            "late.rs".to_owned(),
            format!(
                "//! A module.\n//! Over 500 lines because hidden.\n{}",
                "x\n".repeat(MAX_LINES)
            ),
        ),
    ];
    assert_eq!(
        unexplained(&files),
        vec![
            format!("bare.rs ({} lines)", MAX_LINES + 1),
            format!("empty_reason.rs ({} lines)", MAX_LINES + 1),
            format!("late.rs ({} lines)", MAX_LINES + 2),
        ]
    );
}
