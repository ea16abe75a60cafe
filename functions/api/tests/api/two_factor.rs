//! Two-factor authentication: enrolment, the sign-in second step, backup codes, fresh proofs.

use crate::helpers::{TestApp, PASSWORD};
use ciam_core::totp::{code_at, STEP_SECS};
use ciam_store::Store;
use serde_json::{json, Value};

pub(crate) const MAIL: &str = "tfa@example.com";

pub(crate) fn secret_of(url: &str) -> Vec<u8> {
    let b32 = url
        .split("secret=")
        .nth(1)
        .and_then(|r| r.split('&').next())
        .expect("secret in the url");
    data_encoding::BASE32_NOPAD
        .decode(b32.as_bytes())
        .expect("base32")
}

pub struct Enrolled {
    pub app: TestApp,
    pub token: String,
    secret: Vec<u8>,
    pub backup: Vec<String>,
    pub user_id: String,
}

impl Enrolled {
    pub fn code(&self) -> String {
        code_at(&self.secret, self.app.now().div_euclid(STEP_SECS))
    }
    /// Moves to the next time step, so a new code exists.
    pub fn next_step(&self) {
        self.app.clock.advance(STEP_SECS);
    }
    pub async fn challenge(&self) -> String {
        let r = self.app.login_password(MAIL, PASSWORD).await;
        let body = r.error(403, "NEED_TOTP_VERIFY");
        assert!(
            body.get("token").is_none(),
            "no session before the second step: {body}"
        );
        body["challenge"].as_str().expect("a challenge").to_owned()
    }
}

async fn enrolled() -> Enrolled {
    enrolled_in(TestApp::spawn().await).await
}

pub async fn enrolled_in(app: TestApp) -> Enrolled {
    let user_id = app.sign_up("tfa", MAIL).await;
    let token = app.sign_in(MAIL, PASSWORD).await;
    let url = app.get_totp_url(&token).await.ok(200)["url"]
        .as_str()
        .expect("url")
        .to_owned();
    assert!(
        url.starts_with("otpauth://totp/Ciam:tfa@example.com?secret="),
        "{url}"
    );
    for part in ["issuer=Ciam", "algorithm=SHA1", "digits=6", "period=30"] {
        assert!(url.contains(part), "{url} lacks {part}");
    }
    let secret = secret_of(&url);
    assert_eq!(secret.len(), 20);
    let code = code_at(&secret, app.now().div_euclid(STEP_SECS));
    let body = app.totp_enable(&token, &code).await.ok(200);
    let backup: Vec<String> = body["backupCodes"]
        .as_array()
        .expect("codes")
        .iter()
        .map(|c| c.as_str().unwrap().to_owned())
        .collect();
    Enrolled {
        app,
        token,
        secret,
        backup,
        user_id,
    }
}

#[tokio::test]
async fn enrolment_turns_two_factor_on_and_issues_ten_eight_digit_backup_codes() {
    let e = enrolled().await;
    assert_eq!(e.backup.len(), 10);
    assert!(e
        .backup
        .iter()
        .all(|c| c.len() == 8 && c.bytes().all(|b| b.is_ascii_digit())));
    let info = e.app.get_info(&e.token).await.ok(200);
    assert_eq!(info["enableTotp"], true);
    e.app
        .get_totp_url(&e.token)
        .await
        .error(409, "USER_TOTP_ENABLED");
    e.app
        .totp_enable(&e.token, "123456")
        .await
        .error(409, "USER_TOTP_ENABLED");
}

#[tokio::test]
async fn the_secret_is_encrypted_at_rest_and_never_shown_again() {
    let e = enrolled().await;
    let item = e.app.user_item(&e.user_id).await.expect("user");
    let sealed = item.b("totpSecret").expect("sealed secret");
    assert!(
        !sealed
            .windows(e.secret.len())
            .any(|w| w == e.secret.as_slice()),
        "the raw secret is not stored"
    );
    let b32 = data_encoding::BASE32_NOPAD.encode(&e.secret);
    let info = e.app.get_info(&e.token).await;
    assert!(!info.text.contains(&b32));
    for code in &e.backup {
        assert!(
            !format!("{:?}", item.attrs).contains(code.as_str()),
            "backup codes are stored hashed"
        );
    }
}

#[tokio::test]
async fn a_wrong_code_does_not_enable_two_factor() {
    let app = TestApp::spawn().await;
    app.sign_up("tfa", MAIL).await;
    let token = app.sign_in(MAIL, PASSWORD).await;
    let url = app.get_totp_url(&token).await.ok(200)["url"]
        .as_str()
        .unwrap()
        .to_owned();
    let secret = secret_of(&url);
    let wrong = code_at(&secret, app.now().div_euclid(STEP_SECS) + 5);
    app.totp_enable(&token, &wrong)
        .await
        .error(400, "TOTP_SECRET_ERROR");
    assert_eq!(app.get_info(&token).await.ok(200)["enableTotp"], false);
    // Reloading keeps the same pending secret, so a scanned QR stays valid.
    let again = app.get_totp_url(&token).await.ok(200)["url"]
        .as_str()
        .unwrap()
        .to_owned();
    assert_eq!(url, again);
}

