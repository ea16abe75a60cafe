//! Password rules (spec §5 and beyond) and hashing.
//!
//! The rule: at least 8 characters with upper and lower case letters, digits and special
//! characters; no backtick, backslash, quotes or slash. Beyond it: up to 128 characters are
//! accepted and never truncated, and the 10,000 most common passwords are refused.

use crate::error::{Error, Result};
use crate::Reason;
use base64::Engine;
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

const M_KIB: u32 = 19 * 1024;
const T: u32 = 2;
const P: u32 = 1;
const OUT_LEN: usize = 32;

/// argon2id v1.3 at m=19 MiB, t=2, p=1, 32-byte tags: what every new hash uses.
///
/// The implementation is `argon2-rust`, a port of the reference C implementation with explicit
/// SIMD chosen at run time (AVX-512, AVX2 or SSE2 on x86_64; NEON on arm64, Graviton): its speed
/// does not depend on the compiler vectorising it, which the shipped profile (opt-level "s",
/// LTO) does not do. Its output is the reference's, byte for byte (tests below check it against
/// RustCrypto's `argon2`, which hashed before it, and RFC 9106's test vector).
fn ciam_argon2() -> Result<argon2_rust::Argon2> {
    use argon2_rust::params::{Memory, TagLen};
    let params = argon2_rust::Params::builder()
        .memory(Memory::kib(u64::from(M_KIB)))
        .passes(T)
        .lanes(P)
        .tag_len(TagLen::bytes(OUT_LEN as u64))
        .build()
        .map_err(|e| Error::internal(format!("argon2 parameters: {e}")))?;
    Ok(argon2_rust::Argon2::new(
        argon2_rust::Algorithm::Argon2id,
        argon2_rust::Version::V0x13,
        params,
    ))
}

// Argon2 runs on a small fixed pool of threads, one per core, each reusing one 19 MiB work area
// (its `Hasher`). Memory therefore stays bounded (cores x 19 MiB) however many sign-ins arrive
// at once, instead of growing with every blocking thread the runtime starts, and a flood of
// sign-ins queues for CPU rather than starving every other request.

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
    let mut hasher = ciam_argon2().map(|a| a.hasher());
    loop {
        let job = match rx.lock() {
            Ok(guard) => match guard.recv() {
                Ok(job) => job,
                Err(_) => return,
            },
            Err(_) => return,
        };
        match (job, &mut hasher) {
            (Job::Hash { pw, salt, reply }, Ok(h)) => {
                let _ = reply.send(hash_now(&pw, &salt, h));
            }
            (Job::Verify { pw, phc, reply }, Ok(h)) => {
                let _ = reply.send(verify_now(&pw, &phc, h));
            }
            (Job::Hash { reply, .. }, Err(e)) => {
                let _ = reply.send(Err(e.clone()));
            }
            (Job::Verify { reply, .. }, Err(e)) => {
                let _ = reply.send(Err(e.clone()));
            }
        }
    }
}

fn hash_now(pw: &str, salt: &[u8; 16], hasher: &mut argon2_rust::Hasher) -> Result<String> {
    let mut out = [0u8; OUT_LEN];
    hasher
        .hash_into(pw.as_bytes(), salt, &mut out)
        .map_err(|e| Error::internal(format!("argon2: {e}")))?;
    let b64 = |b: &[u8]| base64::engine::general_purpose::STANDARD_NO_PAD.encode(b);
    Ok(format!(
        "$argon2id$v=19$m={M_KIB},t={T},p={P}${}${}",
        b64(salt),
        b64(&out)
    ))
}

