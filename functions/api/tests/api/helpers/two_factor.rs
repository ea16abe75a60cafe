//! `TestApp` calls of the two-factor routes.

use super::*;

/// The two-factor endpoints.
impl TestApp {
    pub async fn get_totp_url(&self, token: &str) -> TestResponse {
        self.get("/auth/totp/url", Some(token)).await
    }

    pub async fn totp_enable(&self, token: &str, code: &str) -> TestResponse {
        self.send_json(
            Method::POST,
            "/auth/totp/enable",
            Some(token),
            &serde_json::json!({ "code": code }),
        )
        .await
    }

    pub async fn totp_verify(&self, token: &str, body: &Value) -> TestResponse {
        self.send_json(Method::POST, "/auth/totp/verify", Some(token), body)
            .await
    }

    pub async fn totp_backup_codes(&self, token: &str) -> TestResponse {
        self.send_json(
            Method::POST,
            "/auth/totp/backupCodes",
            Some(token),
            &serde_json::json!({}),
        )
        .await
    }

    pub async fn totp_disable(&self, token: &str) -> TestResponse {
        self.send_json(
            Method::POST,
            "/auth/totp/disable",
            Some(token),
            &serde_json::json!({}),
        )
        .await
    }

    pub async fn login_totp(&self, challenge: &str, code: &str) -> TestResponse {
        let body = serde_json::json!({ "challenge": challenge, "code": code });
        self.send_json(Method::POST, "/auth/login/totp", None, &body)
            .await
    }

    pub async fn unlock_code(&self, challenge: &str, code: &str) -> TestResponse {
        let body = serde_json::json!({ "challenge": challenge, "code": code });
        self.send_json(Method::POST, "/auth/unlockCode", None, &body)
            .await
    }
}
