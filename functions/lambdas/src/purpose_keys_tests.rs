use super::*;
use std::sync::Mutex;

const A: &str = "a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1";
const B: &str = "b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2";

fn root(a: &str) -> Keys {
    Keys::from_hex(a).unwrap()
}

/// The secrets the distributor makes of `root_text`, as a function reads them.
fn texts(root_text: &str) -> BTreeMap<KeyPurpose, String> {
    secrets_from_root(root_text)
        .unwrap()
        .into_iter()
        .map(|(p, v)| (p, v.to_string()))
        .collect()
}

fn all() -> Purposes {
    KeyPurpose::ALL
        .into_iter()
        .fold(Purposes::NONE, |s, p| s.with(p))
}

#[test]
fn a_function_gets_the_same_keys_as_from_the_root() {
    let t = texts(&json!({ "rootKey": A }).to_string());
    assert_eq!(t.len(), 11, "every purpose but Es256 has a secret");
    assert!(!t.contains_key(&KeyPurpose::Es256));
    let keys = keys_from_secrets(all(), &t).unwrap();
    for p in KeyPurpose::ALL {
        for label in p.labels() {
            assert_eq!(keys.derive(label), root(A).derive(label), "{label}");
            assert_eq!(
                keys.keyed_hash(label, b"made before"),
                root(A).keyed_hash(label, b"made before")
            );
        }
    }
    assert!(keys.previous().is_none());
    let v: Value = serde_json::from_str(&t[&KeyPurpose::Session]).unwrap();
    assert_eq!(
        v,
        json!({"key": {
            "session": hex::encode(root(A).derive("session")),
            "mfa": hex::encode(root(A).derive("mfa")),
        }})
    );
}

#[test]
fn the_overlap_and_the_announcement_carry_over_per_label() {
    let t = texts(&json!({ "rootKey": B, "previousRootKey": A }).to_string());
    let keys =
        keys_from_secrets(Purposes::of(&[KeyPurpose::Session, KeyPurpose::Seal]), &t).unwrap();
    assert!(keys.writes_back());
    assert_eq!(keys.derive("session"), root(B).derive("session"));
    let prev = keys.previous().unwrap();
    assert_eq!(prev.derive("totp-secret"), root(A).derive("totp-secret"));
    assert_eq!(prev.allowed(), keys.allowed());

    let t = texts(&json!({ "rootKey": A, "nextRootKey": B }).to_string());
    assert!(t[&KeyPurpose::Ticket].contains("nextKey"));
    let keys = keys_from_secrets(Purposes::of(&[KeyPurpose::Ticket]), &t).unwrap();
    assert!(!keys.writes_back());
    assert_eq!(keys.derive("ticket"), root(A).derive("ticket"));
    assert_eq!(
        keys.previous().unwrap().derive("ticket"),
        root(B).derive("ticket")
    );
}

#[test]
#[should_panic(expected = "purpose Session used but not declared")]
fn a_function_without_the_session_purpose_cannot_derive_it() {
    let t = texts(&json!({ "rootKey": A }).to_string());
    let captcha: BTreeMap<_, _> = t
        .into_iter()
        .filter(|(p, _)| *p == KeyPurpose::Captcha)
        .collect();
    let keys = keys_from_secrets(Purposes::of(&[KeyPurpose::Captcha]), &captcha).unwrap();
    assert_eq!(keys.derive("captcha"), root(A).derive("captcha"));
    keys.derive("session");
}

