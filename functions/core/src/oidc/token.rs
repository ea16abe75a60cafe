//! The partner's half of the flow: `POST /token` redeems a code (once) for an access token and an
//! id_token, and `userinfo` serves the access token.

use super::records::{code_key, token_hash, token_key, token_key_of, AccessToken, Code};
use super::{b64, issuer, sign_jwt, signer, OAuthError, OPENID, TOKEN_SECS};
use crate::apps::{self, app_key, App, AppId};
use crate::consents::{consent_key, Consent};
use crate::events;
use crate::org::tokens as org_tokens;
use crate::user::{active_user, profile_key, User};
use crate::{random, Ciam, LostRace};
use ciam_store::{get_each, Cond, Key, StoreError, Update};
use serde::Serialize;
use serde_json::{Map, Value as Json};
use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;

/// The form of `POST /token`, as sent.
#[derive(Clone, Debug, Default)]
pub struct TokenRequest {
    pub grant_type: Option<String>,
    pub code: Option<String>,
    pub redirect_uri: Option<String>,
    pub code_verifier: Option<String>,
    pub client_id: Option<String>,
    pub client_secret: Option<String>,
}

/// The token endpoint's answer.
#[derive(Debug, Serialize)]
pub struct Tokens {
    pub access_token: String,
    pub token_type: &'static str,
    pub expires_in: i64,
    pub id_token: String,
    pub scope: String,
}

fn invalid_grant(description: &str) -> OAuthError {
    OAuthError::new("invalid_grant", description)
}

/// Whether `verifier` (RFC 7636: 43 to 128 unreserved characters) hashes to `challenge`.
fn pkce_matches(verifier: &str, challenge: &str) -> bool {
    let well_formed = (43..=128).contains(&verifier.len())
        && verifier
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~'));
    let computed = b64(&Sha256::digest(verifier.as_bytes()));
    well_formed && bool::from(computed.as_bytes().ct_eq(challenge.as_bytes()))
}

/// The condition of a code not redeemed yet (live, and not a tombstone).
fn unused() -> Cond {
    Cond::Exists.and(Cond::attr_not_exists("usedAt"))
}

/// A redemption of a code already redeemed: deletes the access token the first redemption
/// issued (RFC 6749 §4.1.2), named by the code's tombstone (`tombstone`, or read again when
/// None). Best effort: a failure is logged. Round trips: 0 or 1 read, 1 delete.
async fn revoke_issued(ciam: &Ciam, ckey: &Key, tombstone: Option<&Code>) {
    let read;
    let tomb = match tombstone {
        Some(t) => Some(t),
        None => {
            read = match ciam.store.get(ckey).await {
                Ok(t) => t.as_ref().map(Code::from_item),
                Err(cause) => {
                    tracing::warn!(cause = %cause, "oidc: could not read a replayed code");
                    None
                }
            };
            read.as_ref()
        }
    };
    let Some(hash) = tomb.and_then(|t| t.token_hash.as_deref()) else {
        return;
    };
    tracing::warn!("oidc: authorization code redeemed twice; its access token is revoked");
    if let Err(cause) = ciam.store.delete(&token_key_of(hash), None).await {
        tracing::warn!(cause = %cause, "oidc: could not revoke the token of a replayed code");
    }
}

/// Burns a code after a refused redemption (a conditional delete). If it was redeemed
/// meanwhile, this attempt is a replay: the token issued for it is revoked.
async fn burn(ciam: &Ciam, ckey: &Key) -> std::result::Result<(), OAuthError> {
    if ciam
        .store
        .delete(ckey, Some(unused()))
        .await
        .won()?
        .is_none()
    {
        revoke_issued(ciam, ckey, None).await;
    }
    Ok(())
}

