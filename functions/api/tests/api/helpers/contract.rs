//! docs/openapi.json as a contract, checked on every exchange of the suite: each request a test
//! sends and each answer it gets goes through [`check`] (from [`super::call_router`], the one
//! door to the router), on whichever engine the test runs (SQLite, DynamoDB Local). What it
//! proves is what partners read: the operation exists at that method and path template, the
//! status is one the operation lists, a JSON answer matches that status's schema, any other
//! answer has a documented content type, and a request the document refuses is refused by the
//! server too (a 2xx for it means the document is stricter than the code).
//!
//! The document is OpenAPI 3.1, whose Schema Objects are JSON Schema 2020-12 (no `nullable`:
//! a null is `"type": [.., "null"]`), so one 2020-12 validator reads them as written, formats
//! (`date-time`, `email`, `uri`, `uuid`) asserted. Each schema is compiled once, as a `$ref`
//! into the whole document, so its own `$ref`s resolve where the document means them.
//!
//! Coverage: every (operation, status) seen is counted; when the whole suite ran (no filter),
//! the exit prints the figure and fails the run if the operations left unexercised are not
//! exactly [`NOT_EXERCISED`] (docs/api-document.md §2 keeps the same list).

use axum::http::{HeaderMap, Method, StatusCode, Uri};
use serde_json::{json, Value};
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::{Arc, Mutex, OnceLock};

/// The operations the suite does not call, each with why (docs/api-document.md §2).
pub const NOT_EXERCISED: &[&str] = &[];

/// One exchange: what the test sent and what came back.
pub struct Exchange<'a> {
    pub method: &'a Method,
    pub uri: &'a Uri,
    pub request_headers: &'a HeaderMap,
    pub request_body: &'a [u8],
    pub status: StatusCode,
    pub response_headers: &'a HeaderMap,
    pub response_body: &'a [u8],
}

struct Operation {
    method: String,
    template: String,
    /// The template's segments: `None` for a `{param}`.
    segments: Vec<Option<String>>,
    id: String,
}

struct Document {
    doc: Value,
    operations: Vec<Operation>,
    validators: Mutex<HashMap<String, Arc<jsonschema::Validator>>>,
}

/// (operation id, status) -> how many exchanges.
type Seen = BTreeMap<(String, u16), usize>;

fn seen() -> &'static Mutex<Seen> {
    static SEEN: OnceLock<Mutex<Seen>> = OnceLock::new();
    SEEN.get_or_init(Default::default)
}

/// operation id -> the reasons its error answers carried.
fn reasons_seen() -> &'static Mutex<BTreeMap<String, BTreeSet<String>>> {
    static REASONS: OnceLock<Mutex<BTreeMap<String, BTreeSet<String>>>> = OnceLock::new();
    REASONS.get_or_init(Default::default)
}

static DOCUMENT: OnceLock<Document> = OnceLock::new();

fn document() -> &'static Document {
    DOCUMENT.get_or_init(|| {
        let doc: Value =
            serde_json::from_str(ciam_api::openapi::DOCUMENT).expect("docs/openapi.json is JSON");
        assert_eq!(
            doc["openapi"], "3.1.0",
            "the check reads OpenAPI 3.1 schemas"
        );
        let mut operations = Vec::new();
        for (template, item) in doc["paths"].as_object().expect("paths") {
            for (method, op) in item.as_object().expect("path item") {
                let Some(id) = op["operationId"].as_str() else {
                    continue;
                };
                // The template's segments after its leading `/`.
                let segments = template
                    .trim_start_matches('/')
                    .split('/')
                    .map(|s| (!s.starts_with('{')).then(|| s.to_owned()))
                    .collect();
                operations.push(Operation {
                    method: method.to_uppercase(),
                    template: template.clone(),
                    segments,
                    id: id.to_owned(),
                });
            }
        }
        at_exit_report_coverage();
        Document {
            doc,
            operations,
            validators: Mutex::default(),
        }
    })
}

