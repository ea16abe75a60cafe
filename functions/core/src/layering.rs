//! The shape checks of a crate's sources, one checker for every crate (issue 31): core's
//! `layering_tests.rs` and `size_tests.rs`, and the `tests/layering.rs` of api, store, lambdas,
//! local and gen, which include this file by path.
//! - Layering (issues 11, 31): no files of a crate import each other, directly or round a longer
//!   circle: each name lives in the file that owns its concept. An edge from `a` to `b` when `a`
//!   names `b`'s module through `crate::x::y`, `super::` or `self::`, in a path or a `use` tree
//!   with nested groups; comments, strings, tests (`#[cfg(test)]` items, `*_tests.rs`, `tests.rs`),
//!   `src/bin` (other crates' roots) and a parent's bare `child::` paths (a facade's `pub use`)
//!   left out.
//! - Size (issues 19, 31, DESIGN.md §4): a file over [`MAX_LINES`] lines says why on its first
//!   line (`//! Over 500 lines because ...`), else it is split.

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::path::Path;

/// The most lines a file has without saying why on its first line.
pub const MAX_LINES: usize = 500;
/// How the first line of a longer file begins; a sentence follows.
pub const REASON: &str = "//! Over 500 lines because ";

/// Every `.rs` file under `dir`, as (its path relative to `src`, text), sorted by path.
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
    out.sort();
}

/// The files of `files` over [`MAX_LINES`] lines whose first line gives no reason, as
/// `path (N lines)`.
pub fn unexplained(files: &[(String, String)]) -> Vec<String> {
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

/// The module a file is (`lib.rs`, `main.rs`: the root; `a/mod.rs`, `a.rs`: `a`; `a/b.rs`: `a::b`).
fn module_of(path: &str) -> Vec<String> {
    let mut segments: Vec<String> = path
        .trim_end_matches(".rs")
        .split('/')
        .map(str::to_owned)
        .collect();
    let last = segments.last().map(String::as_str);
    if last == Some("mod") || (segments.len() == 1 && matches!(last, Some("lib" | "main"))) {
        segments.pop();
    }
    segments
}

/// Whether a file is a test of its crate, left out of the import graph.
fn is_test_file(path: &str) -> bool {
    let stem = path.trim_end_matches(".rs");
    stem.ends_with("_tests") || stem == "tests" || stem.ends_with("/tests")
}

/// For each file of the crate whose sources are `src` (its path relative to `src`), the other
/// files it names.
pub fn graph(src: &Path) -> BTreeMap<String, BTreeSet<String>> {
    let mut files = Vec::new();
    walk(src, src, &mut files);
    graph_of(&files)
}

/// [`graph`] over files already read.
pub fn graph_of(files: &[(String, String)]) -> BTreeMap<String, BTreeSet<String>> {
    let files: Vec<&(String, String)> = files
        .iter()
        .filter(|(p, _)| !is_test_file(p) && !p.starts_with("bin/"))
        .collect();
    // The module each file is; the root's file is lib.rs when there is one.
    let mut file_of: BTreeMap<Vec<String>, String> = BTreeMap::new();
    for (path, _) in &files {
        let m = module_of(path);
        if !(m.is_empty() && file_of.contains_key(&m) && path != "lib.rs") {
            file_of.insert(m, path.clone());
        }
    }
    let mut out = BTreeMap::new();
    for (path, text) in &files {
        let own = module_of(path);
        let mut named = BTreeSet::new();
        for (inline, names) in paths(&code(text)) {
            let mut at = own.clone();
            at.extend(inline);
            let Some(full) = resolve(&at, &names) else {
                continue;
            };
            // The longest prefix of the path that is a file's module.
            if let Some(target) = (0..=full.len())
                .rev()
                .find_map(|n| file_of.get(&full[..n]))
                .filter(|t| *t != path)
            {
                named.insert(target.clone());
            }
        }
        out.insert(path.clone(), named);
    }
    out
}

/// The absolute module path `names` (a path starting `crate`, `$crate`, `super` or `self`) means
/// when written in module `at`.
fn resolve(at: &[String], names: &[String]) -> Option<Vec<String>> {
    let (first, rest) = names.split_first()?;
    let mut full: Vec<String> = match first.as_str() {
        "crate" | "$crate" => Vec::new(),
        "self" => at.to_vec(),
        "super" => at.split_last()?.1.to_vec(),
        _ => return None,
    };
    for n in rest {
        match n.as_str() {
            "super" => {
                full.pop()?;
            }
            "self" => {}
            _ => full.push(n.clone()),
        }
    }
    Some(full)
}

/// `text` without comments, the contents of string and character literals, and `#[cfg(test)]`
/// items.
fn code(text: &str) -> String {
    let b: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        let next = b.get(i + 1).copied();
        if c == '/' && next == Some('/') {
            while i < b.len() && b[i] != '\n' {
                i += 1;
            }
        } else if c == '/' && next == Some('*') {
            let mut depth = 0;
            while i < b.len() {
                if b[i] == '/' && b.get(i + 1) == Some(&'*') {
                    depth += 1;
                    i += 2;
                } else if b[i] == '*' && b.get(i + 1) == Some(&'/') {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    i += 1;
                }
            }
        } else if c == 'r'
            && matches!(next, Some('"' | '#'))
            && !b[..i]
                .last()
                .is_some_and(|p| p.is_alphanumeric() || *p == '_')
        {
            // A raw string: r"..", r#".."#.
            let mut j = i + 1;
            while b.get(j) == Some(&'#') {
                j += 1;
            }
            if b.get(j) != Some(&'"') {
                out.push(c);
                i += 1;
                continue;
            }
            let hashes = j - i - 1;
            j += 1;
            while j < b.len() && !(b[j] == '"' && (1..=hashes).all(|h| b.get(j + h) == Some(&'#')))
            {
                j += 1;
            }
            out.push_str("\"\"");
            i = j + 1 + hashes;
        } else if c == '"' {
            i += 1;
            while i < b.len() && b[i] != '"' {
                i += if b[i] == '\\' { 2 } else { 1 };
            }
            out.push_str("\"\"");
            i += 1;
        } else if c == '\'' && next == Some('\\') {
            // A character literal with an escape: '\'', '\n', '\u{..}'.
            i += 2;
            while i < b.len() && b[i] != '\'' {
                i += 1;
            }
            out.push_str("' '");
            i += 1;
        } else if c == '\'' && b.get(i + 2) == Some(&'\'') {
            out.push_str("' '");
            i += 3;
        } else {
            out.push(c);
            i += 1;
        }
    }
    without_tests(&out)
}

