//! `settings.rs`'s tests: each variable read, defaulted or refused by name.

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
