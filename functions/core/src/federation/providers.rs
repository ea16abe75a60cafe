//! Over 500 lines because the provider list is the one place a federated sign-in provider is
//! named (docs/federation-design.md §1.1, §1.7): each provider's facts belong in it, side by
//! side. The router, `ciam-gen` (env lines, the secret's policy statement, role names,
//! routes.json), the Lambda init and `ciam serve` read these facts instead of naming a provider,
//! so a provider is one [`ProviderId`] variant, one [`Facts`] and its rows.

/// A federated sign-in provider. Every one has a [`Facts`] in [`PROVIDERS`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ProviderId {
    /// The company's OpenID Connect identity provider (internal staff, spec §6).
    Staff,
    /// WeChat (微信): the website app's QR login on a desktop, the Official Account's web
    /// authorization inside WeChat (docs/federation-design.md §3.1).
    Wechat,
    /// WeCom (企业微信): a corp's self-built app, the web login on a desktop and the in-client
    /// authorization inside WeCom; the corp token cached in the store (docs/federation-design.md
    /// §3.2).
    Wecom,
    /// DingTalk (钉钉): its current OAuth (`authCode`, the v1.0 user token, `users/me`),
    /// optionally for one organization only (docs/federation-design.md §3.3).
    Dingtalk,
    /// Feishu (飞书), or Lark on its international hosts: the current authorization with PKCE
    /// and the v2 token endpoint (docs/federation-design.md §3.4).
    Feishu,
    /// A test-only provider whose platform is ciam-fakes' `mock` (an authorize page that
    /// redirects back with a code, a token endpoint that names the subject): the generic parts
    /// (pending identities, the phone proof, links, the login code) are tested without a real
    /// platform. Never in [`PROVIDERS`], never in a shipped binary.
    #[cfg(any(test, feature = "fakes"))]
    Mock,
    /// An organization's own connection (docs/organizations-connections.md): one provider for
    /// every connection, the state naming which. Never in [`PROVIDERS`] (no setting, no secret
    /// in the template: a connection is an item) and not a linking provider: its rows are
    /// `/auth/org/start` and `/auth/org/callback`, its login code redeemed by
    /// `POST /auth/login/federation` with provider `org`.
    Org,
}

impl ProviderId {
    /// Every provider, in [`PROVIDERS`]' order.
    pub const ALL: [ProviderId; 5] = [
        ProviderId::Staff,
        ProviderId::Wechat,
        ProviderId::Wecom,
        ProviderId::Dingtalk,
        ProviderId::Feishu,
    ];

    /// Its facts.
    pub const fn facts(self) -> &'static Facts {
        match self {
            ProviderId::Staff => &STAFF,
            ProviderId::Wechat => &WECHAT,
            ProviderId::Wecom => &WECOM,
            ProviderId::Dingtalk => &DINGTALK,
            ProviderId::Feishu => &FEISHU,
            #[cfg(any(test, feature = "fakes"))]
            ProviderId::Mock => &MOCK,
            ProviderId::Org => &ORG,
        }
    }

    /// The provider named `name` that signs in through a link (`LinkRule::ProvePhone`): the
    /// `provider` of `POST /auth/login/federation` and of a pending identity. Staff is not one
    /// (its code is redeemed at `/auth/login/staff`).
    pub fn linked_by_name(name: &str) -> Option<ProviderId> {
        ProviderId::linking().find(|p| p.name() == name)
    }

    /// The providers that sign in through links (`LinkRule::ProvePhone`), in [`PROVIDERS`]'
    /// order (and the test-only mock): every one but staff.
    pub fn linking() -> impl Iterator<Item = ProviderId> {
        let all = ProviderId::ALL.into_iter();
        #[cfg(any(test, feature = "fakes"))]
        let all = all.chain([ProviderId::Mock]);
        all.filter(|p| p.facts().link == LinkRule::ProvePhone)
    }

    /// Its lower-case name (`staff`): paths, parameters, the `staffCode` of the callback.
    pub const fn name(self) -> &'static str {
        self.facts().name
    }
}

