//! Shared helpers: a started set of fakes, a client that never follows redirects, and the
//! authorize step as a browser would take it (one GET, read the Location).

use ciam_fakes::{Fakes, Person, Platform};
use reqwest::{Client, StatusCode};
use serde_json::Value;
use url::Url;

/// Ciam's callback as the fakes see it (a registered domain; nothing listens there).
pub const CALLBACK: &str = "http://127.0.0.1:9/ciam/v1/auth/x/callback";
pub const FOREIGN_CALLBACK: &str = "https://evil.example/ciam/v1/auth/x/callback";

pub struct T {
    pub fakes: Fakes,
    pub http: Client,
}

pub async fn start() -> T {
    let fakes = ciam_fakes::spawn().await.expect("fakes start");
    let http = Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .expect("client");
    T { fakes, http }
}

impl T {
    pub fn url(&self, p: Platform, path: &str) -> String {
        format!("{}{path}", self.fakes.url(p))
    }

    /// GETs an authorize URL and answers the redirect's query, or the status of a refusal page.
    pub async fn authorize(&self, url: &str) -> Result<Url, StatusCode> {
        let r = self.http.get(url).send().await.expect("authorize");
        if r.status() != StatusCode::FOUND {
            return Err(r.status());
        }
        let loc = r.headers()["location"].to_str().expect("location");
        Ok(Url::parse(loc).expect("location is a URL"))
    }

    pub async fn control(&self, p: Platform, what: &str, body: Value) -> Value {
        let url = self.url(p, &format!("/_control/{what}"));
        let r = self
            .http
            .post(url)
            .json(&body)
            .send()
            .await
            .expect("control");
        assert_eq!(r.status(), StatusCode::OK, "control {what}");
        r.json().await.expect("control answer")
    }

    pub async fn next_user(&self, p: Platform, person: &Person) {
        let body = serde_json::to_value(person).expect("person");
        self.control(p, "next-user", body).await;
    }

    pub async fn calls(&self, p: Platform, path: &str) -> u64 {
        let r = self.http.get(self.url(p, "/_control/calls")).send().await;
        let v: Value = r.expect("calls").json().await.expect("calls json");
        v[path].as_u64().unwrap_or(0)
    }

    pub async fn get_json(&self, url: &str) -> Value {
        self.http
            .get(url)
            .send()
            .await
            .expect("get")
            .json()
            .await
            .expect("json")
    }
}

/// One query parameter of a redirect.
pub fn param(u: &Url, k: &str) -> Option<String> {
    u.query_pairs()
        .find(|(n, _)| n == k)
        .map(|(_, v)| v.into_owned())
}

/// `?a=b&c=d` with each value encoded.
pub fn qs(pairs: &[(&str, &str)]) -> String {
    let mut s = url::form_urlencoded::Serializer::new(String::new());
    for (k, v) in pairs {
        s.append_pair(k, v);
    }
    format!("?{}", s.finish())
}
