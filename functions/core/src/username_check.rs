//! Whether a username is free, asked as it is typed at sign-up (issue 34 item 1;
//! docs/api.md `GET /auth/username`). A username is not a sign-in identifier (people sign in
//! with their mail or phone), and sign-up already answers USERNAME_EXIST for a taken one, so
//! saying "taken" as it is typed tells a stranger nothing they could sign in with: no mail, no
//! phone, no account id, no hint of who holds it. The answer is the same for a deactivated
//! account's name while its username item is kept, and for a console operator's.

use crate::error::Result;
use crate::user::{unique_key, username_pk};
use crate::{random, validate, Ciam};
use serde::Serialize;

/// `GET /auth/username`'s answer.
#[derive(Debug, Serialize, PartialEq, Eq)]
#[cfg_attr(feature = "openapi", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "openapi", schemars(rename = "UsernameAvailability"))]
#[serde(rename_all = "camelCase")]
pub struct Availability {
    /// The name as sign-up would keep it (trimmed, NFC).
    pub user_name: String,
    pub available: bool,
    /// When taken: a free name close to it (the name with a number), if one of the three tried
    /// is free; null otherwise.
    pub suggestion: Option<String>,
}

/// Up to three names close to `name` that the username rules accept: the name with a random
/// number of 2 to 4 digits (the name shortened to fit 32 characters).
fn candidates(ciam: &Ciam, name: &str) -> Vec<String> {
    let bytes = random::<6>(ciam.entropy.as_ref());
    let mut out: Vec<String> = Vec::new();
    for (i, pair) in bytes.chunks(2).enumerate() {
        let n = u16::from_be_bytes([pair[0], pair[1]]);
        let number = match i {
            0 => 10 + n % 90,
            1 => 100 + n % 900,
            _ => 1000 + n % 9000,
        }
        .to_string();
        let keep = 32 - number.chars().count();
        let stem: String = name.chars().take(keep).collect();
        let candidate = format!("{stem}{number}");
        if validate::username(&candidate).is_ok() && !out.contains(&candidate) {
            out.push(candidate);
        }
    }
    out
}

/// Whether `raw` is free (INVALID_PARAMETER on `userName` when the rules refuse it, as sign-up
/// would). Round trips: 1 (the username item), + 1 when taken (a batch read of the candidates).
pub async fn check(ciam: &Ciam, raw: &str) -> Result<Availability> {
    let user_name = validate::username(raw)?;
    let taken = ciam
        .store
        .get(&unique_key(username_pk(&user_name)))
        .await?
        .is_some();
    if !taken {
        return Ok(Availability {
            user_name,
            available: true,
            suggestion: None,
        });
    }
    let tries = candidates(ciam, &user_name);
    let keys: Vec<_> = tries.iter().map(|c| unique_key(username_pk(c))).collect();
    let got = if keys.is_empty() {
        Vec::new()
    } else {
        ciam.store.get_many(&keys).await?
    };
    let suggestion = tries
        .into_iter()
        .zip(got)
        .find(|(_, item)| item.is_none())
        .map(|(c, _)| c);
    Ok(Availability {
        user_name,
        available: false,
        suggestion,
    })
}
