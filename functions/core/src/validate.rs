//! The validation rules of spec §5, once, on the server. Each parser turns raw input into a
//! domain value or an error naming the field. The web app mirrors them and is tested against the
//! vectors in `tests/validation_vectors.json` (see docs/validation.md).

use crate::error::{Error, Result};
use crate::Reason;

mod unicode;
pub use unicode::{first_invisible, nfc, nfkc, refused as invisible, username_key};

/// A normalised e-mail address (trimmed, lower-cased).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Email(String);

/// A mainland-China mobile number, 11 digits starting with 1[3-9], without +86.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Phone(String);

/// A verified-able contact: where codes are sent and what a person signs in with.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Identity {
    Mail(Email),
    Phone(Phone),
}

impl Email {
    pub fn parse(raw: &str) -> Result<Email> {
        let s = raw.trim().to_lowercase();
        let bad = || {
            Error::field(
                Reason::INVALID_MAIL,
                "mail",
                "邮箱格式不正确",
                "Invalid e-mail",
            )
        };
        if s.len() > 254 || s.chars().any(|c| c.is_whitespace() || c.is_control()) {
            return Err(bad());
        }
        let (local, domain) = s.rsplit_once('@').ok_or_else(bad)?;
        let local_ok = !local.is_empty()
            && local.len() <= 64
            && !local.contains('@')
            && !local.starts_with('.')
            && !local.ends_with('.')
            && !local.contains("..")
            && local
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || "!#$%&'*+-/=?^_`{|}~.".contains(c));
        let labels: Vec<&str> = domain.split('.').collect();
        let domain_ok = labels.len() >= 2
            && labels.iter().all(|l| {
                !l.is_empty()
                    && l.len() <= 63
                    && !l.starts_with('-')
                    && !l.ends_with('-')
                    && l.chars().all(|c| c.is_ascii_alphanumeric() || c == '-')
            })
            && labels
                .last()
                .is_some_and(|tld| tld.len() >= 2 && tld.chars().all(|c| c.is_ascii_alphabetic()));
        if local_ok && domain_ok {
            Ok(Email(s))
        } else {
            Err(bad())
        }
    }
    pub fn as_str(&self) -> &str {
        &self.0
    }
    pub fn domain(&self) -> &str {
        self.0.rsplit_once('@').map(|(_, d)| d).unwrap_or("")
    }
    /// `ab***@example.com`: enough for the owner to recognise it.
    pub fn masked(&self) -> String {
        let (local, domain) = self.0.rsplit_once('@').unwrap_or((&self.0, ""));
        let keep: String = local
            .chars()
            .take(if local.chars().count() > 2 { 2 } else { 1 })
            .collect();
        format!("{keep}***@{domain}")
    }
}

impl Phone {
    pub fn parse(raw: &str) -> Result<Phone> {
        let s: String = raw
            .trim()
            .chars()
            .filter(|c| *c != ' ' && *c != '-')
            .collect();
        let s = s
            .strip_prefix("+86")
            .or_else(|| s.strip_prefix("0086"))
            .unwrap_or(&s);
        let b = s.as_bytes();
        if b.len() == 11
            && b[0] == b'1'
            && (b'3'..=b'9').contains(&b[1])
            && b.iter().all(u8::is_ascii_digit)
        {
            Ok(Phone(s.to_owned()))
        } else {
            Err(Error::field(
                Reason::INVALID_PHONE,
                "phone",
                "手机号格式不正确，仅支持中国大陆手机号",
                "Invalid phone: only mainland China numbers are supported",
            ))
        }
    }
    pub fn as_str(&self) -> &str {
        &self.0
    }
    /// `138****8000`.
    pub fn masked(&self) -> String {
        format!("{}****{}", &self.0[..3], &self.0[7..])
    }
}

