//! The relying party: the ONLY module that names the WebAuthn crate (webauthn_rp =0.3.0,
//! docs/passkeys-design.md §1.3). Swapping the crate is this file. It makes the options (as
//! JSON for the browser, plus the server state that goes into the sealed token), verifies the
//! browser's `PublicKeyCredential.toJSON()` answers, and converts a credential to and from the
//! `PASSKEY#` item's attributes.

use super::config::PasskeyConfig;
use serde_json::Value as Json;
use webauthn_rp::bin::{Decode, Encode};
use webauthn_rp::request::auth::AllowedCredentials;
use webauthn_rp::request::auth::{AuthenticationVerificationOptions, SignatureCounterEnforcement};
use webauthn_rp::request::register::{
    CredProtect, Nickname, PublicKeyCredentialUserEntity, RegistrationVerificationOptions,
    UserHandle, Username,
};
use webauthn_rp::request::{AsciiDomain, ExtensionInfo, PublicKeyCredentialDescriptor, RpId};
use webauthn_rp::request::{Credentials, UserVerificationRequirement};
use webauthn_rp::response::auth::error::AuthCeremonyErr;
use webauthn_rp::response::register::{CompressedPubKey, DynamicState, StaticState};
use webauthn_rp::response::{
    AuthTransports, AuthenticatorAttachment, AuthenticatorTransport, Backup, CredentialId,
};
use webauthn_rp::{
    AuthenticatedCredential, DiscoverableAuthentication, DiscoverableAuthenticationServerState,
    DiscoverableCredentialRequestOptions, NonDiscoverableAuthentication,
    NonDiscoverableAuthenticationServerState, NonDiscoverableCredentialRequestOptions,
    PublicKeyCredentialCreationOptions, Registration, RegistrationServerState,
};

/// Ciam's user handle: the 16 bytes of the 32-hex-digit userId.
pub const USER_HANDLE_LEN: usize = 16;

type StoredKey = CompressedPubKey<[u8; 32], [u8; 32], [u8; 48], Vec<u8>>;

/// Why a ceremony's answer was refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Refusal {
    /// The JSON is not a credential, or the server state does not decode (INVALID_PARAMETER or
    /// PASSKEY_CHALLENGE_EXPIRED for the caller).
    #[error("malformed: {0}")]
    Malformed(String),
    /// The signature counter did not go up: a possibly cloned authenticator
    /// (`passkeyCloneSuspected`, PASSKEY_VERIFY_FAILED).
    #[error("the signature counter went back")]
    CounterWentBack,
    /// Any other verification failure (PASSKEY_VERIFY_FAILED).
    #[error("refused: {0}")]
    Failed(String),
}

pub use super::items::StoredPasskey;

/// What an assertion changes on the stored credential.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Asserted {
    pub sign_count: u32,
    pub uv: bool,
    pub be: bool,
    pub bs: bool,
}

fn rp_id(cfg: &PasskeyConfig) -> Result<RpId, Refusal> {
    AsciiDomain::try_from(cfg.rp_id.clone())
        .map(RpId::Domain)
        .map_err(|e| Refusal::Failed(format!("rp id: {e}")))
}

fn json<T: serde::Serialize>(v: &T) -> Result<Json, Refusal> {
    serde_json::to_value(v).map_err(|e| Refusal::Failed(e.to_string()))
}

/// The names shown by the authenticator for a user: `name` (mail, phone or userName) and
/// `display` (displayName or userName). A value the crate's PRECIS profile refuses falls back to
/// the userName, then to `fallback` (the masked account), then to "user".
pub fn user_names(name: &str, display: &str, user_name: &str, fallback: &str) -> (String, String) {
    let pick = |cands: [&str; 3], ok: &dyn Fn(&str) -> bool| {
        cands
            .into_iter()
            .find(|c| !c.is_empty() && ok(c))
            .unwrap_or("user")
            .to_owned()
    };
    (
        pick([name, user_name, fallback], &|s| {
            Username::try_from(s).is_ok()
        }),
        pick([display, user_name, fallback], &|s| {
            Nickname::try_from(s).is_ok()
        }),
    )
}

