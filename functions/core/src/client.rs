//! Who is calling: a short device description from the User-Agent and the approximate country
//! (CloudFront-Viewer-Country). Shown to the account owner in their sessions and activity.

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ClientInfo {
    pub device: Option<String>,
    pub country: Option<String>,
    /// The caller's address, for the failed sign-in attempts (`attempts`) only: sessions and
    /// the activity keep the device and country.
    pub ip: Option<String>,
}

impl ClientInfo {
    pub fn from_headers(user_agent: Option<&str>, country: Option<&str>) -> Self {
        let country = country
            .map(|c| c.trim().to_ascii_uppercase())
            .filter(|c| c.len() == 2 && c.bytes().all(|b| b.is_ascii_uppercase()));
        ClientInfo {
            device: user_agent.map(describe).filter(|d| !d.is_empty()),
            country,
            ip: None,
        }
    }

    /// The same, with the caller's address.
    pub fn with_ip(self, ip: Option<String>) -> Self {
        ClientInfo { ip, ..self }
    }
}

/// "Chrome on Windows", "Safari on iPhone", or the first 60 characters of something unknown.
pub fn describe(ua: &str) -> String {
    let has = |s: &str| ua.contains(s);
    let browser = if has("Edg/") {
        "Edge"
    } else if has("OPR/") {
        "Opera"
    } else if has("Firefox/") {
        "Firefox"
    } else if has("Chrome/") || has("Chromium/") || has("CriOS/") {
        "Chrome"
    } else if has("Safari/") {
        "Safari"
    } else if has("MicroMessenger/") {
        "WeChat"
    } else {
        ""
    };
    let os = if has("iPhone") {
        "iPhone"
    } else if has("iPad") {
        "iPad"
    } else if has("Android") {
        "Android"
    } else if has("Windows") {
        "Windows"
    } else if has("Mac OS X") || has("Macintosh") {
        "macOS"
    } else if has("CrOS") {
        "ChromeOS"
    } else if has("Linux") {
        "Linux"
    } else {
        ""
    };
    match (browser, os) {
        ("", "") => ua.chars().filter(|c| !c.is_control()).take(60).collect(),
        (b, "") => b.to_owned(),
        ("", o) => o.to_owned(),
        (b, o) => format!("{b} on {o}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn devices_are_described_briefly() {
        let chrome = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0 Safari/537.36";
        assert_eq!(describe(chrome), "Chrome on Windows");
        let safari = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1";
        assert_eq!(describe(safari), "Safari on iPhone");
        assert_eq!(describe("curl/8.5.0"), "curl/8.5.0");
        let c = ClientInfo::from_headers(Some("x"), Some("de"));
        assert_eq!(c.country.as_deref(), Some("DE"));
        assert_eq!(
            ClientInfo::from_headers(None, Some("Germany")).country,
            None
        );
    }
}
