//! No files of this crate import each other, directly or round a longer circle (issues 11 and 31):
//! each name lives in the file that owns its concept, and the files that need it import it from
//! there. The checker (`layering.rs`) is the one every crate's test includes.

use crate::layering::{circles, graph, graph_of};
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

#[test]
fn no_core_files_import_each_other_in_a_circle() {
    let g = graph(&Path::new(env!("CARGO_MANIFEST_DIR")).join("src"));
    assert!(
        g["apps/admin.rs"].contains("user.rs")
            && g["console/actions.rs"].contains("console/accounts.rs"),
        "the scan finds imports, `super::` ones too"
    );
    assert_eq!(
        circles(&g),
        Vec::<Vec<String>>::new(),
        "these files import each other in a circle"
    );
}

/// A small crate written to a temporary folder: the check reads it from disk as it reads a real
/// crate.
fn fake_crate(name: &str, files: &[(&str, &str)]) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("ciam-layering-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    for (path, text) in files {
        let p = dir.join(path);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }
    dir
}

#[test]
fn the_check_fails_on_a_circle_of_files_through_crate_super_or_self() {
    let dir = fake_crate(
        "circles",
        &[
            (
                "lib.rs",
                "pub mod a;\npub mod b;\npub mod c;\npub mod d;\npub mod e;\npub mod f;\n",
            ),
            // crate:: both ways, one in a `use` group, one in a path.
            ("a.rs", "use crate::{b::B, e};\npub struct A;\n"),
            (
                "b.rs",
                "pub struct B;\npub fn f() -> crate::a::A {\n    crate::a::A\n}\n",
            ),
            // super:: both ways, between two files of one folder.
            ("c/mod.rs", "pub mod x;\npub mod y;\n"),
            ("c/x.rs", "use super::y::Y;\npub struct X;\n"),
            ("c/y.rs", "use super::x::{self, X};\npub struct Y;\n"),
            // Round three files: mod.rs -> p (self::) -> q (super::) -> mod.rs (super::).
            (
                "d/mod.rs",
                "pub mod p;\npub mod q;\npub use self::p::P;\npub struct D;\n",
            ),
            ("d/p.rs", "pub struct P(super::q::Q);\n"),
            ("d/q.rs", "pub struct Q(super::D);\n"),
            // Tests, comments and strings are no imports: e <- f only.
            (
                "e.rs",
                "// crate::f::F\npub const S: &str = \"crate::f::F\";\n\
                 #[cfg(test)]\nmod tests {\n    use crate::f::F;\n}\n",
            ),
            ("e_tests.rs", "use crate::f::F;\n"),
            ("f.rs", "pub struct F(crate::e::E);\n"),
        ],
    );
    let g = graph(&dir);
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(g["e.rs"], BTreeSet::new());
    assert_eq!(g["f.rs"], BTreeSet::from(["e.rs".to_owned()]));
    let circle = |files: &[&str]| files.iter().map(|f| (*f).to_owned()).collect::<Vec<_>>();
    assert_eq!(
        circles(&g),
        vec![
            circle(&["a.rs", "b.rs", "a.rs"]),
            circle(&["c/x.rs", "c/y.rs", "c/x.rs"]),
            circle(&["d/mod.rs", "d/p.rs", "d/q.rs", "d/mod.rs"]),
        ]
    );
}

#[test]
fn the_scan_reads_nested_groups_inline_modules_and_leaves_bin_out() {
    let files = |list: &[(&str, &str)]| -> Vec<(String, String)> {
        list.iter()
            .map(|(p, t)| ((*p).to_owned(), (*t).to_owned()))
            .collect()
    };
    let g = graph_of(&files(&[
        ("lib.rs", "mod a;\nmod b;\nmod c;\n"),
        (
            "a/mod.rs",
            "use crate::{b::{self, B}, c::{\n    C,\n}};\nmod inner {\n    use super::super::b;\n}\n",
        ),
        ("b.rs", "pub struct B;\n"),
        ("c.rs", "pub struct C;\nfn f() -> Option<crate::a::A> { None }\n"),
        ("bin/tool.rs", "use crate::b::B;\n"),
    ]));
    assert_eq!(
        g["a/mod.rs"],
        BTreeSet::from(["b.rs".to_owned(), "c.rs".to_owned()])
    );
    assert!(!g.contains_key("bin/tool.rs"));
    assert_eq!(
        circles(&g),
        vec![vec![
            "a/mod.rs".to_owned(),
            "c.rs".to_owned(),
            "a/mod.rs".to_owned()
        ]]
    );
}

#[test]
fn the_circle_finder_finds_long_circles_and_each_tangle() {
    let g = |edges: &[(&str, &str)]| {
        let mut m: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
        for (a, b) in edges {
            m.entry((*a).into()).or_default().insert((*b).into());
        }
        m
    };
    let c = |files: &[&str]| {
        files
            .iter()
            .map(|f| (*f).to_owned())
            .collect::<Vec<String>>()
    };
    assert_eq!(
        circles(&g(&[("a", "b"), ("b", "c")])),
        Vec::<Vec<String>>::new()
    );
    assert_eq!(
        circles(&g(&[("a", "b"), ("b", "c"), ("c", "a")])),
        vec![c(&["a", "b", "c", "a"])]
    );
    // Two circles sharing b: both reported, so every file of the tangle is named.
    assert_eq!(
        circles(&g(&[
            ("a", "b"),
            ("b", "a"),
            ("b", "c"),
            ("c", "b"),
            ("x", "y")
        ])),
        vec![c(&["a", "b", "a"]), c(&["c", "b", "c"])]
    );
}
