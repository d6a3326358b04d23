"""moto's IAM enforcement as an oracle for src/aws/iam.

Reads cases from stdin as JSON: [{"policies": [<policy document>, ...],
"call": {"service": <boto3 service>, "method": <boto3 method>, "params": {...}}}, ...].
For each case, a role gets the policies (inline), is assumed, and the call is made with the
session's credentials while moto enforces IAM. Prints one JSON line:
[{"allowed": bool, "code": <error code or null>, "message": <error message or null>}, ...].

moto (in process, `mock_aws`) authorizes by action, and by resource only where it knows the
ARN a call targets (SQS queues, roles for AssumeRole); everything else is checked against "*".
Set-up runs with enforcement off (INITIAL_NO_AUTH_ACTION_COUNT = inf), the calls with it on (0).
"""

import json
import re
import sys

import boto3
from botocore.exceptions import ClientError
from moto import mock_aws, settings
from moto.core.authorization import ActionAuthenticatorMixin

REGION = "us-east-1"
ACCOUNT = "123456789012"  # moto's default account
ADMIN = {"aws_access_key_id": "AKIDEXAMPLE", "aws_secret_access_key": "moto", "region_name": REGION}
TRUST = json.dumps(
    {
        "Version": "2012-10-17",
        "Statement": [{"Effect": "Allow", "Principal": {"AWS": f"arn:aws:iam::{ACCOUNT}:root"}, "Action": "sts:AssumeRole"}],
    }
)
DENIED_CODES = {"AccessDenied", "AccessDeniedException", "UnauthorizedOperation"}


def enforce(on: bool) -> None:
    settings.INITIAL_NO_AUTH_ACTION_COUNT = 0 if on else float("inf")
    ActionAuthenticatorMixin.request_count = 0


def main() -> None:
    cases = json.load(sys.stdin)
    with mock_aws():
        enforce(False)
        iam = boto3.client("iam", **ADMIN)
        sts = boto3.client("sts", **ADMIN)
        sqs = boto3.client("sqs", **ADMIN)
        for name in ("signals", "signals-dlq", "other"):
            sqs.create_queue(QueueName=name)
        sessions = []
        for index, case in enumerate(cases):
            role = f"case-{index}"
            iam.create_role(RoleName=role, AssumeRolePolicyDocument=TRUST)
            for number, document in enumerate(case["policies"]):
                iam.put_role_policy(RoleName=role, PolicyName=f"policy-{number}", PolicyDocument=json.dumps(document))
            credentials = sts.assume_role(RoleArn=f"arn:aws:iam::{ACCOUNT}:role/{role}", RoleSessionName="oracle")["Credentials"]
            sessions.append(
                {
                    "aws_access_key_id": credentials["AccessKeyId"],
                    "aws_secret_access_key": credentials["SecretAccessKey"],
                    "aws_session_token": credentials["SessionToken"],
                    "region_name": REGION,
                }
            )
        enforce(True)
        results = []
        for case, session in zip(cases, sessions):
            call = case["call"]
            client = boto3.client(call["service"], **session)
            try:
                getattr(client, call["method"])(**call.get("params", {}))
                results.append({"allowed": True, "code": None, "message": None})
            except ClientError as error:
                code = error.response["Error"].get("Code")
                message = error.response["Error"].get("Message")
                # MOTO DIFFERS: moto answers an SQS (JSON protocol) call it denies with the XML of
                # the query protocol, which botocore reads as code "403" with the XML as message.
                embedded = re.search(r"<Code>(.*?)</Code>.*<Message>(.*?)</Message>", message or "", re.S)
                if code == "403" and embedded:
                    code, message = embedded.group(1), embedded.group(2)
                # Any other error (a missing group, a bad token) means IAM let the call through.
                results.append({"allowed": code not in DENIED_CODES, "code": code, "message": message})
            except NotImplementedError as error:
                # moto authorizes before it looks for the operation: one it lacks was let through by IAM.
                results.append({"allowed": True, "code": "NotImplemented", "message": str(error)})
        enforce(False)
    print(json.dumps(results))


if __name__ == "__main__":
    main()
