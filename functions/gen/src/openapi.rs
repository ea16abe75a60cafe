//! docs/openapi.json, generated (docs/api-document.md §3). One source per fact:
//!
//! - the route row: the path, the method, the `operationId`, the `security` (`Auth`), the
//!   shared parameters and the path's own;
//! - the handler's doc comment (`routes/<module>.rs`): the `summary` (its first paragraph), the
//!   `description` (the paragraphs up to `Reasons:`) and the reasons it can answer beyond the
//!   row's own (the `Reasons:` paragraph; `Reasons: OAuth.` for an OAuth endpoint, whose errors
//!   are OAuth's and written in the source); what follows that paragraph (round trips) is for us;
//! - the handler's signature (`ciam_api::doc`): the JSON request body's schema and each JSON
//!   answer's, from the Rust types (`schemars`), the answers' named types in
//!   `components.schemas`;
//! - `Reason::ALL`: the `Reason` enum;
//! - docs/openapi/source.json, by hand: what no type says: `info`, `servers`, the security
//!   schemes, the shared parameters and error answer, the `webhooks` (what Ciam sends), and per
//!   operation what its signature cannot say yet (query parameters, a form or image body, a
//!   redirect, an answer built without a type). A piece in both places is an error naming it.

use ciam_api::doc::{Generators, Shape};
use ciam_api::{Auth, RouteDef};
use ciam_core::Reason;
use schemars::generate::SchemaSettings;
use serde_json::{json, Map, Value};
use std::collections::BTreeSet;
use std::path::Path;

/// The hand-written source, beside the document.
pub const SOURCE: &str = "docs/openapi/source.json";
/// The document.
pub const DOCUMENT: &str = "docs/openapi.json";

/// The prose and reasons of one operation, from its handler's doc comment.
#[derive(Debug, Default, PartialEq)]
pub struct Prose {
    pub summary: String,
    pub description: String,
    /// The reasons named in its `Reasons:` paragraph.
    pub reasons: Vec<Reason>,
    /// `Reasons: OAuth.`: its errors are OAuth's (RFC 6749 / 6750 JSON), written with its other
    /// answers in the source; none is generated.
    pub oauth: bool,
}

/// The doc comment of `name` in `source` (a `pub async fn name(`, or a handler written by a
/// macro whose doc comment precedes `name,` on its own line), as lines without `///`.
pub fn doc_comment(source: &str, name: &str) -> Option<Vec<String>> {
    let lines: Vec<&str> = source.lines().collect();
    let at = lines.iter().position(|l| {
        let t = l.trim_start();
        t.starts_with(&format!("pub async fn {name}("))
            || t.starts_with(&format!("pub(super) async fn {name}("))
            || t.starts_with(&format!("pub(crate) async fn {name}("))
            || t == format!("{name},")
    })?;
    let mut doc = Vec::new();
    for l in lines[..at].iter().rev() {
        let t = l.trim_start();
        if let Some(rest) = t.strip_prefix("///") {
            doc.push(rest.strip_prefix(' ').unwrap_or(rest).to_owned());
        } else if t.starts_with("#[") {
            continue;
        } else {
            break;
        }
    }
    doc.reverse();
    (!doc.is_empty()).then_some(doc)
}

/// The published part of a doc comment: None when it has no `Reasons:` paragraph (its prose
/// is still in the source).
pub fn prose(doc: &[String]) -> Result<Option<Prose>, String> {
    let mut paragraphs: Vec<String> = Vec::new();
    let mut current = String::new();
    for line in doc {
        if line.trim().is_empty() {
            if !current.is_empty() {
                paragraphs.push(std::mem::take(&mut current));
            }
        } else {
            if !current.is_empty() {
                current.push(' ');
            }
            current.push_str(line.trim());
        }
    }
    if !current.is_empty() {
        paragraphs.push(current);
    }
    let Some(at) = paragraphs.iter().position(|p| p.starts_with("Reasons:")) else {
        return Ok(None);
    };
    if at == 0 {
        return Err("the doc comment starts with `Reasons:`: the summary comes first".into());
    }
    let list = paragraphs[at]["Reasons:".len()..]
        .trim()
        .trim_end_matches('.');
    let mut reasons = Vec::new();
    let oauth = list == "OAuth";
    if list != "none" && !oauth {
        for name in list.split(',').map(str::trim) {
            let reason = Reason::ALL
                .iter()
                .find(|r| r.code() == name)
                .ok_or_else(|| {
                    format!("`Reasons:` names {name:?}, not a reason of the catalogue")
                })?;
            reasons.push(*reason);
        }
    }
    Ok(Some(Prose {
        summary: paragraphs[0].trim_end_matches('.').to_owned(),
        description: paragraphs[1..at].join("\n\n"),
        reasons,
        oauth,
    }))
}

