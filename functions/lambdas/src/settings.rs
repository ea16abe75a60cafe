//! A function's configuration, from its environment (set by template.yaml). Secret values are
//! not here: the environment names the Secrets Manager secrets and the KMS keys, which `init`
//! reads (`crate::secrets`, `crate::kms`). Only tests and local runs put a key in the
//! environment (`CIAM_SECRET_KEY`, `CIAM_STAFF_CLIENT_SECRET`).

use ciam_core::Keys;

/// `Debug` is safe to log: `Keys` prints as `Keys(..)`, the staff secret as `..`.
#[derive(Debug)]
pub struct Settings {
    /// `CIAM_TABLE`: the single table's name.
    pub table: String,
    /// `CIAM_ROOT_SECRET_ARN`: the secret `{"rootKey", "previousRootKey"?}`, read at init.
    pub root_secret_arn: Option<String>,
    /// `CIAM_<PURPOSE>_KEY_SECRET_ARN` (`purpose_keys::var`): the secrets of the key purposes
    /// the function uses, read at init instead of the root (docs/operations.md §1).
    pub key_secret_arns: std::collections::BTreeMap<ciam_core::KeyPurpose, String>,
    /// `CIAM_SECRET_KEY`: 64 hex characters, the root as it is (tests and local runs only;
    /// `CIAM_ROOT_SECRET_ARN` wins when both are set).
    pub secret_key: Option<Keys>,
    /// `CIAM_MAIL_FROM`: the SES sender of verification mail.
    pub mail_from: Option<String>,
    /// `CIAM_INTERNAL_DOMAINS`: comma-separated; unset or blank keeps the default.
    pub internal_domains: Option<Vec<String>>,
    /// `CIAM_DYNAMODB_ENDPOINT`: DynamoDB Local, for tests.
    pub dynamodb_endpoint: Option<String>,
    /// `CIAM_PUBLIC_URL`: where browsers reach the deployment (the CloudFront domain).
    pub public_url: Option<String>,
    /// `CIAM_OIDC_KEY_VERSION`: the derived OpenID Connect signing-key version (a whole number
    /// from 1; unset keeps 1). Raising it by one rotates the key. Ignored with KMS.
    pub oidc_key_version: Option<u32>,
    /// `CIAM_OIDC_KMS_KEY_ID`: the KMS key (ECC_NIST_P256, SIGN_VERIFY) that signs id_tokens.
    pub oidc_kms_key_id: Option<String>,
    /// `CIAM_OIDC_KMS_PREVIOUS_KEY_IDS`: comma-separated keys the JWKS still publishes.
    pub oidc_kms_previous_key_ids: Vec<String>,
    /// `CIAM_LOGOUT_KMS_KEY_ID`: the KMS key (ECC_NIST_P256, SIGN_VERIFY) that signs logout
    /// tokens only (the webhook delivery signs with it; the JWKS publishes it).
    pub logout_kms_key_id: Option<String>,
    /// `CIAM_STAFF_ISSUER`, `CIAM_STAFF_CLIENT_ID`: staff sign-in through the company identity
    /// provider; both or none.
    pub staff: Option<StaffClient>,
    /// `CIAM_STAFF_MFA_ACR`: comma-separated `acr` values of the staff provider that mean a
    /// second factor (a staff session with one passes the console's check).
    pub staff_mfa_acr: Vec<String>,
    /// `CIAM_STAFF_SECRET_ARN`: the secret `{"clientSecret"}` of that client.
    pub staff_secret_arn: Option<String>,
    /// `CIAM_ORIGIN_SECRET_ARN`: the secret `{"originVerify"}` CloudFront sends; when set, a
    /// request without it is refused.
    pub origin_secret_arn: Option<String>,
    /// `CIAM_PASSKEY_RP_ID`: the passkeys' RP ID when it is not the host of `CIAM_PUBLIC_URL`
    /// (a parent domain of it; docs/passkeys-design.md §3.6). Changing it orphans every
    /// registered passkey.
    pub passkey_rp_id: Option<String>,
    /// `CIAM_PASSKEY_ORIGINS`: comma-separated origins a ceremony may come from besides the
    /// public URL's own.
    pub passkey_origins: Vec<String>,
    /// `CIAM_AUDIT_RETENTION_DAYS`: how long console audit entries are kept (1 to 3650 days;
    /// unset keeps 400).
    pub audit_retention_days: Option<u32>,
    /// `CIAM_CLIENT_LIMITS=1`: the cn cell's per-client limits, counted in the table
    /// (`Config::client_limits`); unset or `0` in the global cell, which has its web ACL.
    pub client_limits: bool,
    /// The cn cell's senders: their two secrets and settings (`senders.rs`).
    pub senders: crate::senders::SenderVars,
    /// `CIAM_CELL`: `global` (unset) or `cn` (docs/multi-region.md §14).
    pub cell: ciam_core::cell::Cell,
    /// `CIAM_OTHER_CELL`: the other cell's origin; unset or empty: this is the only cell.
    pub other_cell: Option<String>,
}