/// `POST /token` (grant_type=authorization_code). The client authenticates by HTTP Basic
/// (`basic`, already decoded) or by `client_id` and `client_secret` in the form, not both; wrong
/// credentials are `invalid_client` and leave the code alone. Otherwise this one attempt burns
/// the code: another client's code, another redirect URI or a wrong verifier is `invalid_grant`
/// and deletes it; a good one writes the access token, then turns the code into a tombstone
/// naming it (a conditional update: of concurrent redemptions exactly one wins). A code already
/// redeemed is `invalid_grant` and revokes the access token of its first redemption.
/// A code of an organization whose person is no longer an active member of it (removed since
/// Allow, or the organization suspended) is `invalid_grant`; else the id_token carries `org_id`
/// and `org_roles`.
/// Round trips: 1 read (app and code together), 1 read (the user), 1 read (the organization and
/// the membership together, for a code of an organization), 1 write (the access token)
/// alongside the id_token's signature (KMS Sign in AWS), 1 conditional update (the code).
pub async fn token(
    ciam: &Ciam,
    form: &TokenRequest,
    basic: Option<(String, String)>,
) -> std::result::Result<Tokens, OAuthError> {
    let (client_id, secret) = match (basic, &form.client_secret) {
        (Some(_), Some(_)) => {
            return Err(OAuthError::new(
                "invalid_request",
                "use one client authentication method",
            ))
        }
        (Some((id, secret)), None) => {
            if form.client_id.as_ref().is_some_and(|f| *f != id) {
                return Err(OAuthError::new(
                    "invalid_request",
                    "client_id differs from the authenticated client",
                ));
            }
            (id, secret)
        }
        (None, Some(secret)) => match &form.client_id {
            Some(id) => (id.clone(), secret.clone()),
            None => return Err(OAuthError::new("invalid_client", "client_id is missing")),
        },
        (None, None) => {
            return Err(OAuthError::new(
                "invalid_client",
                "client authentication is required",
            ))
        }
    };
    match form.grant_type.as_deref() {
        Some("authorization_code") => {}
        None => return Err(OAuthError::new("invalid_request", "grant_type is missing")),
        Some(_) => {
            return Err(OAuthError::new(
                "unsupported_grant_type",
                "only authorization_code is supported",
            ))
        }
    }
    let bad_client = || OAuthError::new("invalid_client", "client authentication failed");
    if AppId::parse(&client_id).is_none() {
        return Err(bad_client());
    }
    let code = form
        .code
        .as_deref()
        .filter(|c| !c.is_empty() && c.len() <= 128)
        .ok_or_else(|| OAuthError::new("invalid_request", "code is missing"))?;
    let ckey = code_key(ciam, code);
    let [app, code] = get_each(ciam.store.as_ref(), [app_key(&client_id), ckey.clone()]).await?;
    let Some(app) = app.as_ref().map(App::from_item) else {
        return Err(bad_client());
    };
    if !apps::secret_matches(ciam, &app, &secret).await {
        return Err(bad_client());
    }
    let Some(c) = code.as_ref().map(Code::from_item) else {
        return Err(invalid_grant("unknown, expired or used code"));
    };
    if c.used_at.is_some() {
        revoke_issued(ciam, &ckey, Some(&c)).await;
        return Err(invalid_grant("code already used"));
    }
    let verified = form
        .code_verifier
        .as_deref()
        .is_some_and(|v| pkce_matches(v, &c.code_challenge));
    let refusal = if c.app_id != client_id {
        Some("code of another client")
    } else if form.redirect_uri.as_deref() != Some(c.redirect_uri.as_str()) {
        Some("redirect_uri differs from the authorization request")
    } else if !verified {
        Some("code_verifier does not match the code_challenge")
    } else {
        None
    };
    if let Some(why) = refusal {
        burn(ciam, &ckey).await?;
        return Err(invalid_grant(why));
    }
    let Some(user) = active_user(ciam, &c.user_id).await? else {
        burn(ciam, &ckey).await?;
        return Err(invalid_grant("the account is gone"));
    };
    // The organization is read again: a member removed (or an organization suspended) since
    // Allow gets no token that claims it.
    let org = match &c.org_id {
        None => None,
        Some(org_id) => match org_tokens::current(ciam.store.as_ref(), org_id, &user.id).await? {
            Some(role) => Some((org_id.clone(), role)),
            None => {
                burn(ciam, &ckey).await?;
                return Err(invalid_grant(
                    "the person is no longer an active member of the organization",
                ));
            }
        },
    };
    let scopes = c.scopes.clone();
    let access_token = b64(&random::<32>(ciam.entropy.as_ref()));
    let hash = token_hash(ciam, &access_token);
    let tkey = token_key_of(&hash);
    let now = ciam.now();
    let mut payload = Map::new();
    payload.insert("iss".into(), issuer(ciam).into());
    payload.insert("sub".into(), user.id.clone().into());
    payload.insert("aud".into(), client_id.clone().into());
    payload.insert("azp".into(), client_id.clone().into());
    payload.insert("iat".into(), now.into());
    payload.insert("exp".into(), (now + TOKEN_SECS).into());
    payload.insert("auth_time".into(), c.auth_time.unwrap_or(now).into());
    if !c.amr.is_empty() {
        payload.insert("amr".into(), c.amr.clone().into());
    }
    if let Some(n) = &c.nonce {
        payload.insert("nonce".into(), n.as_str().into());
    }
    if let Some(sid) = &c.sid {
        payload.insert("sid".into(), sid.as_str().into());
    }
    let digest = Sha256::digest(access_token.as_bytes());
    payload.insert("at_hash".into(), b64(&digest[..16]).into());
    payload.extend(claims(ciam, &user, &scopes));
    if let Some((org_id, role)) = &org {
        payload.insert("org_id".into(), org_id.as_str().into());
        payload.insert("org_roles".into(), org_tokens::roles(*role).into());
    }
    let item = AccessToken {
        key: tkey.clone(),
        user_id: user.id.clone(),
        app_id: client_id.clone(),
        scopes: scopes.clone(),
        gen: Some(user.sess_gen),
        org_id: org.as_ref().map(|(o, _)| o.clone()),
        created_at: now,
    }
    .to_item();
    // The signature (a KMS call in AWS) runs beside the token's write, and both come before the
    // tombstone: a signer that fails leaves the code redeemable and no token behind.
    let (signer, payload) = (signer(ciam), Json::Object(payload));
    let (id_token, put) = tokio::join!(
        sign_jwt(signer.as_ref(), &payload),
        ciam.store.put(item, Some(Cond::NotExists))
    );
    put?;
    let id_token = match id_token {
        Ok(t) => t,
        Err(cause) => {
            tracing::error!(cause = %cause, "oidc: the id_token could not be signed");
            if let Err(cause) = ciam.store.delete(&tkey, None).await {
                tracing::warn!(cause = %cause, "oidc: could not delete an access token never given");
            }
            return Err(OAuthError::new("server_error", "internal error"));
        }
    };
    // The token exists before the tombstone names it: whoever sees the tombstone can revoke it.
    let tomb = vec![
        Update::Set("usedAt".into(), now.into()),
        Update::Set("tokenHash".into(), hash.as_str().into()),
        Update::Expires(Some(now + TOKEN_SECS)),
    ];
    if let Err(e) = ciam.store.update(&ckey, tomb, Some(unused())).await {
        if let Err(cause) = ciam.store.delete(&tkey, None).await {
            tracing::warn!(cause = %cause, "oidc: could not delete an access token never given");
        }
        return match e {
            StoreError::ConditionFailed => {
                revoke_issued(ciam, &ckey, None).await;
                Err(invalid_grant("code already used"))
            }
            e => Err(e.into()),
        };
    }
    let mut scope = vec![OPENID.to_owned()];
    scope.extend(scopes);
    if org.is_some() {
        scope.push(org_tokens::SCOPE.to_owned());
    }
    Ok(Tokens {
        access_token,
        token_type: "Bearer",
        expires_in: TOKEN_SECS,
        id_token,
        scope: scope.join(" "),
    })
}

