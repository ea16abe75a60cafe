//! The import graph of a crate's modules, and a circle in it: the layering check of `ciam_core`
//! (`layering_tests.rs`; `size_tests.rs` walks the files with it too) and of `ciam_api`
//! (`functions/api/tests/layering.rs`, which includes this file by path). No files of a crate import each other, directly or round a longer circle
//! (issue 11): each name lives in the module that owns its concept, and the files that need it
//! import it from there.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// Every `.rs` file under `dir`, as (its path relative to `src`, text): also the file list of
/// core's size check (`size_tests.rs`).
pub fn walk(dir: &Path, src: &Path, out: &mut Vec<(String, String)>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            walk(&p, src, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            let rel = p.strip_prefix(src).unwrap_or(&p);
            let text = std::fs::read_to_string(&p).unwrap_or_default();
            out.push((rel.to_string_lossy().replace('\\', "/"), text));
        }
    }
}

/// The top-level module a file belongs to (`apps/admin` is in `apps`).
fn top(module: &str) -> String {
    module.split('/').next().unwrap_or(module).to_owned()
}

/// For each top-level module of the crate whose sources are `src`, the other top-level modules
/// its files refer to through `crate::x` or `use crate::{x, ..}`, tests left out.
pub fn references(src: &Path) -> BTreeMap<String, BTreeSet<String>> {
    let mut files = Vec::new();
    walk(src, src, &mut files);
    let modules: BTreeSet<String> = files
        .iter()
        .map(|(p, _)| top(p.trim_end_matches(".rs")))
        .collect();
    let mut refs: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (path, text) in &files {
        let m = path.trim_end_matches(".rs");
        if m == "lib" || m.ends_with("tests") {
            continue;
        }
        let code = text.split("#[cfg(test)]\nmod tests").next().unwrap_or("");
        let found = refs.entry(top(m)).or_default();
        for (i, _) in code.match_indices("crate::") {
            let rest = &code[i + "crate::".len()..];
            let names: Vec<&str> = match rest.strip_prefix('{') {
                Some(group) => group
                    .split('}')
                    .next()
                    .unwrap_or("")
                    .split(',')
                    .map(|x| x.trim().split("::").next().unwrap_or(""))
                    .collect(),
                None => vec![rest
                    .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                    .next()
                    .unwrap_or("")],
            };
            for n in names {
                if modules.contains(n) && n != top(m) {
                    found.insert(n.to_owned());
                }
            }
        }
    }
    refs
}

/// A circle of imports through `graph`, if any (depth-first, three colours).
pub fn circle(graph: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    fn visit(
        n: &str,
        graph: &BTreeMap<String, BTreeSet<String>>,
        done: &mut BTreeSet<String>,
        path: &mut Vec<String>,
    ) -> Option<Vec<String>> {
        if let Some(at) = path.iter().position(|p| p == n) {
            let mut c = path[at..].to_vec();
            c.push(n.to_owned());
            return Some(c);
        }
        if done.contains(n) {
            return None;
        }
        path.push(n.to_owned());
        for next in graph.get(n).into_iter().flatten() {
            if let Some(c) = visit(next, graph, done, path) {
                return Some(c);
            }
        }
        path.pop();
        done.insert(n.to_owned());
        None
    }
    let mut done = BTreeSet::new();
    graph
        .keys()
        .find_map(|n| visit(n, graph, &mut done, &mut Vec::new()))
}
