//! The HTTPS client both providers share.

use std::sync::OnceLock;
use std::time::Duration;

/// A send that has not connected in 3 s, or not been answered in 8 s, is given up (and goes to
/// the fallback): a person waits for the answer of `POST /auth/identity`.
pub(crate) fn client() -> &'static reqwest::Client {
    static CLIENT: OnceLock<reqwest::Client> = OnceLock::new();
    CLIENT.get_or_init(|| {
        // aws-lc-rs, the AWS SDKs' provider, unless something installed one first.
        let _ = rustls::crypto::aws_lc_rs::default_provider().install_default();
        reqwest::Client::builder()
            .connect_timeout(Duration::from_secs(3))
            .timeout(Duration::from_secs(8))
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .unwrap_or_default()
    })
}

/// `host[:port]` of an endpoint URL, as the `Host` header (and so the signature) carries it.
pub(crate) fn authority(endpoint: &str) -> Result<String, String> {
    let url = reqwest::Url::parse(endpoint).map_err(|e| format!("endpoint {endpoint}: {e}"))?;
    let host = url
        .host_str()
        .ok_or_else(|| format!("endpoint {endpoint} has no host"))?;
    Ok(match url.port() {
        Some(port) => format!("{host}:{port}"),
        None => host.to_owned(),
    })
}

pub(crate) fn now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs() as i64)
        .unwrap_or(0)
}

/// A random nonce (Aliyun's `x-acs-signature-nonce`: one per request, against replays).
pub(crate) fn nonce() -> String {
    hex::encode(rand::random::<[u8; 16]>())
}

/// What a transport failure means for the failover: it is a failure of the provider.
pub(crate) fn transport(provider: &str, e: &reqwest::Error) -> String {
    let what = if e.is_timeout() {
        "timed out"
    } else if e.is_connect() {
        "could not connect"
    } else {
        "failed"
    };
    format!("{provider} SendSms {what}: {e}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_authority_keeps_a_port_that_is_not_the_default() {
        assert_eq!(
            authority("https://dysmsapi.aliyuncs.com").as_deref(),
            Ok("dysmsapi.aliyuncs.com")
        );
        assert_eq!(
            authority("http://127.0.0.1:8123/").as_deref(),
            Ok("127.0.0.1:8123")
        );
        assert!(authority("not a url").is_err());
    }
}
