//! No files of this crate import each other, directly or round a longer circle (issue 11): each name lives in the module that
//! owns its concept, and the files that need it import it from there.

use crate::layering::{circle, references};
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

#[test]
fn no_core_modules_import_each_other_in_a_circle() {
    let refs = references(&Path::new(env!("CARGO_MANIFEST_DIR")).join("src"));
    assert!(refs["apps"].contains("user"), "the scan finds imports");
    assert_eq!(
        circle(&refs),
        None,
        "these modules import each other in a circle"
    );
}

#[test]
fn the_circle_finder_finds_long_circles() {
    let g = |edges: &[(&str, &str)]| {
        let mut m: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
        for (a, b) in edges {
            m.entry((*a).into()).or_default().insert((*b).into());
        }
        m
    };
    assert_eq!(circle(&g(&[("a", "b"), ("b", "c")])), None);
    assert_eq!(
        circle(&g(&[("a", "b"), ("b", "c"), ("c", "a")])),
        Some(vec!["a".into(), "b".into(), "c".into(), "a".into()])
    );
}