/// `code` without its `#[cfg(test)]` items (a module in braces or in its own file, a function, a
/// `use`).
fn without_tests(code: &str) -> String {
    const ATTR: &str = "#[cfg(test)]";
    let mut out = String::with_capacity(code.len());
    let mut rest = code;
    while let Some(at) = rest.find(ATTR) {
        out.push_str(&rest[..at]);
        let item = &rest[at + ATTR.len()..];
        let mut depth = 0usize;
        let mut end = item.len();
        for (i, ch) in item.char_indices() {
            match ch {
                '{' | '(' | '[' => depth += 1,
                '}' | ')' | ']' => {
                    depth = depth.saturating_sub(1);
                    if depth == 0 && ch == '}' {
                        end = i + 1;
                        break;
                    }
                }
                ';' if depth == 0 => {
                    end = i + 1;
                    break;
                }
                _ => {}
            }
        }
        rest = &item[end..];
    }
    out.push_str(rest);
    out
}

fn is_ident(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// Every path of `code` that starts `crate::`, `$crate::`, `super::` or `self::` (a `use` tree's
/// groups expanded), with the inline modules (`mod x { .. }`) it is written in.
fn paths(code: &str) -> Vec<(Vec<String>, Vec<String>)> {
    let b: Vec<char> = code.chars().collect();
    let mut out = Vec::new();
    let mut depth = 0usize;
    // The inline modules open here, with the brace depth inside each.
    let mut inline: Vec<(String, usize)> = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if c == '{' {
            depth += 1;
            i += 1;
            continue;
        }
        if c == '}' {
            if inline.last().is_some_and(|(_, d)| *d == depth) {
                inline.pop();
            }
            depth = depth.saturating_sub(1);
            i += 1;
            continue;
        }
        let starts_word = i == 0 || !(is_ident(b[i - 1]) || b[i - 1] == ':');
        if !(starts_word && (is_ident(c) || c == '$')) {
            i += 1;
            continue;
        }
        let mut j = i + 1;
        while j < b.len() && is_ident(b[j]) {
            j += 1;
        }
        let word: String = b[i..j].iter().collect();
        if word == "mod" {
            // `mod name {` opens an inline module.
            let mut k = j;
            skip_ws(&b, &mut k);
            let name_start = k;
            while k < b.len() && is_ident(b[k]) {
                k += 1;
            }
            let name: String = b[name_start..k].iter().collect();
            skip_ws(&b, &mut k);
            if !name.is_empty() && b.get(k) == Some(&'{') {
                inline.push((name, depth + 1));
                depth += 1;
                i = k + 1;
                continue;
            }
        } else if matches!(word.as_str(), "crate" | "$crate" | "super" | "self") {
            let mut k = i;
            let here: Vec<String> = inline.iter().map(|(n, _)| n.clone()).collect();
            for p in tree(&b, &mut k) {
                // `pub(crate)` and `self.x` name no module.
                if p.len() > 1 {
                    out.push((here.clone(), p));
                }
            }
            // Braces the tree read are balanced: go on after it.
            i = k.max(j);
            continue;
        }
        i = j;
    }
    out
}

fn skip_ws(b: &[char], i: &mut usize) {
    while *i < b.len() && b[*i].is_whitespace() {
        *i += 1;
    }
}

