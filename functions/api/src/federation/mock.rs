//! The test-only `mock` provider's protocol (ciam-fakes' `mock` platform, its base URL in
//! `Config::mock_provider`): an authorize redirect and a token endpoint that names the subject.
//! Compiled only with the `fakes` feature (this crate's own tests): no shipped binary has it.

use super::client;
use ciam_core::federation::{
    redirect_uri, Callback, ExternalIdentity, Facts, FedError, Pending, Provider, Started, Surface,
    MOCK,
};
use ciam_core::Ciam;
use serde::Deserialize;

/// ciam-fakes' `mock::{CLIENT_ID, CLIENT_SECRET}`.
const CLIENT_ID: &str = "ciam";
const CLIENT_SECRET: &str = "mock-secret";

pub struct Mock;

fn base(ciam: &Ciam) -> Result<&str, FedError> {
    ciam.config
        .mock_provider
        .as_deref()
        .ok_or_else(|| FedError::Misconfigured("the mock provider is not configured".into()))
}

#[derive(Deserialize)]
struct Answer {
    sub: String,
    name: Option<String>,
}

#[async_trait::async_trait]
impl Provider for Mock {
    fn facts(&self) -> &'static Facts {
        &MOCK
    }

    fn configured(&self, ciam: &Ciam) -> bool {
        ciam.config.mock_provider.is_some()
    }

    async fn ready(&self, ciam: &Ciam, _surface: Surface) -> Result<(), FedError> {
        base(ciam).map(|_| ())
    }

    async fn authorization_url(
        &self,
        ciam: &Ciam,
        started: &Started,
        _surface: Surface,
    ) -> Result<String, FedError> {
        let mut url = url::Url::parse(&format!("{}/authorize", base(ciam)?))
            .map_err(|e| FedError::Misconfigured(e.to_string()))?;
        url.query_pairs_mut()
            .append_pair("client_id", CLIENT_ID)
            .append_pair("redirect_uri", &redirect_uri(ciam, self.facts()))
            .append_pair("state", &started.state);
        Ok(url.into())
    }

    async fn identify(
        &self,
        ciam: &Ciam,
        cb: &Callback,
        _pending: &Pending,
    ) -> Result<ExternalIdentity, FedError> {
        let base = base(ciam)?;
        if cb.error.is_some() {
            return Err(FedError::Cancelled);
        }
        let code = cb
            .code
            .as_deref()
            .filter(|c| !c.is_empty())
            .ok_or(FedError::Cancelled)?;
        let body: String = url::form_urlencoded::Serializer::new(String::new())
            .append_pair("client_id", CLIENT_ID)
            .append_pair("client_secret", CLIENT_SECRET)
            .append_pair("code", code)
            .finish();
        let res = client()
            .post(format!("{base}/token"))
            .header("content-type", "application/x-www-form-urlencoded")
            .body(body)
            .send()
            .await
            .map_err(|e| FedError::Unavailable(format!("mock: {e}")))?;
        match res.status().as_u16() {
            200 => {}
            400 => return Err(FedError::CodeRefused("mock: invalid_grant".into())),
            401 => return Err(FedError::Misconfigured("mock: invalid_client".into())),
            s => return Err(FedError::Unavailable(format!("mock answered {s}"))),
        }
        let a: Answer = res
            .json()
            .await
            .map_err(|e| FedError::Unavailable(format!("mock: {e}")))?;
        Ok(ExternalIdentity {
            subject: a.sub,
            name: a.name,
            ..ExternalIdentity::default()
        })
    }
}
