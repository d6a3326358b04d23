// What the deployment's permissions refused (src/simulate/denials.ts): the stack's callers' refusals,
// not a replay's planner's, which reads as the sweep function's role in a session of its own.
import { describe, expect, it } from 'vitest';
import { RequestLog as AwsRequestLog } from '../../src/aws/request-log.js';
import { RequestLog as KubeRequestLog } from '../../src/kube/request-log.js';
import { denialsOf } from '../../src/simulate/denials.js';
import { PLANNER_SESSION } from '../../src/simulate/role-sessions.js';

const ROLE = 'arn:aws:sts::111122223333:assumed-role/sweep-role';

describe('denialsOf', () => {
  it("should count the stack's refused calls and leave out the replay planner's", () => {
    const aws = new AwsRequestLog();
    const refused = {
      service: 'ec2',
      operation: 'DescribeInstanceStatus',
      params: {},
      durationMs: 1,
      status: 403,
      denied: true,
    } as const;
    aws.add({ ...refused, at: 1, principal: `${ROLE}/sweep-function` });
    aws.add({ ...refused, at: 2, principal: `${ROLE}/${PLANNER_SESSION}` });
    const kube = new KubeRequestLog();
    const forbidden = {
      method: 'GET',
      path: '/api/v1/nodes/n1',
      query: '',
      verb: 'get',
      resource: 'nodes',
      subresource: '',
      namespace: '',
      name: 'n1',
      status: 403,
      latencyMs: 0,
    };
    kube.add({ ...forbidden, at: 3, user: `${ROLE}/${PLANNER_SESSION}` });
    kube.add({ ...forbidden, at: 4, user: `${ROLE}/sweep-function` });
    const denials = denialsOf({ aws: { requestLog: aws }, kube: { requestLog: kube }, serviceDenials: [] });
    expect(denials.map((d) => [d.at, d.by])).toEqual([
      [1, `${ROLE}/sweep-function`],
      [4, `${ROLE}/sweep-function`],
    ]);
  });
});