/// One public setting of a provider: `<env>_<name>` in the environment and
/// `<stem><Name in CamelCase>` as a template parameter (`CIAM_STAFF_CLIENT_ID`, `StaffClientId`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Setting {
    /// Upper snake case, as in the environment (`CLIENT_ID`).
    pub name: &'static str,
    /// Only the callback reads it (staff's `MFA_ACR`: whether the id_token says a second
    /// factor), so only the callback's function gets it.
    pub callback_only: bool,
    /// The template parameter's description (`ciam-gen` writes the parameter from it; empty
    /// default, so an unset setting leaves the provider off).
    pub description: &'static str,
}

impl Setting {
    /// The template parameter's suffix: `CLIENT_ID` → `ClientId`.
    pub fn camel(&self) -> String {
        self.name
            .split('_')
            .map(|w| {
                let mut c = w.chars();
                c.next().map_or_else(String::new, |f| {
                    f.to_ascii_uppercase().to_string() + &c.as_str().to_ascii_lowercase()
                })
            })
            .collect()
    }
}

/// The store items of a sign-in in progress: the state between start and callback.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Items {
    /// The state item's partition key prefix (`STAFFSTATE#`), then the state's keyed hash.
    pub state: &'static str,
    /// The keyed hash's label (a label of the provider's `KeyPurpose`).
    pub state_label: &'static str,
    /// The one-time login code's partition key prefix (`STAFFCODE#`, `FEDCODE#`).
    pub code: &'static str,
    /// Its keyed hash's label.
    pub code_label: &'static str,
}

/// How a provider's identity reaches a Ciam account.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LinkRule {
    /// The provider is authoritative for the company mail domains: a verified company mail
    /// links the account that has it, or creates an internal one (staff).
    CompanyMail,
    /// Ciam proves, the provider never decides: a subject already linked signs in to its
    /// account; a new one becomes a pending identity that the browser completes by proving a
    /// mainland phone with Ciam's own code (docs/federation-design.md §4.1).
    ProvePhone,
    /// An organization's connection (docs/organizations-connections.md §0.6-7): a verified mail
    /// at a domain the connection's organization verified reaches the account that has it (or
    /// one made for it), and the organization's membership rules apply
    /// (`federation::org_sign_in`).
    Connection,
}

/// What Ciam knows about one provider.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Facts {
    pub id: ProviderId,
    /// Lower case: `/auth/<name>/start`, `<name>Code`, `<name>Error`.
    pub name: &'static str,
    /// The environment prefix: settings are `<env>_<SETTING>`, the secret `<env>_SECRET_ARN`.
    pub env: &'static str,
    /// The template's prefix: parameters `<stem><Setting>`, the secret `<stem>Secret`.
    pub stem: &'static str,
    /// Its public settings (environment and template parameter).
    pub settings: &'static [Setting],
    pub items: Items,
    /// The state carries a PKCE verifier (RFC 7636): the authorization request sends its S256
    /// challenge, the token request the verifier (staff, Feishu).
    pub pkce: bool,
    /// The state carries an OpenID Connect nonce, checked in the id_token (staff).
    pub nonce: bool,
    pub link: LinkRule,
    /// What the operator reads in the template: the sign-in's name in the parameters' and the
    /// secret's descriptions (`Staff sign-in`).
    pub title: &'static str,
    /// The one field of its Secrets Manager secret (`{"clientSecret": "…"}`), generated as a
    /// placeholder the operator replaces (docs/operations.md §8).
    pub secret_field: &'static str,
    /// Fields the secret may also hold (WeChat's `oaAppSecret` beside an Official Account).
    pub optional_secret_fields: &'static [&'static str],
    /// The platform's endpoint bases, environment only (`<env>_<BASE>`, never a template
    /// parameter): unset is the platform's own host; `ciam serve` and the tests point them at
    /// ciam-fakes. Like `staff::secure_url`, https, or http on loopback.
    pub bases: &'static [&'static str],
    /// Its letter in the numbers' weekly sign-in counters (`3wS`: Wednesday's WeChat sign-ins
    /// that succeeded); lower case, none of the fixed methods' (`p c k s t`), one per provider.
    pub letter: char,
}