/// The JSON pointer token for `s` (RFC 6901).
fn token(s: &str) -> String {
    s.replace('~', "~0").replace('/', "~1")
}

impl Document {
    /// The operation for `method` and `path` (under the base): of the templates that match, the
    /// one with the most literal segments (`/auth/passkeys/options` before `/auth/passkeys/{id}`).
    fn operation(&self, method: &Method, path: &str) -> Option<&Operation> {
        let parts: Vec<&str> = path.trim_start_matches('/').split('/').collect();
        self.operations
            .iter()
            .filter(|o| o.method == method.as_str() && o.segments.len() == parts.len())
            .filter(|o| {
                o.segments.iter().zip(&parts).all(|(s, p)| match s {
                    Some(lit) => lit == p,
                    None => !p.is_empty(),
                })
            })
            .max_by_key(|o| o.segments.iter().filter(|s| s.is_some()).count())
    }

    fn at(&self, pointer: &str) -> &Value {
        self.doc.pointer(pointer).unwrap_or(&Value::Null)
    }

    /// `pointer` itself, or where its `$ref` leads (Response and Request Body Objects).
    fn resolve(&self, pointer: String) -> String {
        match self.at(&pointer)["$ref"].as_str() {
            Some(r) => r.trim_start_matches('#').to_owned(),
            None => pointer,
        }
    }

    /// The errors of `instance` against the schema at `pointer`, as "at <instance pointer>:
    /// <error> (schema <pointer>)".
    fn errors(&self, pointer: &str, instance: &Value) -> Vec<String> {
        let cached = self
            .validators
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(pointer)
            .cloned();
        let validator = cached.unwrap_or_else(|| {
            let mut root = self.doc.clone();
            root["$schema"] = json!("https://json-schema.org/draft/2020-12/schema");
            // A URI fragment: the path templates' braces are percent-encoded.
            let fragment = pointer.replace('{', "%7B").replace('}', "%7D");
            root["$ref"] = json!(format!("#{fragment}"));
            let v = jsonschema::options()
                .with_draft(jsonschema::Draft::Draft202012)
                .should_validate_formats(true)
                .build(&root)
                .unwrap_or_else(|e| panic!("the schema at {pointer} compiles: {e}"));
            let v = Arc::new(v);
            self.validators
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .insert(pointer.to_owned(), v.clone());
            v
        });
        validator
            .iter_errors(instance)
            .map(|e| {
                format!(
                    "at \"{}\": {e} (schema #{})",
                    e.instance_path(),
                    e.schema_path()
                )
            })
            .collect()
    }
}

/// The media type of a `content-type` header, without its parameters.
fn media_type(headers: &HeaderMap) -> Option<String> {
    let v = headers.get("content-type")?.to_str().ok()?;
    Some(v.split(';').next()?.trim().to_ascii_lowercase())
}

fn is_json(media: &str) -> bool {
    media == "application/json" || media.ends_with("+json")
}

/// Checks one exchange against docs/openapi.json; panics (failing the test that made it) with
/// the operation, the status and each error's instance and schema pointers.
#[track_caller]
pub fn check(x: &Exchange<'_>) {
    check_exchange(x, true);
}

/// [`check`], not counted in the coverage: the checker's own tests (`api/contract.rs`) make
/// up exchanges.
#[track_caller]
pub fn check_uncounted(x: &Exchange<'_>) {
    check_exchange(x, false);
}

