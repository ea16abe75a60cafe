//! Prints per-route latency and peak memory, in process, on the embedded store:
//! `npm run bench` (cargo run --profile serve --example bench). Figures, not assertions: they
//! back the memory sizes in template.yaml and the round-trip counts in docs/data-model.md.

// A benchmark: a panic is the failure report, so unwrap and expect are allowed here
// (the workspace denies them in the product, Cargo.toml [workspace.lints]).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use ciam_core::testing::Builder;
use ciam_core::{sessions, user::User, Keys};
use ciam_store::Item;
use std::time::{Duration, Instant};
use tower::ServiceExt;

fn peak_rss_kib() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmHWM:"))
                .map(str::to_owned)
        })
        .and_then(|l| l.split_whitespace().nth(1).and_then(|v| v.parse().ok()))
        .unwrap_or(0)
}

fn report(name: &str, mut t: Vec<Duration>) {
    t.sort();
    let pct = |p: f64| t[((t.len() as f64 - 1.0) * p) as usize].as_secs_f64() * 1000.0;
    println!(
        "{name:<34} n={:<5} p50={:>8.3} ms  p95={:>8.3} ms  max={:>8.3} ms",
        t.len(),
        pct(0.5),
        pct(0.95),
        pct(1.0)
    );
}

/// One request with any headers; the status and the body.
async fn send(
    app: &axum::Router,
    method: &str,
    uri: &str,
    headers: &[(&str, &str)],
    body: &str,
) -> (u16, String) {
    let mut req = http::Request::builder().method(method).uri(uri);
    for (k, v) in headers {
        req = req.header(*k, *v);
    }
    let req = req
        .body(axum::body::Body::from(body.to_owned()))
        .expect("request");
    let res = app.clone().oneshot(req).await.expect("answer");
    let status = res.status().as_u16();
    let location = res
        .headers()
        .get("location")
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned);
    let bytes = axum::body::to_bytes(res.into_body(), 1 << 20)
        .await
        .expect("body");
    // A redirect's target is what the caller needs.
    let text = location.unwrap_or_else(|| String::from_utf8_lossy(&bytes).into_owned());
    (status, text)
}

fn json(text: &str) -> serde_json::Value {
    serde_json::from_str(text).expect("json")
}