impl Facts {
    /// The environment variable of a secret field in tests and local runs (the Lambda reads
    /// the secret from `<env>_SECRET_ARN`): `clientSecret` → `CIAM_STAFF_CLIENT_SECRET`.
    pub fn secret_env_var(&self, field: &str) -> String {
        let mut snake = String::new();
        for c in field.chars() {
            if c.is_ascii_uppercase() {
                snake.push('_');
            }
            snake.push(c.to_ascii_uppercase());
        }
        format!("{}_{snake}", self.env)
    }

    /// Every field its secret may hold: the required one first.
    pub fn secret_fields(&self) -> impl Iterator<Item = &'static str> {
        std::iter::once(self.secret_field).chain(self.optional_secret_fields.iter().copied())
    }

    /// Its settings, bases and (when `secrets`) secret fields as this process's environment
    /// (`get` reads one variable) gives them; None when none of its settings is set (the
    /// provider is off). The Lambda init and `ciam serve` both read providers through this.
    pub fn from_env(
        &self,
        get: impl Fn(&str) -> Option<String>,
        secrets: bool,
    ) -> Option<ProviderConfig> {
        let value = |var: String| {
            get(&var)
                .map(|v| v.trim().to_owned())
                .filter(|v| !v.is_empty())
        };
        let mut config = ProviderConfig::default();
        for s in self.settings {
            if let Some(v) = value(self.env_var(s)) {
                config.settings.insert(s.name.to_owned(), v);
            }
        }
        if config.settings.is_empty() {
            return None;
        }
        for b in self.bases {
            if let Some(v) = value(format!("{}_{b}", self.env)) {
                config.settings.insert((*b).to_owned(), v);
            }
        }
        if secrets {
            for f in self.secret_fields() {
                if let Some(v) = value(self.secret_env_var(f)) {
                    config.secret.insert(f.to_owned(), v);
                }
            }
        }
        Some(config)
    }

    /// `<env>_<setting>`: `CIAM_STAFF_ISSUER`.
    pub fn env_var(&self, setting: &Setting) -> String {
        format!("{}_{}", self.env, setting.name)
    }

    /// The template parameter of `setting`: `StaffIssuer`.
    pub fn parameter(&self, setting: &Setting) -> String {
        format!("{}{}", self.stem, setting.camel())
    }

    /// The Secrets Manager secret (template resource) only the callback reads: `StaffSecret`.
    pub fn secret(&self) -> String {
        format!("{}Secret", self.stem)
    }

    /// The environment variable naming that secret's ARN: `CIAM_STAFF_SECRET_ARN`.
    pub fn secret_arn_var(&self) -> String {
        format!("{}_SECRET_ARN", self.env)
    }
}

/// Staff: the company OpenID Connect provider, names kept from before the provider list (no
/// stack replacement, no new secret).
pub const STAFF: Facts = Facts {
    id: ProviderId::Staff,
    name: "staff",
    env: "CIAM_STAFF",
    stem: "Staff",
    settings: &[
        Setting {
            name: "ISSUER",
            callback_only: false,
            description: "issuer URL of the company's OpenID Connect provider (discovery at \
                <issuer>/.well-known/openid-configuration). Empty: staff sign-in through the \
                company is off.",
        },
        Setting {
            name: "CLIENT_ID",
            callback_only: false,
            description: "Ciam's client id at the company identity provider.",
        },
        Setting {
            name: "MFA_ACR",
            callback_only: true,
            description: "comma-separated acr values of the company provider that mean a second \
                factor was used (its amr holding mfa, otp or hwk means so too). Such a staff \
                session enters the operator console without a second factor made here \
                (docs/console-design.md §2).",
        },
    ],
    items: Items {
        state: "STAFFSTATE#",
        state_label: "staff-state",
        code: "STAFFCODE#",
        code_label: "staff-code",
    },
    pkce: true,
    nonce: true,
    link: LinkRule::CompanyMail,
    title: "Staff sign-in",
    secret_field: "clientSecret",
    optional_secret_fields: &[],
    bases: &[],
    letter: 's',
};