impl Identity {
    /// A mail when it contains `@`, else a phone number.
    pub fn parse(raw: &str) -> Result<Identity> {
        if raw.contains('@') {
            Email::parse(raw).map(Identity::Mail)
        } else {
            Phone::parse(raw).map(Identity::Phone)
        }
    }
    pub fn as_str(&self) -> &str {
        match self {
            Identity::Mail(m) => m.as_str(),
            Identity::Phone(p) => p.as_str(),
        }
    }
    /// The uniqueness item's partition key: `MAIL#…` or `PHONE#…`.
    pub fn unique_pk(&self) -> String {
        match self {
            Identity::Mail(m) => format!("MAIL#{}", m.as_str()),
            Identity::Phone(p) => format!("PHONE#{}", p.as_str()),
        }
    }
    pub fn exists_reason(&self) -> Reason {
        match self {
            Identity::Mail(_) => Reason::MAIL_EXIST,
            Identity::Phone(_) => Reason::PHONE_EXIST,
        }
    }
    pub fn not_found_reason(&self) -> Reason {
        match self {
            Identity::Mail(_) => Reason::MAIL_NOT_FOUND,
            Identity::Phone(_) => Reason::PHONE_NOT_FOUND,
        }
    }
}

/// Characters refused in names (spec §5 "It cannot contain special characters"): markup, quotes,
/// escapes and shell/template metacharacters. Letters of any script, digits, spaces and the
/// punctuation of ordinary company names (`.,&()-_'`) stay allowed.
pub const SPECIAL_CHARS: &str = "<>\"`\\/{}[]|;$%^*=~!?@#+";

/// Refuses invisible and bidi-control characters (see `unicode::first_invisible`) except those
/// in `allowed`: reversed or look-alike text shown to admins and partners.
pub fn visible(field: &'static str, s: &str, allowed: &[char]) -> Result<()> {
    match first_invisible(s, allowed) {
        None => Ok(()),
        Some(c) => Err(Error {
            cause: Some(format!("{field} holds U+{:04X}", u32::from(c))),
            ..Error::field(
                Reason::INVALID_PARAMETER,
                field,
                "不能包含不可见字符或控制字符",
                "It cannot contain invisible or control characters",
            )
        }),
    }
}

fn no_special(field: &'static str, s: &str) -> Result<()> {
    visible(field, s, &[])?;
    if s.chars().any(|c| SPECIAL_CHARS.contains(c)) {
        Err(Error::field(
            Reason::INVALID_PARAMETER,
            field,
            "不能包含特殊字符",
            "It cannot contain special characters",
        ))
    } else {
        Ok(())
    }
}

fn bounded(field: &'static str, s: &str, max: usize) -> Result<()> {
    if s.chars().count() > max {
        Err(Error::field(
            Reason::INVALID_PARAMETER,
            field,
            "内容过长",
            "Too long",
        ))
    } else {
        Ok(())
    }
}

/// Trimmed (of White_Space only, so a byte-order mark at either end is refused, not hidden) and
/// in NFC, the form text is checked, counted and stored in.
fn tidy(raw: &str) -> String {
    nfc(raw.trim()).into_owned()
}

/// A required free-text field: trimmed, NFC, not empty or blank, bounded, nothing invisible, no
/// special characters.
pub fn required_text(field: &'static str, raw: &str, max: usize) -> Result<String> {
    let s = tidy(raw);
    if s.is_empty() {
        return Err(Error::field(
            Reason::INVALID_PARAMETER,
            field,
            "该字段不能为空",
            "The field cannot be empty",
        ));
    }
    bounded(field, &s, max)?;
    no_special(field, &s)?;
    Ok(s)
}

/// An optional free-text field: trimmed; blank means "clear it".
pub fn optional_text(field: &'static str, raw: &str, max: usize) -> Result<Option<String>> {
    let s = tidy(raw);
    if s.is_empty() {
        return Ok(None);
    }
    bounded(field, &s, max)?;
    no_special(field, &s)?;
    Ok(Some(s))
}

