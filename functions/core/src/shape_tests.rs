//! The shape tests every crate runs on its own sources (`crate_shape_tests!`), written once: each
//! crate's `tests/layering.rs` includes core's `layering.rs` (the checker) and this file by path.
//! Not a module of `ciam_core`: only those test targets compile it.

/// A crate's two shape tests: no circle among its files, and no file over
/// `layering::MAX_LINES` lines without the reason at its top. `$finds` looks at the crate's
/// import graph for edges the crate is known to have, so a scanner that finds nothing cannot
/// pass as "no circles".
macro_rules! crate_shape_tests {
    ($finds:expr) => {
        fn src() -> std::path::PathBuf {
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
        }

        #[test]
        fn no_files_import_each_other_in_a_circle() {
            let g = layering::graph(&src());
            let finds: fn(
                &std::collections::BTreeMap<String, std::collections::BTreeSet<String>>,
            ) -> bool = $finds;
            assert!(finds(&g), "the scan finds imports: {g:?}");
            assert_eq!(
                layering::circles(&g),
                Vec::<Vec<String>>::new(),
                "these files import each other in a circle"
            );
        }

        #[test]
        fn no_file_is_over_500_lines_without_a_reason_at_its_top() {
            let mut files = Vec::new();
            layering::walk(&src(), &src(), &mut files);
            assert_eq!(
                layering::unexplained(&files),
                Vec::<String>::new(),
                "split these files, or give the reason on their first line: `{}...`",
                layering::REASON
            );
        }
    };
}
