//! Which approved template each message uses: one per purpose (`register`, `login`,
//! `resetPassword`, `bind`) and per notice kind (`phoneChanged`, `deactivated`, ...), per
//! language, with a language-less default. Written as `key[@lang]=template,...`, e.g.
//! `register=SMS_1001,register@en-US=SMS_1002,login=SMS_1003` (a flag or an environment
//! variable; on AWS, the same string from the stack's parameters).

use ciam_core::Lang;
use std::collections::BTreeMap;

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Templates(BTreeMap<(String, Option<&'static str>), String>);

impl Templates {
    pub fn parse(spec: &str) -> Result<Templates, String> {
        let mut t = Templates::default();
        for entry in spec.split(',').map(str::trim).filter(|e| !e.is_empty()) {
            let (key, id) = entry
                .split_once('=')
                .ok_or_else(|| format!("template `{entry}`: expected key[@lang]=template"))?;
            let (key, lang) = match key.split_once('@') {
                Some((k, l)) => (k, Some(lang_of(l)?)),
                None => (key, None),
            };
            if key.is_empty() || id.trim().is_empty() {
                return Err(format!("template `{entry}`: empty key or template"));
            }
            t = t.with(key.trim(), lang, id.trim());
        }
        Ok(t)
    }

    pub fn with(mut self, key: &str, lang: Option<Lang>, id: &str) -> Templates {
        self.0
            .insert((key.to_owned(), lang.map(Lang::tag)), id.to_owned());
        self
    }

    /// The template of `key` in `lang`, else its language-less one.
    pub fn pick(&self, key: &str, lang: Lang) -> Option<&str> {
        self.0
            .get(&(key.to_owned(), Some(lang.tag())))
            .or_else(|| self.0.get(&(key.to_owned(), None)))
            .map(String::as_str)
    }
}

fn lang_of(tag: &str) -> Result<Lang, String> {
    match tag.trim() {
        "zh-CN" => Ok(Lang::ZhCn),
        "en-US" => Ok(Lang::EnUs),
        other => Err(format!("template language `{other}`: zh-CN or en-US")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_language_specific_template_wins_over_the_default() {
        let t = Templates::parse("register=SMS_1, register@en-US=SMS_2,login=SMS_3").unwrap();
        assert_eq!(t.pick("register", Lang::EnUs), Some("SMS_2"));
        assert_eq!(t.pick("register", Lang::ZhCn), Some("SMS_1"));
        assert_eq!(t.pick("login", Lang::EnUs), Some("SMS_3"));
        assert_eq!(t.pick("bind", Lang::ZhCn), None);
    }

    #[test]
    fn malformed_specs_are_refused_with_the_entry() {
        assert!(Templates::parse("register")
            .unwrap_err()
            .contains("register"));
        assert!(Templates::parse("register@fr=SMS_1")
            .unwrap_err()
            .contains("fr"));
        assert!(Templates::parse("=SMS_1").is_err());
        assert_eq!(Templates::parse("").unwrap(), Templates::default());
    }
}