#[test]
fn bad_or_missing_secrets_are_refused_by_name() {
    let purposes = Purposes::of(&[KeyPurpose::Code]);
    let err = keys_from_secrets(purposes, &BTreeMap::new()).err().unwrap();
    assert!(
        err.contains("CIAM_CODE_KEY_SECRET_ARN is required"),
        "{err}"
    );
    for (text, says) in [
        ("nope", "not a JSON object"),
        ("{}", "key is missing"),
        (r#"{"key": {"code": "12"}}"#, "key.code must be 64 hex"),
        (r#"{"key": []}"#, "must be an object"),
    ] {
        let t = BTreeMap::from([(KeyPurpose::Code, text.to_owned())]);
        let err = keys_from_secrets(purposes, &t).err().unwrap();
        assert!(err.contains(says), "{err}");
        assert!(!err.contains("12\""), "never the value");
    }
    // Es256 needs no secret: its keys come from KMS in AWS.
    assert!(keys_from_secrets(Purposes::of(&[KeyPurpose::Es256]), &BTreeMap::new()).is_ok());
}

#[derive(Default)]
struct Memory {
    secrets: Mutex<BTreeMap<String, String>>,
    puts: Mutex<Vec<String>>,
}

#[async_trait::async_trait]
impl SecretsPort for Memory {
    async fn get(&self, id: &str) -> Result<String, String> {
        self.secrets
            .lock()
            .unwrap()
            .get(id)
            .cloned()
            .ok_or_else(|| format!("no {id}"))
    }
    async fn put(&self, id: &str, text: &str) -> Result<(), String> {
        self.puts.lock().unwrap().push(id.to_owned());
        self.secrets
            .lock()
            .unwrap()
            .insert(id.to_owned(), text.to_owned());
        Ok(())
    }
}

fn targets() -> BTreeMap<KeyPurpose, String> {
    KeyPurpose::ALL
        .into_iter()
        .filter(|p| p.distributed())
        .map(|p| (p, format!("{}KeySecret", p.name())))
        .collect()
}

#[tokio::test]
async fn the_distributor_writes_what_changed_only() {
    let port = Memory::default();
    let set_root = |v: Value| {
        port.secrets
            .lock()
            .unwrap()
            .insert("RootSecret".into(), v.to_string())
    };
    set_root(json!({ "rootKey": A }));
    let done = distribute(&port, "RootSecret", &targets()).await.unwrap();
    assert_eq!(done.written.len(), 11);
    let again = distribute(&port, "RootSecret", &targets()).await.unwrap();
    assert!(again.written.is_empty());
    assert_eq!(again.unchanged.len(), 11);
    assert_eq!(port.puts.lock().unwrap().len(), 11, "no new versions");

    // The rotation runbook: the root changes, the distributor reruns, functions read the
    // overlap; then the previous root is dropped and the distributor reruns again.
    set_root(json!({ "rootKey": B, "previousRootKey": A }));
    distribute(&port, "RootSecret", &targets()).await.unwrap();
    let read =
        |p: KeyPurpose| port.secrets.lock().unwrap()[&format!("{}KeySecret", p.name())].clone();
    let t = BTreeMap::from([(KeyPurpose::App, read(KeyPurpose::App))]);
    let keys = keys_from_secrets(Purposes::of(&[KeyPurpose::App]), &t).unwrap();
    assert_eq!(keys.derive("app-secret"), root(B).derive("app-secret"));
    assert_eq!(
        keys.previous().unwrap().derive("app-secret"),
        root(A).derive("app-secret")
    );
    set_root(json!({ "rootKey": B }));
    distribute(&port, "RootSecret", &targets()).await.unwrap();
    let t = BTreeMap::from([(KeyPurpose::App, read(KeyPurpose::App))]);
    let keys = keys_from_secrets(Purposes::of(&[KeyPurpose::App]), &t).unwrap();
    assert!(keys.previous().is_none());

    let mut missing = targets();
    missing.remove(&KeyPurpose::Oidc);
    port.secrets.lock().unwrap().remove("OidcKeySecret");
    let err = distribute(&port, "RootSecret", &missing)
        .await
        .err()
        .unwrap();
    assert!(
        err.contains("CIAM_OIDC_KEY_SECRET_ARN is required"),
        "{err}"
    );
    set_root(json!({ "rootKey": "short" }));
    let err = distribute(&port, "RootSecret", &targets())
        .await
        .err()
        .unwrap();
    assert!(err.contains("at least 32"), "{err}");
}

/// A port whose `put` fails from its `fail_at`-th call on (a distribution that stops part-way).
struct FailingAt {
    inner: Memory,
    fail_at: usize,
    calls: Mutex<usize>,
}

#[async_trait::async_trait]
impl SecretsPort for FailingAt {
    async fn get(&self, id: &str) -> Result<String, String> {
        self.inner.get(id).await
    }
    async fn put(&self, id: &str, text: &str) -> Result<(), String> {
        let n = {
            let mut calls = self.calls.lock().unwrap();
            *calls += 1;
            *calls
        };
        if n >= self.fail_at {
            return Err(format!("cannot write {id}: throttled"));
        }
        self.inner.put(id, text).await
    }
}

#[tokio::test]
async fn a_function_with_two_purposes_starts_when_a_distribution_stopped_between_them() {
    let port = FailingAt {
        inner: Memory::default(),
        fail_at: usize::MAX,
        calls: Mutex::new(0),
    };
    let set_root = |v: Value| {
        port.inner
            .secrets
            .lock()
            .unwrap()
            .insert("RootSecret".into(), v.to_string())
    };
    set_root(json!({ "rootKey": A, "nextRootKey": B }));
    distribute(&port, "RootSecret", &targets()).await.unwrap();
    // Step 2's distribution writes Session and Seal, then fails on its third secret.
    set_root(json!({ "rootKey": B, "previousRootKey": A }));
    let port = FailingAt {
        fail_at: 3,
        calls: Mutex::new(0),
        ..port
    };
    let err = distribute(&port, "RootSecret", &targets()).await;
    assert!(err.is_err());
    let read = |p: KeyPurpose| {
        port.inner.secrets.lock().unwrap()[&format!("{}KeySecret", p.name())].clone()
    };
    assert!(read(KeyPurpose::Session).contains("previousKey"));
    assert!(read(KeyPurpose::Ticket).contains("nextKey"));
    // `auth_login_token` holds both: it starts, each purpose at its own step.
    let both = Purposes::of(&[KeyPurpose::Session, KeyPurpose::Ticket]);
    let t = BTreeMap::from([
        (KeyPurpose::Session, read(KeyPurpose::Session)),
        (KeyPurpose::Ticket, read(KeyPurpose::Ticket)),
    ]);
    let keys = keys_from_secrets(both, &t).unwrap();
    // Sessions are made under B (what step-2 holders make) and A's are still found.
    assert_eq!(keys.derive("session"), root(B).derive("session"));
    assert_eq!(
        keys.previous().unwrap().derive("session"),
        root(A).derive("session")
    );
    // Tickets are made under A (what step-1 holders still accept alone) and B's are found.
    assert_eq!(keys.derive("ticket"), root(A).derive("ticket"));
    assert_eq!(
        keys.previous().unwrap().derive("ticket"),
        root(B).derive("ticket")
    );
    // Nothing moves back to A: no write-back while a purpose is only announced.
    assert!(!keys.writes_back());
}