/// WeChat (§3.1): the website app (QR login) and, optionally, the Official Account (inside
/// WeChat's browser). Both apps are bound to one Open Platform account, so `unionid` names the
/// person in both.
pub const WECHAT: Facts = Facts {
    id: ProviderId::Wechat,
    name: "wechat",
    env: "CIAM_WECHAT",
    stem: "Wechat",
    settings: &[
        Setting {
            name: "APP_ID",
            callback_only: false,
            description: "AppID of the website app at the WeChat Open Platform (QR login, \
                snsapi_login), bound to the Open Platform account. Empty: WeChat sign-in is off.",
        },
        Setting {
            name: "OA_APP_ID",
            callback_only: false,
            description: "AppID of the Official Account (web authorization inside WeChat, \
                snsapi_userinfo), bound to the same Open Platform account; its secret is the \
                oaAppSecret field of WechatSecret. Empty: inside WeChat the page says to open it \
                in the browser.",
        },
    ],
    items: FEDERATION_ITEMS,
    pkce: false,
    nonce: false,
    link: LinkRule::ProvePhone,
    title: "WeChat sign-in",
    secret_field: "appSecret",
    optional_secret_fields: &["oaAppSecret"],
    bases: &["OPEN_BASE", "API_BASE"],
    letter: 'w',
};

/// WeCom (§3.2): one corp's self-built app (CorpID, AgentID, its Secret).
pub const WECOM: Facts = Facts {
    id: ProviderId::Wecom,
    name: "wecom",
    env: "CIAM_WECOM",
    stem: "Wecom",
    settings: &[
        Setting {
            name: "CORP_ID",
            callback_only: false,
            description: "CorpID of the WeCom corp whose members may sign in (My Company > \
                Company Information). Empty: WeCom sign-in is off.",
        },
        Setting {
            name: "AGENT_ID",
            callback_only: false,
            description: "AgentID of the corp's self-built app (web login enabled, its trusted \
                domain Ciam's public host); its Secret is the corpSecret field of WecomSecret.",
        },
    ],
    items: FEDERATION_ITEMS,
    pkce: false,
    nonce: false,
    link: LinkRule::ProvePhone,
    title: "WeCom sign-in",
    secret_field: "corpSecret",
    optional_secret_fields: &[],
    bases: &["LOGIN_BASE", "OPEN_BASE", "API_BASE"],
    letter: 'e',
};

/// DingTalk (§3.3): one app (Client ID and secret), optionally one organization.
pub const DINGTALK: Facts = Facts {
    id: ProviderId::Dingtalk,
    name: "dingtalk",
    env: "CIAM_DINGTALK",
    stem: "Dingtalk",
    settings: &[
        Setting {
            name: "CLIENT_ID",
            callback_only: false,
            description: "Client ID (AppKey) of the DingTalk app (its login permission granted). \
                Empty: DingTalk sign-in is off.",
        },
        Setting {
            name: "CORP_ID",
            callback_only: false,
            description: "corpId of the one DingTalk organization whose members may sign in (the \
                corpid scope is then asked). Empty: any DingTalk account.",
        },
    ],
    items: FEDERATION_ITEMS,
    pkce: false,
    nonce: false,
    link: LinkRule::ProvePhone,
    title: "DingTalk sign-in",
    secret_field: "clientSecret",
    optional_secret_fields: &[],
    bases: &["LOGIN_BASE", "API_BASE"],
    letter: 'd',
};

