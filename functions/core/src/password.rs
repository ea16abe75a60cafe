//! Password rules (spec §5 and beyond) and hashing.
//!
//! The rule: at least 8 characters with upper and lower case letters, digits and special
//! characters; no backtick, backslash, quotes or slash. Beyond it: up to 128 characters are
//! accepted and never truncated, and the 10,000 most common passwords are refused.

use crate::error::{Error, Result};
use crate::Reason;
use argon2::password_hash::PasswordHash;
use argon2::{Algorithm, Argon2, Block, Params, Version};
use base64::Engine;
use std::collections::HashSet;
use std::sync::OnceLock;
use subtle::ConstantTimeEq;

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

const M_KIB: u32 = 19 * 1024;
const T: u32 = 2;
const P: u32 = 1;
const OUT_LEN: usize = 32;

fn argon(m: u32, t: u32, p: u32, out: usize) -> Result<Argon2<'static>> {
    let params = Params::new(m, t, p, Some(out)).map_err(Error::internal)?;
    Ok(Argon2::new(Algorithm::Argon2id, Version::V0x13, params))
}

// Argon2 runs on a small fixed pool of threads, one per core, each reusing one preallocated
// 19 MiB work area. Memory therefore stays bounded (cores x 19 MiB) however many sign-ins
// arrive at once, instead of growing with every blocking thread the runtime starts, and a flood
// of sign-ins queues for CPU rather than starving every other request.

enum Job {
    Hash {
        pw: String,
        salt: [u8; 16],
        reply: oneshot::Sender<Result<String>>,
    },
    Verify {
        pw: String,
        phc: String,
        reply: oneshot::Sender<Result<bool>>,
    },
}

mod oneshot {
    pub use tokio::sync::oneshot::{channel, Sender};
}

fn pool() -> &'static std::sync::Mutex<std::sync::mpsc::Sender<Job>> {
    static POOL: OnceLock<std::sync::Mutex<std::sync::mpsc::Sender<Job>>> = OnceLock::new();
    POOL.get_or_init(|| {
        let (tx, rx) = std::sync::mpsc::channel::<Job>();
        let rx = std::sync::Arc::new(std::sync::Mutex::new(rx));
        let workers = std::thread::available_parallelism()
            .map(|n| n.get())
            .unwrap_or(1)
            .clamp(1, 8);
        for i in 0..workers {
            let rx = rx.clone();
            let _ = std::thread::Builder::new()
                .name(format!("argon2-{i}"))
                .spawn(move || worker(&rx));
        }
        std::sync::Mutex::new(tx)
    })
}

fn worker(rx: &std::sync::Mutex<std::sync::mpsc::Receiver<Job>>) {
    let mut memory: Vec<Block> = Vec::new();
    loop {
        let job = match rx.lock() {
            Ok(guard) => match guard.recv() {
                Ok(job) => job,
                Err(_) => return,
            },
            Err(_) => return,
        };
        match job {
            Job::Hash { pw, salt, reply } => {
                let _ = reply.send(hash_now(&pw, &salt, &mut memory));
            }
            Job::Verify { pw, phc, reply } => {
                let _ = reply.send(verify_now(&pw, &phc, &mut memory));
            }
        }
    }
}

fn compute(
    pw: &str,
    salt: &[u8],
    m: u32,
    t: u32,
    p: u32,
    out: &mut [u8],
    memory: &mut Vec<Block>,
) -> Result<()> {
    let a = argon(m, t, p, out.len())?;
    let blocks = a.params().block_count();
    if memory.len() != blocks {
        *memory = vec![Block::default(); blocks];
    }
    a.hash_password_into_with_memory(pw.as_bytes(), salt, out, memory.as_mut_slice())
        .map_err(Error::internal)
}

