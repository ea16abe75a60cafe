//! The inline statements of a function's role (what its row allows besides the shared managed
//! policies), the key secrets it reads and their variables: what roles.rs, the functions and
//! the webhook pipeline's roles grant from a row.

use crate::Cell;
use ciam_api::{Images, Kms, Lambda, Table, S3};
use std::fmt::Write as _;

pub(crate) const CURRENT_OIDC_KEY: &str =
    "!If [OverridesOidcKey, !Ref OidcKmsKeyArn, !GetAtt OidcSigningKey.Arn]";
/// The logout tokens' own key (docs/oidc.md): the webhook delivery signs with it.
pub(crate) const LOGOUT_KEY: &str = "!GetAtt LogoutSigningKey.Arn";

/// The inline statements of a function's policy: what its row allows besides the shared
/// managed policies (the table classes and the two secrets), in `cell` (the `cn` cell sends
/// through the providers' own APIs, not SES and SNS: `messages`).
pub(crate) fn inline_statements(l: &Lambda, cell: Cell) -> String {
    let mut s = String::new();
    if l.table == Table::GetItem {
        s.push_str(
            "            - Sid: ReadAppItems
              Effect: Allow
              Action: dynamodb:GetItem
              Resource: !GetAtt Table.Arn
",
        );
    }
    match cell {
        Cell::Global => s.push_str(&aws_messages(l)),
        Cell::Cn => s.push_str(&provider_secrets(l)),
    }
    if l.images == Images::Invoke {
        s.push_str(
            "            # Uploads are decoded there, never here: the one function it may invoke.
            - Sid: InvokeTheImageDecoderOnly
              Effect: Allow
              Action: lambda:InvokeFunction
              Resource: !GetAtt AvatarDecodeFunction.Arn
",
        );
    }
    let keys: Vec<&str> = key_secrets(l).collect();
    if !keys.is_empty() {
        s.push_str(
            "            - Sid: ReadItsKeySecrets
              Effect: Allow
              Action: secretsmanager:GetSecretValue
              Resource:
",
        );
        for p in keys {
            let _ = writeln!(s, "                - !Ref {p}KeySecret");
        }
    }
    // The callback's provider secret (the code exchange), by the provider's stem.
    if let Some(facts) = l.fed.secret() {
        let _ = write!(
            s,
            "            - Sid: ReadThe{}ClientSecret
              Effect: Allow
              Action: secretsmanager:GetSecretValue
              Resource: !Ref {}
",
            facts.stem,
            facts.secret()
        );
    }
    match l.s3 {
        S3::None => {}
        // Stores the new thumbnail and deletes the one it replaces; never reads or lists.
        S3::AvatarWrite => s.push_str(
            "            - Sid: WriteAndDeleteAvatars
              Effect: Allow
              Action:
                - s3:PutObject
                - s3:DeleteObject
              Resource: !Sub \"${AvatarBucket.Arn}/*\"
",
        ),
        S3::AvatarRead => s.push_str(
            "            # Without s3:ListBucket S3 answers an absent key with AccessDenied, not
            # NoSuchKey; the serving route treats both as \"not found\".
            - Sid: ReadAvatars
              Effect: Allow
              Action: s3:GetObject
              Resource: !Sub \"${AvatarBucket.Arn}/*\"
",
        ),
        S3::WebIndex => s.push_str(
            "            - Sid: ReadTheEntryPageOnly
              Effect: Allow
              Action: s3:GetObject
              Resource: !Sub \"${WebBucket.Arn}/index.html\"
",
        ),
    }
    match l.kms {
        Kms::None => {}
        Kms::Sign => {
            let _ = write!(
                s,
                "            # Signs id_tokens with the current key only; the private key never leaves KMS.
            - Sid: SignWithTheCurrentOidcKey
              Effect: Allow
              Action:
                - kms:Sign
                - kms:GetPublicKey
              Resource: {CURRENT_OIDC_KEY}
"
            );
        }
        Kms::SignLogout => {
            let _ = write!(
                s,
                "            # Signs logout tokens with their own key only, never an id_token's.
            - Sid: SignWithTheLogoutKeyOnly
              Effect: Allow
              Action:
                - kms:Sign
                - kms:GetPublicKey
              Resource: {LOGOUT_KEY}
"
            );
        }
        Kms::PublicKeys | Kms::Jwks => {
            let _ = write!(
                s,
                "            # Publishes the current key and the previous ones (after a rotation); never signs.
            - Sid: ReadOidcPublicKeys
              Effect: Allow
              Action: kms:GetPublicKey
              Resource: !If
                - HasPreviousOidcKeys
                - !Split
                  - \",\"
                  - !Sub
                    - \"${{Current}},${{OidcPreviousKmsKeyArns}}\"
                    - Current: {CURRENT_OIDC_KEY}
                - - {CURRENT_OIDC_KEY}
"
            );
            if l.kms == Kms::Jwks {
                let _ = write!(
                    s,
                    "            # And the logout tokens' key, published beside them under its own kid.
            - Sid: ReadTheLogoutPublicKey
              Effect: Allow
              Action: kms:GetPublicKey
              Resource: {LOGOUT_KEY}
"
                );
            }
        }
    }
    s
}