/// The paths of the `use` tree (or plain path) at `b[*i..]`: `a::b::{c, d::{self, e}}` is
/// `a::b::c`, `a::b::d`, `a::b::d::e`.
fn tree(b: &[char], i: &mut usize) -> Vec<Vec<String>> {
    skip_ws(b, i);
    if b.get(*i) == Some(&'{') {
        *i += 1;
        let mut out = Vec::new();
        loop {
            skip_ws(b, i);
            if *i >= b.len() {
                return out;
            }
            if b[*i] == '}' {
                *i += 1;
                return out;
            }
            let before = *i;
            out.extend(tree(b, i));
            skip_ws(b, i);
            match b.get(*i) {
                Some(',') => *i += 1,
                Some('}') => {
                    *i += 1;
                    return out;
                }
                _ if *i == before => {
                    // Not a use tree after all: skip the character.
                    *i += 1;
                }
                _ => {}
            }
        }
    }
    let start = *i;
    if b.get(*i) == Some(&'$') {
        *i += 1;
    }
    while *i < b.len() && is_ident(b[*i]) {
        *i += 1;
    }
    let name: String = b[start..*i].iter().collect();
    if name.is_empty() || name == "$" {
        return vec![Vec::new()];
    }
    let mut j = *i;
    skip_ws(b, &mut j);
    if b.get(j) == Some(&':') && b.get(j + 1) == Some(&':') {
        *i = j + 2;
        let mut rest = tree(b, i);
        for p in &mut rest {
            p.insert(0, name.clone());
        }
        return rest;
    }
    vec![vec![name]]
}

/// The circles of `graph`: one for each tangle of files (a strongly connected set), shortest
/// first from its first file, and more while some of its files are on none; each as its files in
/// order, the first again at the end.
pub fn circles(graph: &BTreeMap<String, BTreeSet<String>>) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    for tangle in tangles(graph) {
        let mut covered = BTreeSet::new();
        for start in &tangle {
            if covered.contains(start) {
                continue;
            }
            if let Some(c) = shortest_circle(graph, start, &tangle) {
                covered.extend(c.iter().cloned());
                out.push(c);
            }
        }
    }
    out
}

/// The strongly connected sets of `graph` with a circle in them (Tarjan's algorithm).
fn tangles(graph: &BTreeMap<String, BTreeSet<String>>) -> Vec<BTreeSet<String>> {
    struct Walk<'a> {
        graph: &'a BTreeMap<String, BTreeSet<String>>,
        index: BTreeMap<&'a str, usize>,
        low: BTreeMap<&'a str, usize>,
        stack: Vec<&'a str>,
        on_stack: BTreeSet<&'a str>,
        out: Vec<BTreeSet<String>>,
    }
    fn visit<'a>(w: &mut Walk<'a>, n: &'a str) {
        let at = w.index.len();
        w.index.insert(n, at);
        w.low.insert(n, at);
        w.stack.push(n);
        w.on_stack.insert(n);
        let graph = w.graph;
        for next in graph.get(n).into_iter().flatten() {
            let next = next.as_str();
            if !w.index.contains_key(next) {
                visit(w, next);
                let low = w.low[n].min(w.low[next]);
                w.low.insert(n, low);
            } else if w.on_stack.contains(next) {
                let low = w.low[n].min(w.index[next]);
                w.low.insert(n, low);
            }
        }
        if w.low[n] == w.index[n] {
            let mut set = BTreeSet::new();
            while let Some(m) = w.stack.pop() {
                w.on_stack.remove(m);
                set.insert(m.to_owned());
                if m == n {
                    break;
                }
            }
            let looped = graph.get(n).is_some_and(|e| e.contains(n));
            if set.len() > 1 || looped {
                w.out.push(set);
            }
        }
    }
    let mut w = Walk {
        graph,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        out: Vec::new(),
    };
    for n in graph.keys() {
        if !w.index.contains_key(n.as_str()) {
            visit(&mut w, n);
        }
    }
    w.out.sort();
    w.out
}

/// The shortest circle from `start` back to it inside `within` (breadth first).
fn shortest_circle(
    graph: &BTreeMap<String, BTreeSet<String>>,
    start: &str,
    within: &BTreeSet<String>,
) -> Option<Vec<String>> {
    let mut came_from: BTreeMap<&str, &str> = BTreeMap::new();
    let mut queue = VecDeque::from([start]);
    while let Some(n) = queue.pop_front() {
        for next in graph.get(n).into_iter().flatten() {
            if !within.contains(next) {
                continue;
            }
            if next == start {
                let mut c = vec![start.to_owned()];
                let mut at = n;
                while at != start {
                    c.insert(1, at.to_owned());
                    at = came_from[at];
                }
                c.push(start.to_owned());
                return Some(c);
            }
            if !came_from.contains_key(next.as_str()) {
                came_from.insert(next, n);
                queue.push_back(next);
            }
        }
    }
    None
}
