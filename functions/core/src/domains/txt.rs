//! The DNS TXT proof (docs/organizations-domains.md §1.1): the record Ciam asks for, the one
//! lookup that checks it, and the port the lookup goes through (`TxtLookup`: hickory-resolver in
//! `domains::dns` with feature `dns`; the tests run a real DNS server).

use crate::domains::name::DomainName;
use crate::error::{Error, Message, Result};
use crate::Reason;
use async_trait::async_trait;

/// The label under the domain where the record is published.
pub const LABEL: &str = "_ciam-verify";
/// The value's prefix, before the claim's token.
pub const PREFIX: &str = "ciam-verify=";

/// The record's name: `_ciam-verify.<domain>`.
pub fn record_name(domain: &DomainName) -> String {
    format!("{LABEL}.{}", domain.as_str())
}

/// The record's value: `ciam-verify=<token>`.
pub fn record_value(token: &str) -> String {
    format!("{PREFIX}{token}")
}

/// Why a lookup gave no records.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LookupError {
    /// The name does not exist (NXDOMAIN) or has no TXT records: an answer.
    NotFound,
    /// No answer: a timeout, a refusal, SERVFAIL, a network error. Not a verdict.
    Unavailable(String),
}

/// Reads the TXT records of a name.
#[async_trait]
pub trait TxtLookup: Send + Sync {
    /// Each TXT record of `name` (a fully qualified name without the trailing dot), its
    /// character strings joined (RFC 7208 §3.3). One lookup; bounded in time by the
    /// implementation.
    async fn txt(&self, name: &str) -> Result<Vec<String>, LookupError>;
}

/// The check of one claim: Ok when some TXT record at `_ciam-verify.<domain>` is exactly
/// `ciam-verify=<token>` (spaces around it ignored). DOMAIN_TXT_NOT_FOUND when the name, its
/// TXT records or our value are missing (the message names the expected record);
/// DOMAIN_DNS_UNAVAILABLE (503) when DNS gave no answer. One lookup.
pub async fn check(lookup: &dyn TxtLookup, domain: &DomainName, token: &str) -> Result<()> {
    let name = record_name(domain);
    let expected = record_value(token);
    match lookup.txt(&name).await {
        Ok(values) if values.iter().any(|v| v.trim() == expected) => Ok(()),
        Ok(_) | Err(LookupError::NotFound) => Err(Error {
            field: Some("domain".into()),
            message: Some(Message::Raw(format!("{name} TXT \"{expected}\""))),
            ..Error::new(Reason::DOMAIN_TXT_NOT_FOUND)
        }),
        Err(LookupError::Unavailable(cause)) => Err(Error {
            cause: Some(format!("dns {name}: {cause}")),
            ..Error::new(Reason::DOMAIN_DNS_UNAVAILABLE)
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    struct Fixed(HashMap<String, Result<Vec<String>, LookupError>>);

    #[async_trait]
    impl TxtLookup for Fixed {
        async fn txt(&self, name: &str) -> Result<Vec<String>, LookupError> {
            self.0
                .get(name)
                .cloned()
                .unwrap_or(Err(LookupError::NotFound))
        }
    }

    #[test]
    fn the_record_is_named_under_the_domain_with_the_token_in_its_value() {
        let d = DomainName::parse("acme.com").unwrap();
        assert_eq!(record_name(&d), "_ciam-verify.acme.com");
        assert_eq!(record_value("abc"), "ciam-verify=abc");
    }

    #[tokio::test]
    async fn only_the_exact_value_verifies_and_no_answer_is_not_a_verdict() {
        let d = DomainName::parse("acme.com").unwrap();
        let n = record_name(&d);
        let with = |r| Fixed(HashMap::from([(n.clone(), r)]));
        let ok = with(Ok(vec!["v=spf1 -all".into(), " ciam-verify=t1 ".into()]));
        assert!(check(&ok, &d, "t1").await.is_ok());
        let other = check(&ok, &d, "t2").await.unwrap_err();
        assert_eq!(other.reason, Reason::DOMAIN_TXT_NOT_FOUND);
        assert_eq!(
            other.message,
            Some(Message::Raw(
                "_ciam-verify.acme.com TXT \"ciam-verify=t2\"".into()
            ))
        );
        let prefix_only = with(Ok(vec!["ciam-verify=t1x".into()]));
        assert!(check(&prefix_only, &d, "t1").await.is_err());
        let down = with(Err(LookupError::Unavailable("timed out".into())));
        let e = check(&down, &d, "t1").await.unwrap_err();
        assert_eq!(e.reason, Reason::DOMAIN_DNS_UNAVAILABLE);
        assert_eq!(e.reason.status(), 503);
    }
}