/// The partner routes: a ticket issued and verified, and the OpenID Connect code flow.
async fn partners(app: &axum::Router, token: &str, ciam: &ciam_core::Ciam, admin: &User) {
    let bearer = format!("Bearer {token}");
    let auth = [
        ("authorization", bearer.as_str()),
        ("content-type", "application/json"),
    ];
    let service = "https://partner.example.com/cb";
    // The app, as the console's POST /admin/apps registers it (the console's gate is not
    // measured here).
    let op = ciam_core::console::Operator {
        user: admin.clone(),
        role: ciam_core::console::Role::Admin,
        session: ciam_store::Key::new("", ""),
    };
    let fields = ciam_core::apps::AppFields {
        name: Some(ciam_core::apps::Names {
            zh_cn: "基准".into(),
            en_us: "Bench".into(),
        }),
        service_urls: Some(vec![service.into()]),
        scopes: Some(vec!["nickname".into(), "email".into()]),
        ..Default::default()
    };
    let created = ciam_core::console::apps::create(ciam, &op, fields, "bench", &Default::default())
        .await
        .expect("app");
    let created = serde_json::to_value(&created).expect("json");
    let app_id = created["app"]["appId"].as_str().expect("appId").to_owned();
    let secret = created["appSecret"].as_str().expect("secret").to_owned();
    let basic = format!(
        "Basic {}",
        base64::Engine::encode(
            &base64::engine::general_purpose::STANDARD,
            format!("{app_id}:{secret}")
        )
    );
    let (mut issue, mut verify) = (Vec::new(), Vec::new());
    for _ in 0..500 {
        let s = Instant::now();
        let (status, body) = send(
            app,
            "POST",
            "/ciam/v1/auth/login/token",
            &auth,
            &format!(r#"{{"appId":"{app_id}","serviceUrl":"{service}"}}"#),
        )
        .await;
        issue.push(s.elapsed());
        assert_eq!(status, 200, "{body}");
        let ticket = json(&body)["cTicket"].as_str().expect("ticket").to_owned();
        let s = Instant::now();
        let (status, body) = send(
            app,
            "GET",
            &format!("/ciam/v1/auth/login/token/verify?cTicket={ticket}&serviceUrl={service}"),
            &[("authorization", basic.as_str())],
            "",
        )
        .await;
        verify.push(s.elapsed());
        assert_eq!(status, 200, "{body}");
    }
    report("POST /auth/login/token", issue);
    report("GET /auth/login/token/verify", verify);

    let (mut authorize, mut approve, mut exchange, mut userinfo) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    // PKCE: verifier "a"x43 and its S256 challenge.
    let verifier = "a".repeat(43);
    let challenge = {
        use sha2::Digest;
        base64::Engine::encode(
            &base64::engine::general_purpose::URL_SAFE_NO_PAD,
            sha2::Sha256::digest(verifier.as_bytes()),
        )
    };
    for _ in 0..200 {
        let s = Instant::now();
        let (status, location) = send(
            app,
            "GET",
            &format!(
                "/ciam/v1/oidc/authorize?response_type=code&client_id={app_id}&redirect_uri={service}\
                 &scope=openid%20email&state=s1&nonce=n1&code_challenge={challenge}&code_challenge_method=S256"
            ),
            &[],
            "",
        )
        .await;
        authorize.push(s.elapsed());
        assert_eq!(status, 302, "{location}");
        let request = location
            .split("oidcRequest=")
            .nth(1)
            .expect("oidcRequest")
            .to_owned();
        let s = Instant::now();
        let (status, body) = send(
            app,
            "POST",
            &format!("/ciam/v1/oidc/requests/{request}"),
            &auth,
            "{}",
        )
        .await;
        approve.push(s.elapsed());
        assert_eq!(status, 200, "{body}");
        let redirect = json(&body)["redirect"]
            .as_str()
            .expect("redirect")
            .to_owned();
        let code = redirect
            .split("code=")
            .nth(1)
            .and_then(|c| c.split('&').next())
            .expect("code")
            .to_owned();
        let s = Instant::now();
        let (status, body) = send(
            app,
            "POST",
            "/ciam/v1/oidc/token",
            &[
                ("authorization", basic.as_str()),
                ("content-type", "application/x-www-form-urlencoded"),
            ],
            &format!(
                "grant_type=authorization_code&code={code}&redirect_uri={service}&code_verifier={verifier}"
            ),
        )
        .await;
        exchange.push(s.elapsed());
        assert_eq!(status, 200, "{body}");
        let access = json(&body)["access_token"]
            .as_str()
            .expect("access token")
            .to_owned();
        let s = Instant::now();
        let (status, body) = send(
            app,
            "GET",
            "/ciam/v1/oidc/userinfo",
            &[("authorization", format!("Bearer {access}").as_str())],
            "",
        )
        .await;
        userinfo.push(s.elapsed());
        assert_eq!(status, 200, "{body}");
    }
    report("GET /oidc/authorize", authorize);
    report("POST /oidc/requests/{id}", approve);
    report("POST /oidc/token (ES256 id_token)", exchange);
    report("GET /oidc/userinfo", userinfo);
}

async fn call(
    app: &axum::Router,
    method: &str,
    path: &str,
    token: Option<&str>,
    body: Option<&str>,
) -> u16 {
    let mut req = http::Request::builder()
        .method(method)
        .uri(format!("/ciam/v1{path}"));
    if let Some(t) = token {
        req = req.header("authorization", format!("Bearer {t}"));
    }
    if body.is_some() {
        req = req.header("content-type", "application/json");
    }
    let req = req
        .body(axum::body::Body::from(body.unwrap_or("").to_owned()))
        .expect("request");
    app.clone()
        .oneshot(req)
        .await
        .map(|r| r.status().as_u16())
        .unwrap_or(0)
}

#[tokio::main]
async fn main() {
    let ciam = Builder::new(0)
        .system_clock()
        .keys(Keys::from_root([9; 32]))
        .build()
        .await;
    println!(
        "after start-up                     peak RSS {:>7} KiB",
        peak_rss_kib()
    );
    let pw = "Bench-Passw0rd!";
    let started = Instant::now();
    let hash = ciam_core::password::hash(pw.into(), [3; 16])
        .await
        .expect("hash");
    println!(
        "argon2id hash (m=19MiB,t=2,p=1)    {:>8.1} ms",
        started.elapsed().as_secs_f64() * 1000.0
    );
    let user = User {
        id: "00000000000000000000000000000001".into(),
        user_name: "bench".into(),
        mail: Some("bench@example.com".into()),
        pwd_hash: Some(hash),
        roles: vec![ciam_core::user::ADMIN.to_owned()],
        ..Default::default()
    };
    ciam.store.put(user.to_item(), None).await.expect("user");
    let unique = Item::new(ciam_core::user::unique_key("MAIL#bench@example.com".into()))
        .with("userId", user.id.as_str());
    ciam.store.put(unique, None).await.expect("unique");
    let app = ciam_api::router(ciam.clone());

    let login = format!(r#"{{"account":"bench@example.com","password":"{pw}"}}"#);
    let mut t = Vec::new();
    for _ in 0..20 {
        let s = Instant::now();
        assert_eq!(
            call(&app, "POST", "/auth/login/password", None, Some(&login)).await,
            200
        );
        t.push(s.elapsed());
    }
    report("POST /auth/login/password", t);
    println!(
        "after sign-ins                     peak RSS {:>7} KiB",
        peak_rss_kib()
    );

    let (token, item) = sessions::mint(&ciam, &user, &Default::default());
    ciam.store.put(item, None).await.expect("session");
    for (name, method, path, body) in [
        ("GET /auth/info", "GET", "/auth/info", None),
        (
            "PATCH /auth/info",
            "PATCH",
            "/auth/info",
            Some(r#"{"duty":"Bench"}"#),
        ),
        ("GET /auth/location", "GET", "/auth/location", None),
        ("GET /auth/captcha", "GET", "/auth/captcha", None),
    ] {
        let mut t = Vec::new();
        for _ in 0..1000 {
            let s = Instant::now();
            assert_eq!(
                call(&app, method, path, Some(&token), body).await,
                200,
                "{name}"
            );
            t.push(s.elapsed());
        }
        report(name, t);
        println!("after {name:<28} peak RSS {:>7} KiB", peak_rss_kib());
    }
    partners(&app, &token, &ciam, &user).await;
    println!(
        "after partner routes               peak RSS {:>7} KiB",
        peak_rss_kib()
    );
    println!(
        "peak resident memory               {:>8} KiB",
        peak_rss_kib()
    );
}