#[track_caller]
fn check_exchange(x: &Exchange<'_>, counted: bool) {
    let doc = document();
    let path = x.uri.path();
    let status = x.status.as_u16();
    let under = path.strip_prefix(ciam_api::BASE).unwrap_or(path);
    let Some(op) = doc.operation(x.method, under) else {
        // No operation: only the router's own refusals may answer, in the error shape.
        let body: Value = serde_json::from_slice(x.response_body).unwrap_or(Value::Null);
        let errors = doc.errors("/components/schemas/Error", &body);
        assert!(
            matches!(status, 404 | 405) && errors.is_empty(),
            "{} {path}: no operation in docs/openapi.json, yet answered {status} {errors:?}",
            x.method
        );
        return;
    };
    let name = format!("{} {} ({})", op.method, op.template, op.id);
    if counted {
        *seen()
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .entry((op.id.clone(), status))
            .or_default() += 1;
    }
    let op_pointer = format!(
        "/paths/{}/{}",
        token(&op.template),
        op.method.to_lowercase()
    );
    check_request(doc, x, &name, &op_pointer);
    check_response(doc, x, &name, &op_pointer);
}

fn check_request(doc: &Document, x: &Exchange<'_>, name: &str, op_pointer: &str) {
    let status = x.status.as_u16();
    let accepted = (200..300).contains(&status);
    let body_pointer = doc.resolve(format!("{op_pointer}/requestBody"));
    let documented = doc.at(&body_pointer)["content"].as_object();
    let Some(content) = documented else {
        // No request body documented: an empty one or `{}` is no body.
        let body = x.request_body.trim_ascii();
        assert!(
            !accepted || body.is_empty() || body == b"{}",
            "{name}: sent a body the document does not describe, and it was accepted: {}",
            String::from_utf8_lossy(body)
        );
        return;
    };
    if x.request_body.is_empty() {
        let required = doc.at(&body_pointer)["required"] == true;
        assert!(
            !(accepted && required),
            "{name}: accepted without the body the document requires"
        );
        return;
    }
    let Some(media) = media_type(x.request_headers) else {
        return;
    };
    if !content.contains_key(&media) {
        assert!(
            !accepted,
            "{name}: accepted a {media} body; the document lists {:?}",
            content.keys().collect::<Vec<_>>()
        );
        return;
    }
    let instance = if is_json(&media) {
        serde_json::from_slice::<Value>(x.request_body).ok()
    } else if media == "application/x-www-form-urlencoded" {
        let form: serde_json::Map<String, Value> = url::form_urlencoded::parse(x.request_body)
            .map(|(k, v)| (k.into_owned(), Value::String(v.into_owned())))
            .collect();
        Some(Value::Object(form))
    } else {
        return; // an image: its media type is all the document says
    };
    let Some(instance) = instance else {
        assert!(!accepted, "{name}: accepted a body that is not JSON");
        return;
    };
    let schema = format!("{body_pointer}/content/{}/schema", token(&media));
    let errors = doc.errors(&schema, &instance);
    assert!(
        !accepted || errors.is_empty(),
        "{name}: answered {status} to a request body the document refuses:\n  {}\nbody: {instance}",
        errors.join("\n  ")
    );
}

fn check_response(doc: &Document, x: &Exchange<'_>, name: &str, op_pointer: &str) {
    let status = x.status.as_u16();
    let responses = doc.at(&format!("{op_pointer}/responses"));
    let key = if responses.get(status.to_string()).is_some() {
        status.to_string()
    } else if responses.get("default").is_some() {
        "default".to_owned()
    } else {
        panic!(
            "{name}: answered {status}, which the document does not list: {}",
            String::from_utf8_lossy(x.response_body)
        );
    };
    let response = doc.resolve(format!("{op_pointer}/responses/{key}"));
    let media = media_type(x.response_headers);
    let Some(content) = doc.at(&response)["content"].as_object() else {
        assert!(
            x.response_body.is_empty(),
            "{name}: answered {status} with a {media:?} body where the document has none"
        );
        return;
    };
    let media = media.unwrap_or_default();
    assert!(
        content.contains_key(&media),
        "{name}: answered {status} as {media:?}; the document lists {:?}",
        content.keys().collect::<Vec<_>>()
    );
    if !is_json(&media) {
        return;
    }
    let body: Value = serde_json::from_slice(x.response_body)
        .unwrap_or_else(|e| panic!("{name}: answered {status} as {media} that is not JSON ({e})"));
    let schema = format!("{response}/content/{}/schema", token(&media));
    let errors = doc.errors(&schema, &body);
    assert!(
        errors.is_empty(),
        "{name}: the {status} answer does not match docs/openapi.json:\n  {}\nbody: {body}",
        errors.join("\n  ")
    );
    // An error's reason must be one its operation lists (`x-reasons`, from the row and the
    // handler's `Reasons:`), when the document lists them.
    if let (Some(reason), true) = (body["reason"].as_str(), status >= 400) {
        let op = doc.at(op_pointer);
        if let Some(listed) = op["x-reasons"].as_array() {
            assert!(
                listed.iter().any(|r| r == reason),
                "{name}: answered {status} {reason}, which its `x-reasons` does not list \
                 (the handler's doc comment `Reasons:`, or the row's own): {listed:?}"
            );
        }
        if let Some(id) = op["operationId"].as_str() {
            reasons_seen()
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .entry(id.to_owned())
                .or_default()
                .insert(reason.to_owned());
        }
    }
}

