use serde::Serialize;

/// The two languages the product speaks. Anything else falls back to zh-CN, the default.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Default)]
pub enum Lang {
    #[default]
    #[serde(rename = "zh-CN")]
    ZhCn,
    #[serde(rename = "en-US")]
    EnUs,
}

impl Lang {
    pub fn tag(self) -> &'static str {
        match self {
            Lang::ZhCn => "zh-CN",
            Lang::EnUs => "en-US",
        }
    }

    /// Exactly "zh-CN" or "en-US" (case-insensitive), as in a URL segment or a stored locale.
    pub fn parse_tag(s: &str) -> Option<Lang> {
        if s.eq_ignore_ascii_case("zh-CN") {
            Some(Lang::ZhCn)
        } else if s.eq_ignore_ascii_case("en-US") {
            Some(Lang::EnUs)
        } else {
            None
        }
    }

    /// The locale of any language tag (issue 12 §3; still only the two): `en` or `en-*`
    /// (en-GB, en-AU) is en-US, `zh` or `zh-*` (zh-TW) is zh-CN, as in web/src/i18n/locale.ts.
    pub fn of_language(tag: &str) -> Option<Lang> {
        let primary = tag.split(['-', '_']).next().unwrap_or_default();
        if primary.eq_ignore_ascii_case("zh") {
            Some(Lang::ZhCn)
        } else if primary.eq_ignore_ascii_case("en") {
            Some(Lang::EnUs)
        } else {
            None
        }
    }

    /// Reads an `Accept-Language` header: the most preferred tag that is English or Chinese wins
    /// (`of_language`: en-GB is en-US), otherwise zh-CN.
    pub fn from_accept_language(header: Option<&str>) -> Lang {
        let Some(header) = header else {
            return Lang::ZhCn;
        };
        let mut best: Option<(f32, usize, Lang)> = None;
        for (pos, part) in header.split(',').enumerate() {
            let mut pieces = part.trim().split(';');
            let tag = pieces.next().unwrap_or("").trim();
            let q = pieces
                .find_map(|p| p.trim().strip_prefix("q="))
                .and_then(|q| q.trim().parse::<f32>().ok())
                .unwrap_or(1.0);
            if let Some(lang) = Lang::of_language(tag) {
                if q > 0.0 && best.is_none_or(|(bq, bp, _)| q > bq || (q == bq && pos < bp)) {
                    best = Some((q, pos, lang));
                }
            }
        }
        best.map(|(_, _, l)| l).unwrap_or_default()
    }

    pub fn pick(self, zh: &'static str, en: &'static str) -> &'static str {
        match self {
            Lang::ZhCn => zh,
            Lang::EnUs => en,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accept_language_picks_the_preferred_supported_tag() {
        assert_eq!(
            Lang::from_accept_language(Some("en-US,en;q=0.9")),
            Lang::EnUs
        );
        assert_eq!(Lang::from_accept_language(Some("zh-CN")), Lang::ZhCn);
        assert_eq!(
            Lang::from_accept_language(Some("fr-FR, en-US;q=0.5")),
            Lang::EnUs
        );
        assert_eq!(
            Lang::from_accept_language(Some("zh-CN;q=0.4, en-US;q=0.8")),
            Lang::EnUs
        );
    }

    #[test]
    fn any_english_is_en_us_and_any_chinese_zh_cn() {
        for h in ["en-GB", "en-AU,en;q=0.9", "en", "EN-gb", "fr;q=0.9, en-IN"] {
            assert_eq!(Lang::from_accept_language(Some(h)), Lang::EnUs, "{h}");
        }
        for h in [
            "zh-TW",
            "zh",
            "zh-Hant-HK,en;q=0.5",
            "de, zh-SG;q=0.8, en;q=0.7",
        ] {
            assert_eq!(Lang::from_accept_language(Some(h)), Lang::ZhCn, "{h}");
        }
        assert_eq!(Lang::of_language("english"), None);
        assert_eq!(Lang::of_language("zhx"), None);
    }

    #[test]
    fn anything_unsupported_becomes_zh_cn() {
        assert_eq!(Lang::from_accept_language(None), Lang::ZhCn);
        assert_eq!(Lang::from_accept_language(Some("fr-FR,de")), Lang::ZhCn);
        assert_eq!(Lang::from_accept_language(Some("en-US;q=0")), Lang::ZhCn);
        assert_eq!(Lang::from_accept_language(Some("")), Lang::ZhCn);
    }
}
