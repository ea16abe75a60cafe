//! Files small enough to read in one sitting (docs: DESIGN.md §4, issue 19): a file of this
//! crate over [`MAX_LINES`] lines says why on its first line (`//! Over 500 lines because ...`),
//! else it is split.

use crate::layering::walk;
use std::path::Path;

const MAX_LINES: usize = 500;
const REASON: &str = "//! Over 500 lines because ";

/// The files of `files` that are too long and do not say why.
fn unexplained(files: &[(String, String)]) -> Vec<String> {
    files
        .iter()
        .filter(|(_, text)| text.lines().count() > MAX_LINES)
        .filter(|(_, text)| {
            let first = text.lines().next().unwrap_or("");
            // A reason is a sentence, not the bare prefix.
            !(first.starts_with(REASON) && first.len() > REASON.len() + 3)
        })
        .map(|(path, text)| format!("{path} ({} lines)", text.lines().count()))
        .collect()
}

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