/// Verifies against a PHC string (`$argon2id$v=19$m=..,t=..,p=..$salt$hash`) with the cost
/// parameters the string names; the tag is compared in constant time.
fn verify_now(pw: &str, phc: &str, hasher: &mut argon2_rust::Hasher) -> Result<bool> {
    match hasher.verify_encoded(phc, pw.as_bytes(), argon2_rust::Algorithm::Argon2id) {
        Ok(()) => Ok(true),
        Err(argon2_rust::Error::VerifyMismatch) => Ok(false),
        Err(e) => Err(Error::internal(format!("argon2 verification: {e}"))),
    }
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
        use argon2::password_hash::{PasswordHash, PasswordVerifier};
        use argon2::Argon2;
        let h = hash("Aa1!standard".into(), [5; 16]).await.unwrap();
        let parsed = PasswordHash::new(&h).unwrap();
        assert!(Argon2::default()
            .verify_password(b"Aa1!standard", &parsed)
            .is_ok());
        assert!(Argon2::default()
            .verify_password(b"Aa1!standarD", &parsed)
            .is_err());
    }

    /// RustCrypto's argon2, which made every hash stored before the switch, at Ciam's parameters.
    fn rustcrypto() -> argon2::Argon2<'static> {
        let params = argon2::Params::new(M_KIB, T, P, Some(OUT_LEN)).unwrap();
        argon2::Argon2::new(argon2::Algorithm::Argon2id, argon2::Version::V0x13, params)
    }

    #[tokio::test]
    async fn hashes_are_byte_for_byte_those_of_the_previous_implementation() {
        use argon2::password_hash::{PasswordHasher, SaltString};
        let b64 = |b: &[u8]| base64::engine::general_purpose::STANDARD_NO_PAD.encode(b);
        for (i, pw) in [
            "Aa1!same",
            "Zz9#other-one",
            "密码Aa1!很长的一个",
            &"Aa1!".repeat(32),
        ]
        .into_iter()
        .enumerate()
        {
            let salt = [i as u8 * 37 + 1; 16];
            let ours = hash(pw.to_owned(), salt).await.unwrap();
            let theirs = rustcrypto()
                .hash_password(pw.as_bytes(), &SaltString::encode_b64(&salt).unwrap())
                .unwrap()
                .to_string();
            assert_eq!(ours, theirs, "{pw}");
            assert!(ours.ends_with(&b64(&{
                let mut out = [0u8; OUT_LEN];
                rustcrypto()
                    .hash_password_into(pw.as_bytes(), &salt, &mut out)
                    .unwrap();
                out
            })));
        }
    }

    #[tokio::test]
    async fn hashes_stored_by_the_previous_implementation_still_verify() {
        use argon2::password_hash::{PasswordHasher, SaltString};
        let stored = rustcrypto()
            .hash_password(
                b"Aa1!stored-before",
                &SaltString::encode_b64(&[9; 16]).unwrap(),
            )
            .unwrap()
            .to_string();
        assert!(stored.starts_with("$argon2id$v=19$m=19456,t=2,p=1$"));
        assert!(verify("Aa1!stored-before".into(), Some(stored.clone()))
            .await
            .unwrap());
        assert!(!verify("Aa1!stored-beforE".into(), Some(stored))
            .await
            .unwrap());
        // The dummy hash of unknown accounts is one of them, and parses.
        assert!(!verify("anything".into(), Some(DUMMY_HASH.into()))
            .await
            .unwrap());
    }

    #[test]
    fn the_implementation_gives_the_argon2id_test_vector_of_rfc_9106() {
        // RFC 9106 section 5.3: m=32 KiB, t=3, p=4, password 32 x 0x01, salt 16 x 0x02,
        // secret 8 x 0x03, associated data 12 x 0x04.
        use argon2_rust::params::{Memory, TagLen};
        let params = argon2_rust::Params::builder()
            .memory(Memory::kib(32))
            .passes(3)
            .lanes(4)
            .tag_len(TagLen::bytes(32))
            .build()
            .unwrap();
        let a = argon2_rust::Argon2::new(
            argon2_rust::Algorithm::Argon2id,
            argon2_rust::Version::V0x13,
            params,
        );
        let mut tag = [0u8; 32];
        a.hash_into_with_ad(&[1; 32], &[2; 16], &[3; 8], &[4; 12], &mut tag)
            .unwrap();
        assert_eq!(
            hex::encode(tag),
            "0d640df58d78766c08c037a34a8b53c9d01ef0452d75b65eb52520e96b01e659"
        );
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
