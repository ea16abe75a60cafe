//! A domain an organization claims, normalised once at the edge
//! (docs/organizations-domains.md §3): lower case, UTS 46 to ASCII, at least two LDH labels,
//! never a public suffix or a free-mail provider.

use crate::domains::public;
use crate::error::{Error, Result};
use crate::Reason;

/// A normalised domain: lower-case A-labels (`xn--...` for the Unicode ones), no trailing dot.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct DomainName(String);

fn invalid() -> Error {
    Error::field(
        Reason::DOMAIN_INVALID,
        "domain",
        "域名格式不正确",
        "Invalid domain name",
    )
}

fn label_ok(l: &str) -> bool {
    !l.is_empty()
        && l.len() <= 63
        && !l.starts_with('-')
        && !l.ends_with('-')
        && l.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-')
}

impl DomainName {
    /// DOMAIN_INVALID for anything that is not a registrable-looking name; DOMAIN_PUBLIC for a
    /// public suffix or a free-mail provider.
    pub fn parse(raw: &str) -> Result<DomainName> {
        let s = raw.trim();
        let s = s.strip_suffix('.').unwrap_or(s);
        if s.is_empty() || s.len() > 253 * 4 || s.chars().any(|c| c.is_whitespace()) {
            return Err(invalid());
        }
        let ascii = idna::domain_to_ascii_strict(s).map_err(|_| invalid())?;
        let labels: Vec<&str> = ascii.split('.').collect();
        let tld_ok = labels
            .last()
            .is_some_and(|t| t.starts_with("xn--") || t.bytes().all(|b| b.is_ascii_alphabetic()));
        if ascii.len() > 253 || labels.len() < 2 || !labels.iter().all(|l| label_ok(l)) || !tld_ok {
            return Err(invalid());
        }
        if public::refused(&ascii) {
            return Err(Error::field(
                Reason::DOMAIN_PUBLIC,
                "domain",
                "该域名为公共后缀或免费邮箱服务商所有",
                "This domain is a public suffix or a free mail provider's",
            ));
        }
        Ok(DomainName(ascii))
    }

    /// The stored form (A-labels).
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The form people read (U-labels), e.g. `例子.公司`.
    pub fn unicode(&self) -> String {
        idna::domain_to_unicode(&self.0).0
    }

    /// The domain of a proven address, for the enrolment look-up: `None` when the address has
    /// no domain Ciam could ever have verified (so no read is made for it).
    pub fn of_mail(mail: &str) -> Option<DomainName> {
        let (_, domain) = mail.rsplit_once('@')?;
        DomainName::parse(domain).ok()
    }
}

impl std::fmt::Display for DomainName {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_domain_is_trimmed_lower_cased_and_stored_as_a_labels() {
        assert_eq!(
            DomainName::parse(" Acme.COM. ").unwrap().as_str(),
            "acme.com"
        );
        let idn = DomainName::parse("例子.公司").unwrap();
        assert_eq!(idn.as_str(), "xn--fsqu00a.xn--55qx5d");
        assert_eq!(idn.unicode(), "例子.公司");
        assert_eq!(
            DomainName::parse("ACME.com.cn").unwrap().as_str(),
            "acme.com.cn"
        );
    }

    #[test]
    fn single_labels_addresses_and_broken_labels_are_invalid() {
        for bad in [
            "",
            "com",
            "localhost",
            "127.0.0.1",
            "acme..com",
            "-acme.com",
            "acme-.com",
            "ac me.com",
            "acme.com/x",
            "a@acme.com",
            "_acme.com",
        ] {
            let e = DomainName::parse(bad).unwrap_err();
            assert_eq!(e.reason, Reason::DOMAIN_INVALID, "{bad}");
        }
        let long = format!("{}.com", "a".repeat(64));
        assert_eq!(
            DomainName::parse(&long).unwrap_err().reason,
            Reason::DOMAIN_INVALID
        );
    }

    #[test]
    fn public_suffixes_and_free_mail_domains_are_refused() {
        for public in [
            "com.cn",
            "COM.CN",
            "bj.cn",
            "co.uk",
            "qq.com",
            "163.com",
            "Gmail.com.",
        ] {
            let e = DomainName::parse(public).unwrap_err();
            assert_eq!(e.reason, Reason::DOMAIN_PUBLIC, "{public}");
        }
        // A company under a public suffix is fine.
        assert!(DomainName::parse("acme.com.cn").is_ok());
    }

    #[test]
    fn the_domain_of_a_mail_is_found_only_when_it_could_be_claimed() {
        assert_eq!(
            DomainName::of_mail("ann@Acme.com").unwrap().as_str(),
            "acme.com"
        );
        assert_eq!(DomainName::of_mail("ann@qq.com"), None);
        assert_eq!(DomainName::of_mail("no-at-sign"), None);
    }
}
