#!/usr/bin/env python3
"""Computes the EKS bearer token test vector with botocore (the reference implementation used by
`aws eks get-token` and aws-iam-authenticator's Python peers), for fixed credentials and time.
Run: python3 scripts/eks-token-vector.py > test/fixtures/eks/token-vector.json
"""
import base64
import datetime
import json
from unittest import mock

import botocore.session
from botocore.signers import RequestSigner

ACCESS_KEY = "AKIDEXAMPLE"
SECRET_KEY = "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY"
REGION = "us-east-1"
CLUSTER = "demo"
NOW = datetime.datetime(2026, 11, 29, 12, 0, 0)

session = botocore.session.get_session()
session.set_credentials(ACCESS_KEY, SECRET_KEY)
sts = session.create_client("sts", region_name=REGION, endpoint_url=f"https://sts.{REGION}.amazonaws.com")
signer = RequestSigner(sts.meta.service_model.service_id, REGION, "sts", "v4", session.get_credentials(), session.get_component("event_emitter"))
params = {
    "method": "GET",
    "url": f"https://sts.{REGION}.amazonaws.com/?Action=GetCallerIdentity&Version=2011-06-15",
    "body": {},
    "headers": {"x-k8s-aws-id": CLUSTER},
    "context": {},
}
# botocore's SigV4 signer reads the time through botocore.auth.get_current_datetime.
with mock.patch("botocore.auth.get_current_datetime", return_value=NOW):
    url = signer.generate_presigned_url(params, region_name=REGION, expires_in=60, operation_name="")
token = "k8s-aws-v1." + base64.urlsafe_b64encode(url.encode()).decode().rstrip("=")
print(json.dumps({
    "accessKeyId": ACCESS_KEY, "secretAccessKey": SECRET_KEY, "region": REGION, "cluster": CLUSTER,
    "time": NOW.strftime("%Y-%m-%dT%H:%M:%SZ"), "presignedUrl": url, "token": token,
    "producedBy": f"botocore {botocore.__version__}",
}, indent=2))
