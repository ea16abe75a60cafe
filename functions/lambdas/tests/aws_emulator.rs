//! The AWS path of secrets and signing, against moto's server (`.venv/bin/moto_server`, from
//! infra/requirements-dev.txt; `bash scripts/setup.sh` installs it) for Secrets Manager and KMS,
//! and DynamoDB Local for the table. The function binaries run as Lambda runs them: their SDK
//! finds the emulator through `AWS_ENDPOINT_URL`, they read the secrets and the KMS public keys
//! at init, and serve API Gateway events from a loopback Runtime API.
//!
//! moto 5.2.5 creates ECC_NIST_P256 keys and answers Sign and GetPublicKey, but ignores
//! `MessageType=DIGEST` (its docs: "The MessageType-parameter DIGEST is not yet implemented"): it
//! hashes the 32-byte digest it receives once more before signing. So here an id_token's
//! signature verifies over SHA-256(signing input) as the message, where real KMS signs the digest
//! itself and a standard ES256 check passes. Everything else (the digest sent, the DER to JOSE
//! conversion, the JWKS from GetPublicKey, the kid) is checked as in production.
//!
//! Without moto_server the tests skip with a message, except under CI=true, where they fail.

// Test code: a panic is the failure report, so unwrap and expect are allowed here
// (the workspace denies them in the product, Cargo.toml [workspace.lints]).
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use ciam_core::apps::{AppFields, Names};
use ciam_core::user::User;
use ciam_core::{sessions, Config, Keys};
use ciam_lambdas::Settings;
use ciam_store::dynamo_local::DynamoLocal;
use ciam_store::Store;
use p256::ecdsa::signature::Verifier;
use serde_json::{json, Value};
use sha2::{Digest, Sha256};
use std::collections::HashMap;
use std::sync::Arc;
use support::moto::{Moto, ACCESS_KEY, REGION};
use support::{body_json, dynamo_table, response, run_function, Event};

const TABLE: &str = "ciam-emulator-test";
const ROOT: &str = "6a1f0c9e2b7d4a8f3e5c1b0d9a7f6e4c2b1a0f9e8d7c6b5a4f3e2d1c0b9a8f7e";
const ORIGIN: &str = "Qm9vdHN0cmFwT3JpZ2luVmVyaWZ5VmFsdWVGb3JUZXN0c09ubHlOb3RBU2VjcmV0";
const PUBLIC_URL: &str = "https://ciam.example";
const CALLBACK: &str = "https://partner.example/cb";
const VERIFIER: &str = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk";
const CHALLENGE: &str = "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM";
const USER_ID: &str = "fedcba9876543210fedcba9876543210";

fn settings(vars: &[(&str, &str)]) -> Settings {
    let env: HashMap<String, String> = vars
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    Settings::from_lookup(|name| env.get(name).cloned()).unwrap()
}

async fn table(endpoint: &str) -> Arc<dyn Store> {
    dynamo_table(endpoint, TABLE, ACCESS_KEY, REGION).await
}