/// The user's claims under their OpenID Connect names, limited to `scopes`: the one builder
/// the partner events use too (`events::claims`: nickname, picture absolute, company,
/// phone_number in E.164 and email, the last two verified as Ciam binds them only by code), each
/// field kept when the scope that covers it (`events::FIELD_SCOPES`) was granted.
fn claims(ciam: &Ciam, user: &User, scopes: &[String]) -> Map<String, Json> {
    let granted = |field: &str| {
        events::FIELD_SCOPES
            .iter()
            .any(|(f, scope)| *f == field && scopes.iter().any(|s| s == scope))
    };
    events::claims(ciam, user)
        .into_iter()
        .filter(|(field, _)| granted(field))
        .collect()
}

/// `GET|POST /userinfo`: `sub` and the claims the token's scopes allow. An unknown or expired
/// token, one of an account deactivated, suspended or signed out everywhere since, or one whose consent the
/// user revoked (`DELETE /auth/consents/{appId}`) is `invalid_token`; so is a token of an
/// organization (`org_id`) whose person is no longer an active member of it (removed, or the
/// organization suspended); while they are, `org_id` and `org_roles` (the role now).
/// Round trips: 2 (the token; the user, the consent and, for an organization's token, the
/// organization and the membership together).
pub async fn userinfo(ciam: &Ciam, token: Option<&str>) -> std::result::Result<Json, OAuthError> {
    let bad = |d: &str| OAuthError::new("invalid_token", d);
    let token = token
        .filter(|t| !t.is_empty() && t.len() <= 128)
        .ok_or_else(|| bad("an access token is required"))?;
    let t = ciam
        .store
        .get(&token_key(ciam, token))
        .await?
        .map(|i| AccessToken::from_item(&i))
        .ok_or_else(|| bad("unknown or expired access token"))?;
    let scopes = &t.scopes;
    let mut keys = vec![profile_key(&t.user_id), consent_key(&t.user_id, &t.app_id)];
    let org_keys = t.org_id.as_deref().map(|o| org_tokens::keys(o, &t.user_id));
    if let Some(k) = &org_keys {
        keys.extend(k.iter().flatten().cloned());
    }
    let mut got = ciam.store.get_many(&keys).await?.into_iter();
    let (user_item, consent) = (got.next().flatten(), got.next().flatten());
    // A token of an organization serves only while the person is still an active member of it.
    let role = match (&t.org_id, org_keys) {
        (None, _) => None,
        (Some(_), Some(Some(_))) => {
            let (o, m) = (got.next().flatten(), got.next().flatten());
            Some(
                org_tokens::role_in(o.as_ref(), m.as_ref())
                    .ok_or_else(|| bad("no longer a member of the organization"))?,
            )
        }
        (Some(_), _) => return Err(bad("no longer a member of the organization")),
    };
    let user = user_item
        .as_ref()
        .and_then(User::from_item)
        .filter(|u| u.usable() && t.gen == Some(u.sess_gen))
        .ok_or_else(|| bad("the access token was revoked"))?;
    // The consent must still cover the token, and date from before it (a revocation followed
    // by a new Allow does not revive older tokens).
    if !consent
        .as_ref()
        .map(Consent::from_item)
        .is_some_and(|c| c.covers(scopes) && c.since <= t.created_at)
    {
        return Err(bad("the user revoked the consent"));
    }
    if let Some(item) = &user_item {
        crate::numbers::used(ciam, item).await;
    }
    let mut m = Map::new();
    m.insert("sub".into(), user.id.clone().into());
    m.extend(claims(ciam, &user, scopes));
    if let (Some(org_id), Some(role)) = (&t.org_id, role) {
        m.insert("org_id".into(), org_id.as_str().into());
        m.insert("org_roles".into(), org_tokens::roles(role).into());
    }
    Ok(Json::Object(m))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pkce_s256_matches_the_rfc_7636_example() {
        let verifier = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk";
        let challenge = "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM";
        assert!(pkce_matches(verifier, challenge));
        assert!(!pkce_matches(challenge, challenge));
        assert!(!pkce_matches("short", challenge));
    }
}
