//! The URLs an admin registers for an app: service URLs (tickets and OpenID Connect answers go
//! there, matched character for character), frame origins (the embedded sign-in's
//! `frame-ancestors` and postMessage targets) and the logo. Each must be a URL a browser can
//! really reach, written the one way the WHATWG parser writes it back, so exact matching means
//! something: no wildcard an admin might believe works, no host DNS could never resolve.

use crate::error::{Error, Result};
use crate::Reason;
use std::borrow::Cow;

/// Longest host name DNS carries (RFC 1035, without the root's trailing dot) and longest label.
const MAX_HOST: usize = 253;
const MAX_LABEL: usize = 63;

fn invalid(field: Cow<'static, str>, zh: &'static str, en: &'static str) -> Error {
    Error {
        field: Some(field),
        message: Some(crate::Message::Text { zh, en }),
        ..Error::new(Reason::INVALID_PARAMETER)
    }
}

fn not_canonical(field: Cow<'static, str>, raw: &str) -> Error {
    Error {
        cause: Some(format!("{field}: {raw:?} is not a canonical https URL")),
        ..invalid(
            field,
            "请使用完整的 https 地址（不含用户信息和 #）",
            "Use a canonical https URL without user info or fragment",
        )
    }
}

fn impossible_host(field: Cow<'static, str>, raw: &str, why: &str) -> Error {
    Error {
        cause: Some(format!("{field}: {raw:?}: {why}")),
        ..invalid(
            field,
            "主机名无效：请填写可以解析的完整主机名（国际化域名请用 xn-- 形式）",
            "Impossible host: give a full host name (an internationalised one in its xn-- form)",
        )
    }
}

fn is_local(host: &str) -> bool {
    host == "localhost" || host == "127.0.0.1"
}

/// The host as written in `raw` (between `//` and the path, without user info or port), so that
/// what the parser would quietly rewrite (percent escapes, Unicode, upper case) is judged as sent.
fn raw_host(raw: &str) -> &str {
    let rest = raw.split_once("//").map_or("", |(_, r)| r);
    let authority = rest.split(['/', '?', '#']).next().unwrap_or("");
    let host_port = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
    if host_port.starts_with('[') {
        return host_port.split_inclusive(']').next().unwrap_or(host_port);
    }
    host_port.split(':').next().unwrap_or(host_port)
}

/// Why `host` (a domain as the parser wrote it: ASCII, lower case) cannot be a real host name,
/// if it cannot: letters, digits and inner hyphens only, no empty label (so no trailing dot),
/// 63 characters a label, 253 in all, and an `xn--` label only if it is the punycode of a valid
/// internationalised label that encodes back to itself.
fn host_problem(host: &str) -> Option<&'static str> {
    if host.len() > MAX_HOST {
        return Some("longer than 253 characters");
    }
    for label in host.split('.') {
        if label.is_empty() {
            return Some("an empty label (or a trailing dot)");
        }
        if label.len() > MAX_LABEL {
            return Some("a label longer than 63 characters");
        }
        if !label
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
        {
            return Some("a character not allowed in a host name");
        }
        if label.starts_with('-') || label.ends_with('-') {
            return Some("a label starting or ending with a hyphen");
        }
    }
    let (unicode, decoded) = idna::domain_to_unicode(host);
    let round_trip =
        decoded.is_ok() && idna::domain_to_ascii_strict(&unicode).is_ok_and(|ascii| ascii == host);
    (!round_trip).then_some("an xn-- label that is not the punycode of a valid name")
}

/// A URL a browser may be sent to: https (http only for localhost and 127.0.0.1), a possible
/// host (see `host_problem`; an IP address is fine), no user info, no fragment, no `*`, and
/// written in its canonical form.
pub fn web_url(field: Cow<'static, str>, raw: &str) -> Result<url::Url> {
    if raw.contains('*') {
        return Err(Error {
            cause: Some(format!("{field}: {raw:?} holds a wildcard")),
            ..invalid(
                field,
                "不支持通配符 *：请逐一登记每个地址",
                "Wildcards (*) are not supported: register each exact URL",
            )
        });
    }
    let host = raw_host(raw);
    if host.contains('%') {
        return Err(impossible_host(
            field.clone(),
            raw,
            "a percent-encoded host",
        ));
    }
    if !host.is_ascii() {
        return Err(impossible_host(
            field.clone(),
            raw,
            "an IDN not in its xn-- form",
        ));
    }
    let u = url::Url::parse(raw).map_err(|_| not_canonical(field.clone(), raw))?;
    let Some(parsed) = u.host() else {
        return Err(not_canonical(field.clone(), raw));
    };
    if let url::Host::Domain(d) = parsed {
        if let Some(why) = host_problem(d) {
            return Err(impossible_host(field.clone(), raw, why));
        }
    }
    let name = u.host_str().unwrap_or_default();
    let scheme_ok = u.scheme() == "https" || (u.scheme() == "http" && is_local(name));
    if !scheme_ok
        || !u.username().is_empty()
        || u.password().is_some()
        || u.fragment().is_some()
        || u.as_str() != raw
    {
        return Err(not_canonical(field.clone(), raw));
    }
    Ok(u)
}