#[tokio::test]
async fn signing_in_needs_the_authenticator_code_and_a_code_works_only_once() {
    let e = enrolled().await;
    // The enrolment used the current step: its code is not accepted again.
    let ch = e.challenge().await;
    e.app
        .login_totp(&ch, &e.code())
        .await
        .error(400, "TOTP_VERIFY_FAILED");
    e.next_step();
    let body = e.app.login_totp(&ch, &e.code()).await.ok(200);
    let token = body["token"].as_str().unwrap();
    e.app.get_info(token).await.ok(200);
    // The challenge is single-use, and so is the code, even with a new challenge.
    e.app
        .login_totp(&ch, &e.code())
        .await
        .error(400, "TOTP_VERIFY_FAILED");
    let ch2 = e.challenge().await;
    e.app
        .login_totp(&ch2, &e.code())
        .await
        .error(400, "TOTP_VERIFY_FAILED");
}

#[tokio::test]
async fn the_second_step_challenge_expires_after_five_minutes() {
    let e = enrolled().await;
    let ch = e.challenge().await;
    e.app.clock.advance(300);
    e.app
        .login_totp(&ch, &e.code())
        .await
        .error(400, "TOTP_VERIFY_FAILED");
}

#[tokio::test]
async fn wrong_authenticator_codes_count_on_the_account_lock() {
    let e = enrolled().await;
    e.next_step();
    let ch = e.challenge().await;
    let wrong = code_at(&e.secret, e.app.now().div_euclid(STEP_SECS) + 7);
    for _ in 0..4 {
        e.app
            .login_totp(&ch, &wrong)
            .await
            .error(400, "TOTP_VERIFY_FAILED");
    }
    let body = e
        .app
        .login_totp(&ch, &wrong)
        .await
        .error(423, "VERIFICATION_ATTEMPT_CODE_LIMIT");
    assert_eq!(body["message"], (e.app.now() + 900).to_string());
    e.app
        .login_totp(&ch, &e.code())
        .await
        .error(423, "VERIFICATION_ATTEMPT_CODE_LIMIT");
}

#[tokio::test]
async fn a_backup_code_signs_in_once() {
    let e = enrolled().await;
    let ch = e.challenge().await;
    let body = e.app.unlock_code(&ch, &e.backup[3]).await.ok(200);
    assert!(body["token"].is_string());
    let ch = e.challenge().await;
    e.app
        .unlock_code(&ch, &e.backup[3])
        .await
        .error(400, "UNLOCKCODE_NOT_FOUND");
    e.app.unlock_code(&ch, &e.backup[4]).await.ok(200);
}

#[tokio::test]
async fn twenty_concurrent_redemptions_of_one_backup_code_have_exactly_one_winner() {
    let e = enrolled().await;
    let mut challenges = Vec::new();
    for _ in 0..20 {
        challenges.push(e.challenge().await);
    }
    let code = e.backup[0].clone();
    let calls = challenges.iter().map(|ch| e.app.unlock_code(ch, &code));
    let results = futures_util::future::join_all(calls).await;
    let wins = results.iter().filter(|r| r.status == 200).count();
    assert_eq!(
        wins,
        1,
        "{:?}",
        results.iter().map(|r| r.reason()).collect::<Vec<_>>()
    );
    // Each loser is a wrong code counted on the account: one that reaches the lock check after
    // the fifth such failure was recorded (a slow request under load) meets the lock instead.
    for r in results.iter().filter(|r| r.status != 200) {
        assert!(
            ["UNLOCKCODE_NOT_FOUND", "VERIFICATION_ATTEMPT_CODE_LIMIT"]
                .contains(&r.reason().as_str()),
            "{}",
            r.reason()
        );
    }
}

#[tokio::test]
async fn sensitive_changes_need_a_proof_from_the_last_five_minutes() {
    let e = enrolled().await;
    e.app.clock.advance(301);
    e.app
        .totp_backup_codes(&e.token)
        .await
        .error(403, "REAUTH_REQUIRED");
    e.app
        .totp_disable(&e.token)
        .await
        .error(403, "REAUTH_REQUIRED");
    // With two-factor on, the proof is the authenticator code; a password is not enough.
    e.app
        .totp_verify(&e.token, &json!({ "password": PASSWORD }))
        .await
        .error(400, "INVALID_PARAMETER");
    e.app
        .totp_verify(&e.token, &json!({ "code": e.code() }))
        .await
        .ok(200);
    e.app.totp_backup_codes(&e.token).await.ok(200);
}

