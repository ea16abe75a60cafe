//! The secrets a function reads once at init from Secrets Manager (`GetSecretValue`), each a
//! JSON object: the root key (`CIAM_ROOT_SECRET_ARN`: `rootKey`, `previousRootKey`?), the staff
//! client secret (`CIAM_STAFF_SECRET_ARN`: `clientSecret`) and the origin header's value
//! (`CIAM_ORIGIN_SECRET_ARN`: `originVerify`, `previousOriginVerify`? while it rotates; the
//! origin check reads this one again before a refusal, `OriginSecret`). They are read concurrently, each within
//! `timeout`, so an unreachable endpoint fails the init instead of hanging it. Errors name the
//! variable and the field, never a value.

use crate::origin::{OriginSource, OriginValues};
use aws_sdk_secretsmanager::error::DisplayErrorContext;
use aws_sdk_secretsmanager::Client;
use ciam_core::Keys;
use serde_json::{Map, Value};
use std::time::Duration;

pub const ROOT_VAR: &str = "CIAM_ROOT_SECRET_ARN";
pub const STAFF_VAR: &str = "CIAM_STAFF_SECRET_ARN";
pub const ORIGIN_VAR: &str = "CIAM_ORIGIN_SECRET_ARN";
/// Long enough for a cold TLS handshake and a retry; short enough to fail inside Lambda's
/// 10-second init.
pub const TIMEOUT: Duration = Duration::from_secs(4);
/// The origin header's value is generated (64 characters); anything this short is a mistake.
const MIN_ORIGIN_CHARS: usize = 32;

/// Which secrets to read: their ARNs, None for those this function does not read.
#[derive(Clone, Copy, Debug, Default)]
pub struct Wanted<'a> {
    pub root: Option<&'a str>,
    pub staff: Option<&'a str>,
    pub origin: Option<&'a str>,
}

/// What was read.
#[derive(Default)]
pub struct Fetched {
    pub keys: Option<Keys>,
    pub staff_client_secret: Option<String>,
    pub origin_verify: Option<OriginValues>,
}

/// One secret's JSON object, with the variable that named it (for errors).
pub struct SecretJson {
    var: &'static str,
    fields: Map<String, Value>,
}

impl SecretJson {
    /// Parses a SecretString. The parser's own message is dropped: it may quote the input.
    pub fn parse(var: &'static str, text: &str) -> Result<SecretJson, String> {
        match serde_json::from_str(text) {
            Ok(Value::Object(fields)) => Ok(SecretJson { var, fields }),
            _ => Err(format!("{var}: the secret is not a JSON object")),
        }
    }

    /// Its fields (for a secret whose shape is not one of the above: `senders`).
    pub(crate) fn into_fields(self) -> Map<String, Value> {
        self.fields
    }

    /// A string field; absent, null and blank are None, any other type an error.
    fn optional(&self, field: &str) -> Result<Option<&str>, String> {
        match self.fields.get(field) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) if s.trim().is_empty() => Ok(None),
            // A pasted value with a stray newline would silently be another key (a 64-hex root
            // read as a passphrase), a header that never matches, a secret the provider refuses.
            Some(Value::String(s)) if s.trim() != s => Err(format!(
                "{}: {field} has leading or trailing white space",
                self.var
            )),
            Some(Value::String(s)) => Ok(Some(s)),
            Some(_) => Err(format!("{}: {field} must be a string", self.var)),
        }
    }

    fn required(&self, field: &str) -> Result<&str, String> {
        self.optional(field)?
            .ok_or_else(|| format!("{}: {field} is missing", self.var))
    }
}

/// `{"rootKey": ..., "previousRootKey"?: ...}` as `Keys`: derived from rootKey, also accepting
/// previousRootKey where verification looks for something made before a rotation; or
/// `{"rootKey": ..., "nextRootKey": ...}` while a rotation is announced (read-only, see
/// `Keys::with_next`).
pub fn root_keys(j: &SecretJson) -> Result<Keys, String> {
    let root = |field: &str| {
        let value = j.required(field)?;
        Keys::root_from_secret(value).map_err(|e| format!("{}: {field} {e}", j.var))
    };
    let current = root("rootKey")?;
    let keys = Keys::from_root(current);
    let previous = j.optional("previousRootKey")?.is_some();
    let next = j.optional("nextRootKey")?.is_some();
    if previous && next {
        return Err(format!(
            "{}: previousRootKey and nextRootKey cannot both be set",
            j.var
        ));
    }
    // nextRootKey announces a rotation (step 1): read under it, never write back to rootKey.
    let field = match (previous, next) {
        (_, true) => "nextRootKey",
        (true, _) => "previousRootKey",
        _ => return Ok(keys),
    };
    let other = root(field)?;
    Ok(match (other == current, next) {
        (true, _) => keys,
        (false, true) => keys.with_next(other),
        (false, false) => keys.with_previous(other),
    })
}

