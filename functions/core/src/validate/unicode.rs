//! The Unicode side of free text: which characters a reader cannot see (and so may not appear in
//! names or profile text), the normal forms text is kept in, and the folded key that makes user
//! names unique. The web app mirrors `first_invisible` (web/src/lib/validate.ts); the shared
//! vectors keep the two in step.

use icu_normalizer::ComposingNormalizerBorrowed;
use icu_properties::props::{
    DefaultIgnorableCodePoint, GeneralCategory, VariationSelector, WhiteSpace,
};
use icu_properties::{CodePointMapData, CodePointSetData};
use std::borrow::Cow;

/// Text as stored and shown: canonical composition (NFC), so that "é" typed as one code point or
/// as "e" and a combining accent is one string, without changing what anyone sees.
pub fn nfc(s: &str) -> Cow<'_, str> {
    ComposingNormalizerBorrowed::new_nfc().normalize(s)
}

/// Compatibility composition (NFKC): fullwidth, superscript, ligature and other presentation
/// forms become the plain character ("ＡＮＮ" is "ANN", "ﬁ" is "fi").
pub fn nfkc(s: &str) -> Cow<'_, str> {
    ComposingNormalizerBorrowed::new_nfkc().normalize(s)
}

/// Whether `c` is a character a reader cannot see, or one that changes how the characters around
/// it are shown: controls (Cc), format characters (Cf: zero-width spaces and joiners, the bidi
/// embeddings, overrides and isolates, the soft hyphen, the byte-order mark, tag characters),
/// line and paragraph separators (Zl, Zp), private-use and unassigned code points (their glyph
/// is anyone's guess), every default-ignorable code point (Hangul fillers, U+034F, the
/// variation selectors; see `first_invisible` for the one exception) and U+2800, the blank
/// braille pattern that passes for a letter.
pub fn refused(c: char) -> bool {
    let gc = CodePointMapData::<GeneralCategory>::new().get(c);
    matches!(
        gc,
        GeneralCategory::Control
            | GeneralCategory::Format
            | GeneralCategory::LineSeparator
            | GeneralCategory::ParagraphSeparator
            | GeneralCategory::PrivateUse
            | GeneralCategory::Unassigned
            | GeneralCategory::Surrogate
    ) || CodePointSetData::new::<DefaultIgnorableCodePoint>().contains(c)
        || c == '\u{2800}'
}

/// The first invisible or bidi-control character of `s` that is not in `allowed`, if any. A
/// variation selector is allowed right after a visible character, where it picks a glyph
/// ("❤️" is U+2764 U+FE0F; Japanese names use ideographic variation selectors); alone, at the
/// start, after a space or after another selector it shows nothing and is refused.
pub fn first_invisible(s: &str, allowed: &[char]) -> Option<char> {
    let selector = CodePointSetData::new::<VariationSelector>();
    let space = CodePointSetData::new::<WhiteSpace>();
    let mut after_visible = false;
    for c in s.chars() {
        if allowed.contains(&c) {
            after_visible = false;
            continue;
        }
        if selector.contains(c) {
            if !after_visible {
                return Some(c);
            }
            after_visible = false;
            continue;
        }
        if refused(c) {
            return Some(c);
        }
        after_visible = !space.contains(c);
    }
    None
}