/// Registration options for the user `user_id` (16 bytes): a discoverable credential with user
/// verification required, attestation none, credProtect asked but not enforced. Answers the
/// browser's `PublicKeyCredentialCreationOptionsJSON` and the server state for the token.
/// `exclude`: the account's credentials (id, transport names), so the browser refuses to
/// register one of its authenticators twice.
pub fn registration_options(
    cfg: &PasskeyConfig,
    user_id: [u8; USER_HANDLE_LEN],
    name: &str,
    display: &str,
    exclude: &[(Vec<u8>, Vec<String>)],
) -> Result<(Json, Vec<u8>), Refusal> {
    let rp = rp_id(cfg)?;
    let handle = UserHandle::<USER_HANDLE_LEN>::from(user_id);
    let user = PublicKeyCredentialUserEntity {
        name: Username::try_from(name).map_err(|e| Refusal::Failed(e.to_string()))?,
        id: &handle,
        display_name: Some(
            Nickname::try_from(display).map_err(|e| Refusal::Failed(e.to_string()))?,
        ),
    };
    let exclude = exclude
        .iter()
        .map(|(id, transports)| descriptor(id, transports))
        .collect::<Result<Vec<_>, _>>()?;
    let mut o = PublicKeyCredentialCreationOptions::passkey(&rp, user, exclude);
    o.extensions.cred_protect =
        CredProtect::UserVerificationRequired(ExtensionInfo::AllowDontEnforceValue);
    let (server, client) = o
        .start_ceremony()
        .map_err(|e| Refusal::Failed(e.to_string()))?;
    let state = server
        .encode()
        .map_err(|e| Refusal::Failed(e.to_string()))?;
    Ok((json(&client)?, state))
}

/// Sign-in options (discoverable: no `allowCredentials`, user verification required).
pub fn signin_options(cfg: &PasskeyConfig) -> Result<(Json, Vec<u8>), Refusal> {
    let rp = rp_id(cfg)?;
    let (server, client) = DiscoverableCredentialRequestOptions::passkey(&rp)
        .start_ceremony()
        .map_err(|e| Refusal::Failed(e.to_string()))?;
    let state = server
        .encode()
        .map_err(|e| Refusal::Failed(e.to_string()))?;
    Ok((json(&client)?, state))
}

fn descriptor(
    id: &[u8],
    transports: &[String],
) -> Result<PublicKeyCredentialDescriptor<Vec<u8>>, Refusal> {
    let transports: AuthTransports = serde_json::from_value(Json::from(transports.to_vec()))
        .map_err(|e| Refusal::Malformed(format!("stored transports: {e}")))?;
    Ok(PublicKeyCredentialDescriptor {
        id: CredentialId::try_from(id.to_vec())
            .map_err(|e| Refusal::Malformed(format!("stored id: {e:?}")))?,
        transports,
    })
}

fn attachment(a: AuthenticatorAttachment) -> Option<&'static str> {
    match a {
        AuthenticatorAttachment::None => None,
        AuthenticatorAttachment::Platform => Some("platform"),
        AuthenticatorAttachment::CrossPlatform => Some("cross-platform"),
    }
}

fn attachment_of(s: Option<&str>) -> AuthenticatorAttachment {
    match s {
        Some("platform") => AuthenticatorAttachment::Platform,
        Some("cross-platform") => AuthenticatorAttachment::CrossPlatform,
        _ => AuthenticatorAttachment::None,
    }
}

fn flags(b: Backup) -> (bool, bool) {
    match b {
        Backup::NotEligible => (false, false),
        Backup::Eligible => (true, false),
        Backup::Exists => (true, true),
    }
}

fn backup(be: bool, bs: bool) -> Backup {
    match (be, bs) {
        (true, true) => Backup::Exists,
        (true, false) => Backup::Eligible,
        _ => Backup::NotEligible,
    }
}

