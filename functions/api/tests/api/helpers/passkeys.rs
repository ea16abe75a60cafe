//! `TestApp` calls of the passkey routes.

use super::*;

impl TestApp {
    pub async fn passkey_register_options(&self, token: &str) -> TestResponse {
        self.send_json(
            Method::POST,
            "/auth/passkeys/options",
            Some(token),
            &json!({}),
        )
        .await
    }

    pub async fn passkey_register(&self, token: &str, body: &Value) -> TestResponse {
        self.send_json(Method::POST, "/auth/passkeys", Some(token), body)
            .await
    }

    pub async fn list_passkeys(&self, token: &str) -> TestResponse {
        self.get("/auth/passkeys", Some(token)).await
    }

    pub async fn rename_passkey(&self, token: &str, id: &str, name: &str) -> TestResponse {
        let p = format!("/auth/passkeys/{id}");
        self.send_json(Method::PATCH, &p, Some(token), &json!({ "name": name }))
            .await
    }

    pub async fn delete_passkey(&self, token: &str, id: &str) -> TestResponse {
        let req = request_as(Method::DELETE, &format!("/auth/passkeys/{id}"), Some(token))
            .body(Body::empty())
            .expect("request");
        self.call(req).await
    }

    pub async fn passkey_login_options(&self, body: &Value) -> TestResponse {
        self.send_json(Method::POST, "/auth/login/passkey/options", None, body)
            .await
    }

    pub async fn passkey_login(&self, body: &Value) -> TestResponse {
        self.send_json(Method::POST, "/auth/login/passkey", None, body)
            .await
    }
}

impl TestApp {
    pub async fn passkey_mfa_options(&self, challenge: &str) -> TestResponse {
        let body = json!({ "challenge": challenge });
        self.send_json(Method::POST, "/auth/login/passkey/mfa/options", None, &body)
            .await
    }

    /// The second step's options with a whole body (e.g. the embedded sign-in's `appId`).
    pub async fn passkey_mfa_options_with(&self, body: &Value) -> TestResponse {
        self.send_json(Method::POST, "/auth/login/passkey/mfa/options", None, body)
            .await
    }

    pub async fn passkey_login_mfa(&self, body: &Value) -> TestResponse {
        self.send_json(Method::POST, "/auth/login/passkey/mfa", None, body)
            .await
    }

    pub async fn passkey_reauth_options(&self, token: &str) -> TestResponse {
        let p = "/auth/reauth/passkey/options";
        self.send_json(Method::POST, p, Some(token), &json!({}))
            .await
    }

    pub async fn passkey_reauth(&self, token: &str, body: &Value) -> TestResponse {
        self.send_json(Method::POST, "/auth/reauth/passkey", Some(token), body)
            .await
    }
}