/// A federation provider's secret (`<env>_SECRET_ARN`): its required field and the optional
/// ones (`Facts::secret_fields`), by name.
pub fn provider_secret(
    j: &SecretJson,
    facts: &ciam_core::federation::Facts,
) -> Result<std::collections::BTreeMap<String, String>, String> {
    let mut fields = std::collections::BTreeMap::new();
    fields.insert(
        facts.secret_field.to_owned(),
        j.required(facts.secret_field)?.to_owned(),
    );
    for f in facts.optional_secret_fields {
        if let Some(v) = j.optional(f)? {
            fields.insert((*f).to_owned(), v.to_owned());
        }
    }
    Ok(fields)
}

/// `{"clientSecret": ...}`.
pub fn staff_client_secret(j: &SecretJson) -> Result<String, String> {
    j.required("clientSecret").map(str::to_owned)
}

/// `{"originVerify": ..., "previousOriginVerify"?: ...}`: both are accepted while CloudFront
/// moves from the previous value to the current one (docs/operations.md §1).
pub fn origin_verify(j: &SecretJson) -> Result<OriginValues, String> {
    let long_enough = |field: &str, v: &str| {
        if v.chars().count() < MIN_ORIGIN_CHARS {
            Err(format!(
                "{}: {field} must be at least {MIN_ORIGIN_CHARS} characters",
                j.var
            ))
        } else {
            Ok(v.to_owned())
        }
    };
    let current = long_enough("originVerify", j.required("originVerify")?)?;
    let previous = j
        .optional("previousOriginVerify")?
        .map(|v| long_enough("previousOriginVerify", v))
        .transpose()?
        .filter(|p| *p != current);
    Ok(OriginValues { current, previous })
}

/// The origin secret read again (the origin check's source after init), within `TIMEOUT`.
pub struct OriginSecret {
    pub client: Client,
    pub arn: String,
}

#[async_trait::async_trait]
impl OriginSource for OriginSecret {
    async fn read(&self) -> Result<OriginValues, String> {
        let j = read(&self.client, ORIGIN_VAR, &self.arn, TIMEOUT).await?;
        origin_verify(&j)
    }
}

/// `GetSecretValue` of `arn`, within `timeout`.
pub(crate) async fn read(
    client: &Client,
    var: &'static str,
    arn: &str,
    timeout: Duration,
) -> Result<SecretJson, String> {
    let call = client.get_secret_value().secret_id(arn).send();
    let out = tokio::time::timeout(timeout, call)
        .await
        .map_err(|_| format!("{var}: no answer from Secrets Manager within {timeout:?}"))?
        .map_err(|e| format!("{var}: cannot read the secret: {}", DisplayErrorContext(&e)))?;
    let text = out
        .secret_string()
        .ok_or_else(|| format!("{var}: the secret has no SecretString"))?;
    SecretJson::parse(var, text)
}