/// Feishu (§3.4): one app (App ID and secret) on Feishu's hosts or, with `REGION=lark`, on
/// Lark's (another user base: fixed per deployment, changing it orphans the links). Its
/// authorization takes a PKCE challenge, so the state keeps a verifier (and no nonce: no
/// id_token).
pub const FEISHU: Facts = Facts {
    id: ProviderId::Feishu,
    name: "feishu",
    env: "CIAM_FEISHU",
    stem: "Feishu",
    settings: &[
        Setting {
            name: "APP_ID",
            callback_only: false,
            description: "App ID (cli_...) of the Feishu or Lark app (a custom app with web \
                sign-in; its redirect URL registered). Empty: Feishu sign-in is off.",
        },
        Setting {
            name: "REGION",
            callback_only: false,
            description: "feishu (empty: accounts.feishu.cn, open.feishu.cn) or lark (Lark's \
                international hosts accounts.larksuite.com, open.larksuite.com). Fixed per \
                deployment: the two are separate user bases.",
        },
    ],
    items: FEDERATION_ITEMS,
    pkce: true,
    nonce: false,
    link: LinkRule::ProvePhone,
    title: "Feishu sign-in",
    secret_field: "appSecret",
    optional_secret_fields: &[],
    bases: &["ACCOUNTS_BASE", "OPEN_BASE"],
    letter: 'f',
};

/// The items every provider but staff shares (`KeyPurpose::Federation`).
pub const FEDERATION_ITEMS: Items = Items {
    state: "FEDSTATE#",
    state_label: "fed-state",
    code: "FEDCODE#",
    code_label: "fed-code",
};

/// The test-only provider (see [`ProviderId::Mock`]): no settings of its own (its platform's
/// base URL is `Config::mock_provider`), no secret in any template.
#[cfg(any(test, feature = "fakes"))]
pub const MOCK: Facts = Facts {
    id: ProviderId::Mock,
    name: "mock",
    env: "CIAM_MOCK",
    stem: "Mock",
    settings: &[],
    items: FEDERATION_ITEMS,
    pkce: false,
    nonce: false,
    link: LinkRule::ProvePhone,
    title: "Mock sign-in",
    secret_field: "clientSecret",
    optional_secret_fields: &[],
    bases: &[],
    letter: 'x',
};

/// Every organization's connection (docs/organizations-connections.md §0.3): the shared
/// `FEDSTATE#` / `FEDCODE#` items, a state naming its connection; PKCE and a nonce (OpenID
/// Connect). No settings, no secret here: they are the connection's item.
pub const ORG: Facts = Facts {
    id: ProviderId::Org,
    name: "org",
    env: "CIAM_ORG",
    stem: "Org",
    settings: &[],
    items: FEDERATION_ITEMS,
    pkce: true,
    nonce: true,
    link: LinkRule::Connection,
    title: "Company sign-in",
    secret_field: "clientSecret",
    optional_secret_fields: &[],
    bases: &[],
    letter: 'o',
};

/// Every provider, in [`ProviderId::ALL`]'s order.
pub const PROVIDERS: &[Facts] = &[STAFF, WECHAT, WECOM, DINGTALK, FEISHU];

/// One provider's configuration in this process: its settings and bases by name (`APP_ID`,
/// `API_BASE`) and its secret's fields (`appSecret`; only in the functions that read the secret).
#[derive(Clone, Default, PartialEq, Eq)]
pub struct ProviderConfig {
    pub settings: std::collections::BTreeMap<String, String>,
    pub secret: std::collections::BTreeMap<String, String>,
}

impl ProviderConfig {
    /// A setting or base, when set and not blank.
    pub fn setting(&self, name: &str) -> Option<&str> {
        self.settings
            .get(name)
            .map(String::as_str)
            .filter(|v| !v.is_empty())
    }

    /// A secret field, when present and not blank.
    pub fn secret(&self, field: &str) -> Option<&str> {
        self.secret
            .get(field)
            .map(String::as_str)
            .filter(|v| !v.is_empty())
    }
}

