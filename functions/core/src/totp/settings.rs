//! Two-factor settings of a signed-in account: enrolment, backup codes, turning it off, and the
//! checks that prove a fresh second factor.

use super::*;

/// `GET /auth/totp/url`. Round trips: 1 (the pending secret), or 0 while one is still fresh.
pub async fn enrollment_uri(ciam: &Ciam, s: &Session) -> Result<String> {
    if s.user.enable_totp {
        return Err(Reason::USER_TOTP_ENABLED.into());
    }
    let now = ciam.now();
    if let Some((sealed, _)) = s
        .user
        .totp_pending
        .as_ref()
        .filter(|(_, at)| now - at < PENDING_SECS)
    {
        return Ok(uri(
            &account_label(&s.user),
            &open(ciam, &s.user.id, sealed)?,
        ));
    }
    let secret = random::<20>(ciam.entropy.as_ref());
    let ops = vec![
        Update::Set(
            "totpPending".into(),
            Value::B(seal(ciam, &s.user.id, &secret)?),
        ),
        Update::Set("totpPendingAt".into(), now.into()),
    ];
    ciam.store
        .update(&profile_key(&s.user.id), ops, Some(same_session(s)))
        .await
        .or_reason(stale())?;
    Ok(uri(&account_label(&s.user), &secret))
}

/// New backup codes: the codes to show once, and the items holding their hashes.
async fn new_backup_codes(
    ciam: &Ciam,
    user_id: &str,
    gen: i64,
) -> Result<(Vec<String>, Vec<TxOp>)> {
    let mut codes = Vec::with_capacity(BACKUP_CODES);
    let mut ops = Vec::with_capacity(BACKUP_CODES);
    while codes.len() < BACKUP_CODES {
        let code = random_digits(ciam.entropy.as_ref(), BACKUP_DIGITS);
        let key = backup_key(ciam, user_id, &code);
        if ops.iter().any(|o: &TxOp| o.key() == &key) {
            continue;
        }
        let hash = password::hash(code.clone(), random::<16>(ciam.entropy.as_ref())).await?;
        ops.push(TxOp::Put {
            item: Item::new(key).with("hash", hash).with("gen", gen),
            cond: None,
        });
        codes.push(code);
    }
    Ok((codes, ops))
}

/// Removes backup-code items of older generations; they are already invalid, this is tidying.
pub(crate) async fn sweep_backup_codes(ciam: &Ciam, user_id: &str, keep_gen: Option<i64>) {
    let Ok(items) = ciam
        .store
        .query(Query::partition(user_pk(user_id)).prefix("BACKUP#"))
        .await
    else {
        return;
    };
    for it in items
        .into_iter()
        .filter(|i| keep_gen.is_none_or(|g| i.n("gen") != Some(g)))
    {
        let _ = ciam.store.delete(&it.key, None).await;
    }
}

/// The user's two-factor state change plus the re-stamp of the current session (other sessions
/// end: a two-factor change revokes them), with the sign-in records kept in step.
fn with_session_restamp(
    s: &Session,
    enable_totp: bool,
    mut user_ops: Vec<Update>,
    extra: Vec<TxOp>,
) -> Vec<TxOp> {
    let gen = s.user.sess_gen + 1;
    let after = User {
        enable_totp,
        sess_gen: gen,
        ..s.user.clone()
    };
    user_ops.push(Update::Set("sessGen".into(), gen.into()));
    let mut ops = vec![
        TxOp::Update {
            key: profile_key(&s.user.id),
            ops: user_ops,
            cond: Some(same_session(s)),
        },
        TxOp::Update {
            key: s.key.clone(),
            ops: vec![Update::Set("gen".into(), gen.into())],
            cond: Some(Cond::Exists),
        },
    ];
    ops.extend(extra);
    ops.extend(crate::signin::in_step(&after));
    ops
}

/// `POST /auth/totp/enable`: confirms the pending secret with a code; returns the backup codes,
/// shown once. Round trips: 1 transaction.
pub async fn enable(
    ciam: &Ciam,
    s: &Session,
    code: &str,
    client: &ClientInfo,
) -> Result<Vec<String>> {
    let code = digits("code", code, DIGITS)?;
    if s.user.enable_totp {
        return Err(Reason::USER_TOTP_ENABLED.into());
    }
    require_fresh(ciam, s)?;
    let sealed = s
        .user
        .totp_pending
        .clone()
        .map(|(b, _)| b)
        .ok_or(Reason::TOTP_SECRET_ERROR)?;
    let opened = open_any(ciam, &s.user.id, &sealed)?;
    let step = matching_step(&opened.secret, &code, ciam.now()).ok_or(Reason::TOTP_SECRET_ERROR)?;
    let sealed = opened.resealed.unwrap_or(sealed);
    let gen = s.user.backup_gen + 1;
    let (codes, mut puts) = new_backup_codes(ciam, &s.user.id, gen).await?;
    puts.push(audit::record(
        ciam,
        &s.user.id,
        audit::Event::TotpEnabled,
        client,
    ));
    // Other sessions end (`with_session_restamp`): their apps are told.
    puts.extend(crate::app_sessions::ending_sessions(
        crate::events::two_factor_changed(ciam, &s.user, true),
        Some(&s.key),
    ));
    let user_ops = vec![
        Update::Set("enableTotp".into(), true.into()),
        Update::Set("totpSecret".into(), Value::B(sealed)),
        Update::Remove("totpPending".into()),
        Update::Remove("totpPendingAt".into()),
        Update::Set("totpLastStep".into(), step.into()),
        Update::Set("backupGen".into(), gen.into()),
    ];
    ciam.store
        .transact(with_session_restamp(s, true, user_ops, puts))
        .await
        .or_reason(stale())?;
    Ok(codes)
}