/// The staff identity provider's client, without its secret.
#[derive(Clone)]
pub struct StaffClient {
    pub issuer: String,
    pub client_id: String,
    /// `CIAM_STAFF_CLIENT_SECRET`: tests and local runs only; `CIAM_STAFF_SECRET_ARN` wins.
    pub env_secret: Option<String>,
}

impl std::fmt::Debug for StaffClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StaffClient")
            .field("issuer", &self.issuer)
            .field("client_id", &self.client_id)
            .field("env_secret", &self.env_secret.as_ref().map(|_| ".."))
            .finish()
    }
}

impl Settings {
    pub fn from_env() -> Result<Settings, String> {
        Settings::from_lookup(|name| std::env::var(name).ok())
    }

    /// Errors name the variable, never its value: some of them are secrets.
    pub fn from_lookup(get: impl Fn(&str) -> Option<String>) -> Result<Settings, String> {
        let present = |name: &str| {
            get(name)
                .map(|v| v.trim().to_owned())
                .filter(|v| !v.is_empty())
        };
        let table = present("CIAM_TABLE").ok_or("CIAM_TABLE is required")?;
        let secret_key = present("CIAM_SECRET_KEY")
            .map(|hex| {
                Keys::from_hex(&hex).ok_or("CIAM_SECRET_KEY must be 64 hexadecimal characters")
            })
            .transpose()?;
        let list = |name: &str| -> Vec<String> {
            present(name)
                .map(|l| {
                    l.split(',')
                        .map(|d| d.trim().to_owned())
                        .filter(|d| !d.is_empty())
                        .collect()
                })
                .unwrap_or_default()
        };
        let internal_domains = present("CIAM_INTERNAL_DOMAINS").map(|_| {
            list("CIAM_INTERNAL_DOMAINS")
                .into_iter()
                .map(|d| d.to_ascii_lowercase())
                .collect()
        });
        let staff = match (
            present("CIAM_STAFF_ISSUER"),
            present("CIAM_STAFF_CLIENT_ID"),
        ) {
            (None, None) => None,
            (Some(issuer), Some(client_id)) => {
                if !ciam_core::staff::secure_url(&issuer) {
                    return Err("CIAM_STAFF_ISSUER: the staff issuer must be an https URL \
                                (http only on localhost)"
                        .into());
                }
                Some(StaffClient {
                    issuer,
                    client_id,
                    env_secret: present("CIAM_STAFF_CLIENT_SECRET"),
                })
            }
            _ => return Err("CIAM_STAFF_ISSUER and CIAM_STAFF_CLIENT_ID: both or none".into()),
        };
        let staff_secret_arn = present("CIAM_STAFF_SECRET_ARN");
        if staff.is_none()
            && (staff_secret_arn.is_some() || present("CIAM_STAFF_CLIENT_SECRET").is_some())
        {
            return Err(
                "CIAM_STAFF_SECRET_ARN or CIAM_STAFF_CLIENT_SECRET is set without \
                 CIAM_STAFF_ISSUER and CIAM_STAFF_CLIENT_ID"
                    .into(),
            );
        }
        let oidc_key_version = present("CIAM_OIDC_KEY_VERSION")
            .map(|v| {
                v.parse::<u32>()
                    .ok()
                    .filter(|n| *n >= 1)
                    .ok_or("CIAM_OIDC_KEY_VERSION must be a whole number from 1")
            })
            .transpose()?;
        let oidc_kms_key_id = present("CIAM_OIDC_KMS_KEY_ID");
        let oidc_kms_previous_key_ids = list("CIAM_OIDC_KMS_PREVIOUS_KEY_IDS");
        if oidc_kms_key_id.is_none() && !oidc_kms_previous_key_ids.is_empty() {
            return Err(
                "CIAM_OIDC_KMS_PREVIOUS_KEY_IDS is set without CIAM_OIDC_KMS_KEY_ID".into(),
            );
        }
        let audit_retention_days = present("CIAM_AUDIT_RETENTION_DAYS")
            .map(|v| {
                v.parse::<u32>()
                    .ok()
                    .filter(|n| (1..=3650).contains(n))
                    .ok_or("CIAM_AUDIT_RETENTION_DAYS must be a whole number from 1 to 3650")
            })
            .transpose()?;
        let client_limits = match present("CIAM_CLIENT_LIMITS").as_deref() {
            None | Some("0") => false,
            Some("1") => true,
            Some(_) => return Err("CIAM_CLIENT_LIMITS must be 1 (on) or 0 (off)".into()),
        };
        let cell = match present("CIAM_CELL") {
            None => ciam_core::cell::Cell::Global,
            Some(v) => ciam_core::cell::Cell::parse(&v).ok_or("CIAM_CELL must be global or cn")?,
        };
        let other_cell = present("CIAM_OTHER_CELL")
            .map(|v| ciam_core::cell::other_origin(&v).map_err(|e| format!("CIAM_OTHER_CELL {e}")))
            .transpose()?;
        let public_url = present("CIAM_PUBLIC_URL").map(|u| u.trim_end_matches('/').to_owned());
        let passkey_rp_id = present("CIAM_PASSKEY_RP_ID");
        let passkey_origins = list("CIAM_PASSKEY_ORIGINS");
        // Checked at start, like `ciam serve` does: a RP ID that is not the public host or a
        // parent of it, or an origin that does not parse, fails the init rather than every
        // ceremony. Without either setting, passkeys follow the public URL (and answer 503
        // PASSKEY_UNAVAILABLE without one).
        if passkey_rp_id.is_some() || !passkey_origins.is_empty() {
            ciam_core::passkey::PasskeyConfig::new(
                public_url.as_deref(),
                passkey_rp_id.as_deref(),
                &passkey_origins,
            )
            .map_err(|e| {
                format!("CIAM_PASSKEY_RP_ID or CIAM_PASSKEY_ORIGINS with CIAM_PUBLIC_URL: {e}")
            })?;
        }
        Ok(Settings {
            table,
            root_secret_arn: present("CIAM_ROOT_SECRET_ARN"),
            key_secret_arns: ciam_core::KeyPurpose::ALL
                .into_iter()
                .filter_map(|p| present(&crate::purpose_keys::var(p)).map(|arn| (p, arn)))
                .collect(),
            secret_key,
            mail_from: present("CIAM_MAIL_FROM"),
            internal_domains,
            dynamodb_endpoint: present("CIAM_DYNAMODB_ENDPOINT"),
            public_url,
            oidc_key_version,
            oidc_kms_key_id,
            oidc_kms_previous_key_ids,
            logout_kms_key_id: present("CIAM_LOGOUT_KMS_KEY_ID"),
            staff,
            staff_mfa_acr: list("CIAM_STAFF_MFA_ACR"),
            staff_secret_arn,
            origin_secret_arn: present("CIAM_ORIGIN_SECRET_ARN"),
            passkey_rp_id,
            passkey_origins,
            audit_retention_days,
            client_limits,
            senders: crate::senders::SenderVars::from_lookup(&get),
            cell,
            other_cell,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    const KEY: &str = "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff";

    fn settings(vars: &[(&str, &str)]) -> Result<Settings, String> {
        let env: HashMap<String, String> = vars
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        Settings::from_lookup(|name| env.get(name).cloned())
    }

    #[test]
    fn the_table_alone_is_enough_to_parse_and_the_secret_key_is_a_fallback() {
        let s = settings(&[("CIAM_TABLE", "t")]).unwrap();
        assert_eq!(s.table, "t");
        assert!(s.secret_key.is_none() && s.root_secret_arn.is_none());
        assert_eq!(s.mail_from, None);
        assert_eq!(s.internal_domains, None);
        assert_eq!(s.dynamodb_endpoint, None);
        assert_eq!(s.origin_secret_arn, None);
        let s = settings(&[("CIAM_TABLE", "t"), ("CIAM_SECRET_KEY", KEY)]).unwrap();
        let expected = Keys::from_hex(KEY).unwrap();
        assert_eq!(s.secret_key.unwrap().derive("x"), expected.derive("x"));
    }

    #[test]
    fn a_missing_table_fails_and_a_blank_secret_key_counts_as_unset() {
        let err = settings(&[("CIAM_SECRET_KEY", KEY)]).unwrap_err();
        assert!(err.contains("CIAM_TABLE"), "{err}");
        let s = settings(&[("CIAM_TABLE", "t"), ("CIAM_SECRET_KEY", "  ")]).unwrap();
        assert!(s.secret_key.is_none());
    }

    #[test]
    fn a_malformed_secret_key_is_refused_without_echoing_it() {
        let short = &KEY[..62];
        let err = settings(&[("CIAM_TABLE", "t"), ("CIAM_SECRET_KEY", short)]).unwrap_err();
        assert!(err.contains("64 hexadecimal"), "{err}");
        assert!(
            !err.contains(short),
            "the secret leaked into the error: {err}"
        );
        let not_hex = KEY.replace('a', "g");
        assert!(settings(&[("CIAM_TABLE", "t"), ("CIAM_SECRET_KEY", &not_hex)]).is_err());
    }

    #[test]
    fn the_secrets_and_the_kms_keys_are_named_not_given() {
        let s = settings(&[
            ("CIAM_TABLE", "t"),
            (
                "CIAM_ROOT_SECRET_ARN",
                "arn:aws:secretsmanager:r:1:secret:root",
            ),
            (
                "CIAM_ORIGIN_SECRET_ARN",
                "arn:aws:secretsmanager:r:1:secret:origin",
            ),
            ("CIAM_OIDC_KMS_KEY_ID", "arn:aws:kms:r:1:key/new"),
            (
                "CIAM_OIDC_KMS_PREVIOUS_KEY_IDS",
                " arn:aws:kms:r:1:key/old, ,arn:aws:kms:r:1:key/older ",
            ),
        ])
        .unwrap();
        assert_eq!(
            s.root_secret_arn.as_deref(),
            Some("arn:aws:secretsmanager:r:1:secret:root")
        );
        assert_eq!(
            s.origin_secret_arn.as_deref(),
            Some("arn:aws:secretsmanager:r:1:secret:origin")
        );
        assert_eq!(
            s.oidc_kms_key_id.as_deref(),
            Some("arn:aws:kms:r:1:key/new")
        );
        assert_eq!(
            s.oidc_kms_previous_key_ids,
            ["arn:aws:kms:r:1:key/old", "arn:aws:kms:r:1:key/older"]
        );
        let err = settings(&[
            ("CIAM_TABLE", "t"),
            ("CIAM_OIDC_KMS_PREVIOUS_KEY_IDS", "arn:aws:kms:r:1:key/old"),
        ])
        .unwrap_err();
        assert!(err.contains("CIAM_OIDC_KMS_KEY_ID"), "{err}");
    }

    #[test]
    fn internal_domains_are_a_trimmed_lowercase_list_and_blank_means_the_default() {
        let s = settings(&[
            ("CIAM_TABLE", "t"),
            (
                "CIAM_INTERNAL_DOMAINS",
                " Staff.Example.com, ,corp.example ",
            ),
        ])
        .unwrap();
        assert_eq!(
            s.internal_domains,
            Some(vec![
                "staff.example.com".to_owned(),
                "corp.example".to_owned()
            ])
        );
        let s = settings(&[("CIAM_TABLE", "t"), ("CIAM_INTERNAL_DOMAINS", "")]).unwrap();
        assert_eq!(s.internal_domains, None);
    }

    #[test]
    fn the_sender_and_a_local_endpoint_are_read_when_set() {
        let s = settings(&[
            ("CIAM_TABLE", "t"),
            ("CIAM_MAIL_FROM", "no-reply@ciam.example"),
            ("CIAM_DYNAMODB_ENDPOINT", "http://127.0.0.1:8000"),
        ])
        .unwrap();
        assert_eq!(s.mail_from.as_deref(), Some("no-reply@ciam.example"));
        assert_eq!(
            s.dynamodb_endpoint.as_deref(),
            Some("http://127.0.0.1:8000")
        );
    }

    #[test]
    fn the_oidc_key_version_is_a_whole_number_from_one() {
        let base = [("CIAM_TABLE", "t")];
        assert_eq!(settings(&base).unwrap().oidc_key_version, None);
        let with = |v: &str| {
            let mut vars = base.to_vec();
            vars.push(("CIAM_OIDC_KEY_VERSION", v));
            settings(&vars)
        };
        assert_eq!(with(" 3 ").unwrap().oidc_key_version, Some(3));
        for bad in ["0", "-1", "two"] {
            let err = with(bad).unwrap_err();
            assert!(err.contains("CIAM_OIDC_KEY_VERSION"), "{bad}: {err}");
        }
    }

    #[test]
    fn the_audit_retention_is_a_whole_number_of_days() {
        let base = [("CIAM_TABLE", "t")];
        assert_eq!(settings(&base).unwrap().audit_retention_days, None);
        let with = |v: &str| {
            let mut vars = base.to_vec();
            vars.push(("CIAM_AUDIT_RETENTION_DAYS", v));
            settings(&vars)
        };
        assert_eq!(with("90").unwrap().audit_retention_days, Some(90));
        for bad in ["0", "-1", "3651", "a year"] {
            let err = with(bad).unwrap_err();
            assert!(err.contains("CIAM_AUDIT_RETENTION_DAYS"), "{bad}: {err}");
        }
    }

    #[test]
    fn the_cell_and_its_sibling_are_read_and_checked() {
        let s = settings(&[("CIAM_TABLE", "t")]).unwrap();
        assert_eq!(
            (s.cell, s.other_cell),
            (ciam_core::cell::Cell::Global, None)
        );
        let s = settings(&[
            ("CIAM_TABLE", "t"),
            ("CIAM_CELL", "cn"),
            ("CIAM_OTHER_CELL", "https://id.example.com/"),
        ])
        .unwrap();
        assert_eq!(s.cell, ciam_core::cell::Cell::Cn);
        assert_eq!(s.other_cell.as_deref(), Some("https://id.example.com"));
        assert!(settings(&[("CIAM_TABLE", "t"), ("CIAM_CELL", "china")]).is_err());
        assert!(settings(&[("CIAM_TABLE", "t"), ("CIAM_OTHER_CELL", "https://x.cn/a")]).is_err());
    }

    #[test]
    fn client_limits_are_on_only_with_1() {
        let with = |v: &str| settings(&[("CIAM_TABLE", "t"), ("CIAM_CLIENT_LIMITS", v)]);
        assert!(!settings(&[("CIAM_TABLE", "t")]).unwrap().client_limits);
        assert!(with("1").unwrap().client_limits);
        assert!(!with("0").unwrap().client_limits);
        assert!(with("yes").unwrap_err().contains("CIAM_CLIENT_LIMITS"));
    }

    #[test]
    fn debug_output_hides_the_key_and_the_staff_secret() {
        let s = settings(&[
            ("CIAM_TABLE", "t"),
            ("CIAM_SECRET_KEY", KEY),
            ("CIAM_STAFF_ISSUER", "https://login.corp.example"),
            ("CIAM_STAFF_CLIENT_ID", "ciam"),
            ("CIAM_STAFF_CLIENT_SECRET", "hush-hush"),
        ])
        .unwrap();
        let shown = format!("{s:?}");
        assert!(!shown.contains("0011"), "{shown}");
        assert!(!shown.contains("hush-hush"), "{shown}");
        assert!(shown.contains("login.corp.example"), "{shown}");
    }

    #[test]
    fn staff_sign_in_needs_the_issuer_and_the_client_id_together() {
        let s = settings(&[
            ("CIAM_TABLE", "t"),
            ("CIAM_STAFF_ISSUER", "https://login.corp.example"),
            ("CIAM_STAFF_CLIENT_ID", "ciam"),
            (
                "CIAM_STAFF_SECRET_ARN",
                "arn:aws:secretsmanager:r:1:secret:staff",
            ),
        ])
        .unwrap();
        let staff = s.staff.as_ref().unwrap();
        assert_eq!(staff.issuer, "https://login.corp.example");
        assert_eq!(staff.client_id, "ciam");
        assert_eq!(staff.env_secret, None);
        assert!(s.staff_secret_arn.is_some());
        let err = settings(&[
            ("CIAM_TABLE", "t"),
            ("CIAM_STAFF_ISSUER", "https://login.corp.example"),
        ])
        .unwrap_err();
        assert!(err.contains("CIAM_STAFF_CLIENT_ID"), "{err}");
        let err = settings(&[
            ("CIAM_TABLE", "t"),
            ("CIAM_STAFF_ISSUER", "http://login.corp.example"),
            ("CIAM_STAFF_CLIENT_ID", "ciam"),
        ])
        .unwrap_err();
        assert!(err.contains("https"), "{err}");
        let err = settings(&[
            ("CIAM_TABLE", "t"),
            (
                "CIAM_STAFF_SECRET_ARN",
                "arn:aws:secretsmanager:r:1:secret:staff",
            ),
        ])
        .unwrap_err();
        assert!(err.contains("CIAM_STAFF_ISSUER"), "{err}");
    }

    #[test]
    fn the_passkey_rp_id_and_origins_are_read_and_checked_against_the_public_url() {
        let s = settings(&[("CIAM_TABLE", "t")]).unwrap();
        assert_eq!(s.passkey_rp_id, None);
        assert!(s.passkey_origins.is_empty());
        let s = settings(&[
            ("CIAM_TABLE", "t"),
            ("CIAM_PUBLIC_URL", "https://id.example.com/"),
            ("CIAM_PASSKEY_RP_ID", " example.com "),
            (
                "CIAM_PASSKEY_ORIGINS",
                " https://www.example.com, ,https://app.example.com ",
            ),
        ])
        .unwrap();
        assert_eq!(s.passkey_rp_id.as_deref(), Some("example.com"));
        assert_eq!(
            s.passkey_origins,
            ["https://www.example.com", "https://app.example.com"]
        );
        // Blank counts as unset (the template's default is the empty string).
        let s = settings(&[
            ("CIAM_TABLE", "t"),
            ("CIAM_PASSKEY_RP_ID", " "),
            ("CIAM_PASSKEY_ORIGINS", ""),
        ])
        .unwrap();
        assert_eq!(s.passkey_rp_id, None);
        assert!(s.passkey_origins.is_empty());
        for bad in [
            // Not the public host nor a parent of it.
            vec![
                ("CIAM_PUBLIC_URL", "https://id.example.com"),
                ("CIAM_PASSKEY_RP_ID", "other.example"),
            ],
            // An origin that does not parse.
            vec![
                ("CIAM_PUBLIC_URL", "https://id.example.com"),
                ("CIAM_PASSKEY_ORIGINS", "not an origin"),
            ],
            // Nothing to check it against.
            vec![("CIAM_PASSKEY_RP_ID", "example.com")],
        ] {
            let mut vars = vec![("CIAM_TABLE", "t")];
            vars.extend(bad.iter().copied());
            let err = settings(&vars).unwrap_err();
            assert!(err.contains("CIAM_PASSKEY_RP_ID"), "{vars:?}: {err}");
        }
    }
}