/// The purposes whose secrets (`Es256` has none: KMS signs there) (`<Purpose>KeySecret`) the function reads, by name.
pub(crate) fn key_secrets(l: &Lambda) -> impl Iterator<Item = &'static str> {
    l.keys.iter().filter(|p| p.distributed()).map(|p| p.name())
}

/// `CIAM_<PURPOSE>_KEY_SECRET_ARN` (as `ciam_lambdas::purpose_keys::var`).
pub(crate) fn ciam_lambdas_var(name: &str) -> String {
    format!("CIAM_{}_KEY_SECRET_ARN", name.to_ascii_uppercase())
}

/// SES from `MailFrom` and SNS to phone numbers: how the `global` cell sends.
fn aws_messages(l: &Lambda) -> String {
    let mut s = String::new();
    if l.messages {
        s.push_str(
            "            - Sid: SendMailFromTheSenderOnly
              Effect: Allow
              Action: ses:SendEmail
              Resource:
                - !Sub arn:${AWS::Partition}:ses:${AWS::Region}:${AWS::AccountId}:identity/${MailFrom}
                - !Sub
                  - arn:${AWS::Partition}:ses:${AWS::Region}:${AWS::AccountId}:identity/${Domain}
                  - Domain: !Select [1, !Split [\"@\", !Ref MailFrom]]
              Condition:
                StringEquals:
                  ses:FromAddress: !Ref MailFrom
",
        );
    }
    if l.sms {
        s.push_str(
            "            # An SMS to a phone number has no resource ARN; NotResource keeps every topic out.
            - Sid: SendSmsButNoTopic
              Effect: Allow
              Action: sns:Publish
              NotResource: !Sub arn:${AWS::Partition}:sns:*:*:*
",
        );
    }
    s
}

/// The `cn` cell has neither SES nor SNS SMS (docs/multi-region.md "The cn stack"): a function
/// that sends reads the credentials of the mail relay (and of the SMS providers) from the
/// secrets the operator made, named by the parameters `MailRelaySecretName` and
/// `SmsProviderSecretName` (`-??????`: the suffix Secrets Manager adds to a name).
fn provider_secrets(l: &Lambda) -> String {
    let mut s = String::new();
    if l.messages {
        s.push_str(
            "            - Sid: ReadTheMailRelaySecret
              Effect: Allow
              Action: secretsmanager:GetSecretValue
              Resource: !Sub arn:${AWS::Partition}:secretsmanager:${AWS::Region}:${AWS::AccountId}:secret:${MailRelaySecretName}-??????
",
        );
    }
    if l.sms {
        s.push_str(
            "            - Sid: ReadTheSmsProviderSecret
              Effect: Allow
              Action: secretsmanager:GetSecretValue
              Resource: !Sub arn:${AWS::Partition}:secretsmanager:${AWS::Region}:${AWS::AccountId}:secret:${SmsProviderSecretName}-??????
",
        );
    }
    s
}

/// The variables that name those secrets to a sending function in the `cn` cell (none in
/// `global`), indented for `Environment: Variables:`.
/// The cn stack's SMS parameters (cn_edge.rs `PROVIDER_PARAMETERS`) and the variables the
/// functions that text read them from (functions/lambdas/src/senders.rs).
pub const SMS_PARAMETERS: [(&str, &str); 8] = [
    ("CIAM_SMS", "SmsPrimary"),
    ("CIAM_SMS_FALLBACK", "SmsFallback"),
    ("CIAM_ALIYUN_SMS_SIGN_NAME", "AliyunSmsSignName"),
    ("CIAM_ALIYUN_SMS_TEMPLATES", "AliyunSmsTemplates"),
    ("CIAM_TENCENT_SMS_SDK_APP_ID", "TencentSmsSdkAppId"),
    ("CIAM_TENCENT_SMS_SIGN_NAME", "TencentSmsSignName"),
    ("CIAM_TENCENT_SMS_TEMPLATES", "TencentSmsTemplates"),
    ("CIAM_TENCENT_SMS_REGION", "TencentSmsRegion"),
];

pub(crate) fn provider_env(l: &Lambda, cell: Cell) -> String {
    let mut s = String::new();
    if cell == Cell::Cn {
        if l.messages {
            s.push_str("          CIAM_MAIL_RELAY_SECRET: !Ref MailRelaySecretName\n");
        }
        if l.sms {
            s.push_str("          CIAM_SMS_PROVIDER_SECRET: !Ref SmsProviderSecretName\n");
            // Which provider texts first and each one's signature and templates: the stack's
            // parameters, under the names `ciam serve` reads (docs/china-messaging.md §5).
            for (var, param) in SMS_PARAMETERS {
                s.push_str(&format!("          {var}: !Ref {param}\n"));
            }
        }
    }
    s
}