/// Verifies a registration (`credential` is the browser's `toJSON()`), with the server state
/// of the token. The user handle is the one the options were made for.
pub fn verify_registration(
    cfg: &PasskeyConfig,
    state: &[u8],
    credential: &Json,
) -> Result<StoredPasskey, Refusal> {
    let rp = rp_id(cfg)?;
    let server = RegistrationServerState::<USER_HANDLE_LEN>::decode(state)
        .map_err(|e| Refusal::Malformed(format!("state: {e:?}")))?;
    let reg = Registration::deserialize_value(credential)?;
    let opts = RegistrationVerificationOptions::<String, String> {
        allowed_origins: &cfg.origins,
        client_data_json_relaxed: true,
        ..Default::default()
    };
    let cred = server
        .verify(&rp, &reg, &opts)
        .map_err(|e| Refusal::Failed(format!("{e:?}")))?;
    let (id, transports, _user, static_state, dynamic, meta) = cred.into_parts();
    let public = static_state
        .encode()
        .map_err(|e| Refusal::Failed(format!("{e:?}")))?;
    let aaguid = meta.aaguid.data();
    let (be, bs) = flags(dynamic.backup);
    let names = [
        (AuthenticatorTransport::Ble, "ble"),
        (AuthenticatorTransport::Hybrid, "hybrid"),
        (AuthenticatorTransport::Internal, "internal"),
        (AuthenticatorTransport::Nfc, "nfc"),
        (AuthenticatorTransport::SmartCard, "smart-card"),
        (AuthenticatorTransport::Usb, "usb"),
    ];
    Ok(StoredPasskey {
        cred_id: id.as_ref().to_vec(),
        public,
        alg: alg_of(credential),
        sign_count: dynamic.sign_count,
        uv: dynamic.user_verified,
        be,
        bs,
        attachment: attachment(dynamic.authenticator_attachment).map(str::to_owned),
        transports: names
            .into_iter()
            .filter(|(t, _)| transports.contains(*t))
            .map(|(_, n)| n.to_owned())
            .collect(),
        aaguid: aaguid.iter().any(|b| *b != 0).then(|| hex::encode(aaguid)),
    })
}

fn alg_of(credential: &Json) -> i64 {
    credential["response"]["publicKeyAlgorithm"]
        .as_i64()
        .unwrap_or(0)
}

/// The user handle (None when it is not 16 bytes) and the credential id of an assertion;
/// `Malformed` when `credential` is not an assertion at all.
pub fn assertion_ids(
    credential: &Json,
) -> Result<(Option<[u8; USER_HANDLE_LEN]>, Vec<u8>), Refusal> {
    let a = DiscoverableAuthentication::<USER_HANDLE_LEN>::deserialize_value(credential)?;
    let handle = a.response().user_handle().as_ref().try_into().ok();
    Ok((handle, a.raw_id().as_ref().to_vec()))
}

type CredentialParts<'a> = (CredentialId<&'a [u8]>, StaticState<StoredKey>, DynamicState);

/// The stored credential as the crate's `AuthenticatedCredential` parts.
fn credential_parts(stored: &StoredPasskey) -> Result<CredentialParts<'_>, Refusal> {
    let static_state = StaticState::<StoredKey>::decode(stored.public.as_slice())
        .map_err(|e| Refusal::Malformed(format!("stored key: {e:?}")))?;
    let dynamic = DynamicState {
        user_verified: stored.uv,
        backup: backup(stored.be, stored.bs),
        sign_count: stored.sign_count,
        authenticator_attachment: attachment_of(stored.attachment.as_deref()),
    };
    let id = CredentialId::try_from(stored.cred_id.as_slice())
        .map_err(|e| Refusal::Malformed(format!("stored id: {e:?}")))?;
    Ok((id, static_state, dynamic))
}

fn verification_options<'a>(
    cfg: &'a PasskeyConfig,
    top_origins: Option<&'a [String]>,
) -> AuthenticationVerificationOptions<'a, 'a, String, String> {
    AuthenticationVerificationOptions::<String, String> {
        allowed_origins: &cfg.origins,
        allowed_top_origins: top_origins,
        sig_counter_enforcement: SignatureCounterEnforcement::Fail,
        update_uv: true,
        client_data_json_relaxed: true,
        ..Default::default()
    }
}

fn asserted(result: Result<bool, AuthCeremonyErr>, d: &DynamicState) -> Result<Asserted, Refusal> {
    match result {
        Ok(_) => {
            let (be, bs) = flags(d.backup);
            Ok(Asserted {
                sign_count: d.sign_count,
                uv: d.user_verified,
                be,
                bs,
            })
        }
        Err(AuthCeremonyErr::SignatureCounter) => Err(Refusal::CounterWentBack),
        Err(e) => Err(Refusal::Failed(format!("{e:?}"))),
    }
}

