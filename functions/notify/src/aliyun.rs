//! Aliyun SMS: `SendSms` of dysmsapi 2017-05-25, an RPC action signed with ACS3-HMAC-SHA256,
//! its parameters in the query (`PhoneNumbers`, `SignName`, `TemplateCode`, `TemplateParam`
//! as JSON). Answers: `{"Code":"OK",...}` on success; a refusal is a `Code` (help.aliyun.com
//! document 101346, API error codes).

use crate::client::{authority, client, nonce, now, transport};
use crate::sign::{acs3, iso8601, Acs3Request};
use crate::sms::{Sms, SmsProvider};
use async_trait::async_trait;
use ciam_core::{Reason, SendError};

pub const ENDPOINT: &str = "https://dysmsapi.aliyuncs.com";
const VERSION: &str = "2017-05-25";

/// Plain values: on AWS the key pair comes from Secrets Manager, the rest from parameters.
#[derive(Clone, Debug)]
pub struct AliyunConfig {
    /// `https://dysmsapi.aliyuncs.com`, or a fake's address in tests.
    pub endpoint: String,
    pub access_key_id: String,
    pub access_key_secret: String,
    /// The registered signature (签名), e.g. `Ciam`.
    pub sign_name: String,
}

pub struct Aliyun {
    config: AliyunConfig,
    host: String,
}

impl Aliyun {
    pub fn new(config: AliyunConfig) -> Result<Aliyun, String> {
        let host = authority(&config.endpoint)?;
        Ok(Aliyun { config, host })
    }
}

/// What an answer's `Code` means.
pub fn verdict(code: &str, message: &str) -> Result<(), SendError> {
    match code {
        "OK" => Ok(()),
        // The provider's per-number flow control ("触发分钟级流控Permits:1", 小时级 5, 天级 10):
        // the minute level is "too quickly", the hour and day levels the daily limit.
        "isv.BUSINESS_LIMIT_CONTROL" if message.contains("分钟") => {
            Err(SendError::Refused(Reason::VERIFYCODE_SENDING_TOO_QUICKLY))
        }
        "isv.BUSINESS_LIMIT_CONTROL" => Err(SendError::Refused(Reason::VERIFYCODE_SENDING_LIMIT)),
        // A number the provider will not text: malformed, or on its blacklist.
        "isv.MOBILE_NUMBER_ILLEGAL" | "isv.BLACK_KEY_CONTROL_LIMIT" => {
            Err(SendError::Refused(Reason::INVALID_PHONE))
        }
        // Throttling.*, isp.* (the provider's own failures), the account's own day/month caps
        // (isv.DAY_LIMIT_CONTROL), arrears, a bad signature or template: the provider failed,
        // not the number.
        other => Err(SendError::Failed(format!(
            "Aliyun SendSms answered {other}: {message}"
        ))),
    }
}

#[async_trait]
impl SmsProvider for Aliyun {
    fn name(&self) -> &'static str {
        "Aliyun"
    }

    async fn send(&self, sms: &Sms) -> Result<(), SendError> {
        let params: serde_json::Map<String, serde_json::Value> = sms
            .params
            .iter()
            .map(|(k, v)| ((*k).to_owned(), serde_json::Value::from(v.as_str())))
            .collect();
        let template_param = serde_json::Value::Object(params).to_string();
        let query = [
            ("PhoneNumbers", sms.phone.as_str()),
            ("SignName", self.config.sign_name.as_str()),
            ("TemplateCode", sms.template.as_str()),
            ("TemplateParam", template_param.as_str()),
        ];
        let date = iso8601(now());
        let nonce = nonce();
        let signed = acs3(
            &Acs3Request {
                method: "POST",
                host: &self.host,
                action: "SendSms",
                version: VERSION,
                date: &date,
                nonce: &nonce,
                query: &query,
                body: b"",
            },
            &self.config.access_key_id,
            &self.config.access_key_secret,
        );
        let url = format!(
            "{}/?{}",
            self.config.endpoint.trim_end_matches('/'),
            signed.query
        );
        let mut req = client().post(url);
        for (k, v) in signed.headers.iter().filter(|(k, _)| k != "host") {
            req = req.header(k, v);
        }
        let res = req.send().await.map_err(|e| transport("Aliyun", &e))?;
        let status = res.status();
        let body = res.text().await.map_err(|e| transport("Aliyun", &e))?;
        let answer: serde_json::Value = serde_json::from_str(&body).unwrap_or_default();
        let code = answer["Code"].as_str();
        let message = answer["Message"].as_str().unwrap_or_default();
        match code {
            // The gateway's and the service's codes come with 4xx too (Throttling.User,
            // SignatureDoesNotMatch): the code decides.
            Some(code) => verdict(code, message),
            None => Err(SendError::Failed(format!(
                "Aliyun SendSms answered HTTP {status} without a code"
            ))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn per_number_flow_control_is_a_refusal_by_level() {
        assert_eq!(
            verdict("isv.BUSINESS_LIMIT_CONTROL", "触发分钟级流控Permits:1"),
            Err(SendError::Refused(Reason::VERIFYCODE_SENDING_TOO_QUICKLY))
        );
        for m in ["触发小时级流控Permits:5", "触发天级流控Permits:10", ""] {
            assert_eq!(
                verdict("isv.BUSINESS_LIMIT_CONTROL", m),
                Err(SendError::Refused(Reason::VERIFYCODE_SENDING_LIMIT))
            );
        }
        assert_eq!(
            verdict("isv.MOBILE_NUMBER_ILLEGAL", "非法手机号"),
            Err(SendError::Refused(Reason::INVALID_PHONE))
        );
    }

    #[test]
    fn the_providers_own_failures_are_failures() {
        assert_eq!(verdict("OK", "OK"), Ok(()));
        for code in [
            "Throttling.User",
            "isp.SYSTEM_ERROR",
            "isv.DAY_LIMIT_CONTROL",
            "isv.OUT_OF_SERVICE",
            "SignatureDoesNotMatch",
        ] {
            assert!(
                matches!(verdict(code, "x"), Err(SendError::Failed(ref m)) if m.contains(code)),
                "{code}"
            );
        }
    }
}
