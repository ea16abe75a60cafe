//! The form of an endpoint URL, checked at registration (docs/events-design.md §3): https only
//! (http only to `localhost`, `127.0.0.1` or `[::1]` where the server allows local http: `ciam
//! serve`), no user name or password, no fragment, at most [`MAX_LEN`] characters, and no
//! literal address the delivery guard would refuse. The address a name resolves to is checked
//! at each delivery (`guard`), as DNS can change.

use super::guard::{self, is_local_host};
use crate::error::{Error, Result};
use crate::Reason;
use url::{Host, Url};

/// The longest URL an endpoint may have.
pub const MAX_LEN: usize = 2048;

fn refuse(reason: Reason) -> Error {
    let mut e = Error::new(reason);
    e.field = Some("url".into());
    e
}

/// Parses and checks a URL an admin registers; `local_http`: the server's local-http mode.
pub fn check(raw: &str, local_http: bool) -> Result<Url> {
    if raw.chars().count() > MAX_LEN {
        return Err(refuse(Reason::WEBHOOK_URL_TOO_LONG));
    }
    let url = Url::parse(raw.trim()).map_err(|_| refuse(Reason::WEBHOOK_URL_INVALID))?;
    if url.host().is_none() || url.cannot_be_a_base() {
        return Err(refuse(Reason::WEBHOOK_URL_INVALID));
    }
    if !url.username().is_empty() || url.password().is_some() {
        return Err(refuse(Reason::WEBHOOK_URL_USERINFO));
    }
    if url.fragment().is_some() || raw.contains('#') {
        return Err(refuse(Reason::WEBHOOK_URL_FRAGMENT));
    }
    let local = local_http && is_local_host(&url);
    match url.scheme() {
        "https" => {}
        "http" if local => {}
        _ => return Err(refuse(Reason::WEBHOOK_URL_NOT_HTTPS)),
    }
    if !local {
        let literal = match url.host() {
            Some(Host::Ipv4(ip)) => Some(std::net::IpAddr::V4(ip)),
            Some(Host::Ipv6(ip)) => Some(std::net::IpAddr::V6(ip)),
            _ => None,
        };
        let named_local = matches!(url.host(), Some(Host::Domain(d)) if d.eq_ignore_ascii_case("localhost") || d.to_ascii_lowercase().ends_with(".localhost"));
        if named_local || literal.is_some_and(guard::forbidden) {
            return Err(refuse(Reason::WEBHOOK_URL_PRIVATE));
        }
    }
    Ok(url)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reason(raw: &str, local: bool) -> Option<Reason> {
        check(raw, local).err().map(|e| e.reason)
    }

    #[test]
    fn each_refusal_has_its_reason() {
        assert_eq!(reason("https://hooks.example.com/ciam", false), None);
        assert_eq!(
            reason("http://hooks.example.com/", false),
            Some(Reason::WEBHOOK_URL_NOT_HTTPS)
        );
        assert_eq!(
            reason("ftp://hooks.example.com/", false),
            Some(Reason::WEBHOOK_URL_NOT_HTTPS)
        );
        assert_eq!(
            reason("http://localhost:9/", false),
            Some(Reason::WEBHOOK_URL_NOT_HTTPS)
        );
        assert_eq!(reason("http://localhost:9/", true), None);
        assert_eq!(reason("http://127.0.0.1:9/", true), None);
        assert_eq!(reason("http://[::1]:9/", true), None);
        assert_eq!(
            reason("http://10.0.0.1/", true),
            Some(Reason::WEBHOOK_URL_NOT_HTTPS)
        );
        assert_eq!(
            reason("https://u:p@hooks.example.com/", false),
            Some(Reason::WEBHOOK_URL_USERINFO)
        );
        assert_eq!(
            reason("https://u@hooks.example.com/", false),
            Some(Reason::WEBHOOK_URL_USERINFO)
        );
        assert_eq!(
            reason("https://hooks.example.com/#x", false),
            Some(Reason::WEBHOOK_URL_FRAGMENT)
        );
        assert_eq!(
            reason("https://hooks.example.com/#", false),
            Some(Reason::WEBHOOK_URL_FRAGMENT)
        );
        let long = format!("https://hooks.example.com/{}", "a".repeat(2048));
        assert_eq!(reason(&long, false), Some(Reason::WEBHOOK_URL_TOO_LONG));
        assert_eq!(
            reason("not a url", false),
            Some(Reason::WEBHOOK_URL_INVALID)
        );
        assert_eq!(
            reason("mailto:a@example.com", false),
            Some(Reason::WEBHOOK_URL_INVALID)
        );
        for private in [
            "https://127.0.0.1/",
            "https://10.0.0.1/",
            "https://169.254.169.254/latest",
            "https://[::1]/",
            "https://[fd00:ec2::254]/",
            "https://localhost/",
        ] {
            assert_eq!(
                reason(private, false),
                Some(Reason::WEBHOOK_URL_PRIVATE),
                "{private}"
            );
        }
    }
}
