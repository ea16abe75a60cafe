//! The generated files are what the route table makes (the drift check `ciam-gen --check` runs
//! in `npm test` too), a row change is caught until it is regenerated, and the hand-written
//! part of template.yaml stays small.

// Test code: a panic is the failure report, so unwrap and expect are allowed here
// (the workspace denies them in the product, Cargo.toml [workspace.lints]).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use ciam_api::{Auth, Binary, Lambda, Waf};
use ciam_gen::{generate, hand_written_lines, root, splice, table_functions, Function, Region};
use std::path::Path;

fn committed(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap()
}

/// The files as committed and as `fns` would make them: (path, committed, generated).
fn files(fns: &[Function]) -> Vec<(String, String, String)> {
    generate(&root(), fns)
        .unwrap()
        .into_iter()
        .map(|(p, text)| (p.display().to_string(), committed(&p), text))
        .collect()
}

#[test]
fn the_committed_files_are_what_the_table_generates() {
    let fns = table_functions(&root()).unwrap();
    for (path, committed, generated) in files(&fns) {
        assert!(
            committed == generated,
            "{path} is not what the route table generates: run `npm run gen`"
        );
    }
}

#[test]
fn a_row_changed_without_regenerating_is_caught_and_regenerating_fixes_it() {
    let mut fns = table_functions(&root()).unwrap();
    let login = fns
        .iter_mut()
        .find(|f| f.id == "auth_login_password")
        .unwrap();
    login.lambda.memory = 2048;
    let files = files(&fns);
    let (_, committed, generated) = files
        .iter()
        .find(|(p, _, _)| p.ends_with("template.yaml"))
        .unwrap();
    assert_ne!(committed, generated, "the drift check sees the new memory");
    assert!(generated.contains("MemorySize: 2048"));
    // Regenerating is idempotent: the generated text regenerates to itself.
    let mut again = generated.clone();
    for region in Region::TEMPLATE {
        again = splice(&again, region, &region.render(&fns, &again)).unwrap();
    }
    assert_eq!(&again, generated);
}

/// What docs/adding-a-route.md promises: a new row (here a made-up anonymous writing route
/// with a sign-in method) gets its function, log group, throttle, sign-in metrics, action row
/// and routes.json entry from the generator, and no other file names it.
#[test]
fn a_new_row_gets_everything_in_aws_from_the_generator() {
    let mut fns = table_functions(&root()).unwrap();
    fns.push(Function {
        id: "auth_login_sample".into(),
        method: "POST".into(),
        path: "/ciam/v1/auth/login/sample".into(),
        binary: Binary::Bootstrap,
        summary: "A sample sign-in".into(),
        sign_in: Some("sample".into()),
        auth: Auth::Public,
        lambda: Lambda::WRITES.throttle(30, 15).waf(Waf::SignIn),
        internal: false,
    });
    let files = files(&fns);
    let text = |name: &str| {
        files
            .iter()
            .find(|(p, _, _)| p.ends_with(name))
            .map(|(_, _, g)| g.clone())
            .unwrap()
    };
    let template = text("template.yaml");
    for wanted in [
        "  AuthLoginSampleFunction:\n",
        "          CIAM_ROUTE: auth_login_sample\n",
        "            Path: /ciam/v1/auth/login/sample\n",
        "  AuthLoginSampleLogs:\n",
        "        \"POST /ciam/v1/auth/login/sample\":\n          ThrottlingBurstLimit: 30\n",
        "  AuthLoginSampleSignInFilter:\n",
        "  AuthLoginSampleSignInFailuresFilter:\n",
        "Description: \"POST /ciam/v1/auth/login/sample - A sample sign-in\"",
    ] {
        assert!(template.contains(wanted), "template.yaml lacks {wanted:?}");
    }
    assert!(text("operations.md").contains("| AuthLoginSampleFunction | `dynamodb:"));
    assert!(text("routes.json").contains("\"id\": \"auth_login_sample\""));
    // Its rule counts it, and the console host serves it, with no edit of infra/waf.yaml's rules.
    let waf = text("waf.yaml");
    let sign_in = waf_map_line(&waf, "SignIn");
    assert!(sign_in.contains("|sample") && sign_in.contains("login/(?:"));
    assert!(waf_map_line(&waf, "ConsoleHostOnly").contains("|sample"));
    assert_eq!(
        hand_written(&waf),
        hand_written(&committed(&root().join("infra/waf.yaml")))
    );
}