/// Longer text (an app's description): trimmed, NFC, bounded, nothing invisible but line
/// breaks; punctuation is free.
pub fn prose(field: &'static str, raw: &str, max: usize) -> Result<String> {
    let s = tidy(raw);
    bounded(field, &s, max)?;
    visible(field, &s, &['\n'])?;
    Ok(s)
}

/// A company name (spec §5): nothing at all is "enter the company name"; spaces only are "The
/// field cannot be empty" (as any blank required field, `required_text`).
pub fn company(raw: &str) -> Result<String> {
    if raw.is_empty() {
        return Err(Error::field(
            Reason::INVALID_PARAMETER,
            "company",
            "请输入公司名称",
            "Please enter the company name",
        ));
    }
    required_text("company", raw, 100)
}

/// Usernames: 2 to 32 characters, nothing invisible, no special characters, also once
/// compatibility forms are folded ("ann＠home" reads as "ann@home"). A space is allowed between
/// words ("Zhang Wei"), one at a time: trimmed at both ends, never doubled, and no other white
/// space (a tab, a no-break or an ideographic space) (docs/validation.md). Answered in NFC, as
/// typed otherwise; uniqueness goes by `username_key` (case and width folded).
pub fn username(raw: &str) -> Result<String> {
    let s = required_text("userName", raw, 32)?;
    let spaced_badly = s.contains("  ") || s.chars().any(|c| c.is_whitespace() && c != ' ');
    if s.chars().count() < 2 || spaced_badly {
        return Err(Error::field(
            Reason::INVALID_PARAMETER,
            "userName",
            USERNAME_RULE.0,
            USERNAME_RULE.1,
        ));
    }
    no_special("userName", &nfkc(&s))?;
    Ok(s)
}

/// The username rule's words (Chinese, English); the web says the same (lib/validate.ts).
const USERNAME_RULE: (&str, &str) = (
    "用户名需 2 到 32 个字符，词之间只能有一个空格",
    "Username: 2 to 32 characters, one space at most between words",
);

/// ISO 3166-1 alpha-2 country or region code, upper-cased.
pub fn country(raw: &str) -> Result<String> {
    let s = raw.trim().to_ascii_uppercase();
    if s.is_empty() {
        return Err(Error::field(
            Reason::INVALID_PARAMETER,
            "country",
            "请选择国家或地区",
            "Please choose a country or region",
        ));
    }
    if s.len() != 2 || !s.chars().all(|c| c.is_ascii_uppercase()) {
        return Err(Error::field(
            Reason::INVALID_PARAMETER,
            "country",
            "国家或地区无效",
            "Unknown country or region",
        ));
    }
    Ok(s)
}

pub fn code(field: &'static str, raw: &str) -> Result<String> {
    let s = raw.trim();
    if s.is_empty() {
        return Err(Error::field(
            Reason::INVALID_PARAMETER,
            field,
            "验证码不能为空",
            "Verification code cannot be empty",
        ));
    }
    if s.len() != 6 || !s.chars().all(|c| c.is_ascii_digit()) {
        return Err(Error::field(
            Reason::CODE_ERROR,
            field,
            "请输入 6 位数字",
            "Please enter 6 digits",
        ));
    }
    Ok(s.to_owned())
}

pub fn accept_terms(accepted: bool) -> Result<()> {
    if accepted {
        Ok(())
    } else {
        Err(Error::field(
            Reason::INVALID_PARAMETER,
            "acceptTerms",
            "您需要同意以上条款",
            "You have to accept the above terms",
        ))
    }
}

