"""The SAM transform of template.yaml: what CloudFormation will be asked to create."""


def test_the_sam_transform_gives_one_lambda_and_one_role_per_serverless_function(template, transformed):
    serverless = {
        name for name, r in template["Resources"].items() if r["Type"] == "AWS::Serverless::Function"
    }
    resources = transformed["Resources"]
    lambdas = {name for name, r in resources.items() if r["Type"] == "AWS::Lambda::Function"}
    assert lambdas == serverless
    for name in serverless:
        assert resources[f"{name}Role"]["Type"] == "AWS::IAM::Role", name