/// The reasons any operation of `row` can answer whatever its handler does: the session's, the
/// console gate's, a body's, and on every route the last resort, the request deadline's and
/// the declared-keys guard's 503 (`middleware::deadline`, `middleware::declared_keys`: they
/// wrap every row, so no handler lists SERVICE_UNAVAILABLE) and the per-client limits' 429
/// (the global cell's web ACL, the cn cell's `middleware::client_limits`: the blanket rule
/// counts every route).
pub fn row_reasons(row: &RouteDef, shape: &Shape) -> Vec<Reason> {
    let mut out = vec![
        Reason::INTERNAL_SERVER_ERROR,
        Reason::SERVICE_UNAVAILABLE,
        Reason::VERIFYCODE_SENDING_TOO_QUICKLY,
    ];
    if matches!(row.auth, Auth::Session | Auth::Console(_)) {
        out.push(Reason::AUTHORIZATION_FAILED);
    }
    if let Auth::Console(_) = row.auth {
        // The gate: the role, two-factor, and a fresh proof (a change; a read after the
        // console's idle time too).
        out.push(Reason::PERMISSION_DENIED);
        out.push(Reason::CONSOLE_MFA_REQUIRED);
        out.push(Reason::REAUTH_REQUIRED);
    }
    if shape.request.is_some() {
        out.push(Reason::INVALID_PARAMETER);
    }
    out
}

fn generators() -> Generators {
    let request = SchemaSettings::draft2020_12()
        .for_deserialize()
        .with(|s| {
            s.inline_subschemas = true;
            s.meta_schema = None;
        })
        .into_generator();
    let answer = SchemaSettings::draft2020_12()
        .for_serialize()
        .with(|s| {
            s.definitions_path = "/components/schemas".into();
            s.meta_schema = None;
        })
        .into_generator();
    Generators { request, answer }
}

/// What a JSON answer's type leaves open is closed: the serialize contract lists every field the
/// type writes, so anything else in an answer is drift (the contract check's point).
fn close(value: &mut Value) {
    match value {
        Value::Object(map) => {
            if map.contains_key("properties") && !map.contains_key("additionalProperties") {
                map.insert("additionalProperties".into(), Value::Bool(false));
            }
            map.values_mut().for_each(close);
        }
        Value::Array(items) => items.iter_mut().for_each(close),
        _ => {}
    }
}

fn status_text(status: u16) -> &'static str {
    match status {
        200 => "OK",
        201 => "Created",
        202 => "Accepted",
        204 => "No Content",
        _ => "Answer",
    }
}

/// The handler's module file and function name (`auth::login_password`). A federation row's
/// shared handler (`federation::start`) publishes its provider's prose: the doc comment of the
/// part's name in the provider's file (`routes/staff.rs`, `start,`).
fn handler_file(root: &Path, row: &RouteDef) -> Result<(String, String), String> {
    let (module, name) = row.handler_name.rsplit_once("::").ok_or_else(|| {
        format!(
            "{}: handler {:?} is not module::name",
            row.id, row.handler_name
        )
    })?;
    let module = match row.lambda.fed.provider() {
        Some(p) => p.name(),
        None => module,
    };
    let rel = format!("functions/api/src/routes/{}.rs", module.replace("::", "/"));
    let text = std::fs::read_to_string(root.join(&rel)).map_err(|e| format!("{rel}: {e}"))?;
    Ok((text, name.to_owned()))
}

fn take(op: &mut Map<String, Value>, key: &str) -> Option<Value> {
    op.remove(key)
}

