"""moto's Step Functions interpreter (moto/stepfunctions/parser, LocalStack's) as an oracle.

Reads from stdin: {"definition": <ASL>, "name": <state machine name>, "start": <epoch ms>,
"node": <node binary>, "jsonataServer": <path>, "cases": [{"name", "input",
"mocks": {<state name>: [{"Return": <value>} | {"Throw": {"Error", "Cause"}}, ...]}}]}.
Prints one JSON line: [{"status", "error", "cause", "output", "history": [...]}, ...].

Adaptations, none of which changes how moto interprets the definition:
- JSONata goes to the `jsonata` npm package in a Node child process (moto's own evaluator
  needs a JVM), with $millis()/$now() answering the oracle's virtual time;
- Wait states and retry intervals advance that virtual time instead of sleeping;
- task results come from moto's mocked-response mechanism (MockTestCase), which moto only
  lacks a loader for. moto picks a state's response by its RetryCount, so a state visited
  again in a loop would get the same answer; here each task call takes the next response of
  its state instead (the last one repeats).
"""

import json
import subprocess
import sys
import time

import boto3
from moto import mock_aws
from moto.core.config import default_user_config
from moto.stepfunctions.parser.asl.component.common.retry import retrier_decl
from moto.stepfunctions.parser.asl.component.common.string import string_expression
from moto.stepfunctions.parser.asl.component.state.wait.wait_function.wait_function import WaitFunction
from moto.stepfunctions.parser.asl.eval.environment import Environment
from moto.stepfunctions.parser.asl.jsonata import jsonata as moto_jsonata
from moto.stepfunctions.parser.asl.jsonata import validations
from moto.stepfunctions.parser.backend import execution_worker
from moto.stepfunctions.parser.mocking.mock_config import (
    MockedResponseReturn,
    MockedResponseThrow,
    MockTestCase,
    StateMockedResponses,
)

REGION = "us-east-1"
ACCOUNT = "123456789012"
CLIENT = {"aws_access_key_id": "AKIDEXAMPLE", "aws_secret_access_key": "moto", "region_name": REGION}


class VirtualTime:
    now_ms = 0

    @classmethod
    def sleep(cls, seconds: float) -> None:
        cls.now_ms += int(round(seconds * 1000))


class Evaluator:
    def __init__(self, node: str, server: str):
        self.process = subprocess.Popen([node, server], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)

    def __call__(self, expression: str):
        assert self.process.stdin and self.process.stdout
        self.process.stdin.write(json.dumps({"expression": expression, "now": VirtualTime.now_ms}) + "\n")
        self.process.stdin.flush()
        answer = json.loads(self.process.stdout.readline())
        if not answer["ok"]:
            raise moto_jsonata.JSONataException("UNKNOWN", answer["error"])
        return answer["value"]

    def close(self) -> None:
        if self.process.stdin:
            self.process.stdin.close()
        self.process.wait(timeout=10)


class FakeTime:
    """What retrier_decl sees as `time`: sleeping moves the virtual clock."""

    sleep = staticmethod(VirtualTime.sleep)
    time = staticmethod(time.time)


CURRENT_MOCKS: dict = {"case": None, "calls": {}}


def next_mocked_response(env: Environment):
    state_name = env.next_state_name
    responses = env.mock_test_case.state_mocked_responses[state_name].mocked_responses
    index = CURRENT_MOCKS["calls"].get(state_name, 0)
    CURRENT_MOCKS["calls"][state_name] = index + 1
    return responses[min(index, len(responses) - 1)]


def mock_test_case(machine: str, case: dict) -> MockTestCase:
    states = []
    for state_name, answers in case["mocks"].items():
        responses = []
        for index, answer in enumerate(answers):
            if "Throw" in answer:
                responses.append(MockedResponseThrow(index, index, answer["Throw"]["Error"], answer["Throw"]["Cause"]))
            else:
                responses.append(MockedResponseReturn(index, index, answer["Return"]))
        states.append(StateMockedResponses(state_name, f"{state_name}-responses", responses))
    return MockTestCase(machine, case["name"], states)


def main() -> None:
    spec = json.load(sys.stdin)
    evaluator = Evaluator(spec["node"], spec["jsonataServer"])
    for module in (moto_jsonata, string_expression, validations):
        module.eval_jsonata_expression = evaluator
    retrier_decl.time = FakeTime
    WaitFunction._wait_interval = lambda self, env, wait_seconds: VirtualTime.sleep(wait_seconds)
    original_init = execution_worker.ExecutionWorker.__init__

    def init_with_mocks(self, *args, **kwargs):
        kwargs["mock_test_case"] = CURRENT_MOCKS["case"]
        original_init(self, *args, **kwargs)

    execution_worker.ExecutionWorker.__init__ = init_with_mocks
    Environment.get_current_mocked_response = next_mocked_response
    default_user_config.setdefault("stepfunctions", {})["execute_state_machine"] = True

    results = []
    with mock_aws():
        sfn = boto3.client("stepfunctions", **CLIENT)
        for case in spec["cases"]:
            # A state machine per case: moto deep-copies the machine, with its past executions
            # (and their locks), on every StartExecution.
            machine = sfn.create_state_machine(
                name=spec["name"], definition=json.dumps(spec["definition"]), roleArn=f"arn:aws:iam::{ACCOUNT}:role/sfn"
            )["stateMachineArn"]
            VirtualTime.now_ms = spec["start"]
            CURRENT_MOCKS["case"] = mock_test_case(spec["name"], case)
            CURRENT_MOCKS["calls"] = {}
            execution = sfn.start_execution(stateMachineArn=machine, name=case["name"], input=json.dumps(case["input"]))["executionArn"]
            deadline = time.time() + 30
            while True:
                described = sfn.describe_execution(executionArn=execution)
                if described["status"] != "RUNNING" or time.time() > deadline:
                    break
                time.sleep(0.02)
            history = sfn.get_execution_history(executionArn=execution, maxResults=1000)["events"]
            results.append(
                {
                    "status": described["status"],
                    "error": described.get("error"),
                    "cause": described.get("cause"),
                    "output": json.loads(described["output"]) if described.get("output") else None,
                    "history": [summarise(event) for event in history],
                }
            )
            sfn.delete_state_machine(stateMachineArn=machine)
    evaluator.close()
    print(json.dumps(results, default=str))


def summarise(event: dict) -> dict:
    """The parts of a history event the test compares: its type, its state, a task's parameters."""
    out = {"type": event["type"]}
    for key, value in event.items():
        if key.endswith("EventDetails") and isinstance(value, dict):
            if "name" in value:
                out["stateName"] = value["name"]
            if "parameters" in value:
                out["parameters"] = json.loads(value["parameters"])
            if "resource" in value:
                out["resource"] = value["resource"]
            if "error" in value:
                out["error"] = value["error"]
    return out


if __name__ == "__main__":
    main()
