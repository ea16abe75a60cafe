//! The web ACL's per-route rules (infra/waf.yaml) as the route rows name them, with their limits:
//! the one source of the rules' names and numbers for the global cell's web ACL (compared by
//! infra/tests/test_template_waf.py through infra/routes.json) and for the cn cell's own
//! per-client counter (`ciam_core::client_limits`, `middleware::client_limits`).

/// The per-route rate rule of the web ACL (infra/waf.yaml) that counts the route's requests per
/// client address, if any. infra/tests/test_template_waf.py evaluates the web ACL's rules on each
/// route, and every anonymous route that hashes, sends or stores must name one. (The blanket
/// `/ciam/*` rule and the per-network sign-in rules count routes besides; they are not named here.)
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Waf {
    None,
    /// `RateSignIn`.
    SignIn,
    /// `RateCodes`.
    Codes,
    /// `RateRegister`.
    Register,
    /// `RateCaptcha`.
    Captcha,
    /// `RateOidcAuthorize`.
    OidcAuthorize,
    /// `RateOidcToken`.
    OidcToken,
    /// `RateClientErrors`.
    ClientErrors,
}

impl Waf {
    /// The rule's name in infra/waf.yaml.
    pub const fn rule(self) -> Option<&'static str> {
        match self {
            Waf::None => None,
            Waf::SignIn => Some("RateSignIn"),
            Waf::Codes => Some("RateCodes"),
            Waf::Register => Some("RateRegister"),
            Waf::Captcha => Some("RateCaptcha"),
            Waf::OidcAuthorize => Some("RateOidcAuthorize"),
            Waf::OidcToken => Some("RateOidcToken"),
            Waf::ClientErrors => Some("RateClientErrors"),
        }
    }

    /// The rule's limit: requests per client in 5 minutes. infra/waf.yaml's default of the
    /// rule's `Limit` parameter (infra/tests/test_template_waf.py compares them, through
    /// infra/routes.json's `wafLimit`), and the limit the cn cell's own counter keeps
    /// (`middleware::client_limits`). The one place these numbers are written.
    pub const fn limit(self) -> Option<i64> {
        match self {
            Waf::None => None,
            Waf::SignIn => Some(100),
            Waf::Codes => Some(30),
            Waf::Register => Some(20),
            Waf::Captcha => Some(100),
            Waf::OidcAuthorize => Some(300),
            Waf::OidcToken => Some(1000),
            Waf::ClientErrors => Some(60),
        }
    }

    /// The route's rules for the cn cell's counter: the blanket rule first, then its own.
    pub fn client_limits(self) -> Vec<ciam_core::client_limits::Limit> {
        let own = self
            .rule()
            .zip(self.limit())
            .map(|(rule, limit)| ciam_core::client_limits::Limit { rule, limit });
        std::iter::once(BLANKET).chain(own).collect()
    }
}

/// The blanket per-client rule (infra/waf.yaml's `RateCiamPerIp`, its `BlanketLimit` default):
/// every route a function answers counts under it besides its own rule.
pub const BLANKET: ciam_core::client_limits::Limit = ciam_core::client_limits::Limit {
    rule: "RateCiamPerIp",
    limit: 6000,
};