/// An admin who registers a partner app, and an authorization code that partner may redeem:
/// (app id, app secret, code), written through the domain with the root of the secret.
async fn seed_code(store: Arc<dyn Store>) -> (String, String, String) {
    let config = Config {
        public_url: PUBLIC_URL.into(),
        ..Config::default()
    };
    let ciam = support::seeder(store.clone(), Keys::from_hex(ROOT).unwrap())
        .config(config)
        .build()
        .await;
    let user = User {
        id: USER_ID.into(),
        user_name: "kms-admin".into(),
        roles: vec![ciam_core::user::ADMIN.into()],
        ..Default::default()
    };
    store.put(user.to_item(), None).await.unwrap();
    let (token, item) = sessions::mint(&ciam, &user, &Default::default());
    store.put(item, None).await.unwrap();
    let s = sessions::authenticate(&ciam, Some(&token)).await.unwrap();
    let op = ciam_core::console::Operator {
        user: s.user.clone(),
        role: ciam_core::console::Role::Admin,
        session: s.key.clone(),
    };
    let fields = AppFields {
        name: Some(Names {
            zh_cn: "合作方".into(),
            en_us: "Partner".into(),
        }),
        service_urls: Some(vec![CALLBACK.into()]),
        ..Default::default()
    };
    let created = ciam_core::console::apps::create(&ciam, &op, fields, "test", &Default::default())
        .await
        .unwrap();
    let app_id = created.app.app_id.clone();
    let params: Vec<(String, String)> = [
        ("client_id", app_id.as_str()),
        ("redirect_uri", CALLBACK),
        ("response_type", "code"),
        ("scope", "openid"),
        ("code_challenge", CHALLENGE),
        ("code_challenge_method", "S256"),
        ("nonce", "n-0S6_WzA2Mj"),
    ]
    .iter()
    .map(|(k, v)| (k.to_string(), v.to_string()))
    .collect();
    let next = ciam_core::oidc::authorize(&ciam, &params, ciam_core::Lang::EnUs)
        .await
        .unwrap();
    let ciam_core::oidc::Authorize::Consent { request_id, .. } = next else {
        panic!("not sent to the consent screen: {next:?}");
    };
    let approved = ciam_core::oidc::approve(&ciam, &s, &request_id, None)
        .await
        .unwrap();
    let code = url_param(&approved.redirect, "code");
    (app_id, created.app_secret.unwrap(), code)
}

fn url_param(url: &str, name: &str) -> String {
    let query = url.split_once('?').map(|(_, q)| q).unwrap_or_default();
    query
        .split('&')
        .filter_map(|p| p.split_once('='))
        .find(|(k, _)| *k == name)
        .map(|(_, v)| v.to_owned())
        .unwrap_or_else(|| panic!("no {name} in {url}"))
}

fn token_event(app_id: &str, secret: &str, code: &str, origin: Option<&str>) -> Value {
    let basic = base64::engine::general_purpose::STANDARD.encode(format!("{app_id}:{secret}"));
    let mut headers = json!({
        "content-type": "application/x-www-form-urlencoded",
        "authorization": format!("Basic {basic}"),
    });
    if let Some(v) = origin {
        headers["x-ciam-origin-verify"] = json!(v);
    }
    let form = format!(
        "grant_type=authorization_code&code={code}&redirect_uri={}&code_verifier={VERIFIER}",
        CALLBACK.replace(':', "%3A").replace('/', "%2F")
    );
    Event {
        method: "POST",
        path: "/ciam/v1/oidc/token",
        headers,
        body: Some(form),
    }
    .json("apigw-token")
}

fn jwks_event(origin: Option<&str>) -> Value {
    let mut headers = json!({ "accept-language": "en-US" });
    if let Some(v) = origin {
        headers["x-ciam-origin-verify"] = json!(v);
    }
    Event {
        method: "GET",
        path: "/ciam/v1/oidc/jwks",
        headers,
        body: None,
    }
    .json("apigw-jwks")
}

/// The environment every function of these tests gets: the emulators, no secret value.
fn aws_env(moto: &Moto) -> Vec<(&'static str, String)> {
    vec![
        ("AWS_REGION", REGION.into()),
        ("AWS_ACCESS_KEY_ID", ACCESS_KEY.into()),
        ("AWS_SECRET_ACCESS_KEY", "test".into()),
        ("AWS_ENDPOINT_URL", moto.endpoint.clone()),
        ("CIAM_TABLE", TABLE.into()),
        ("CIAM_PUBLIC_URL", PUBLIC_URL.into()),
    ]
}

fn decode_part(part: &str) -> Value {
    serde_json::from_slice(&URL_SAFE_NO_PAD.decode(part).unwrap()).unwrap()
}