/// A value of infra/waf.yaml's generated `Paths` map.
fn waf_map_line(waf: &str, name: &str) -> String {
    waf.lines()
        .find_map(|l| l.trim().strip_prefix(&format!("{name}: ")))
        .unwrap()
        .to_owned()
}

/// The lines outside the generated regions.
fn hand_written(text: &str) -> String {
    let mut inside = false;
    let mut out = String::new();
    for line in text.lines() {
        if line.starts_with("# END GENERATED ") {
            inside = false;
        }
        if !inside {
            out.push_str(line);
            out.push('\n');
        }
        if line.starts_with("# BEGIN GENERATED ") {
            inside = true;
        }
    }
    out
}

/// A sign-in provider's start and callback rows (docs/federation-design.md §1.5) are counted by
/// the sign-in rules and served on the console host; a path with a parameter makes the rule a
/// regular expression; a pattern over WAF's 512 characters is refused, naming the rule.
#[test]
fn new_paths_reach_the_web_acl_through_the_map_and_oversized_patterns_are_refused() {
    let mut fns = table_functions(&root()).unwrap();
    let base = fns
        .iter()
        .find(|f| f.id == "auth_staff_start")
        .unwrap()
        .clone();
    for (id, path) in [
        ("auth_acme_start", "/ciam/v1/auth/acme/start"),
        ("auth_acme_callback", "/ciam/v1/auth/acme/callback"),
    ] {
        fns.push(Function {
            id: id.into(),
            path: path.into(),
            ..base.clone()
        });
    }
    let paths = ciam_gen::waf::render_paths(&fns).unwrap();
    for name in ["SignIn", "SignInCodesRegister", "ConsoleHostOnly"] {
        assert!(
            waf_map_line(&paths, name).contains("acme/(?:start|callback)"),
            "{name}"
        );
    }
    assert!(!waf_map_line(&paths, "Codes").contains("acme"));
    for i in 0..40 {
        fns.push(Function {
            id: format!("auth_long_{i}"),
            path: format!("/ciam/v1/auth/a-rather-long-provider-name-{i}/start"),
            ..base.clone()
        });
    }
    let err = ciam_gen::waf::render_paths(&fns).unwrap_err();
    assert!(err.contains("over WAF's limit of 512"), "{err}");
}

/// A row without a sign-in logs to the shared `FunctionLogs` (no group of its own); a gradual
/// row gets the alias `live`, the CodeDeploy preference and its canary alarm.
#[test]
fn log_groups_follow_the_sign_in_and_a_gradual_row_gets_its_canary() {
    let mut fns = table_functions(&root()).unwrap();
    fns.push(Function {
        id: "auth_sample".into(),
        method: "GET".into(),
        path: "/ciam/v1/auth/sample".into(),
        binary: Binary::Bootstrap,
        summary: "A sample".into(),
        sign_in: None,
        auth: Auth::Session,
        lambda: Lambda::WRITES.gradual(),
        internal: false,
    });
    let template = generate(&root(), &fns)
        .unwrap()
        .into_iter()
        .find(|(p, _)| p.ends_with("template.yaml"))
        .unwrap()
        .1;
    let function = &template[template.find("  AuthSampleFunction:\n").unwrap()..];
    let function = &function[..function.find("\n\n").unwrap()];
    for wanted in [
        "      AutoPublishAlias: live\n",
        "        Type: !Ref DeploymentType\n",
        "          - !Ref AuthSampleCanaryErrorsAlarm\n",
        "        LogGroup: !Ref FunctionLogs\n",
    ] {
        assert!(
            function.contains(wanted),
            "AuthSampleFunction lacks {wanted:?}"
        );
    }
    assert!(!template.contains("  AuthSampleLogs:\n"));
    assert!(template.contains("  AuthSampleCanaryErrorsAlarm:\n"));
    assert!(template.contains("          Value: !Sub \"${AuthSampleFunction}:live\"\n"));
    // The sign-in rows keep their groups, a year by default.
    assert!(template.contains(
        "  AuthLoginPasswordLogs:\n    Type: AWS::Logs::LogGroup\n    DeletionPolicy: Delete\n    UpdateReplacePolicy: Delete\n    Properties:\n      RetentionInDays: !Ref SignInLogRetentionDays\n"
    ));
}

