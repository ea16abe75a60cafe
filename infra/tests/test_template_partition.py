"""Every stack names ARNs in its own partition (issue 32 item 1): no literal `arn:aws:` in any
template (an ARN written so names nothing in `aws-cn`), and none after the SAM transform run in a
China Region either (SAM writes its own roles' ARNs in the Region's partition; ours say
`${AWS::Partition}`)."""

import json

from conftest import CONSOLE, ROOT, sam_transform_in

STACKS = [ROOT / "template.yaml", *sorted((ROOT / "infra").glob("*.yaml"))]


def test_no_template_writes_an_arn_of_the_aws_partition():
    assert len(STACKS) >= 6, STACKS
    found = {p.name: p.read_text().count("arn:aws:") for p in STACKS}
    assert not {k: v for k, v in found.items() if v}, found
    # Not vacuous: the roles' managed policy is there, in the partition-clean form.
    assert "!Sub arn:${AWS::Partition}:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole" in STACKS[0].read_text()


def test_the_global_stack_transformed_in_china_names_no_arn_of_the_aws_partition():
    transformed = sam_transform_in(ROOT / "template.yaml", CONSOLE, "cn-north-1")
    text = json.dumps(transformed)
    assert "arn:aws:" not in text
    # Not vacuous: SAM's own roles (the CodeDeploy service role) are written in aws-cn here.
    assert "arn:aws-cn:iam::aws:policy/" in text