/// One operation from its row, handler and what the source keeps for it.
fn operation(
    root: &Path,
    row: &RouteDef,
    gens: &mut Generators,
    mut src: Map<String, Value>,
) -> Result<Value, String> {
    let at = format!("{} {} ({})", row.method, row.path, row.operation_id);
    let shape = (row.shape)(gens);
    let (file, name) = handler_file(root, row)?;
    let doc = doc_comment(&file, &name).unwrap_or_default();
    let prose = prose(&doc).map_err(|e| format!("{at}: handler {}: {e}", row.handler_name))?;
    for generated in ["operationId", "security", "x-reasons"] {
        if src.contains_key(generated) {
            return Err(format!(
                "{at}: {SOURCE} has `{generated}`, which the row gives"
            ));
        }
    }
    let mut op = Map::new();
    op.insert("operationId".into(), json!(row.operation_id));
    match &prose {
        Some(p) => {
            for key in ["summary", "description"] {
                if src.contains_key(key) {
                    return Err(format!(
                        "{at}: {SOURCE} has `{key}`, which the handler's doc comment gives"
                    ));
                }
            }
            op.insert("summary".into(), json!(p.summary));
            if !p.description.is_empty() {
                op.insert("description".into(), json!(p.description));
            }
        }
        None => {
            for key in ["summary", "description"] {
                if let Some(v) = take(&mut src, key) {
                    op.insert(key.into(), v);
                }
            }
        }
    }
    // Parameters: the shared two, the path's own (a description from the source kept), then
    // what the source lists (query parameters).
    let mut src_params: Vec<Value> = match take(&mut src, "parameters") {
        Some(Value::Array(p)) => p,
        Some(_) => return Err(format!("{at}: `parameters` is not an array")),
        None => Vec::new(),
    };
    let mut params = vec![
        json!({"$ref": "#/components/parameters/RequestId"}),
        json!({"$ref": "#/components/parameters/AcceptLanguage"}),
    ];
    src_params.retain(|p| {
        !matches!(p["$ref"].as_str(), Some(r) if r.ends_with("/RequestId") || r.ends_with("/AcceptLanguage"))
    });
    for seg in row.path.split('/') {
        if let Some(pname) = seg.strip_prefix('{').and_then(|s| s.strip_suffix('}')) {
            let given = src_params
                .iter()
                .position(|p| p["in"] == "path" && p["name"] == pname)
                .map(|i| src_params.remove(i));
            params.push(given.unwrap_or_else(|| {
                json!({"name": pname, "in": "path", "required": true, "schema": {"type": "string"}})
            }));
        }
    }
    if let Some(p) = src_params.iter().find(|p| p["in"] == "path") {
        return Err(format!(
            "{at}: {SOURCE} has path parameter {} not in the path",
            p["name"]
        ));
    }
    params.extend(src_params);
    op.insert("parameters".into(), Value::Array(params));

    // The request body.
    match (&shape.request, take(&mut src, "requestBody")) {
        (Some(_), Some(_)) => {
            return Err(format!(
                "{at}: {SOURCE} has `requestBody`, which the handler's `Json<T>` gives"
            ))
        }
        (Some(schema), None) => {
            op.insert(
                "requestBody".into(),
                json!({"required": true, "content": {"application/json": {"schema": schema}}}),
            );
        }
        (None, Some(body)) => {
            op.insert("requestBody".into(), body);
        }
        (None, None) => {}
    }

    // Answers: the typed ones, the source's others, then the errors.
    let mut responses = match take(&mut src, "responses") {
        Some(Value::Object(r)) => r,
        Some(_) => return Err(format!("{at}: `responses` is not an object")),
        None => Map::new(),
    };
    for (status, schema) in &shape.answers {
        let key = status.to_string();
        let mut schema = serde_json::to_value(schema).map_err(|e| e.to_string())?;
        close(&mut schema);
        let json = json!({"schema": schema});
        match responses.get_mut(&key) {
            // The source's answer of that status names other content types only (a download):
            // the JSON goes first beside them.
            Some(answer) => {
                let content = answer
                    .get_mut("content")
                    .and_then(Value::as_object_mut)
                    .filter(|c| !c.contains_key("application/json"))
                    .ok_or_else(|| {
                        format!(
                            "{at}: {SOURCE} has the {status} JSON answer, which the handler's \
                             return type gives"
                        )
                    })?;
                let mut all = Map::new();
                all.insert("application/json".into(), json);
                all.extend(std::mem::take(content));
                *content = all;
            }
            None => {
                responses.insert(
                    key,
                    json!({"description": status_text(*status),
                           "content": {"application/json": json}}),
                );
            }
        }
    }
    if let Some(p) = prose.as_ref().filter(|p| !p.oauth) {
        let mut all: Vec<Reason> = row_reasons(row, &shape);
        for r in &p.reasons {
            if all.contains(r) {
                return Err(format!(
                    "{at}: `Reasons:` names {r}, which every such row answers (leave it out)"
                ));
            }
            all.push(*r);
        }
        let statuses: BTreeSet<u16> = all.iter().map(|r| r.status()).collect();
        for status in statuses {
            let key = status.to_string();
            if responses.contains_key(&key) {
                return Err(format!(
                    "{at}: {SOURCE} has the {status} answer, which the reasons give"
                ));
            }
            let mut names: Vec<&str> = all
                .iter()
                .filter(|r| r.status() == status)
                .map(|r| r.code())
                .collect();
            names.sort_unstable();
            responses.insert(
                key,
                json!({"$ref": "#/components/responses/Error",
                       "description": format!("An error: {}", names.join(", "))}),
            );
        }
        let mut names: Vec<&str> = all.iter().map(|r| r.code()).collect();
        names.sort_unstable();
        op.insert("x-reasons".into(), json!(names));
    }
    op.insert("responses".into(), Value::Object(responses));

    let security: Vec<Value> = row
        .auth
        .openapi_security()
        .iter()
        .map(|alt| {
            Value::Object(
                alt.iter()
                    .map(|s| ((*s).to_owned(), json!([])))
                    .collect::<Map<String, Value>>(),
            )
        })
        .collect();
    op.insert("security".into(), Value::Array(security));
    // Whatever else the source says of it (extensions), as it is.
    for (k, v) in src {
        op.insert(k, v);
    }
    Ok(Value::Object(op))
}