#[test]
fn the_hand_written_part_of_the_template_is_at_most_2600_lines() {
    // What is written once by hand: the table, secrets, keys, the distribution, the web bucket,
    // and (issue 22) the on-call pieces (the canary and its inline script, the alarms, the
    // dashboard) and the backups; (issue 30) the production rules, the audit log's policies and
    // tripwire alarm, the pre-traffic check. Everything per route is generated.
    let template = committed(&root().join("template.yaml"));
    let hand = hand_written_lines(&template);
    assert!(
        hand <= 2600,
        "template.yaml has {hand} hand-written lines (at most 2,600)"
    );
    assert!(
        hand < template.lines().count() / 2,
        "most of it is generated"
    );
}

#[test]
fn a_missing_or_repeated_marker_is_an_error_naming_it() {
    let e = splice("a\nb\n", Region::Functions, "x\n").unwrap_err();
    assert!(e.contains("BEGIN GENERATED functions"), "{e}");
    let twice =
        "# BEGIN GENERATED functions: x\n# END GENERATED functions\n# END GENERATED functions\n";
    let text = twice.replace(
        ": x",
        ": from the route table by ciam-gen (npm run gen); do not edit",
    );
    let e = splice(&text, Region::Functions, "x\n").unwrap_err();
    assert!(e.contains("2 times"), "{e}");
}

#[test]
fn every_route_has_a_summary_for_its_function_description() {
    let fns = table_functions(&root()).unwrap();
    assert_eq!(
        fns.len(),
        ciam_api::all_routes().count()
            + ciam_api::PAGES.len()
            + ciam_api::INTERNAL.len()
            + ciam_api::WEBHOOK_FUNCTIONS.len()
    );
    let internal: Vec<&str> = fns
        .iter()
        .filter(|f| f.internal)
        .map(|f| f.id.as_str())
        .collect();
    assert_eq!(
        internal,
        [
            ciam_api::IMAGE_DECODER.id,
            ciam_api::WEBHOOK_FANOUT.id,
            ciam_api::WEBHOOK_DELIVERY.id
        ]
    );
    // The image decoder is the one function of binary `decoder` (the image crates link nowhere
    // else, docs/operations.md §10).
    let decoders: Vec<&str> = fns
        .iter()
        .filter(|f| f.binary == Binary::Decoder)
        .map(|f| f.id.as_str())
        .collect();
    assert_eq!(decoders, [ciam_api::IMAGE_DECODER.id]);
    for f in &fns {
        assert!(!f.summary.trim().is_empty(), "{}", f.id);
        assert!(f.logical_id().ends_with("Function"));
    }
}

