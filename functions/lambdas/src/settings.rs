//! A function's configuration, from its environment (set by template.yaml).

use ciam_core::Keys;

/// `Debug` is safe to log: `Keys` prints as `Keys(..)`.
#[derive(Debug)]
pub struct Settings {
    /// `CIAM_TABLE`: the single table's name.
    pub table: String,
    /// `CIAM_SECRET_KEY`: 64 hex characters, the root of every derived key.
    pub keys: Keys,
    /// `CIAM_MAIL_FROM`: the SES sender of verification mail.
    pub mail_from: Option<String>,
    /// `CIAM_INTERNAL_DOMAINS`: comma-separated; unset or blank keeps the default.
    pub internal_domains: Option<Vec<String>>,
    /// `CIAM_DYNAMODB_ENDPOINT`: DynamoDB Local, for tests.
    pub dynamodb_endpoint: Option<String>,
    /// `CIAM_PUBLIC_URL`: where browsers reach the deployment (the CloudFront domain).
    pub public_url: Option<String>,
    /// `CIAM_OIDC_KEY_VERSION`: the OpenID Connect signing-key version (a whole number from 1;
    /// unset keeps 1). Raising it by one rotates the key.
    pub oidc_key_version: Option<u32>,
    /// `CIAM_STAFF_ISSUER`, `CIAM_STAFF_CLIENT_ID`, `CIAM_STAFF_CLIENT_SECRET`: staff sign-in
    /// through the company identity provider; all three or none.
    pub staff_idp: Option<ciam_core::staff::StaffIdp>,
}

impl Settings {
    pub fn from_env() -> Result<Settings, String> {
        Settings::from_lookup(|name| std::env::var(name).ok())
    }

    /// Errors name the variable, never its value: one of them is a secret.
    pub fn from_lookup(get: impl Fn(&str) -> Option<String>) -> Result<Settings, String> {
        let present = |name: &str| {
            get(name)
                .map(|v| v.trim().to_owned())
                .filter(|v| !v.is_empty())
        };
        let table = present("CIAM_TABLE").ok_or("CIAM_TABLE is required")?;
        let keys = present("CIAM_SECRET_KEY")
            .ok_or("CIAM_SECRET_KEY is required")
            .and_then(|hex| {
                Keys::from_hex(&hex).ok_or("CIAM_SECRET_KEY must be 64 hexadecimal characters")
            })?;
        let internal_domains = present("CIAM_INTERNAL_DOMAINS").map(|list| {
            list.split(',')
                .map(|d| d.trim().to_ascii_lowercase())
                .filter(|d| !d.is_empty())
                .collect()
        });
        let staff_idp = ciam_core::staff::StaffIdp::from_parts(
            present("CIAM_STAFF_ISSUER"),
            present("CIAM_STAFF_CLIENT_ID"),
            present("CIAM_STAFF_CLIENT_SECRET"),
        )
        .map_err(|e| {
            format!("CIAM_STAFF_ISSUER, CIAM_STAFF_CLIENT_ID, CIAM_STAFF_CLIENT_SECRET: {e}")
        })?;
        let oidc_key_version = present("CIAM_OIDC_KEY_VERSION")
            .map(|v| {
                v.parse::<u32>()
                    .ok()
                    .filter(|n| *n >= 1)
                    .ok_or("CIAM_OIDC_KEY_VERSION must be a whole number from 1")
            })
            .transpose()?;
        Ok(Settings {
            table,
            keys,
            mail_from: present("CIAM_MAIL_FROM"),
            internal_domains,
            dynamodb_endpoint: present("CIAM_DYNAMODB_ENDPOINT"),
            public_url: present("CIAM_PUBLIC_URL").map(|u| u.trim_end_matches('/').to_owned()),
            oidc_key_version,
            staff_idp,
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
    fn the_table_and_the_secret_key_are_enough() {
        let s = settings(&[("CIAM_TABLE", "t"), ("CIAM_SECRET_KEY", KEY)]).unwrap();
        assert_eq!(s.table, "t");
        assert_eq!(s.mail_from, None);
        assert_eq!(s.internal_domains, None);
        assert_eq!(s.dynamodb_endpoint, None);
        let expected = Keys::from_hex(KEY).unwrap();
        assert_eq!(s.keys.derive("x"), expected.derive("x"));
    }

    #[test]
    fn a_missing_table_or_key_fails_the_init() {
        let err = settings(&[("CIAM_SECRET_KEY", KEY)]).unwrap_err();
        assert!(err.contains("CIAM_TABLE"), "{err}");
        let err = settings(&[("CIAM_TABLE", "t"), ("CIAM_SECRET_KEY", "  ")]).unwrap_err();
        assert!(err.contains("CIAM_SECRET_KEY is required"), "{err}");
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
    fn internal_domains_are_a_trimmed_lowercase_list_and_blank_means_the_default() {
        let s = settings(&[
            ("CIAM_TABLE", "t"),
            ("CIAM_SECRET_KEY", KEY),
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
        let s = settings(&[
            ("CIAM_TABLE", "t"),
            ("CIAM_SECRET_KEY", KEY),
            ("CIAM_INTERNAL_DOMAINS", ""),
        ])
        .unwrap();
        assert_eq!(s.internal_domains, None);
    }

    #[test]
    fn the_sender_and_a_local_endpoint_are_read_when_set() {
        let s = settings(&[
            ("CIAM_TABLE", "t"),
            ("CIAM_SECRET_KEY", KEY),
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
        let base = [("CIAM_TABLE", "t"), ("CIAM_SECRET_KEY", KEY)];
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
    fn debug_output_hides_the_key() {
        let s = settings(&[("CIAM_TABLE", "t"), ("CIAM_SECRET_KEY", KEY)]).unwrap();
        assert!(!format!("{s:?}").contains("0011"));
    }

    #[test]
    fn staff_sign_in_needs_all_three_variables_and_hides_the_secret() {
        let s = settings(&[
            ("CIAM_TABLE", "t"),
            ("CIAM_SECRET_KEY", KEY),
            ("CIAM_STAFF_ISSUER", "https://login.corp.example"),
            ("CIAM_STAFF_CLIENT_ID", "ciam"),
            ("CIAM_STAFF_CLIENT_SECRET", "hush-hush"),
        ])
        .unwrap();
        let idp = s.staff_idp.as_ref().unwrap();
        assert_eq!(idp.issuer, "https://login.corp.example");
        assert_eq!(idp.client_id, "ciam");
        assert!(!format!("{s:?}").contains("hush-hush"));
        let err = settings(&[
            ("CIAM_TABLE", "t"),
            ("CIAM_SECRET_KEY", KEY),
            ("CIAM_STAFF_ISSUER", "https://login.corp.example"),
        ])
        .unwrap_err();
        assert!(err.contains("CIAM_STAFF_CLIENT_SECRET"));
    }
}