/// Did this run select every test? A name filter, `--skip` or `--exact` selects fewer.
fn whole_suite() -> bool {
    const VALUED: &[&str] = &[
        "--test-threads",
        "--format",
        "--color",
        "--logfile",
        "--shuffle-seed",
        "-Z",
    ];
    let mut args = std::env::args();
    args.next(); // the program's own path
    while let Some(a) = args.next() {
        if VALUED.contains(&a.as_str()) {
            args.next();
        } else if a == "--skip" || a == "--exact" || !a.starts_with('-') {
            return false;
        }
    }
    true
}

fn at_exit_report_coverage() {
    extern "C" fn report() {
        let Some(doc) = DOCUMENT.get() else {
            return;
        };
        let ids: Vec<&str> = doc.operations.iter().map(|o| o.id.as_str()).collect();
        let seen = seen().lock().map(|s| s.clone()).unwrap_or_default();
        let exercised: BTreeSet<&str> = seen.keys().map(|(id, _)| id.as_str()).collect();
        let missing: BTreeSet<&str> = ids
            .iter()
            .copied()
            .filter(|id| !exercised.contains(id))
            .collect();
        let whole = whole_suite();
        // A filtered run leaves most operations out by design: its figure, without the list.
        let left_out = if whole {
            format!("; not exercised: {missing:?}")
        } else {
            " (a filtered run)".to_owned()
        };
        println!(
            "docs/openapi.json: {} of {} operations exercised, {} (operation, status) pairs, \
             {} exchanges checked{left_out}",
            exercised.len(),
            ids.len(),
            seen.len(),
            seen.values().sum::<usize>()
        );
        // CIAM_CONTRACT_REASONS=<file>: the reasons each operation answered, as JSON (what a
        // handler's `Reasons:` is written from; docs/adding-a-route.md).
        if let Ok(out) = std::env::var("CIAM_CONTRACT_REASONS") {
            let reasons = reasons_seen().lock().map(|r| r.clone()).unwrap_or_default();
            let text = serde_json::to_string_pretty(&reasons).unwrap_or_default();
            if let Err(e) = std::fs::write(&out, text) {
                println!("CIAM_CONTRACT_REASONS: {out}: {e}");
            }
        }
        let expected: BTreeSet<&str> = NOT_EXERCISED.iter().copied().collect();
        if whole && missing != expected {
            println!(
                "FAILED: the operations no test exercises are {missing:?}, but \
                 contract::NOT_EXERCISED says {expected:?}: exercise them, or list them there \
                 and in docs/api-document.md with why"
            );
            // SAFETY: `_exit` ends the process without running further exit handlers; libtest
            // has finished and printed its results.
            unsafe { libc::_exit(101) };
        }
    }
    // SAFETY: `report` is an `extern "C" fn()`; called once, from the document's `OnceLock`.
    unsafe { libc::atexit(report) };
}
