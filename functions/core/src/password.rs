//! Password rules (spec §5 and beyond) and hashing.
//!
//! The rule: at least 8 characters with upper and lower case letters, digits and special
//! characters; no backtick, backslash, quotes or slash. Beyond it: up to 128 characters are
//! accepted and never truncated, and the 10,000 most common passwords are refused.

use crate::error::{Error, Result};
use crate::Reason;
use argon2::password_hash::{PasswordHash, PasswordHasher, PasswordVerifier, SaltString};
use argon2::{Algorithm, Argon2, Params, Version};
use std::collections::HashSet;
use std::sync::OnceLock;

pub const MIN_LEN: usize = 8;
pub const MAX_LEN: usize = 128;
pub const FORBIDDEN: &str = "`\\'\"/";

static COMMON: &str = include_str!("../data/common-passwords.txt");

fn common() -> &'static HashSet<&'static str> {
    static SET: OnceLock<HashSet<&'static str>> = OnceLock::new();
    SET.get_or_init(|| COMMON.lines().filter(|l| !l.is_empty()).collect())
}

pub fn is_common(pw: &str) -> bool {
    common().contains(pw.to_lowercase().as_str())
}

fn complexity(zh: &'static str, en: &'static str) -> Error {
    Error::field(Reason::PASSWORD_COMPLEXITY_ERROR, "password", zh, en)
}

/// Checks a new password against the rules.
pub fn check_new(pw: &str) -> Result<()> {
    let n = pw.chars().count();
    if n < MIN_LEN {
        return Err(complexity("密码至少 8 位", "At least 8 characters"));
    }
    if n > MAX_LEN {
        return Err(complexity("密码最多 128 位", "At most 128 characters"));
    }
    if pw.chars().any(|c| FORBIDDEN.contains(c)) {
        return Err(complexity(
            "密码不能包含 ` \\ ' \" /",
            "The password cannot contain ` \\ ' \" /",
        ));
    }
    if pw.chars().any(char::is_control) {
        return Err(complexity(
            "密码不能包含控制字符",
            "The password cannot contain control characters",
        ));
    }
    let upper = pw.chars().any(|c| c.is_uppercase());
    let lower = pw.chars().any(|c| c.is_lowercase());
    let digit = pw.chars().any(|c| c.is_ascii_digit());
    let special = pw
        .chars()
        .any(|c| !c.is_alphanumeric() && !c.is_whitespace());
    if !(upper && lower && digit && special) {
        return Err(complexity(
            "密码需包含大写字母、小写字母、数字和特殊字符",
            "Use upper and lower case letters, digits and special characters",
        ));
    }
    if is_common(pw) {
        return Err(complexity(
            "该密码过于常见，请换一个",
            "This password is too common; choose another",
        ));
    }
    Ok(())
}

fn hasher() -> Result<Argon2<'static>> {
    // OWASP's argon2id floor: m=19 MiB, t=2, p=1.
    let params = Params::new(19 * 1024, 2, 1, None).map_err(Error::internal)?;
    Ok(Argon2::new(Algorithm::Argon2id, Version::V0x13, params))
}

/// Hashes on a blocking thread: argon2 is deliberately slow and must not stall the runtime.
pub async fn hash(pw: String, salt: [u8; 16]) -> Result<String> {
    tokio::task::spawn_blocking(move || {
        let salt = SaltString::encode_b64(&salt).map_err(Error::internal)?;
        Ok(hasher()?
            .hash_password(pw.as_bytes(), &salt)
            .map_err(Error::internal)?
            .to_string())
    })
    .await
    .map_err(Error::internal)?
}

/// A fixed hash to verify against when the account does not exist, so that an unknown account
/// costs the same time as a wrong password.
const DUMMY_HASH: &str =
    "$argon2id$v=19$m=19456,t=2,p=1$c29tZXNhbHRzb21lc2FsdA$Rj1lOmkL1fjmmEmdpnlIi9jqNStrGaM9Hbe6H35Wxso";

/// Verifies on a blocking thread. `None` verifies against a dummy hash and returns false.
pub async fn verify(pw: String, stored: Option<String>) -> Result<bool> {
    tokio::task::spawn_blocking(move || {
        let real = stored.is_some();
        let phc = stored.unwrap_or_else(|| DUMMY_HASH.to_owned());
        let parsed = PasswordHash::new(&phc).map_err(Error::internal)?;
        let ok = hasher()?.verify_password(pw.as_bytes(), &parsed).is_ok();
        Ok(real && ok)
    })
    .await
    .map_err(Error::internal)?
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_rule_of_spec_5_is_enforced() {
        assert!(check_new("Aa1!aaaa").is_ok() || is_common("Aa1!aaaa"));
        assert!(check_new("Str0ng!Passw").is_ok());
        for bad in [
            "Aa1!aaa",
            "aa1!aaaa",
            "AA1!AAAA",
            "Aaa!aaaa",
            "Aa1aaaaa",
            "Aa1!aa`a",
            "Aa1!aa\\a",
            "Aa1!aa'a",
            "Aa1!aa\"a",
            "Aa1!aa/a",
        ] {
            assert_eq!(
                check_new(bad).unwrap_err().reason,
                Reason::PASSWORD_COMPLEXITY_ERROR,
                "{bad}"
            );
        }
    }

    #[test]
    fn long_passwords_are_accepted_whole() {
        let long = format!("Aa1!{}", "x".repeat(60));
        assert!(check_new(&long).is_ok());
        assert!(check_new(&format!("Aa1!{}", "x".repeat(200))).is_err());
    }

    #[test]
    fn the_common_list_has_ten_thousand_entries_and_is_used() {
        assert_eq!(common().len(), 10_000);
        assert!(is_common("password"));
        assert!(is_common("PASSWORD"));
        assert!(!is_common("Str0ng!Passw-unlikely"));
    }

    #[tokio::test]
    async fn hashes_verify_and_differ_in_the_last_character() {
        let pw = format!("Aa1!{}", "y".repeat(70));
        let h = hash(pw.clone(), [7; 16]).await.unwrap();
        assert!(h.starts_with("$argon2id$v=19$m=19456,t=2,p=1$"));
        assert!(verify(pw.clone(), Some(h.clone())).await.unwrap());
        let mut other = pw.clone();
        other.pop();
        other.push('z');
        assert!(
            !verify(other, Some(h)).await.unwrap(),
            "no truncation: the 74th character counts"
        );
        assert!(!verify(pw, None).await.unwrap());
    }
}
