// Condition operators, each against the IAM User Guide's own examples and rules ("Condition
// operators", "Set operators for multivalued context keys", "Multivalued context key examples").
// moto does not evaluate conditions, so these examples are the oracle here.
import { describe, expect, it } from 'vitest';
import {
  evaluate,
  parsePolicy,
  requestTagKeys,
  resourceTagKeys,
  type RequestContextKeys,
} from '../../../src/aws/iam/index.js';

const ACCOUNT = '111122223333';

/** Whether an Allow of `s3:*`-like action on `*` with this Condition block allows a request with this context. */
function holds(
  condition: Record<string, Record<string, string | boolean | number | (string | boolean | number)[]>>,
  context: RequestContextKeys = {},
): boolean {
  const policy = parsePolicy('p', {
    Version: '2012-10-17',
    Statement: [{ Effect: 'Allow', Action: 'svc:Act', Resource: '*', Condition: condition }],
  });
  return evaluate([policy], { principal: `arn:aws:iam::${ACCOUNT}:role/r`, action: 'svc:Act', context }).allowed;
}

describe('string condition operators', () => {
  it('should match StringEquals exactly and case-sensitively, with case-insensitive key names', () => {
    const condition = { StringEquals: { 'aws:PrincipalTag/job-category': 'iamuser-admin' } };
    expect(holds(condition, { 'aws:PrincipalTag/job-category': 'iamuser-admin' })).toBe(true);
    expect(holds(condition, { 'AWS:principaltag/job-category': 'iamuser-admin' })).toBe(true);
    expect(holds(condition, { 'aws:PrincipalTag/job-category': 'IAMUser-Admin' })).toBe(false);
    expect(
      holds(
        { StringEqualsIgnoreCase: { 'aws:PrincipalTag/job-category': 'iamuser-admin' } },
        { 'aws:PrincipalTag/job-category': 'IAMUser-Admin' },
      ),
    ).toBe(true);
  });

  it('should make a positive operator false and a negated one true when the key is missing', () => {
    expect(holds({ StringEquals: { 'aws:ResourceTag/team': 'a' } })).toBe(false);
    expect(holds({ StringNotEquals: { 'aws:ResourceTag/team': 'a' } })).toBe(true);
    expect(holds({ StringNotLike: { 'aws:ResourceTag/team': 'a*' } })).toBe(true);
    expect(holds({ ArnNotLike: { 'aws:SourceArn': 'arn:aws:sns:*:*:t' } })).toBe(true);
    expect(holds({ Bool: { 'aws:SecureTransport': 'true' } })).toBe(false);
  });

  it('should make …IfExists true when the key is missing and an ordinary test when present', () => {
    const condition = { StringEqualsIfExists: { 'ec2:InstanceType': ['t2.micro', 't2.small'] } };
    expect(holds(condition)).toBe(true);
    expect(holds(condition, { 'ec2:InstanceType': 't2.small' })).toBe(true);
    expect(holds(condition, { 'ec2:InstanceType': 'm5.large' })).toBe(false);
  });

  it('should OR the values of a positive operator and NOR those of a negated one', () => {
    expect(
      holds(
        { StringEquals: { 'aws:RequestedRegion': ['eu-west-1', 'us-east-1'] } },
        { 'aws:RequestedRegion': 'us-east-1' },
      ),
    ).toBe(true);
    expect(
      holds(
        { StringNotEquals: { 'aws:RequestedRegion': ['eu-west-1', 'us-east-1'] } },
        { 'aws:RequestedRegion': 'us-east-1' },
      ),
    ).toBe(false);
    expect(
      holds(
        { StringNotEquals: { 'aws:RequestedRegion': ['eu-west-1', 'us-east-1'] } },
        { 'aws:RequestedRegion': 'ap-south-1' },
      ),
    ).toBe(true);
  });

  it('should AND the keys under one operator and the operators of one block', () => {
    const condition = {
      StringEquals: { 'aws:ResourceTag/team': 'nodes', 'aws:ResourceTag/env': 'prod' },
      Bool: { 'aws:SecureTransport': true },
    };
    expect(
      holds(condition, { 'aws:ResourceTag/team': 'nodes', 'aws:ResourceTag/env': 'prod', 'aws:SecureTransport': true }),
    ).toBe(true);
    expect(
      holds(condition, { 'aws:ResourceTag/team': 'nodes', 'aws:ResourceTag/env': 'dev', 'aws:SecureTransport': true }),
    ).toBe(false);
    expect(
      holds(condition, {
        'aws:ResourceTag/team': 'nodes',
        'aws:ResourceTag/env': 'prod',
        'aws:SecureTransport': false,
      }),
    ).toBe(false);
  });

  it('should give StringLike and StringNotLike * and ? wildcards', () => {
    expect(
      holds({ StringLike: { 's3:prefix': ['home/${aws:username}/*', 'home/*'] } }, { 's3:prefix': 'home/alice/docs' }),
    ).toBe(true);
    expect(holds({ StringLike: { 'aws:ResourceTag/name': 'node-??' } }, { 'aws:ResourceTag/name': 'node-07' })).toBe(
      true,
    );
    expect(holds({ StringLike: { 'aws:ResourceTag/name': 'node-??' } }, { 'aws:ResourceTag/name': 'node-107' })).toBe(
      false,
    );
    expect(holds({ StringNotLike: { 'aws:ResourceTag/name': 'node-*' } }, { 'aws:ResourceTag/name': 'node-1' })).toBe(
      false,
    );
  });
});