/// A service URL as registered (and later matched exactly).
pub fn service_url(field: Cow<'static, str>, raw: &str) -> Result<String> {
    web_url(field, raw).map(|u| u.to_string())
}

/// A server-to-server notice URL (`backchannelLogoutUri`, `logoutUrl`): empty for none, else a
/// URL as `web_url` takes it (https; http only for localhost, and then only where
/// [`local_http_allowed`], which the registry checks with the deployment at hand).
pub fn notice_url(field: &'static str, raw: String) -> Result<String> {
    if raw.is_empty() {
        return Ok(raw);
    }
    web_url(field.into(), &raw).map(|u| u.to_string())
}

/// Whether this deployment serves plain http itself (its public URL is `http://`, as under
/// `ciam serve`): only then may a notice URL be `http://localhost`.
pub fn local_http_allowed(ciam: &crate::Ciam) -> bool {
    ciam.config.public_url.starts_with("http://")
}

/// A frame origin: scheme, host and port only, e.g. `https://app.example.com`.
pub fn origin(field: Cow<'static, str>, raw: &str) -> Result<String> {
    let u = web_url(field.clone(), &format!("{raw}/"))?;
    if u.path() != "/" || u.query().is_some() {
        return Err(invalid(
            field,
            "请只填写来源（协议、主机和端口）",
            "Give an origin: scheme, host and port only",
        ));
    }
    Ok(raw.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn service(raw: &str) -> Result<String> {
        service_url("serviceUrls[0]".into(), raw)
    }

    #[test]
    fn exact_https_urls_and_local_http_pass() {
        for ok in [
            "https://app.example.com/cb",
            "https://app.example.com/",
            "https://a-b.example.com:8443/cas/login?x=1",
            "http://localhost:3000/cb",
            "http://127.0.0.1:8080/cb",
            "https://xn--bcher-kva.example/cb",
            "https://xn--fiqs8s.cn/",
            "https://intranet/cb",
            "https://10.0.0.7/cb",
            "https://[::1]/cb",
            &format!("https://{}.example.com/", "a".repeat(63)),
            &format!("https://{}com/", "abcdefghi.".repeat(25)),
        ] {
            assert_eq!(service(ok).as_deref(), Ok(ok), "{ok}");
        }
    }

    #[test]
    fn wildcards_are_refused_wherever_they_are() {
        for bad in [
            "https://*.example.com/cb",
            "https://app.*.com/cb",
            "https://*/cb",
            "https://app.example.com/*",
            "https://app.example.com/cb?x=*",
        ] {
            let e = service(bad).unwrap_err();
            assert_eq!(e.field.as_deref(), Some("serviceUrls[0]"), "{bad}");
            assert!(e.cause.unwrap_or_default().contains("wildcard"), "{bad}");
        }
    }

    #[test]
    fn impossible_hosts_are_refused() {
        let long_label = format!("https://{}.example.com/", "a".repeat(64));
        // 26 labels of 9 and "com": 263 characters (25 make exactly 253, which passes).
        let long_host = format!("https://{}com/", "abcdefghi.".repeat(26));
        for bad in [
            "https://app..example.com/cb",
            "https://.example.com/cb",
            "https://app.example.com./cb",
            "https://app_1.example.com/cb",
            "https://-app.example.com/cb",
            "https://app-.example.com/cb",
            "https://ex%61mple.com/cb",
            "https://%2A.example.com/cb",
            "https://bücher.example/cb",
            "https://xn--abc.example/cb",
            "https://xn--a.example/cb",
            "https://xn--bcher-kva-.example/cb",
            "https://app!.example.com/cb",
            "https://app$.example.com/cb",
            &long_label,
            &long_host,
        ] {
            let e = service(bad).unwrap_err();
            assert_eq!(
                (e.reason, e.field.as_deref()),
                (Reason::INVALID_PARAMETER, Some("serviceUrls[0]")),
                "{bad}"
            );
        }
    }

    #[test]
    fn user_info_fragments_and_plain_http_stay_refused() {
        for bad in [
            "https://user@app.example.com/cb",
            "https://user:pw@app.example.com/cb",
            "https://@app.example.com/cb",
            "https://app.example.com/cb#x",
            "http://app.example.com/cb",
            "https://APP.example.com/cb",
            "https://app.example.com",
            "//app.example.com/cb",
            "javascript:alert(1)",
        ] {
            assert!(service(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn origins_are_scheme_host_and_port_with_the_same_host_rules() {
        let o = |raw: &str| origin("frameOrigins[1]".into(), raw);
        assert_eq!(
            o("https://app.example.com").as_deref(),
            Ok("https://app.example.com")
        );
        assert_eq!(
            o("http://localhost:5173").as_deref(),
            Ok("http://localhost:5173")
        );
        for bad in [
            "https://*.example.com",
            "https://app.example.com.",
            "https://app.example.com/path",
            "https://app..example.com",
            "https://user@app.example.com",
        ] {
            assert_eq!(
                o(bad).unwrap_err().field.as_deref(),
                Some("frameOrigins[1]"),
                "{bad}"
            );
        }
    }
}
