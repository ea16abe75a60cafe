"""The SAM transform of template.yaml: what CloudFormation will be asked to create."""

from template_facts import role_of


def test_the_sam_transform_gives_one_lambda_per_serverless_function_each_with_a_role(template, transformed):
    serverless = {
        name for name, r in template["Resources"].items() if r["Type"] == "AWS::Serverless::Function"
    }
    resources = transformed["Resources"]
    lambdas = {name for name, r in resources.items() if r["Type"] == "AWS::Lambda::Function"}
    assert lambdas == serverless
    for name in serverless:
        assert resources[role_of(transformed, name)]["Type"] == "AWS::IAM::Role", name