fn hash_now(pw: &str, salt: &[u8; 16], memory: &mut Vec<Block>) -> Result<String> {
    let mut out = [0u8; OUT_LEN];
    compute(pw, salt, M_KIB, T, P, &mut out, memory)?;
    let b64 = |b: &[u8]| base64::engine::general_purpose::STANDARD_NO_PAD.encode(b);
    Ok(format!(
        "$argon2id$v=19$m={M_KIB},t={T},p={P}${}${}",
        b64(salt),
        b64(&out)
    ))
}

fn verify_now(pw: &str, phc: &str, memory: &mut Vec<Block>) -> Result<bool> {
    let parsed = PasswordHash::new(phc).map_err(Error::internal)?;
    if parsed.algorithm.as_str() != "argon2id" {
        return Err(Error::internal("unsupported password hash algorithm"));
    }
    let num = |k: &str| {
        parsed
            .params
            .get_decimal(k)
            .ok_or_else(|| Error::internal("bad argon2 params"))
    };
    let (m, t, p) = (num("m")?, num("t")?, num("p")?);
    let mut salt_buf = [0u8; 64];
    let salt = parsed
        .salt
        .ok_or_else(|| Error::internal("no salt"))?
        .decode_b64(&mut salt_buf)
        .map_err(Error::internal)?;
    let expected = parsed.hash.ok_or_else(|| Error::internal("no hash"))?;
    let mut out = vec![0u8; expected.len()];
    compute(pw, salt, m, t, p, &mut out, memory)?;
    Ok(bool::from(out.as_slice().ct_eq(expected.as_bytes())))
}

async fn submit<T>(make: impl FnOnce(oneshot::Sender<Result<T>>) -> Job) -> Result<T> {
    let (tx, rx) = oneshot::channel();
    pool()
        .lock()
        .map_err(|_| Error::internal("argon2 pool poisoned"))?
        .send(make(tx))
        .map_err(Error::internal)?;
    rx.await.map_err(Error::internal)?
}

/// Hashes with argon2id (m=19 MiB, t=2, p=1) off the async runtime.
pub async fn hash(pw: String, salt: [u8; 16]) -> Result<String> {
    submit(|reply| Job::Hash { pw, salt, reply }).await
}

/// A fixed hash to verify against when the account does not exist, so that an unknown account
/// costs the same time as a wrong password.
const DUMMY_HASH: &str =
    "$argon2id$v=19$m=19456,t=2,p=1$c29tZXNhbHRzb21lc2FsdA$Rj1lOmkL1fjmmEmdpnlIi9jqNStrGaM9Hbe6H35Wxso";

/// Verifies off the async runtime. `None` verifies against a dummy hash and returns false.
pub async fn verify(pw: String, stored: Option<String>) -> Result<bool> {
    let real = stored.is_some();
    let phc = stored.unwrap_or_else(|| DUMMY_HASH.to_owned());
    let ok = submit(|reply| Job::Verify { pw, phc, reply }).await?;
    Ok(real && ok)
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
    async fn hashes_are_standard_phc_strings_that_other_argon2_verifiers_accept() {
        use argon2::password_hash::PasswordVerifier;
        let h = hash("Aa1!standard".into(), [5; 16]).await.unwrap();
        let parsed = PasswordHash::new(&h).unwrap();
        assert!(Argon2::default()
            .verify_password(b"Aa1!standard", &parsed)
            .is_ok());
        assert!(Argon2::default()
            .verify_password(b"Aa1!standarD", &parsed)
            .is_err());
    }

    #[tokio::test]
    async fn many_concurrent_verifications_all_complete_correctly() {
        let h = hash("Aa1!concurrent".into(), [6; 16]).await.unwrap();
        let tasks: Vec<_> = (0..12)
            .map(|i| {
                let h = h.clone();
                tokio::spawn(async move {
                    verify(
                        if i % 2 == 0 {
                            "Aa1!concurrent".into()
                        } else {
                            "wrong".into()
                        },
                        Some(h),
                    )
                    .await
                })
            })
            .collect();
        for (i, t) in tasks.into_iter().enumerate() {
            assert_eq!(t.await.unwrap().unwrap(), i % 2 == 0, "task {i}");
        }
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