/// A new provider is a `Facts` entry: its template parameters (one per setting, empty by
/// default), its client secret (a retained, generated placeholder) and the output naming it are
/// written into template.yaml's generated regions, and not one hand-written line changes.
#[test]
fn a_new_provider_s_parameters_secret_and_output_need_no_template_edit() {
    use ciam_core::federation::{Facts, Setting, STAFF};
    const ACME: Facts = Facts {
        name: "acme",
        env: "CIAM_ACME",
        stem: "Acme",
        settings: &[
            Setting {
                name: "CORP_ID",
                callback_only: false,
                description: "the corporation's id.",
            },
            Setting {
                name: "AGENT_ID",
                callback_only: true,
                description: "the app's agent id.",
            },
        ],
        title: "Acme sign-in",
        ..STAFF
    };
    let template = committed(&root().join("template.yaml"));
    let providers = [STAFF, ACME];
    let mut text = template.clone();
    for (region, content) in [
        (
            Region::FederationParameters,
            ciam_gen::federation::render_parameters(&providers),
        ),
        (
            Region::FederationSecrets,
            ciam_gen::federation::render_secrets(&providers),
        ),
        (
            Region::FederationOutputs,
            ciam_gen::federation::render_outputs(&providers),
        ),
    ] {
        text = splice(&text, region, &content).unwrap();
    }
    assert_eq!(hand_written_lines(&text), hand_written_lines(&template));
    for want in [
        "  AcmeCorpId:\n    Type: String\n    Default: \"\"\n",
        "  AcmeAgentId:\n    Type: String\n    Default: \"\"\n",
        "<PublicUrl>/ciam/v1/auth/acme/callback there as the redirect URI",
        "  AcmeSecret:\n    Type: AWS::SecretsManager::Secret\n    DeletionPolicy: RetainExceptOnCreate\n",
        "  AcmeSecretArn:\n",
        "    Value: !Ref AcmeSecret\n",
        // Staff's names are kept: no stack replacement, no secret renamed.
        "  StaffIssuer:\n",
        "  StaffSecret:\n",
        "  StaffSecretArn:\n",
    ] {
        assert!(text.contains(want), "{want}");
    }
    // The parameters sit under `Parameters:`, the secret under `Resources:`, the output under
    // `Outputs:`.
    let at = |s: &str| text.find(s).unwrap();
    assert!(at("\nParameters:\n") < at("  AcmeCorpId:\n"));
    assert!(at("  AcmeCorpId:\n") < at("\nResources:\n"));
    assert!(at("\nResources:\n") < at("  AcmeSecret:\n"));
    assert!(at("\nOutputs:\n") < at("  AcmeSecretArn:\n"));
}

/// Issue 33: a new provider's start and callback rows (here copies of WeChat's under
/// `/auth/acme/...`) are counted by the web ACL's sign-in rules through the generated `Paths`
/// map, stay off the console host (a customer's way in), and get their functions and log groups,
/// with not one hand-written line of infra/waf.yaml or template.yaml changed. With
/// `a_new_provider_s_parameters_secret_and_output_need_no_template_edit` (its settings and
/// secret), a provider is its `Facts` and its rows.
#[test]
fn a_new_provider_s_rows_need_no_hand_written_waf_pattern_or_template_edit() {
    let mut fns = table_functions(&root()).unwrap();
    for part in ["start", "callback"] {
        let wechat = fns
            .iter()
            .find(|f| f.id == format!("auth_wechat_{part}"))
            .unwrap()
            .clone();
        fns.push(Function {
            id: format!("auth_acme_{part}"),
            path: format!("/ciam/v1/auth/acme/{part}"),
            ..wechat
        });
    }
    let files = files(&fns);
    let text = |name: &str| {
        files
            .iter()
            .find(|(p, _, _)| p.ends_with(name))
            .map(|(_, _, g)| g.clone())
            .unwrap()
    };
    let waf = text("waf.yaml");
    assert!(waf_map_line(&waf, "SignIn").contains("acme/(?:start|callback)"));
    assert!(waf_map_line(&waf, "SignInCodesRegister").contains("acme/(?:start|callback)"));
    assert!(!waf_map_line(&waf, "ConsoleHostOnly").contains("acme"));
    assert_eq!(
        hand_written(&waf),
        hand_written(&committed(&root().join("infra/waf.yaml")))
    );
    let template = text("template.yaml");
    for wanted in [
        "  AuthAcmeStartFunction:\n",
        "  AuthAcmeCallbackFunction:\n",
        "            Path: /ciam/v1/auth/acme/callback\n",
    ] {
        assert!(template.contains(wanted), "template.yaml lacks {wanted:?}");
    }
    assert_eq!(
        hand_written_lines(&template),
        hand_written_lines(&committed(&root().join("template.yaml")))
    );
}
