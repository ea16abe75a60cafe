//! The cn cell's stack (infra/cn.yaml, functions/gen/src/cn.rs): written from the same rows as
//! template.yaml, without what China lacks, and a template.yaml the rewrite no longer recognises
//! stops the generator instead of leaking a global-only piece into the cn stack.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use ciam_gen::{cn, root, table_functions, Cell, Region};

fn main_text() -> String {
    std::fs::read_to_string(root().join("template.yaml")).unwrap()
}

#[test]
fn the_cn_stack_has_every_function_of_the_global_one_and_nothing_china_lacks() {
    let fns = table_functions(&root()).unwrap();
    let main = main_text();
    let stack = cn::render(&fns, &main).unwrap();
    // The logical ids of the Lambda functions: the line above each `AWS::Serverless::Function`.
    let logical = |t: &str| -> Vec<String> {
        let lines: Vec<&str> = t.lines().collect();
        lines
            .windows(2)
            .filter(|w| w[1].trim() == "Type: AWS::Serverless::Function")
            .map(|w| w[0].to_owned())
            .collect()
    };
    assert_eq!(logical(&stack), logical(&main));
    assert!(logical(&main).len() > 60);
    for absent in [
        "FunctionUrlConfig",
        "ses:SendEmail",
        // The SMS statement (the alarm topic's own policy lets CloudWatch publish to it).
        "SendSmsButNoTopic",
        "Type: AWS::CloudFront::Function",
        "Type: AWS::CloudFront::OriginAccessControl",
        "Type: AWS::ObservabilityAdmin::TelemetryEnrichment",
        "WebAclArn",
        "CertificateArn",
        "WHERE tag.CiamStack",
        "arn:aws:",
    ] {
        assert!(!stack.contains(absent), "{absent} is in the cn stack");
    }
    for present in [
        "AWS::CloudFront::CloudFrontOriginAccessIdentity",
        "IamCertificateId: !Ref IamCertificateId",
        "CIAM_SMS_PROVIDER_SECRET: !Ref SmsProviderSecretName",
        "Location: cn-console.yaml",
        "CodeUri: ../functions/lambdas",
    ] {
        assert!(stack.contains(present), "{present} is not in the cn stack");
    }
}

#[test]
fn the_global_regions_render_as_before_and_only_cn_drops_the_function_url() {
    let fns = table_functions(&root()).unwrap();
    let main = main_text();
    let global = Region::Functions.render(&fns, &main);
    assert_eq!(
        global,
        Region::Functions.render_in(&fns, &main, Cell::Global)
    );
    assert!(global.contains("FunctionUrlConfig"));
    assert!(!Region::Functions
        .render_in(&fns, &main, Cell::Cn)
        .contains("FunctionUrlConfig"));
}

#[test]
fn a_template_the_rewrite_does_not_recognise_stops_the_generator() {
    let fns = table_functions(&root()).unwrap();
    let changed = main_text().replace(
        "OriginAccessControlId: !GetAtt WebOriginAccessControl.Id",
        "OriginAccessControlId: !GetAtt WebOriginAccessControl.Id # moved",
    );
    let err = cn::render(&fns, &changed).unwrap_err();
    assert!(err.contains("OriginAccessControlId"), "{err}");
    let without = main_text().replace("  SpaRewriteFunction:\n", "  SpaRewrite:\n");
    let err = cn::render(&fns, &without).unwrap_err();
    assert!(err.contains("SpaRewriteFunction"), "{err}");
}