/// Verifies a discoverable assertion against the stored credential of `user_id`.
/// `top_origins`: the app's `frameOrigins` for an embedded ceremony (then a framed assertion is
/// accepted from those top origins only), else None (a framed assertion is refused).
pub fn verify_signin(
    cfg: &PasskeyConfig,
    state: &[u8],
    credential: &Json,
    user_id: [u8; USER_HANDLE_LEN],
    stored: &StoredPasskey,
    top_origins: Option<&[String]>,
) -> Result<Asserted, Refusal> {
    let rp = rp_id(cfg)?;
    let server = DiscoverableAuthenticationServerState::decode(state)
        .map_err(|e| Refusal::Malformed(format!("state: {e:?}")))?;
    let auth = DiscoverableAuthentication::<USER_HANDLE_LEN>::deserialize_value(credential)?;
    let handle = UserHandle::<USER_HANDLE_LEN>::from(user_id);
    let (id, static_state, dynamic) = credential_parts(stored)?;
    let mut cred = AuthenticatedCredential::new(id, &handle, static_state, dynamic)
        .map_err(|e| Refusal::Failed(format!("{e:?}")))?;
    let result = server.verify(
        &rp,
        &auth,
        &mut cred,
        &verification_options(cfg, top_origins),
    );
    asserted(result, &cred.dynamic_state())
}

/// Options for an assertion by one of the account's credentials (`allow`: id, transport
/// names), with user verification required: the two-factor step and the fresh proof.
pub fn assertion_options(
    cfg: &PasskeyConfig,
    allow: &[(Vec<u8>, Vec<String>)],
) -> Result<(Json, Vec<u8>), Refusal> {
    let rp = rp_id(cfg)?;
    let mut creds = AllowedCredentials::with_capacity(allow.len());
    for (id, transports) in allow {
        creds.push(descriptor(id, transports)?.into());
    }
    let mut o = NonDiscoverableCredentialRequestOptions::second_factor(&rp, creds)
        .map_err(|e| Refusal::Failed(format!("{e:?}")))?;
    o.options().user_verification = UserVerificationRequirement::Required;
    let (server, client) = o
        .start_ceremony()
        .map_err(|e| Refusal::Failed(e.to_string()))?;
    let state = server
        .encode()
        .map_err(|e| Refusal::Failed(e.to_string()))?;
    Ok((json(&client)?, state))
}

/// The credential id of an assertion made for [`assertion_options`].
pub fn assertion_id(credential: &Json) -> Result<Vec<u8>, Refusal> {
    let a = NonDiscoverableAuthentication::<USER_HANDLE_LEN>::deserialize_value(credential)?;
    Ok(a.raw_id().as_ref().to_vec())
}

/// Verifies an assertion made for [`assertion_options`] against the stored credential of
/// `user_id` (a framed assertion is refused).
pub fn verify_assertion(
    cfg: &PasskeyConfig,
    state: &[u8],
    credential: &Json,
    user_id: [u8; USER_HANDLE_LEN],
    stored: &StoredPasskey,
    top_origins: Option<&[String]>,
) -> Result<Asserted, Refusal> {
    let rp = rp_id(cfg)?;
    let server = NonDiscoverableAuthenticationServerState::decode(state)
        .map_err(|e| Refusal::Malformed(format!("state: {e:?}")))?;
    let auth = NonDiscoverableAuthentication::<USER_HANDLE_LEN>::deserialize_value(credential)?;
    let handle = UserHandle::<USER_HANDLE_LEN>::from(user_id);
    let (id, static_state, dynamic) = credential_parts(stored)?;
    let mut cred = AuthenticatedCredential::new(id, &handle, static_state, dynamic)
        .map_err(|e| Refusal::Failed(format!("{e:?}")))?;
    let result = server.verify(
        &rp,
        &auth,
        &mut cred,
        &verification_options(cfg, top_origins),
    );
    asserted(result, &cred.dynamic_state())
}

trait FromJson: Sized {
    fn deserialize_value(v: &Json) -> Result<Self, Refusal>;
}

impl<T: serde::de::DeserializeOwned> FromJson for T {
    fn deserialize_value(v: &Json) -> Result<Self, Refusal> {
        // The crate's types borrow nothing from the input, so a round trip through text is the
        // simplest way to use their standard (L3 JSON) Deserialize.
        serde_json::from_str(&v.to_string()).map_err(|e| Refusal::Malformed(e.to_string()))
    }
}

#[cfg(test)]
#[path = "rp_tests.rs"]
mod tests;
