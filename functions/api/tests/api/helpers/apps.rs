//! `TestApp` calls of the partner-app routes: the registry (the console's `/admin/apps`), tickets
//! and consents.

use super::*;

/// The partner-app endpoints: the registry (the console's admins) and tickets.
impl TestApp {
    /// Gives an account the admin role, as `ciam admin grant` does.
    pub async fn make_admin(&self, mail: &str) {
        self.grant_role(mail, ciam_core::console::Role::Admin).await;
    }

    /// Gives an account a console role, as `ciam admin grant --role` does.
    pub async fn grant_role(&self, mail: &str, role: ciam_core::console::Role) {
        // The role's items as `ciam admin grant` writes them, without its audit entry (tests
        // count the entries of what they do).
        let owner = self
            .owner_of(mail)
            .await
            .expect("an account with this mail");
        let item = self.user_item(&owner).await.expect("user item");
        let user = ciam_core::user::User::from_item(&item).expect("user");
        let ops = ciam_core::console::roles::ops(&user, Some(role), "cli", self.now());
        self.store.transact(ops).await.expect("grant role");
    }

    /// As if the sessions' sign-in had included a second factor (the TOTP sign-in itself is
    /// `console::a_second_factor_sign_in_enters_and_a_password_only_one_is_told_to_turn_it_on`).
    pub(crate) async fn with_second_factor(&self, user_id: &str) {
        for s in self.sessions_of(user_id).await {
            let amr = ciam_store::Value::strings(["pwd", "otp"]);
            self.store
                .update(
                    &s.key,
                    vec![ciam_store::Update::Set("amr".into(), amr)],
                    None,
                )
                .await
                .expect("amr");
        }
    }

    /// A signed-up admin's session token, its sign-in with a second factor (the registry's
    /// changes need what the console's need).
    pub async fn admin_token(&self) -> String {
        let id = self.sign_up("admin", "admin@example.com").await;
        self.make_admin("admin@example.com").await;
        let token = self.sign_in("admin@example.com", PASSWORD).await;
        self.with_second_factor(&id).await;
        token
    }

    /// A new session of the admin `mail` (`admin_token`'s account signing in again), with a
    /// second factor.
    pub async fn admin_session(&self, mail: &str) -> String {
        let token = self.sign_in(mail, PASSWORD).await;
        let id = self
            .owner_of(mail)
            .await
            .expect("an account with this mail");
        self.with_second_factor(&id).await;
        token
    }

    /// A fresh proof (the password) for the console session `token`: its changes are accepted
    /// for 5 minutes and its console use for 15 more.
    pub async fn fresh_proof(&self, token: &str) {
        self.totp_verify(token, &json!({ "password": PASSWORD }))
            .await
            .ok(200);
    }

    /// `GET /admin/apps` (the registry is the console's: `token` is an operator's session with
    /// a second factor, `admin_token`).
    pub async fn list_registry(&self, token: &str) -> TestResponse {
        self.get("/admin/apps", Some(token)).await
    }

    /// `POST /admin/apps` with `body` and, when it has none, a reason.
    pub async fn create_app(&self, token: &str, body: &Value) -> TestResponse {
        self.send_json(Method::POST, "/admin/apps", Some(token), &with_reason(body))
            .await
    }

    /// `GET /admin/apps/{appId}`: `{app, deleteEnds, deleteKeeps}`.
    pub async fn get_app(&self, token: &str, app_id: &str) -> TestResponse {
        self.get(&format!("/admin/apps/{app_id}"), Some(token))
            .await
    }

    /// `PATCH /admin/apps/{appId}` with `body` and, when it has none, a reason: `{app}`. A body
    /// that is only `{"rotateSecret": true}` (the registry's PATCH before issue 30) is the
    /// console's rotation, `POST /admin/apps/{appId}/secret`: `{app, appSecret}`.
    pub async fn patch_app(&self, token: &str, app_id: &str, body: &Value) -> TestResponse {
        if *body == json!({ "rotateSecret": true }) {
            return self.rotate_app_secret(token, app_id).await;
        }
        let p = format!("/admin/apps/{app_id}");
        self.send_json(Method::PATCH, &p, Some(token), &with_reason(body))
            .await
    }