pub fn confirm_matches(password: &str, confirm: &str) -> Result<()> {
    if password == confirm {
        Ok(())
    } else {
        Err(Error::field(
            Reason::INVALID_PARAMETER,
            "confirmPassword",
            "两次输入的密码不一致",
            "Password does not match",
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn emails_are_normalised_and_checked() {
        assert_eq!(
            Email::parse(" Ann.Lee@Example.COM ").unwrap().as_str(),
            "ann.lee@example.com"
        );
        for bad in [
            "",
            "a",
            "a@b",
            "a@@b.com",
            "a b@c.com",
            ".a@b.com",
            "a..b@c.com",
            "a@-b.com",
            "a@b.c0m",
        ] {
            assert_eq!(
                Email::parse(bad).unwrap_err().reason,
                Reason::INVALID_MAIL,
                "{bad}"
            );
        }
        assert_eq!(
            Email::parse("ann@example.com").unwrap().masked(),
            "an***@example.com"
        );
    }

    #[test]
    fn only_mainland_china_mobiles_are_phones() {
        assert_eq!(
            Phone::parse("+86 138-0013-8000").unwrap().as_str(),
            "13800138000"
        );
        for bad in [
            "",
            "12800138000",
            "1380013800",
            "138001380001",
            "+1 4155550100",
            "1380013800a",
        ] {
            assert_eq!(
                Phone::parse(bad).unwrap_err().reason,
                Reason::INVALID_PHONE,
                "{bad}"
            );
        }
        assert_eq!(Phone::parse("13800138000").unwrap().masked(), "138****8000");
    }

    #[test]
    fn names_refuse_special_characters_and_blanks() {
        assert_eq!(company("  ").unwrap_err().field.as_deref(), Some("company"));
        assert_eq!(
            company("Acme <b>").unwrap_err().reason,
            Reason::INVALID_PARAMETER
        );
        assert_eq!(
            company(" Acme (Shanghai) Co., Ltd. ").unwrap(),
            "Acme (Shanghai) Co., Ltd."
        );
        assert!(username("a  b").is_err());
        assert_eq!(username("a b").unwrap(), "a b");
        assert!(username("x").is_err());
        assert_eq!(username("张三").unwrap(), "张三");
    }

    #[test]
    fn invisible_characters_are_refused_naming_the_field() {
        for (field, raw) in [
            ("userName", "ann\u{202E}"),
            ("userName", "a\u{200B}nn"),
            ("company", "Acme\u{2066}Co"),
            ("company", "\u{FEFF}Acme"),
        ] {
            let e = if field == "userName" {
                username(raw)
            } else {
                company(raw)
            }
            .unwrap_err();
            assert_eq!(
                (e.reason, e.field.as_deref()),
                (Reason::INVALID_PARAMETER, Some(field)),
                "{raw:?}"
            );
            assert!(e.cause.unwrap_or_default().contains("U+"), "{raw:?}");
        }
        let e = optional_text("displayName", "Ann\u{3164}", 50).unwrap_err();
        assert_eq!(e.field.as_deref(), Some("displayName"));
        assert_eq!(
            optional_text("address", "1 Main St\u{2028}Suite 2", 200)
                .unwrap_err()
                .field
                .as_deref(),
            Some("address")
        );
    }

    #[test]
    fn usernames_are_kept_in_nfc_and_judged_in_nfkc_too() {
        assert_eq!(username("Zoe\u{308}").unwrap(), "Zoë");
        assert_eq!(username("ＡＮＮ").unwrap(), "ＡＮＮ");
        assert_eq!(username(" Zhang Wei ").unwrap(), "Zhang Wei");
        for bad in [
            "ann＠home",
            "ａ＜ｂ",
            "50％",
            "Zhang  Wei",
            "Zhang\tWei",
            "张\u{3000}三",
        ] {
            assert_eq!(
                username(bad).unwrap_err().field.as_deref(),
                Some("userName"),
                "{bad}"
            );
        }
    }

    #[test]
    fn prose_allows_punctuation_and_line_breaks_but_nothing_invisible() {
        assert_eq!(
            prose("description", " Orders & machines!\nNew? ", 500).unwrap(),
            "Orders & machines!\nNew?"
        );
        for bad in ["a\u{202E}b", "a\u{200B}", "a\rb", "a\tb"] {
            assert_eq!(
                prose("description", bad, 500).unwrap_err().field.as_deref(),
                Some("description"),
                "{bad:?}"
            );
        }
        assert!(prose("description", &"x".repeat(501), 500).is_err());
    }
}