#[tokio::test]
async fn id_tokens_are_signed_in_kms_and_verify_with_the_jwks_built_from_get_public_key() {
    let Some(moto) = Moto::start().await else {
        return;
    };
    let dynamo = DynamoLocal::start().await;
    let (app_id, app_secret, code) = seed_code(table(&dynamo.endpoint).await).await;
    let (current, previous) = (moto.kms_key().await, moto.kms_key().await);
    let logout = moto.kms_key().await;
    let root_arn = moto.secret("ciam/root", &json!({ "rootKey": ROOT })).await;
    let origin_arn = moto
        .secret("ciam/origin", &json!({ "originVerify": ORIGIN }))
        .await;

    // The token function: root and origin secrets, the current KMS key only.
    let mut env = aws_env(&moto);
    env.extend([
        ("CIAM_DYNAMODB_ENDPOINT", dynamo.endpoint.clone()),
        ("CIAM_ROOT_SECRET_ARN", root_arn.clone()),
        ("CIAM_ORIGIN_SECRET_ARN", origin_arn.clone()),
        ("CIAM_OIDC_KMS_KEY_ID", current.clone()),
        ("CIAM_ROUTE", "oidc_token".into()),
    ]);
    let token = run_function(
        env!("CARGO_BIN_EXE_bootstrap"),
        &env,
        vec![
            (
                "bypass".into(),
                token_event(&app_id, &app_secret, &code, None),
            ),
            (
                "redeem".into(),
                token_event(&app_id, &app_secret, &code, Some(ORIGIN)),
            ),
        ],
    )
    .await;
    let bypass = response(&token.outcomes, "bypass", &token.logs);
    assert_eq!(bypass["statusCode"], json!(403), "{bypass}\n{}", token.logs);
    let redeemed = response(&token.outcomes, "redeem", &token.logs);
    assert_eq!(
        redeemed["statusCode"],
        json!(200),
        "the refused request left the code alone: {redeemed}\n{}",
        token.logs
    );
    let id_token = body_json(redeemed)["id_token"].as_str().unwrap().to_owned();

    // The JWKS function: keyless (no root secret), both keys published, behind the origin check.
    let mut env = aws_env(&moto);
    env.extend([
        ("CIAM_ORIGIN_SECRET_ARN", origin_arn),
        ("CIAM_OIDC_KMS_KEY_ID", current.clone()),
        ("CIAM_OIDC_KMS_PREVIOUS_KEY_IDS", previous.clone()),
        ("CIAM_LOGOUT_KMS_KEY_ID", logout.clone()),
        ("CIAM_ROUTE", "oidc_jwks".into()),
    ]);
    let wrong = ORIGIN.replace('Q', "q");
    let jwks = run_function(
        env!("CARGO_BIN_EXE_bootstrap"),
        &env,
        vec![
            ("missing".into(), jwks_event(None)),
            ("wrong".into(), jwks_event(Some(&wrong))),
            ("right".into(), jwks_event(Some(ORIGIN))),
        ],
    )
    .await;
    for id in ["missing", "wrong"] {
        let refused = response(&jwks.outcomes, id, &jwks.logs);
        assert_eq!(refused["statusCode"], json!(403), "{id}: {refused}");
        let body = body_json(refused);
        assert_eq!(body["reason"], "PERMISSION_DENIED", "{id}: {body}");
        assert_eq!(body["code"], 403, "{id}: {body}");
    }
    let jwks_body = body_json(response(&jwks.outcomes, "right", &jwks.logs));
    let keys = jwks_body["keys"].as_array().unwrap();
    assert_eq!(
        keys.len(),
        3,
        "current, previous, and the logout tokens' key: {jwks_body}"
    );
    for (jwk, id) in keys.iter().zip([&current, &previous, &logout]) {
        let expected = ciam_lambdas::kms::public_jwk(&moto.public_key(id).await);
        assert_eq!(jwk, &expected, "the JWKS is GetPublicKey's keys, in order");
    }
    // Refusals are logged with their cause and without the secret, in every function.
    for logs in [&token.logs, &jwks.logs] {
        assert!(logs.contains("not through CloudFront"), "{logs}");
        assert!(
            !logs.contains(ORIGIN) && !logs.contains(ROOT),
            "a secret reached the log"
        );
    }

    // The id_token: its kid names the current key, its claims are the token route's, and its
    // signature is the current KMS key's (over the digest moto signs, see the module docs).
    let parts: Vec<&str> = id_token.split('.').collect();
    assert_eq!(parts.len(), 3, "{id_token}");
    let (header, claims) = (decode_part(parts[0]), decode_part(parts[1]));
    assert_eq!(header["alg"], "ES256");
    assert_eq!(header["kid"], keys[0]["kid"], "{header}");
    assert_eq!(claims["iss"], format!("{PUBLIC_URL}/ciam/v1/oidc"));
    assert_eq!(claims["aud"], app_id.as_str());
    assert_eq!(claims["sub"], USER_ID);
    let jose = URL_SAFE_NO_PAD.decode(parts[2]).unwrap();
    assert_eq!(jose.len(), 64, "JOSE r || s");
    let sig = p256::ecdsa::Signature::from_slice(&jose).unwrap();
    let digest = Sha256::digest(format!("{}.{}", parts[0], parts[1]).as_bytes());
    let key = moto.public_key(&current).await;
    assert!(
        key.verify(&digest, &sig).is_ok(),
        "the signature is not the current key's over the signing input's digest"
    );
    let other = moto.public_key(&previous).await;
    assert!(other.verify(&digest, &sig).is_err());
}