    /// `POST /admin/apps/{appId}/secret` (the previous secret works 24 hours): `{app, appSecret}`.
    pub async fn rotate_app_secret(&self, token: &str, app_id: &str) -> TestResponse {
        let p = format!("/admin/apps/{app_id}/secret");
        self.send_json(Method::POST, &p, Some(token), &json!({ "reason": "test" }))
            .await
    }

    /// `DELETE /admin/apps/{appId}` with a reason.
    pub async fn delete_app(&self, token: &str, app_id: &str) -> TestResponse {
        let p = format!("/admin/apps/{app_id}");
        self.send_json(
            Method::DELETE,
            &p,
            Some(token),
            &json!({ "reason": "test" }),
        )
        .await
    }

    pub async fn issue_ticket(&self, token: &str, app_id: &str, service_url: &str) -> TestResponse {
        let body = json!({ "appId": app_id, "serviceUrl": service_url });
        self.send_json(Method::POST, "/auth/login/token", Some(token), &body)
            .await
    }

    /// Redeems a ticket with the app's credentials in the query string.
    pub async fn verify_ticket(
        &self,
        app_id: &str,
        secret: &str,
        ticket: &str,
        service_url: &str,
    ) -> TestResponse {
        let enc = |s: &str| url_encode(s);
        let p = format!(
            "/auth/login/token/verify?appId={}&appSecret={}&cTicket={}&serviceUrl={}",
            enc(app_id),
            enc(secret),
            enc(ticket),
            enc(service_url)
        );
        self.get(&p, None).await
    }

    /// Redeems a ticket with the app's credentials by HTTP Basic.
    pub async fn verify_ticket_basic(
        &self,
        app_id: &str,
        secret: &str,
        ticket: &str,
        service_url: &str,
    ) -> TestResponse {
        let p = format!(
            "/auth/login/token/verify?cTicket={}&serviceUrl={}",
            url_encode(ticket),
            url_encode(service_url)
        );
        let basic = base64::engine::general_purpose::STANDARD.encode(format!("{app_id}:{secret}"));
        let req = request(Method::GET, &p)
            .header("authorization", format!("Basic {basic}"))
            .body(Body::empty())
            .expect("request");
        self.call(req).await
    }
}

/// `body` with `"reason": "test"` when it is an object without one.
pub fn with_reason(body: &Value) -> Value {
    let mut b = body.clone();
    if let Some(m) = b.as_object_mut() {
        m.entry("reason").or_insert_with(|| json!("test"));
    }
    b
}

/// Percent-encodes everything but unreserved characters.
pub fn url_encode(s: &str) -> String {
    s.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                (b as char).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}

/// The consent endpoints.
impl TestApp {
    /// `GET /auth/consent`; `query` is the raw query string (so tests can omit or mangle it).
    pub async fn get_consent_raw(&self, token: &str, query: &str, lang: &str) -> TestResponse {
        let req = request_as(Method::GET, &format!("/auth/consent?{query}"), Some(token))
            .header("accept-language", lang)
            .body(Body::empty())
            .expect("request");
        self.call(req).await
    }

    /// `GET /auth/consent` for an app and a service URL (encoded), in zh-CN.
    pub async fn get_consent(&self, token: &str, app_id: &str, service_url: &str) -> TestResponse {
        let q = format!(
            "appId={}&serviceUrl={}",
            url_encode(app_id),
            url_encode(service_url)
        );
        self.get_consent_raw(token, &q, "zh-CN").await
    }

    pub async fn get_consents(&self, token: &str, lang: &str) -> TestResponse {
        let req = request_as(Method::GET, "/auth/consents", Some(token))
            .header("accept-language", lang)
            .body(Body::empty())
            .expect("request");
        self.call(req).await
    }

    pub async fn delete_consent(&self, token: &str, app_id: &str) -> TestResponse {
        let req = request_as(
            Method::DELETE,
            &format!("/auth/consents/{app_id}"),
            Some(token),
        )
        .body(Body::empty())
        .expect("request");
        self.call(req).await
    }
}