/// The document from the source and the rows. Every operation of the source must be a row's.
pub fn document(root: &Path) -> Result<Value, String> {
    let path = root.join(SOURCE);
    let text = std::fs::read_to_string(&path).map_err(|e| format!("{SOURCE}: {e}"))?;
    let mut doc: Value = serde_json::from_str(&text).map_err(|e| format!("{SOURCE}: {e}"))?;
    let mut src_paths = match doc.as_object_mut().and_then(|d| d.remove("paths")) {
        Some(Value::Object(p)) => p,
        None => Map::new(),
        Some(_) => return Err(format!("{SOURCE}: `paths` is not an object")),
    };
    let mut gens = generators();
    let mut paths = Map::new();
    for row in ciam_api::all_routes() {
        let method = row.method.to_ascii_lowercase();
        let src = src_paths
            .get_mut(row.path)
            .and_then(|item| item.as_object_mut())
            .and_then(|item| item.remove(&method));
        let src = match src {
            Some(Value::Object(op)) => op,
            Some(_) => {
                return Err(format!(
                    "{SOURCE}: {} {} is not an object",
                    row.method, row.path
                ))
            }
            None => Map::new(),
        };
        let op = operation(root, row, &mut gens, src)?;
        if let Value::Object(item) = paths
            .entry(row.path.to_owned())
            .or_insert_with(|| Value::Object(Map::new()))
        {
            item.insert(method, op);
        }
    }
    for (p, item) in &src_paths {
        if let Some(m) = item.as_object().and_then(|m| m.keys().next()) {
            return Err(format!("{SOURCE}: {m} {p} is no row's route"));
        }
    }
    let schemas = doc["components"]["schemas"]
        .as_object_mut()
        .ok_or_else(|| format!("{SOURCE}: no components.schemas"))?;
    schemas.insert(
        "Reason".into(),
        json!({"type": "string", "description": "The stable reason of an error (the catalogue: docs/api.md).",
               "enum": Reason::ALL.iter().map(|r| r.code()).collect::<Vec<_>>()}),
    );
    for (name, mut schema) in gens.answer.take_definitions(true) {
        if schemas.contains_key(&name) {
            return Err(format!(
                "{SOURCE}: components.schemas.{name} is also an answer type's (one of them goes)"
            ));
        }
        close(&mut schema);
        schemas.insert(name, schema);
    }
    doc["paths"] = Value::Object(paths);
    Ok(doc)
}

/// The document's text as committed.
pub fn render(root: &Path) -> Result<String, String> {
    let doc = document(root)?;
    let mut text = serde_json::to_string_pretty(&doc).map_err(|e| e.to_string())?;
    text.push('\n');
    Ok(text)
}
