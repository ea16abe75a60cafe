//! Tencent Cloud SMS: `SendSms`, API 3.0, version 2021-01-11, signed with TC3-HMAC-SHA256, a
//! JSON body (`PhoneNumberSet` in E.164, `SmsSdkAppId`, `SignName`, `TemplateId`,
//! `TemplateParamSet` by position). Answers: `Response.Error` for a refused call (common codes,
//! cloud.tencent.com/document/api/382/52075), else `Response.SendStatusSet[i].Code`, `Ok` or a
//! per-number code (document 382/59177).

use crate::client::{authority, client, now, transport};
use crate::sign::{tc3, Tc3Request};
use crate::sms::{Sms, SmsProvider};
use async_trait::async_trait;
use ciam_core::{Reason, SendError};

pub const ENDPOINT: &str = "https://sms.tencentcloudapi.com";
const VERSION: &str = "2021-01-11";
const CONTENT_TYPE: &str = "application/json; charset=utf-8";

#[derive(Clone, Debug)]
pub struct TencentConfig {
    /// `https://sms.tencentcloudapi.com`, or a fake's address in tests.
    pub endpoint: String,
    pub secret_id: String,
    pub secret_key: String,
    /// The SMS application (`SmsSdkAppId`, e.g. `1400006666`).
    pub sdk_app_id: String,
    /// The registered signature (签名).
    pub sign_name: String,
    /// `X-TC-Region`: `ap-guangzhou` unless told otherwise.
    pub region: String,
}

pub struct Tencent {
    config: TencentConfig,
    host: String,
}

impl Tencent {
    pub fn new(config: TencentConfig) -> Result<Tencent, String> {
        let host = authority(&config.endpoint)?;
        Ok(Tencent { config, host })
    }
}

/// What a code (of `Response.Error` or of the number's `SendStatus`) means.
pub fn verdict(code: &str, message: &str) -> Result<(), SendError> {
    match code {
        "Ok" => Ok(()),
        // Per-number frequency limits: 30 s is "too quickly", the hour and day limits (and the
        // console's frequency policy, usually set per day) the daily limit.
        "LimitExceeded.PhoneNumberThirtySecondLimit" => {
            Err(SendError::Refused(Reason::VERIFYCODE_SENDING_TOO_QUICKLY))
        }
        "LimitExceeded.PhoneNumberOneHourLimit"
        | "LimitExceeded.PhoneNumberDailyLimit"
        | "LimitExceeded.PhoneNumberSameContentDailyLimit"
        | "LimitExceeded.DeliveryFrequencyLimit" => {
            Err(SendError::Refused(Reason::VERIFYCODE_SENDING_LIMIT))
        }
        "InvalidParameterValue.IncorrectPhoneNumber" | "FailedOperation.PhoneNumberInBlacklist" => {
            Err(SendError::Refused(Reason::INVALID_PHONE))
        }
        // RequestLimitExceeded* (the account's API rate), LimitExceeded.App* (the account's
        // daily caps), InternalError*, AuthFailure*, an unapproved template or signature, an
        // empty package: the provider failed, not the number.
        other => Err(SendError::Failed(format!(
            "Tencent SendSms answered {other}: {message}"
        ))),
    }
}

#[async_trait]
impl SmsProvider for Tencent {
    fn name(&self) -> &'static str {
        "Tencent"
    }

    async fn send(&self, sms: &Sms) -> Result<(), SendError> {
        let body = serde_json::json!({
            "PhoneNumberSet": [format!("+86{}", sms.phone)],
            "SmsSdkAppId": self.config.sdk_app_id,
            "SignName": self.config.sign_name,
            "TemplateId": sms.template,
            "TemplateParamSet": sms.params.iter().map(|(_, v)| v.as_str()).collect::<Vec<_>>(),
        })
        .to_string();
        let timestamp = now();
        let signed = tc3(
            &Tc3Request {
                host: &self.host,
                service: "sms",
                content_type: CONTENT_TYPE,
                // `content-type;host`, exactly what the official SDKs sign, so the comparison
                // with them (infra/tests/test_sms_signatures.py) covers what is sent.
                extra: &[],
                timestamp,
                body: body.as_bytes(),
            },
            &self.config.secret_id,
            &self.config.secret_key,
        );
        let res = client()
            .post(format!("{}/", self.config.endpoint.trim_end_matches('/')))
            .header("authorization", signed.authorization)
            .header("content-type", CONTENT_TYPE)
            .header("x-tc-action", "SendSms")
            .header("x-tc-version", VERSION)
            .header("x-tc-timestamp", timestamp.to_string())
            .header("x-tc-region", &self.config.region)
            .body(body)
            .send()
            .await
            .map_err(|e| transport("Tencent", &e))?;
        let status = res.status();
        let text = res.text().await.map_err(|e| transport("Tencent", &e))?;
        if status.is_server_error() || status.as_u16() == 429 {
            return Err(SendError::Failed(format!(
                "Tencent SendSms answered HTTP {status}"
            )));
        }
        let answer: serde_json::Value = serde_json::from_str(&text).unwrap_or_default();
        let r = &answer["Response"];
        if let Some(code) = r["Error"]["Code"].as_str() {
            return verdict(code, r["Error"]["Message"].as_str().unwrap_or_default());
        }
        match r["SendStatusSet"][0]["Code"].as_str() {
            Some(code) => verdict(
                code,
                r["SendStatusSet"][0]["Message"]
                    .as_str()
                    .unwrap_or_default(),
            ),
            None => Err(SendError::Failed(format!(
                "Tencent SendSms answered HTTP {status} without a status"
            ))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn per_number_limits_are_refusals_by_level() {
        assert_eq!(
            verdict("LimitExceeded.PhoneNumberThirtySecondLimit", ""),
            Err(SendError::Refused(Reason::VERIFYCODE_SENDING_TOO_QUICKLY))
        );
        for code in [
            "LimitExceeded.PhoneNumberOneHourLimit",
            "LimitExceeded.PhoneNumberDailyLimit",
            "LimitExceeded.DeliveryFrequencyLimit",
        ] {
            assert_eq!(
                verdict(code, ""),
                Err(SendError::Refused(Reason::VERIFYCODE_SENDING_LIMIT)),
                "{code}"
            );
        }
        assert_eq!(
            verdict("FailedOperation.PhoneNumberInBlacklist", ""),
            Err(SendError::Refused(Reason::INVALID_PHONE))
        );
    }

    #[test]
    fn account_throttles_and_the_providers_failures_are_failures() {
        assert_eq!(verdict("Ok", "send success"), Ok(()));
        for code in [
            "RequestLimitExceeded",
            "LimitExceeded.AppDailyLimit",
            "InternalError.Timeout",
            "AuthFailure.SignatureFailure",
        ] {
            assert!(
                matches!(verdict(code, "x"), Err(SendError::Failed(ref m)) if m.contains(code)),
                "{code}"
            );
        }
    }
}