#[tokio::test]
async fn the_root_secret_rotates_with_put_secret_value_and_old_sessions_live_through_the_overlap() {
    let Some(moto) = Moto::start().await else {
        return;
    };
    let dynamo = DynamoLocal::start().await;
    let old = "an operator's passphrase, not hex, long enough to hash".to_owned();
    let new = "b".repeat(64); // hex: taken as it is
    let arn = moto
        .secret("ciam/rotating", &json!({ "rootKey": old }))
        .await;
    let endpoint = dynamo.endpoint.clone();
    let init = |arn: String| {
        let endpoint = endpoint.clone();
        let moto = &moto;
        async move {
            let s = settings(&[
                ("CIAM_TABLE", TABLE),
                ("CIAM_ROOT_SECRET_ARN", &arn),
                ("CIAM_DYNAMODB_ENDPOINT", &endpoint),
            ]);
            ciam_lambdas::init("auth_info_get", s, moto.sdk().await)
                .await
                .map(|ready| ready.ciam)
        }
    };
    let before = init(arn.clone()).await.unwrap();
    // The functions' own view of DynamoDB Local (its credentials name the database).
    let store = before.store.clone();
    store.ensure_schema().await.unwrap();
    let hashed = Keys::from_root(Sha256::digest(old.as_bytes()).into());
    assert_eq!(before.keys.derive("x"), hashed.derive("x"));
    let user = User {
        id: USER_ID.into(),
        user_name: "rotating".into(),
        ..Default::default()
    };
    store.put(user.to_item(), None).await.unwrap();
    let (token, item) = sessions::mint(&before, &user, &Default::default());
    store.put(item, None).await.unwrap();

    moto.put_secret(&arn, &json!({ "rootKey": new, "previousRootKey": old }))
        .await;
    let overlap = init(arn.clone()).await.unwrap();
    assert_eq!(
        overlap.keys.derive("x"),
        Keys::from_hex(&new).unwrap().derive("x")
    );
    sessions::authenticate(&overlap, Some(&token))
        .await
        .expect("a session of the old root works during the overlap");

    moto.put_secret(&arn, &json!({ "rootKey": new })).await;
    let after = init(arn.clone()).await.unwrap();
    let refused = sessions::authenticate(&after, Some(&token)).await;
    assert!(
        matches!(&refused, Err(e) if e.reason == ciam_core::Reason::AUTHORIZATION_FAILED),
        "once previousRootKey is gone the old session ends: {refused:?}"
    );
}