/// The key under which a user name is unique: NFKC, lower case, NFKC again (lowering can undo
/// the normal form), and the final sigma as a plain sigma, since where a Σ is lowered to ς
/// depends only on its position. "Ann", "ANN" and "ＡＮＮ" have one key; an ASCII name's key is
/// its lower case, as it always was. "ß" stays distinct from "ss" (lower case, not full case
/// folding, like PRECIS's UsernameCaseMapped profile).
pub fn username_key(name: &str) -> String {
    nfkc(&nfkc(name).to_lowercase())
        .chars()
        .map(|c| if c == 'ς' { 'σ' } else { c })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn format_and_bidi_characters_are_found_wherever_they_are() {
        for c in [
            '\u{200B}',
            '\u{200C}',
            '\u{200D}',
            '\u{200E}',
            '\u{200F}',
            '\u{202A}',
            '\u{202E}',
            '\u{2060}',
            '\u{2064}',
            '\u{2066}',
            '\u{2069}',
            '\u{FEFF}',
            '\u{00AD}',
            '\u{061C}',
            '\u{E0001}',
            '\u{E0041}',
            '\u{180E}',
        ] {
            for s in [format!("{c}ann"), format!("an{c}n"), format!("ann{c}")] {
                assert_eq!(first_invisible(&s, &[]), Some(c), "U+{:04X}", c as u32);
            }
        }
    }

    #[test]
    fn controls_separators_fillers_and_private_use_are_invisible() {
        for c in [
            '\u{0000}', '\u{0007}', '\u{007F}', '\u{0085}', '\u{2028}', '\u{2029}', '\u{115F}',
            '\u{1160}', '\u{3164}', '\u{FFA0}', '\u{034F}', '\u{17B4}', '\u{2800}', '\u{E000}',
            '\u{F8FF}', '\u{0378}', '\u{FFFF}',
        ] {
            assert_eq!(
                first_invisible(&format!("a{c}b"), &[]),
                Some(c),
                "U+{:04X}",
                c as u32
            );
        }
    }

    #[test]
    fn a_variation_selector_counts_only_after_a_visible_character() {
        assert_eq!(first_invisible("I \u{2764}\u{FE0F} Rust", &[]), None);
        assert_eq!(first_invisible("\u{845B}\u{E0100}城", &[]), None);
        for bad in [
            "\u{FE0F}ann",
            "an \u{FE0F}n",
            "a\u{FE0F}\u{FE0F}",
            "a\u{200B}\u{FE0F}",
            "\u{E0100}",
        ] {
            assert!(first_invisible(bad, &[]).is_some(), "{bad:?}");
        }
    }

    #[test]
    fn ordinary_text_of_every_script_is_visible() {
        for ok in [
            "Acme (Shanghai) Co., Ltd.",
            "张三",
            "Zoë Müller",
            "Łukasz",
            "Οδυσσεύς",
            "Пётр",
            "محمد",
            "עברית",
            "हिन्दी",
            "한국어",
            "日本語のテキスト",
            "\u{2764}\u{FE0F}",
        ] {
            assert_eq!(first_invisible(ok, &[]), None, "{ok}");
        }
    }

    #[test]
    fn allowed_characters_pass_but_nothing_else_does() {
        assert_eq!(first_invisible("line\nbreak", &['\n']), None);
        assert_eq!(first_invisible("line\r\nbreak", &['\n']), Some('\r'));
        assert_eq!(first_invisible("\n\u{FE0F}", &['\n']), Some('\u{FE0F}'));
    }

    #[test]
    fn names_that_differ_in_case_or_width_share_one_key() {
        let key = username_key("ann");
        for same in ["Ann", "ANN", "ＡＮＮ", "ａｎｎ", "Ａnn"] {
            assert_eq!(username_key(same), key, "{same}");
        }
        assert_eq!(username_key("ΟΔΥΣΣΕΥΣ"), username_key("οδυσσευσ"));
        assert_eq!(username_key("ﬁsh"), "fish");
        assert_ne!(username_key("straße"), username_key("strasse"));
        assert_ne!(username_key("ann"), username_key("anne"));
    }

    #[test]
    fn an_ascii_name_keeps_the_key_it_always_had() {
        for name in [
            "ann",
            "Anna_Lee",
            "O'Brien",
            "user.name-1",
            "(Kim)",
            "ZZ-top_9",
        ] {
            assert_eq!(username_key(name), name.to_lowercase(), "{name}");
        }
    }

    #[test]
    fn the_key_of_a_key_is_itself() {
        for name in [
            "ＡＮＮ",
            "Οδυσσεύς",
            "İstanbul",
            "ǅemal",
            "ﬃ",
            "Straße",
            "张三",
            "ｶﾞ",
        ] {
            let k = username_key(name);
            assert_eq!(username_key(&k), k, "{name}");
        }
    }

    #[test]
    fn nfc_composes_and_nfkc_folds_presentation_forms() {
        assert_eq!(nfc("e\u{301}"), "é");
        assert_eq!(nfc("ＡＮＮ"), "ＡＮＮ");
        assert_eq!(nfkc("ＡＮＮ"), "ANN");
        assert_eq!(nfkc("ann＠home"), "ann@home");
    }
}
