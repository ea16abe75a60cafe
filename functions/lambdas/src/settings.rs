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
    /// `CIAM_<P>_<SETTING>` (and `CIAM_<P>_<BASE>`) of each provider but staff that is set
    /// (`Facts::from_env`); its secret fields from `CIAM_<P>_<FIELD>` in tests and local runs
    /// only (`CIAM_<P>_SECRET_ARN` wins, read at init by the callback).
    pub federation: std::collections::HashMap<
        ciam_core::federation::ProviderId,
        ciam_core::federation::ProviderConfig,
    >,
    /// `CIAM_<P>_SECRET_ARN` of those providers: the secret `{<secret_field>, ...}`.
    pub federation_secret_arns:
        std::collections::HashMap<ciam_core::federation::ProviderId, String>,
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
        let linking = || ciam_core::federation::ProviderId::linking().map(|p| p.facts());
        let federation: std::collections::HashMap<_, _> = linking()
            .filter_map(|f| f.from_env(&get, true).map(|c| (f.id, c)))
            .collect();
        let federation_secret_arns = linking()
            .filter(|f| federation.contains_key(&f.id))
            .filter_map(|f| present(&f.secret_arn_var()).map(|arn| (f.id, arn)))
            .collect();
        Ok(Settings {
            federation,
            federation_secret_arns,
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
#[path = "settings_tests.rs"]
mod tests;