#[tokio::test]
async fn an_unreadable_secret_fails_the_init_and_keyless_functions_never_read_it() {
    let Some(moto) = Moto::start().await else {
        return;
    };
    let missing = "arn:aws:secretsmanager:us-east-1:123456789012:secret:ciam/none-AbCdEf";
    let vars = [
        ("CIAM_TABLE", TABLE),
        ("CIAM_ROOT_SECRET_ARN", missing),
        ("CIAM_DYNAMODB_ENDPOINT", "http://127.0.0.1:9"),
    ];
    let err = ciam_lambdas::init("auth_info_get", settings(&vars), moto.sdk().await)
        .await
        .err()
        .unwrap_or_default();
    assert!(err.starts_with("CIAM_ROOT_SECRET_ARN: "), "{err}");
    // No root at all is refused too: a function never serves with a made-up key.
    let err = ciam_lambdas::init(
        "auth_info_get",
        settings(&[("CIAM_TABLE", TABLE)]),
        moto.sdk().await,
    )
    .await
    .err()
    .unwrap_or_default();
    assert!(err.contains("CIAM_ROOT_SECRET_ARN is required"), "{err}");
    // A keyless function does not even ask (its role may not read the secret).
    for route in ["openapi", "auth_location"] {
        let ready = ciam_lambdas::init(route, settings(&vars), moto.sdk().await).await;
        assert!(ready.is_ok(), "{route}: {:?}", ready.err());
    }
    // A bad KMS key fails the token function's init, naming the variable.
    let root_arn = moto
        .secret("ciam/root-2", &json!({ "rootKey": ROOT }))
        .await;
    let vars = [
        ("CIAM_TABLE", TABLE),
        ("CIAM_ROOT_SECRET_ARN", root_arn.as_str()),
        (
            "CIAM_OIDC_KMS_KEY_ID",
            "arn:aws:kms:us-east-1:123456789012:key/nope",
        ),
    ];
    let err = ciam_lambdas::init("oidc_token", settings(&vars), moto.sdk().await)
        .await
        .err()
        .unwrap_or_default();
    assert!(err.starts_with("CIAM_OIDC_KMS_KEY_ID: "), "{err}");
}

/// Keys with smaller reach (docs/operations.md §1): the distributor writes each purpose's secret
/// from the root through Secrets Manager, and a function initialised with its purposes' secrets
/// (never the root) derives the same keys as the root did, and only those.
#[tokio::test]
async fn the_distributor_fills_the_key_secrets_and_a_function_reads_only_its_own() {
    use ciam_core::{KeyPurpose, Purposes};
    use ciam_lambdas::purpose_keys::{self, SecretsManager};
    use std::collections::BTreeMap;
    let Some(moto) = Moto::start().await else {
        return;
    };
    let root_arn = moto
        .secret("ciam/root-3", &json!({ "rootKey": ROOT }))
        .await;
    let mut targets = BTreeMap::new();
    for p in KeyPurpose::ALL.into_iter().filter(|p| p.distributed()) {
        let arn = moto
            .secret(&format!("ciam/key-{}", p.name()), &json!({}))
            .await;
        targets.insert(p, arn);
    }
    let port = SecretsManager(aws_sdk_secretsmanager::Client::new(&moto.sdk().await));
    let done = purpose_keys::distribute(&port, &root_arn, &targets)
        .await
        .unwrap();
    assert_eq!(done.written.len(), 11);
    let again = purpose_keys::distribute(&port, &root_arn, &targets)
        .await
        .unwrap();
    assert!(again.written.is_empty(), "nothing changed, no new version");

    let dynamo = DynamoLocal::start().await;
    let captcha_var = purpose_keys::var(KeyPurpose::Captcha);
    let s = settings(&[
        ("CIAM_TABLE", TABLE),
        (&captcha_var, &targets[&KeyPurpose::Captcha]),
        ("CIAM_DYNAMODB_ENDPOINT", &dynamo.endpoint),
    ]);
    let ciam = ciam_lambdas::init("auth_captcha", s, moto.sdk().await)
        .await
        .map(|ready| ready.ciam)
        .unwrap();
    let root = Keys::from_hex(ROOT).unwrap();
    assert_eq!(ciam.keys.derive("captcha"), root.derive("captcha"));
    assert_eq!(
        ciam.keys.allowed(),
        Some(Purposes::of(&[KeyPurpose::Captcha]))
    );
}