/// `POST /auth/totp/backupCodes`: new codes; the old ones stop working at once.
pub async fn regenerate(ciam: &Ciam, s: &Session, client: &ClientInfo) -> Result<Vec<String>> {
    if !s.user.enable_totp {
        return Err(Reason::USER_TOTP_NOT_ENABLED.into());
    }
    require_fresh(ciam, s)?;
    let gen = s.user.backup_gen + 1;
    let (codes, puts) = new_backup_codes(ciam, &s.user.id, gen).await?;
    let mut ops = vec![TxOp::Update {
        key: profile_key(&s.user.id),
        ops: vec![Update::Set("backupGen".into(), gen.into())],
        cond: Some(same_session(s).and(Cond::eq("backupGen", s.user.backup_gen))),
    }];
    ops.extend(puts);
    ops.push(audit::record(
        ciam,
        &s.user.id,
        audit::Event::BackupCodesRegenerated,
        client,
    ));
    ops.extend(crate::events::two_factor_changed(ciam, &s.user, true));
    ciam.store.transact(ops).await.or_reason(stale())?;
    sweep_backup_codes(ciam, &s.user.id, Some(gen)).await;
    Ok(codes)
}

/// `POST /auth/totp/disable`.
pub async fn disable(ciam: &Ciam, s: &Session, client: &ClientInfo) -> Result<()> {
    if !s.user.enable_totp {
        return Err(Reason::USER_TOTP_NOT_ENABLED.into());
    }
    require_fresh(ciam, s)?;
    let user_ops = vec![
        Update::Set("enableTotp".into(), false.into()),
        Update::Remove("totpSecret".into()),
        Update::Remove("totpLastStep".into()),
        Update::Set("backupGen".into(), (s.user.backup_gen + 1).into()),
    ];
    ciam.store
        .transact(with_session_restamp(
            s,
            false,
            user_ops,
            [audit::record(
                ciam,
                &s.user.id,
                audit::Event::TotpDisabled,
                client,
            )]
            .into_iter()
            .chain(crate::app_sessions::ending_sessions(
                crate::events::two_factor_changed(ciam, &s.user, s.user.passkeys > 0),
                Some(&s.key),
            ))
            .collect(),
        ))
        .await
        .or_reason(stale())?;
    sweep_backup_codes(ciam, &s.user.id, None).await;
    Ok(())
}

/// `POST /auth/totp/verify`: a fresh proof of identity for sensitive changes: the authenticator
/// code when two-factor is on, else the password. Wrong proofs count on the account's lock.
pub async fn verify_fresh(
    ciam: &Ciam,
    s: &Session,
    code: Option<&str>,
    pw: Option<&str>,
) -> Result<()> {
    ensure_unlocked(&s.user, ciam.now())?;
    let ok = match (code, pw) {
        (Some(code), _) if s.user.enable_totp => {
            let code = digits("code", code, DIGITS)?;
            let sealed = s
                .user
                .totp_secret
                .as_deref()
                .ok_or_else(|| Error::internal("no secret"))?;
            let opened = open_any(ciam, &s.user.id, sealed)?;
            accept_step(
                ciam,
                &s.user,
                &opened.secret,
                &code,
                reseal_ops(&opened, sealed),
            )
            .await?
        }
        (_, Some(pw)) if !s.user.enable_totp => {
            password::verify(pw.to_owned(), s.user.pwd_hash.clone()).await?
        }
        _ => {
            let (field, zh, en) = if s.user.enable_totp {
                (
                    "code",
                    "请输入两步验证码",
                    "Enter the code from your authenticator app",
                )
            } else {
                ("password", "请输入当前密码", "Enter your current password")
            };
            return Err(Error::field(Reason::INVALID_PARAMETER, field, zh, en));
        }
    };
    if !ok {
        let base = if s.user.enable_totp {
            Reason::TOTP_VERIFY_FAILED
        } else {
            Reason::PASSWORD_ERROR
        };
        return Err(fail(ciam, &s.user.id, base.into()).await);
    }
    // The authenticator's code on a session of another first factor makes it multi-factor
    // (`mfa`, as the sign-in's second step says): an organization's `mfaRequired` and the
    // console's gate read it (docs/oidc.md "Organizations").
    let amr: &[&str] = if s.user.enable_totp {
        &["otp", "mfa"]
    } else {
        &["pwd"]
    };
    sessions::mark_fresh(ciam, s, amr).await
}

/// Accepts a code once: its step must be later than the last accepted one (conditional write),
/// which also carries the secret's write-back under the current root, if any.
async fn accept_step(
    ciam: &Ciam,
    user: &User,
    secret: &[u8],
    code: &str,
    reseal: Option<(Update, Cond)>,
) -> Result<bool> {
    let Some(step) = matching_step(secret, code, ciam.now()) else {
        return Ok(false);
    };
    let mut cond =
        Cond::Exists.and(Cond::attr_not_exists("totpLastStep").or(Cond::lt("totpLastStep", step)));
    let mut ops = vec![Update::Set("totpLastStep".into(), step.into())];
    if let Some((op, same_secret)) = reseal {
        ops.push(op);
        cond = cond.and(same_secret);
    }
    // With a token: the write sent again after a lost answer is recognised as this code's own
    // acceptance, not refused as a step already used (`once`).
    let won = crate::once::update(ciam, &profile_key(&user.id), ops, Some(cond)).await?;
    Ok(won.is_ok())
}
