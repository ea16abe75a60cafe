//! The relying party's identity: RP ID and allowed origins (docs/passkeys-design.md §3.6).

use url::{Host, Url};

/// The RP ID and the origins a ceremony's `clientDataJSON.origin` may name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PasskeyConfig {
    pub rp_id: String,
    pub origins: Vec<String>,
}

/// Why passkeys are off (answered as `PASSKEY_UNAVAILABLE` by the routes) or a setting refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ConfigError {
    #[error("no public URL")]
    NoPublicUrl,
    #[error("the public URL does not parse or has no host")]
    BadUrl,
    #[error("an IP address cannot be an RP ID")]
    IpLiteral,
    #[error("the RP ID must be the public host or a parent domain of it")]
    NotParent,
    #[error("an allowed origin does not parse")]
    BadOrigin,
}

/// Whether `host` is an IPv4 or IPv6 literal (with or without brackets).
pub fn is_ip_literal(host: &str) -> bool {
    let h = host.trim_start_matches('[').trim_end_matches(']');
    h.parse::<std::net::IpAddr>().is_ok()
}

fn origin_of(url: &Url) -> String {
    url.origin().ascii_serialization()
}

impl PasskeyConfig {
    /// From the public URL (`CIAM_PUBLIC_URL`, `ciam serve --public-url`), an optional RP ID
    /// override and extra origins. The RP ID defaults to the public host; an override must be
    /// that host or a parent domain of it. Origins: the public URL's, then the extras.
    pub fn new(
        public_url: Option<&str>,
        rp_id: Option<&str>,
        extra_origins: &[String],
    ) -> Result<Self, ConfigError> {
        let raw = public_url
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .ok_or(ConfigError::NoPublicUrl)?;
        let url = Url::parse(raw).map_err(|_| ConfigError::BadUrl)?;
        let host = match url.host() {
            Some(Host::Domain(d)) => d.to_ascii_lowercase(),
            Some(Host::Ipv4(_) | Host::Ipv6(_)) => return Err(ConfigError::IpLiteral),
            None => return Err(ConfigError::BadUrl),
        };
        let rp_id = match rp_id.map(str::trim).filter(|s| !s.is_empty()) {
            None => host.clone(),
            Some(id) => {
                let id = id.trim_end_matches('.').to_ascii_lowercase();
                if is_ip_literal(&id) {
                    return Err(ConfigError::IpLiteral);
                }
                let parent = host == id || (host.ends_with(&format!(".{id}")) && id.contains('.'));
                if !parent {
                    return Err(ConfigError::NotParent);
                }
                id
            }
        };
        if is_ip_literal(&rp_id) {
            return Err(ConfigError::IpLiteral);
        }
        let mut origins = vec![origin_of(&url)];
        for extra in extra_origins {
            let u = Url::parse(extra.trim()).map_err(|_| ConfigError::BadOrigin)?;
            let o = origin_of(&u);
            if o == "null" {
                return Err(ConfigError::BadOrigin);
            }
            if !origins.contains(&o) {
                origins.push(o);
            }
        }
        Ok(PasskeyConfig { rp_id, origins })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_come_from_the_public_url() {
        let c = PasskeyConfig::new(Some("http://localhost:8080/"), None, &[]).unwrap();
        assert_eq!(c.rp_id, "localhost");
        assert_eq!(c.origins, ["http://localhost:8080"]);
        let c = PasskeyConfig::new(
            Some("https://id.Example.com"),
            Some("example.com"),
            &["https://app.example.com/x".into()],
        )
        .unwrap();
        assert_eq!(c.rp_id, "example.com");
        assert_eq!(
            c.origins,
            ["https://id.example.com", "https://app.example.com"]
        );
    }

    #[test]
    fn ip_literals_and_missing_urls_turn_passkeys_off() {
        assert_eq!(
            PasskeyConfig::new(None, None, &[]),
            Err(ConfigError::NoPublicUrl)
        );
        assert_eq!(
            PasskeyConfig::new(Some("http://127.0.0.1:8080"), None, &[]),
            Err(ConfigError::IpLiteral)
        );
        assert_eq!(
            PasskeyConfig::new(Some("http://[::1]:8080"), None, &[]),
            Err(ConfigError::IpLiteral)
        );
        assert!(is_ip_literal("[::1]") && is_ip_literal("10.0.0.1") && !is_ip_literal("localhost"));
    }

    #[test]
    fn an_rp_id_override_must_be_the_host_or_a_parent() {
        let url = Some("https://id.example.com");
        assert_eq!(
            PasskeyConfig::new(url, Some("evil.com"), &[]),
            Err(ConfigError::NotParent)
        );
        assert_eq!(
            PasskeyConfig::new(url, Some("ample.com"), &[]),
            Err(ConfigError::NotParent)
        );
        assert_eq!(
            PasskeyConfig::new(url, Some("com"), &[]),
            Err(ConfigError::NotParent)
        );
        assert!(PasskeyConfig::new(url, Some("id.example.com"), &[]).is_ok());
    }
}