/// Never prints a secret value.
impl std::fmt::Debug for ProviderConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ProviderConfig")
            .field("settings", &self.settings)
            .field("secret", &self.secret.keys().collect::<Vec<_>>())
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_list_and_the_ids_agree() {
        assert_eq!(PROVIDERS.len(), ProviderId::ALL.len());
        for (f, id) in PROVIDERS.iter().zip(ProviderId::ALL) {
            assert_eq!(f.id, id);
            assert_eq!(id.facts(), f);
            assert_eq!(f.name, f.name.to_ascii_lowercase());
            assert_eq!(f.env, format!("CIAM_{}", f.name.to_ascii_uppercase()));
        }
    }

    #[test]
    fn staff_keeps_its_names() {
        let names: Vec<(String, String)> = STAFF
            .settings
            .iter()
            .map(|s| (STAFF.env_var(s), STAFF.parameter(s)))
            .collect();
        let want = [
            ("CIAM_STAFF_ISSUER", "StaffIssuer"),
            ("CIAM_STAFF_CLIENT_ID", "StaffClientId"),
            ("CIAM_STAFF_MFA_ACR", "StaffMfaAcr"),
        ];
        assert_eq!(
            names,
            want.map(|(e, p)| (e.to_owned(), p.to_owned())).to_vec()
        );
        assert_eq!(STAFF.secret(), "StaffSecret");
        assert_eq!(STAFF.secret_arn_var(), "CIAM_STAFF_SECRET_ARN");
        assert_eq!(STAFF.items.state, "STAFFSTATE#");
        assert_eq!(STAFF.items.code, "STAFFCODE#");
    }

    #[test]
    fn a_provider_reads_its_settings_bases_and_secret_fields_from_the_environment() {
        let env: std::collections::BTreeMap<&str, &str> = [
            ("CIAM_WECHAT_APP_ID", "wx1"),
            ("CIAM_WECHAT_OA_APP_ID", " "),
            ("CIAM_WECHAT_API_BASE", "http://127.0.0.1:9/wechat"),
            ("CIAM_WECHAT_APP_SECRET", "s1"),
            ("CIAM_WECHAT_OA_APP_SECRET", "s2"),
        ]
        .into();
        let get = |k: &str| env.get(k).map(|v| (*v).to_owned());
        let c = WECHAT.from_env(get, true).unwrap();
        assert_eq!(c.setting("APP_ID"), Some("wx1"));
        assert_eq!(c.setting("OA_APP_ID"), None);
        assert_eq!(c.setting("API_BASE"), Some("http://127.0.0.1:9/wechat"));
        assert_eq!(c.secret("appSecret"), Some("s1"));
        assert_eq!(c.secret("oaAppSecret"), Some("s2"));
        assert!(!format!("{c:?}").contains("s1"));
        let c = WECHAT.from_env(get, false).unwrap();
        assert!(c.secret.is_empty());
        assert_eq!(WECHAT.from_env(|_| None, true), None);
        assert_eq!(
            STAFF.secret_env_var("clientSecret"),
            "CIAM_STAFF_CLIENT_SECRET"
        );
    }

    #[test]
    fn only_providers_that_link_are_found_by_name_for_the_shared_routes() {
        assert_eq!(ProviderId::linked_by_name("staff"), None);
        assert_eq!(ProviderId::linked_by_name("mock"), Some(ProviderId::Mock));
        assert_eq!(
            ProviderId::linked_by_name("wechat"),
            Some(ProviderId::Wechat)
        );
        assert_eq!(ProviderId::linked_by_name("wecom"), Some(ProviderId::Wecom));
        assert_eq!(
            ProviderId::linked_by_name("dingtalk"),
            Some(ProviderId::Dingtalk)
        );
        assert_eq!(
            ProviderId::linked_by_name("feishu"),
            Some(ProviderId::Feishu)
        );
        assert_eq!(ProviderId::linked_by_name(""), None);
        assert!(!PROVIDERS.iter().any(|f| f.id == ProviderId::Mock));
    }
}