#[tokio::test]
async fn regenerated_backup_codes_replace_the_old_ones_at_once() {
    let e = enrolled().await;
    let fresh = e.app.totp_backup_codes(&e.token).await.ok(200);
    let new: Vec<String> = fresh["backupCodes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c.as_str().unwrap().to_owned())
        .collect();
    assert_eq!(new.len(), 10);
    let ch = e.challenge().await;
    e.app
        .unlock_code(&ch, &e.backup[0])
        .await
        .error(400, "UNLOCKCODE_NOT_FOUND");
    e.app.unlock_code(&ch, &new[0]).await.ok(200);
}

#[tokio::test]
async fn disabling_two_factor_makes_the_password_enough_again_and_ends_other_sessions() {
    let e = enrolled().await;
    e.next_step();
    let ch = e.challenge().await;
    let other = e.app.login_totp(&ch, &e.code()).await.ok(200)["token"]
        .as_str()
        .unwrap()
        .to_owned();
    e.app.totp_disable(&e.token).await.ok(200);
    e.app.get_info(&e.token).await.ok(200);
    e.app
        .get_info(&other)
        .await
        .error(401, "AUTHORIZATION_FAILED");
    assert_eq!(e.app.get_info(&e.token).await.ok(200)["enableTotp"], false);
    e.app.sign_in(MAIL, PASSWORD).await;
    e.app
        .totp_backup_codes(&e.token)
        .await
        .error(409, "USER_TOTP_NOT_ENABLED");
}

#[tokio::test]
async fn without_two_factor_the_fresh_proof_is_the_password() {
    let app = TestApp::spawn().await;
    app.sign_up("tfa", MAIL).await;
    let token = app.sign_in(MAIL, PASSWORD).await;
    app.clock.advance(301);
    let url = app.get_totp_url(&token).await.ok(200)["url"]
        .as_str()
        .unwrap()
        .to_owned();
    let code = code_at(&secret_of(&url), app.now().div_euclid(STEP_SECS));
    app.totp_enable(&token, &code)
        .await
        .error(403, "REAUTH_REQUIRED");
    app.totp_verify(&token, &json!({ "password": "Wr0ng!Password" }))
        .await
        .error(401, "PASSWORD_ERROR");
    app.totp_verify(&token, &json!({ "password": PASSWORD }))
        .await
        .ok(200);
    app.totp_enable(&token, &code).await.ok(200);
}

#[tokio::test]
async fn second_step_codes_must_have_the_right_number_of_digits() {
    let e = enrolled().await;
    let ch = e.challenge().await;
    let v: Value = e
        .app
        .login_totp(&ch, "12345")
        .await
        .error(400, "INVALID_PARAMETER");
    assert_eq!(v["field"], "code");
    e.app
        .unlock_code(&ch, "1234567")
        .await
        .error(400, "INVALID_PARAMETER");
    e.app
        .totp_enable(&e.token, "abcdef")
        .await
        .error(400, "INVALID_PARAMETER");
}

#[tokio::test]
async fn backup_code_sign_in_tells_a_dead_challenge_from_an_account_without_two_factor() {
    let e = enrolled().await;
    let ch = e.challenge().await;
    e.app.clock.advance(300);
    e.app
        .unlock_code(&ch, &e.backup[0])
        .await
        .error(400, "UNLOCKCODE_PWD_NOT_FOUND");
    e.app
        .unlock_code("not-a-challenge", &e.backup[0])
        .await
        .error(400, "UNLOCKCODE_PWD_NOT_FOUND");
    // Two-factor turned off between the password step and the backup code.
    let ch = e.challenge().await;
    e.app
        .totp_verify(&e.token, &json!({ "code": e.code() }))
        .await
        .ok(200);
    e.app.totp_disable(&e.token).await.ok(200);
    e.app
        .unlock_code(&ch, &e.backup[1])
        .await
        .error(400, "UNLOCKCODE_TOTP_NOT_FOUND");
}

#[tokio::test]
async fn deactivation_takes_the_authenticator_code_as_proof_and_leaves_no_codes_behind() {
    let e = enrolled().await;
    // A pending sign-in code for the account's own address, and ten unused backup codes.
    e.app.fresh_code(MAIL, "login").await;
    let identity = ciam_core::validate::Identity::parse(MAIL).expect("mail");
    let login_code = ciam_core::codes::code_key(ciam_core::Purpose::Login, &identity);
    assert!(e.app.store.get(&login_code).await.expect("get").is_some());
    let backup = || async {
        e.app
            .store
            .query(
                ciam_store::Query::partition(ciam_core::user::user_pk(&e.user_id))
                    .prefix("BACKUP#"),
            )
            .await
            .expect("query")
    };
    assert_eq!(backup().await.len(), 10);
    // The last proof is old: the authenticator code in the body is the proof.
    e.app.clock.advance(301);
    e.next_step();
    e.app
        .deactivate(&e.token, &json!({ "code": "000000" }))
        .await
        .error(400, "TOTP_VERIFY_FAILED");
    e.app
        .deactivate(&e.token, &json!({ "code": e.code() }))
        .await
        .ok(200);
    assert!(e.app.store.get(&login_code).await.expect("get").is_none());
    assert!(backup().await.is_empty());
    e.app
        .login_password(MAIL, PASSWORD)
        .await
        .error(401, "PASSWORD_ERROR");
}
