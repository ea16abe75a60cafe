"""The organizations' routes ("My company", `/ciam/v1/org/...`) live in a stack of their own
(infra/org.yaml, `OrgStack`, always on; functions/gen/src/console.rs `ORGS`), as the console's do,
so that the main stack keeps room under its resource budget (docs/operations.md §7)."""

from conftest import resolve
from template_facts import functions, route_facts


def org_ids():
    org = ("/ciam/v1/org/", "/ciam/v1/auth/org/")  # "My company", and the company's own sign-in
    return {i for i, r in route_facts().items() if r["path"].startswith(org) and not r["auth"].startswith("console:")}


def test_the_organizations_are_a_stack_of_their_own(main_template, org_template, main_transformed, org_transformed):
    ids = org_ids()
    assert len(ids) >= 18, sorted(ids)
    assert set(functions(org_template).values()) == ids
    assert not ids & set(functions(main_template).values())
    stack = main_template["Resources"]["OrgStack"]
    assert stack["Type"] == "AWS::Serverless::Application"
    assert "Condition" not in stack
    assert stack["Properties"]["Location"] == "infra/org.yaml"
    assert main_transformed["Resources"]["OrgStack"]["Type"] == "AWS::CloudFormation::Stack"
    assert not [n for n, r in org_transformed["Resources"].items() if "Condition" in r]

    def api_paths(transformed):
        (api,) = [r for r in transformed["Resources"].values() if r["Type"] == "AWS::ApiGatewayV2::Api"]
        return {p for p in api["Properties"]["Body"]["paths"] if p != "$default"}

    paths = {route_facts()[i]["path"] for i in ids}
    assert api_paths(org_transformed) == paths
    assert not api_paths(main_transformed) & paths


def test_the_org_stack_is_given_every_parameter_and_its_api_is_the_consoles_twin(main_template, org_template, console_template):
    passed = main_template["Resources"]["OrgStack"]["Properties"]["Parameters"]
    assert set(passed) == set(org_template["Parameters"])
    params = main_template["Resources"]["ConsoleStack"]["Properties"]["Parameters"]
    console = resolve(console_template["Resources"]["ConsoleApi"]["Properties"], params)
    org = resolve(org_template["Resources"]["OrgApi"]["Properties"], passed)
    # The same settings (throttles, access log) and the same `$default` route to the version
    # function; only the description and the title differ.
    for key in ("DefinitionBody",):
        c, o = console[key], org[key]
        assert c["paths"] == o["paths"]
    assert {k: v for k, v in console.items() if k not in ("Description", "DefinitionBody")} == {
        k: v for k, v in org.items() if k not in ("Description", "DefinitionBody")
    }
    assert org_template["Outputs"]["ApiDomain"]["Value"] == {
        "Fn::Sub": "${OrgApi}.execute-api.${AWS::Region}.${AWS::URLSuffix}"
    }
    alarm = org_template["Resources"]["OrgApi5xxAlarm"]["Properties"]
    assert alarm["Dimensions"] == [{"Name": "ApiId", "Value": {"Ref": "OrgApi"}}]