describe('Null, Bool, numeric and date operators', () => {
  it('should test presence with Null: "true" for absent, "false" for present', () => {
    expect(holds({ Null: { 'aws:TokenIssueTime': 'true' } })).toBe(true);
    expect(holds({ Null: { 'aws:TokenIssueTime': 'true' } }, { 'aws:TokenIssueTime': '2026-01-01T00:00:00Z' })).toBe(
      false,
    );
    expect(holds({ Null: { 'aws:TokenIssueTime': false } }, { 'aws:TokenIssueTime': '2026-01-01T00:00:00Z' })).toBe(
      true,
    );
    // An empty set is no value at all (IAM: "resolves to a null dataset").
    expect(holds({ Null: { 'aws:TagKeys': 'false' } }, { 'aws:TagKeys': [] })).toBe(false);
  });

  it('should compare Bool case-insensitively, from a string or a JSON boolean', () => {
    expect(holds({ Bool: { 'aws:MultiFactorAuthPresent': 'true' } }, { 'aws:MultiFactorAuthPresent': 'TRUE' })).toBe(
      true,
    );
    expect(holds({ Bool: { 'aws:MultiFactorAuthPresent': true } }, { 'aws:MultiFactorAuthPresent': false })).toBe(
      false,
    );
    // The guide's "deny unless MFA" pattern: BoolIfExists … false holds for a key that is missing.
    expect(holds({ BoolIfExists: { 'aws:MultiFactorAuthPresent': 'false' } })).toBe(true);
  });

  it('should compare numbers and dates as such', () => {
    expect(holds({ NumericLessThanEquals: { 's3:max-keys': '10' } }, { 's3:max-keys': '9' })).toBe(true);
    expect(holds({ NumericLessThanEquals: { 's3:max-keys': '10' } }, { 's3:max-keys': '11' })).toBe(false);
    expect(holds({ NumericEquals: { 's3:max-keys': '10' } }, { 's3:max-keys': 'ten' })).toBe(false);
    expect(
      holds(
        { DateLessThan: { 'aws:CurrentTime': '2026-06-30T00:00:00Z' } },
        { 'aws:CurrentTime': '2026-01-01T00:00:00Z' },
      ),
    ).toBe(true);
    expect(holds({ DateGreaterThan: { 'aws:EpochTime': '1767225600' } }, { 'aws:EpochTime': '1767225599' })).toBe(
      false,
    );
  });
});

