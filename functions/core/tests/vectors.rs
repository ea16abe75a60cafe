//! One set of rules: the validation vectors shared with the web client
//! (`web/src/lib/validate.test.ts` checks the same file against `web/src/lib/validate.ts`).
//! The server's parsers are the source of truth; every vector must get the verdict it is filed
//! under.

// Test code: a panic is the failure report, so unwrap and expect are allowed here
// (the workspace denies them in the product, Cargo.toml [workspace.lints]).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use ciam_core::password;
use ciam_core::validate::{self, Email, Phone};
use serde_json::Value;

const VECTORS: &str = include_str!("validation_vectors.json");

type Check = fn(&str) -> bool;

const CHECKS: [(&str, Check); 7] = [
    ("mail", |s| Email::parse(s).is_ok()),
    ("phone", |s| Phone::parse(s).is_ok()),
    ("password", |s| password::check_new(s).is_ok()),
    ("username", |s| validate::username(s).is_ok()),
    ("company", |s| validate::company(s).is_ok()),
    ("code", |s| validate::code("code", s).is_ok()),
    // A required free-text field of 50 characters: display name, position, address, app names.
    ("text", |s| validate::required_text("text", s, 50).is_ok()),
];

fn vectors() -> Value {
    serde_json::from_str(VECTORS).expect("validation_vectors.json is valid JSON")
}

fn list(v: &Value, rule: &str, verdict: &str) -> Vec<String> {
    v[rule][verdict]
        .as_array()
        .unwrap_or_else(|| panic!("{rule}.{verdict} is a list"))
        .iter()
        .map(|s| {
            s.as_str()
                .unwrap_or_else(|| panic!("{rule}.{verdict}: {s} is a string"))
                .to_owned()
        })
        .collect()
}

#[test]
fn every_rule_has_at_least_six_valid_and_six_invalid_vectors() {
    let v = vectors();
    let rules: Vec<&str> = CHECKS.iter().map(|(r, _)| *r).collect();
    let mut filed: Vec<&str> = v
        .as_object()
        .expect("an object")
        .keys()
        .map(String::as_str)
        .collect();
    filed.sort_unstable();
    let mut expected = rules.clone();
    expected.sort_unstable();
    assert_eq!(filed, expected, "the file has exactly the checked rules");
    for rule in rules {
        assert!(list(&v, rule, "valid").len() >= 6, "{rule}.valid");
        assert!(list(&v, rule, "invalid").len() >= 6, "{rule}.invalid");
    }
}

#[test]
fn the_server_gives_every_vector_the_verdict_it_is_filed_under() {
    let v = vectors();
    let mut wrong = Vec::new();
    for (rule, check) in CHECKS {
        for s in list(&v, rule, "valid") {
            if !check(&s) {
                wrong.push(format!("{rule}: {s:?} is refused but filed as valid"));
            }
        }
        for s in list(&v, rule, "invalid") {
            if check(&s) {
                wrong.push(format!("{rule}: {s:?} is accepted but filed as invalid"));
            }
        }
    }
    assert!(wrong.is_empty(), "{wrong:#?}");
}

#[test]
fn the_password_vectors_cover_each_forbidden_character_and_the_length_bounds() {
    let v = vectors();
    let invalid = list(&v, "password", "invalid");
    for c in password::FORBIDDEN.chars() {
        assert!(
            invalid
                .iter()
                .any(|s| s.contains(c) && password::check_new(&s.replace(c, "")).is_ok()),
            "an invalid vector refused only because of {c:?}"
        );
    }
    let valid = list(&v, "password", "valid");
    let lengths: Vec<usize> = valid.iter().map(|s| s.chars().count()).collect();
    for n in [password::MIN_LEN, 64, password::MAX_LEN] {
        assert!(lengths.contains(&n), "a valid password of {n} characters");
    }
    assert!(
        invalid
            .iter()
            .any(|s| s.chars().count() == password::MAX_LEN + 1),
        "an invalid password of {} characters",
        password::MAX_LEN + 1
    );
}

#[test]
fn valid_password_vectors_are_not_on_the_common_list() {
    for s in list(&vectors(), "password", "valid") {
        assert!(!password::is_common(&s), "{s:?} is a common password");
    }
}

#[test]
fn the_phone_vectors_include_the_country_prefixes() {
    let valid = list(&vectors(), "phone", "valid");
    for prefix in ["+86", "0086"] {
        assert!(
            valid.iter().any(|s| s.trim_start().starts_with(prefix)),
            "{prefix}"
        );
    }
}

#[test]
fn the_name_vectors_refuse_each_kind_of_invisible_character_on_its_own() {
    let v = vectors();
    // Format and bidi (Cf), separators (Zl, Zp), a control (Cc), default-ignorable fillers and
    // joiners, a tag character, a variation selector with nothing to select, the blank braille
    // pattern and a private-use character.
    let kinds = [
        '\u{200B}',
        '\u{200C}',
        '\u{200D}',
        '\u{200E}',
        '\u{202E}',
        '\u{2066}',
        '\u{2060}',
        '\u{FEFF}',
        '\u{00AD}',
        '\u{180E}',
        '\u{2028}',
        '\u{2029}',
        '\u{0085}',
        '\u{115F}',
        '\u{1160}',
        '\u{3164}',
        '\u{FFA0}',
        '\u{034F}',
        '\u{E0041}',
        '\u{FE0F}',
        '\u{2800}',
        '\u{E000}',
    ];
    let invalid = list(&v, "username", "invalid");
    for c in kinds {
        assert!(
            invalid
                .iter()
                .any(|s| s.contains(c) && validate::username(&s.replace(c, "")).is_ok()),
            "a username refused only because of U+{:04X}",
            u32::from(c)
        );
    }
    for rule in ["company", "text"] {
        let invalid = list(&v, rule, "invalid");
        assert!(
            invalid
                .iter()
                .any(|s| validate::first_invisible(s, &[]).is_some()),
            "{rule} has invisible-character vectors"
        );
    }
}

#[test]
fn the_username_vectors_include_names_that_fold_onto_each_other() {
    let valid = list(&vectors(), "username", "valid");
    let folded = |s: &str| validate::username_key(&validate::username(s).unwrap_or_default());
    assert!(
        valid.iter().any(|a| a.is_ascii()
            && valid
                .iter()
                .any(|b| !b.is_ascii() && folded(a) == folded(b))),
        "an ASCII name and a fullwidth one with one key"
    );
}