/// Reads the wanted secrets concurrently; the first failure fails the whole.
pub async fn fetch(
    client: &Client,
    wanted: Wanted<'_>,
    timeout: Duration,
) -> Result<Fetched, String> {
    let one = |var: &'static str, arn: Option<&str>| {
        let arn = arn.map(str::to_owned);
        async move {
            match arn {
                Some(arn) => read(client, var, &arn, timeout).await.map(Some),
                None => Ok(None),
            }
        }
    };
    let (root, staff, origin) = tokio::try_join!(
        one(ROOT_VAR, wanted.root),
        one(STAFF_VAR, wanted.staff),
        one(ORIGIN_VAR, wanted.origin),
    )?;
    Ok(Fetched {
        keys: root.as_ref().map(root_keys).transpose()?,
        staff_client_secret: staff.as_ref().map(staff_client_secret).transpose()?,
        origin_verify: origin.as_ref().map(origin_verify).transpose()?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const HEX: &str = "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff";

    fn root(text: &str) -> Result<Keys, String> {
        root_keys(&SecretJson::parse(ROOT_VAR, text)?)
    }

    #[test]
    fn the_root_secret_gives_the_current_root_and_during_a_rotation_the_previous() {
        let generated = "q".repeat(64);
        let keys = root(&format!(r#"{{"rootKey": "{HEX}"}}"#)).unwrap();
        assert_eq!(keys.derive("x"), Keys::from_hex(HEX).unwrap().derive("x"));
        assert!(keys.previous().is_none());
        let keys = root(&format!(
            r#"{{"rootKey": "{generated}", "previousRootKey": "{HEX}"}}"#
        ))
        .unwrap();
        let hashed = Keys::from_root(Keys::root_from_secret(&generated).unwrap());
        assert_eq!(keys.derive("x"), hashed.derive("x"));
        let previous = keys.previous().unwrap();
        assert_eq!(
            previous.derive("x"),
            Keys::from_hex(HEX).unwrap().derive("x")
        );
        // A blank previousRootKey is how an operator ends the overlap, too.
        let keys = root(&format!(r#"{{"rootKey": "{HEX}", "previousRootKey": ""}}"#)).unwrap();
        assert!(keys.previous().is_none());
        assert!(keys.writes_back());
    }

    #[test]
    fn an_announced_next_root_is_read_but_never_written_back_to() {
        let generated = "q".repeat(64);
        let keys = root(&format!(
            r#"{{"rootKey": "{HEX}", "nextRootKey": "{generated}"}}"#
        ))
        .unwrap();
        assert_eq!(keys.derive("x"), Keys::from_hex(HEX).unwrap().derive("x"));
        let next = Keys::from_root(Keys::root_from_secret(&generated).unwrap());
        assert_eq!(keys.previous().unwrap().derive("x"), next.derive("x"));
        assert!(!keys.writes_back());
        let previous = root(&format!(
            r#"{{"rootKey": "{generated}", "previousRootKey": "{HEX}"}}"#
        ))
        .unwrap();
        assert!(previous.writes_back());
        let both = root(&format!(
            r#"{{"rootKey": "{HEX}", "nextRootKey": "{generated}", "previousRootKey": "{generated}"}}"#
        ));
        let err = both.err().unwrap_or_default();
        assert!(
            err.contains("cannot both be set") && !err.contains(&generated),
            "{err}"
        );
    }

    #[test]
    fn a_bad_root_secret_is_named_by_variable_and_field_never_by_value() {
        let cases = [
            ("not json at all", "not a JSON object"),
            (r#"["a"]"#, "not a JSON object"),
            (r#"{"rootKey": 42}"#, "rootKey must be a string"),
            (r#"{"other": "x"}"#, "rootKey is missing"),
            (r#"{"rootKey": "short-secret-value"}"#, "at least 32"),
            (
                &format!(r#"{{"rootKey": "{HEX}", "previousRootKey": "tiny-old-value"}}"#),
                "previousRootKey must be at least 32",
            ),
        ];
        for (text, expected) in cases {
            let err = root(text).err().unwrap_or_default();
            assert!(err.starts_with(ROOT_VAR), "{text}: {err}");
            assert!(err.contains(expected), "{text}: {err}");
            for secret in ["short-secret-value", "tiny-old-value", "42", HEX] {
                assert!(!err.contains(secret), "{text}: the value leaked: {err}");
            }
        }
    }

    #[test]
    fn the_staff_and_origin_secrets_need_their_one_field() {
        let staff = SecretJson::parse(STAFF_VAR, r#"{"clientSecret": "s3cr3t"}"#).unwrap();
        assert_eq!(staff_client_secret(&staff).unwrap(), "s3cr3t");
        let empty = SecretJson::parse(STAFF_VAR, r#"{"clientSecret": " "}"#).unwrap();
        let err = staff_client_secret(&empty).unwrap_err();
        assert_eq!(err, "CIAM_STAFF_SECRET_ARN: clientSecret is missing");
        let long = "v".repeat(64);
        let origin =
            SecretJson::parse(ORIGIN_VAR, &format!(r#"{{"originVerify": "{long}"}}"#)).unwrap();
        assert_eq!(
            origin_verify(&origin).unwrap(),
            OriginValues::new(long.clone())
        );
        let short = SecretJson::parse(ORIGIN_VAR, r#"{"originVerify": "abc"}"#).unwrap();
        let err = origin_verify(&short).unwrap_err();
        assert!(err.starts_with(ORIGIN_VAR) && !err.contains("abc"), "{err}");
    }

    #[test]
    fn the_origin_secret_may_hold_the_previous_value_while_it_rotates() {
        let (new, old) = ("n".repeat(64), "o".repeat(64));
        let both = SecretJson::parse(
            ORIGIN_VAR,
            &format!(r#"{{"originVerify": "{new}", "previousOriginVerify": "{old}"}}"#),
        )
        .unwrap();
        let values = origin_verify(&both).unwrap();
        assert_eq!(values.current, new);
        assert_eq!(values.previous.as_deref(), Some(old.as_str()));
        // Step 3 drops it: blank or absent is the same.
        let dropped = SecretJson::parse(
            ORIGIN_VAR,
            &format!(r#"{{"originVerify": "{new}", "previousOriginVerify": ""}}"#),
        )
        .unwrap();
        assert_eq!(origin_verify(&dropped).unwrap().previous, None);
        let short = SecretJson::parse(
            ORIGIN_VAR,
            &format!(r#"{{"originVerify": "{new}", "previousOriginVerify": "tiny"}}"#),
        )
        .unwrap();
        let err = origin_verify(&short).unwrap_err();
        assert!(
            err.contains("previousOriginVerify must be at least") && !err.contains("tiny"),
            "{err}"
        );
    }

    #[test]
    fn a_secret_value_with_surrounding_white_space_is_refused_by_name() {
        let padded =
            SecretJson::parse(ROOT_VAR, &format!("{{\"rootKey\": \"{HEX}\\n\"}}")).unwrap();
        let err = root_keys(&padded).err().unwrap_or_default();
        assert!(
            err.contains("rootKey has leading or trailing white space"),
            "{err}"
        );
        assert!(!err.contains(HEX), "the value leaked: {err}");
        let long = "v".repeat(64);
        let origin =
            SecretJson::parse(ORIGIN_VAR, &format!(r#"{{"originVerify": " {long}"}}"#)).unwrap();
        assert!(origin_verify(&origin).is_err());
        let staff = SecretJson::parse(STAFF_VAR, r#"{"clientSecret": "s3cr3t\t"}"#).unwrap();
        assert!(staff_client_secret(&staff).is_err());
    }

    fn client(endpoint: &str) -> Client {
        use aws_sdk_secretsmanager::config::{BehaviorVersion, Credentials, Region};
        let conf = aws_sdk_secretsmanager::Config::builder()
            .behavior_version(BehaviorVersion::latest())
            .region(Region::new("us-east-1"))
            .endpoint_url(endpoint)
            .credentials_provider(Credentials::new("test", "test", None, None, "test"))
            .build();
        Client::from_conf(conf)
    }

    #[tokio::test]
    async fn nothing_wanted_reads_nothing() {
        let fetched = fetch(&client("http://127.0.0.1:9"), Wanted::default(), TIMEOUT)
            .await
            .unwrap();
        assert!(fetched.keys.is_none());
        assert!(fetched.staff_client_secret.is_none() && fetched.origin_verify.is_none());
    }

    #[tokio::test]
    async fn an_endpoint_that_never_answers_fails_the_read_within_the_timeout() {
        // Accepts connections and never says a word.
        let silent = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = silent.local_addr().unwrap();
        let hold = tokio::spawn(async move {
            let mut held = Vec::new();
            while let Ok((conn, _)) = silent.accept().await {
                held.push(conn);
            }
        });
        let wanted = Wanted {
            root: Some("arn:aws:secretsmanager:us-east-1:1:secret:root"),
            origin: Some("arn:aws:secretsmanager:us-east-1:1:secret:origin"),
            ..Wanted::default()
        };
        let started = std::time::Instant::now();
        let err = fetch(
            &client(&format!("http://{addr}")),
            wanted,
            Duration::from_millis(300),
        )
        .await
        .err()
        .unwrap_or_default();
        assert!(started.elapsed() < Duration::from_secs(3), "{err}");
        assert!(err.contains("no answer from Secrets Manager"), "{err}");
        hold.abort();
    }

    #[tokio::test]
    async fn a_refused_connection_fails_the_read() {
        let wanted = Wanted {
            staff: Some("arn:aws:secretsmanager:us-east-1:1:secret:staff"),
            ..Wanted::default()
        };
        // Nothing listens on port 9 of the loopback.
        let err = fetch(&client("http://127.0.0.1:9"), wanted, TIMEOUT)
            .await
            .err()
            .unwrap_or_default();
        assert!(err.starts_with(STAFF_VAR), "{err}");
    }
}