describe('ARN operators and the confused-deputy keys', () => {
  it('should match aws:SourceArn with ArnLike and ArnEquals, wildcards per segment', () => {
    const rule = `arn:aws:events:us-east-1:${ACCOUNT}:rule/reconciler-spot`;
    expect(
      holds({ ArnLike: { 'aws:SourceArn': `arn:aws:events:us-east-1:${ACCOUNT}:rule/*` } }, { 'aws:SourceArn': rule }),
    ).toBe(true);
    expect(
      holds(
        { ArnEquals: { 'aws:SourceArn': `arn:aws:events:*:${ACCOUNT}:rule/reconciler-*` } },
        { 'aws:SourceArn': rule },
      ),
    ).toBe(true);
    expect(
      holds(
        { ArnLike: { 'aws:SourceArn': `arn:aws:events:us-east-1:444455556666:rule/*` } },
        { 'aws:SourceArn': rule },
      ),
    ).toBe(false);
    expect(holds({ ArnNotEquals: { 'aws:SourceArn': rule } }, { 'aws:SourceArn': rule })).toBe(false);
  });

  it('should match aws:SourceAccount with StringEquals', () => {
    expect(holds({ StringEquals: { 'aws:SourceAccount': ACCOUNT } }, { 'aws:SourceAccount': ACCOUNT })).toBe(true);
    expect(holds({ StringEquals: { 'aws:SourceAccount': ACCOUNT } }, { 'aws:SourceAccount': '444455556666' })).toBe(
      false,
    );
  });
});

describe('set operators on multivalued keys', () => {
  const allowedKeys = { 'ForAllValues:StringEquals': { 'aws:TagKeys': ['environment', 'cost-center'] } };

  it('should hold ForAllValues when every request value matches a policy value', () => {
    expect(holds(allowedKeys, requestTagKeys({ environment: 'prod' }))).toBe(true);
    expect(holds(allowedKeys, requestTagKeys({ environment: 'prod', 'cost-center': '12' }))).toBe(true);
    expect(holds(allowedKeys, requestTagKeys({ environment: 'prod', owner: 'me' }))).toBe(false);
  });

  it('should hold ForAllValues for a missing or empty set, unless Null says the key must be there', () => {
    expect(holds(allowedKeys)).toBe(true);
    expect(holds(allowedKeys, { 'aws:TagKeys': [] })).toBe(true);
    const guarded = { ...allowedKeys, Null: { 'aws:TagKeys': 'false' } };
    expect(holds(guarded)).toBe(false);
    expect(holds(guarded, requestTagKeys({ environment: 'prod' }))).toBe(true);
  });

  it('should hold ForAnyValue when at least one request value matches, never for a missing set', () => {
    const condition = { 'ForAnyValue:StringEquals': { 'aws:TagKeys': ['environment'] } };
    expect(holds(condition, requestTagKeys({ environment: 'prod', owner: 'me' }))).toBe(true);
    expect(holds(condition, requestTagKeys({ owner: 'me' }))).toBe(false);
    expect(holds(condition)).toBe(false);
  });

  it('should read negated operators under a set operator per request value', () => {
    // Every key is none of the forbidden ones / at least one key is none of them.
    const allOutside = { 'ForAllValues:StringNotEquals': { 'aws:TagKeys': ['owner', 'cost-center'] } };
    const anyOutside = { 'ForAnyValue:StringNotEquals': { 'aws:TagKeys': ['owner', 'cost-center'] } };
    expect(holds(allOutside, requestTagKeys({ environment: 'prod', team: 'a' }))).toBe(true);
    expect(holds(allOutside, requestTagKeys({ environment: 'prod', owner: 'me' }))).toBe(false);
    expect(holds(anyOutside, requestTagKeys({ environment: 'prod', owner: 'me' }))).toBe(true);
    expect(holds(anyOutside, requestTagKeys({ owner: 'me' }))).toBe(false);
  });

  it('should take wildcards under ForAllValues:StringLike', () => {
    const condition = { 'ForAllValues:StringLike': { 'aws:TagKeys': 'Created*' } };
    expect(holds(condition, requestTagKeys({ CreatedBy: 'a', CreatedAt: 'b' }))).toBe(true);
    expect(holds(condition, requestTagKeys({ CreatedBy: 'a', Owner: 'b' }))).toBe(false);
  });
});

describe('context builders', () => {
  it('should offer resource tags under the global and the service name', () => {
    const context = resourceTagKeys('autoscaling', { 'eks:cluster-name': 'demo' });
    expect(holds({ StringEquals: { 'autoscaling:ResourceTag/eks:cluster-name': 'demo' } }, context)).toBe(true);
    expect(holds({ StringEquals: { 'aws:ResourceTag/eks:cluster-name': 'demo' } }, context)).toBe(true);
    expect(holds({ StringEquals: { 'ec2:ResourceTag/eks:cluster-name': 'demo' } }, context)).toBe(false);
  });
});
