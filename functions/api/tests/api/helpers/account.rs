//! `TestApp` calls of the account-change, owner's-view and avatar routes.

use super::*;

/// The account-change endpoints.
impl TestApp {
    pub async fn patch_advertisement(&self, token: &str, value: &str) -> TestResponse {
        let body = serde_json::json!({ "advertisement": value });
        self.send_json(Method::PATCH, "/auth/advertisement", Some(token), &body)
            .await
    }

    pub async fn patch_mail(&self, token: &str, mail: &str, code: &str) -> TestResponse {
        let body = serde_json::json!({ "mail": mail, "code": code });
        self.send_json(Method::PATCH, "/auth/mail", Some(token), &body)
            .await
    }

    pub async fn patch_phone(&self, token: &str, phone: &str, code: &str) -> TestResponse {
        let body = serde_json::json!({ "phone": phone, "code": code });
        self.send_json(Method::PATCH, "/auth/phone", Some(token), &body)
            .await
    }

    pub async fn deactivate(&self, token: &str, body: &Value) -> TestResponse {
        self.send_json(Method::PATCH, "/auth/deactivation", Some(token), body)
            .await
    }
}

/// The owner's-view endpoints.
impl TestApp {
    pub async fn get_privacy(&self, token: &str) -> TestResponse {
        self.get("/auth/privacy", Some(token)).await
    }

    pub async fn patch_privacy(&self, token: &str, body: &Value) -> TestResponse {
        self.send_json(Method::PATCH, "/auth/privacy", Some(token), body)
            .await
    }

    pub async fn get_sessions(&self, token: &str) -> TestResponse {
        self.get("/auth/sessions", Some(token)).await
    }

    pub async fn delete_session(&self, token: &str, id: &str) -> TestResponse {
        let req = request_as(Method::DELETE, &format!("/auth/sessions/{id}"), Some(token))
            .body(Body::empty())
            .expect("request");
        self.call(req).await
    }

    pub async fn get_activity(&self, token: &str) -> TestResponse {
        self.get("/auth/activity", Some(token)).await
    }

    pub async fn get_recent_apps(&self, token: &str) -> TestResponse {
        self.get("/auth/apps", Some(token)).await
    }

    pub async fn get_apps(&self, language: &str) -> TestResponse {
        self.get(&format!("/app/language/{language}"), None).await
    }

    /// Signs in by password as a given browser from a given country.
    pub async fn sign_in_from(
        &self,
        account: &str,
        password: &str,
        ua: &str,
        country: &str,
    ) -> String {
        let req = Request::builder()
            .method(Method::POST)
            .uri(path("/auth/login/password"))
            .header("content-type", "application/json")
            .header("user-agent", ua)
            .header("cloudfront-viewer-country", country)
            .body(Body::from(
                json!({ "account": account, "password": password }).to_string(),
            ))
            .expect("request");
        let body = self.call(req).await.ok(200);
        body["token"].as_str().expect("token").to_owned()
    }
}

/// A response whose body is bytes (an image), not text.
#[derive(Debug)]
pub struct BinaryResponse {
    pub status: StatusCode,
    pub headers: HeaderMap,
    pub bytes: Vec<u8>,
}

impl BinaryResponse {
    pub fn header(&self, name: &str) -> &str {
        self.headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("")
    }

    /// The body as an error response, for the checks of `TestResponse`.
    pub fn as_text(&self) -> TestResponse {
        TestResponse {
            status: self.status,
            headers: self.headers.clone(),
            text: String::from_utf8_lossy(&self.bytes).into_owned(),
        }
    }
}

/// The avatar endpoints.
impl TestApp {
    /// `PATCH /auth/avatar` with the image as the body, its Content-Length, and the declared
    /// content type if any.
    pub async fn patch_avatar(
        &self,
        token: Option<&str>,
        bytes: Vec<u8>,
        content_type: Option<&str>,
    ) -> TestResponse {
        let mut b =
            request_as(Method::PATCH, "/auth/avatar", token).header("content-length", bytes.len());
        if let Some(ct) = content_type {
            b = b.header("content-type", ct);
        }
        self.call(b.body(Body::from(bytes)).expect("request")).await
    }

    /// `GET` of an avatar path as `UserInfo.avatar` gives it (`/ciam/v1/avatar/<key>`).
    pub async fn get_avatar(&self, full_path: &str) -> BinaryResponse {
        let req = Request::builder()
            .method(Method::GET)
            .uri(full_path)
            .body(Body::empty())
            .expect("request");
        self.call_binary(req).await
    }
}