/// The webhook delivery signs a fresh logout token at each attempt of a sign-out's notice (issue
/// 23) with the logout tokens' own KMS key (issue 30: its row's `Kms::SignLogout`), never with
/// the id_token key, even with that key's variable set; the fan-out loads no signer.
#[tokio::test]
async fn the_webhook_delivery_signs_logout_tokens_with_their_own_kms_key_only() {
    use ciam_core::oidc::logout::logout_token;
    let Some(moto) = Moto::start().await else {
        return;
    };
    let (id_key, logout_key) = (moto.kms_key().await, moto.kms_key().await);
    let root_arn = moto
        .secret("ciam/root-4", &json!({ "rootKey": ROOT }))
        .await;
    let vars = || {
        vec![
            ("CIAM_TABLE", TABLE.to_owned()),
            ("CIAM_PUBLIC_URL", PUBLIC_URL.to_owned()),
            ("CIAM_ROOT_SECRET_ARN", root_arn.clone()),
            ("CIAM_DYNAMODB_ENDPOINT", "http://127.0.0.1:9".to_owned()),
            ("CIAM_OIDC_KMS_KEY_ID", id_key.clone()),
            ("CIAM_LOGOUT_KMS_KEY_ID", logout_key.clone()),
        ]
    };
    let s = |v: Vec<(&str, String)>| {
        let pairs: Vec<(&str, &str)> = v.iter().map(|(k, x)| (*k, x.as_str())).collect();
        settings(&pairs)
    };
    let ciam = ciam_lambdas::init_webhooks("webhook_delivery", s(vars()), moto.sdk().await)
        .await
        .map(|r| r.ciam)
        .unwrap();
    let sid = "0123456789abcdef0123456789abcdef";
    let token = logout_token(&ciam, "rp01", USER_ID, sid).await.unwrap();
    let parts: Vec<&str> = token.split('.').collect();
    assert_eq!(decode_part(parts[0])["typ"], "logout+jwt");
    // The kid is the logout key's (as the JWKS function publishes it), the signature that key's
    // (over the digest moto signs, as for the id_token above), never the id_token key's.
    let logout_jwk = ciam_lambdas::kms::public_jwk(&moto.public_key(&logout_key).await);
    let id_jwk = ciam_lambdas::kms::public_jwk(&moto.public_key(&id_key).await);
    assert_eq!(decode_part(parts[0])["kid"], logout_jwk["kid"]);
    let claims = decode_part(parts[1]);
    assert_eq!(claims["iss"], format!("{PUBLIC_URL}/ciam/v1/oidc"));
    assert_eq!(
        (&claims["aud"], &claims["sub"], &claims["sid"]),
        (&json!("rp01"), &json!(USER_ID), &json!(sid))
    );
    let sig =
        p256::ecdsa::Signature::from_slice(&URL_SAFE_NO_PAD.decode(parts[2]).unwrap()).unwrap();
    let digest = Sha256::digest(format!("{}.{}", parts[0], parts[1]).as_bytes());
    assert!(moto
        .public_key(&logout_key)
        .await
        .verify(&digest, &sig)
        .is_ok());
    assert!(moto
        .public_key(&id_key)
        .await
        .verify(&digest, &sig)
        .is_err());
    // It holds no id_token signer: what would sign id_tokens there is no KMS key at all.
    let id_signer = ciam.keys.oidc_signer(ciam.config.oidc_key_version);
    assert_ne!(id_signer.kid(), id_jwk["kid"].as_str().unwrap());
    // The fan-out signs nothing: its init loads no signer, even with the variables set.
    let fan = ciam_lambdas::init_webhooks("webhook_fanout", s(vars()), moto.sdk().await)
        .await
        .map(|r| r.ciam)
        .unwrap();
    let derived = fan.keys.logout_signer(fan.config.oidc_key_version).jwks();
    assert_ne!(derived.first().map(|k| &k["kid"]), Some(&logout_jwk["kid"]));
}
