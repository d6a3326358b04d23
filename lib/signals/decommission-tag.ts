/**
 * Tag Change on Resource: an operator set the decommission tag on an instance. Only a change
 * that adds or updates the tag counts; removing it is ignored (the sweep finds the tag's
 * current state anyway). The instance comes from the ARN in `resources`.
 *
 * Example (Tagging AWS Resources User Guide, "Monitor tag changes with serverless workflows and Amazon EventBridge"):
 * ```json
 * {
 *   "version": "0",
 *   "id": "bddcf1d6-0251-35a1-aab0-adc1fb47c11c",
 *   "detail-type": "Tag Change on Resource",
 *   "source": "aws.tag",
 *   "account": "123456789012",
 *   "time": "2026-03-04T14:00:00Z",
 *   "region": "us-east-1",
 *   "resources": ["arn:aws:ec2:us-east-1:123456789012:instance/i-0000000aaaaaaaaaa"],
 *   "detail": {
 *     "changed-tag-keys": ["ec2-node-reconciler/decommission"],
 *     "service": "ec2",
 *     "resource-type": "instance",
 *     "version": 3,
 *     "tags": { "ec2-node-reconciler/decommission": "true", "Name": "worker-7" }
 *   }
 * }
 * ```
 */
import * as z from 'zod';
import { isInstanceId, type InstanceId } from '@ec2-node-reconciler/model/instance-id.js';
import { DECOMMISSION_TAG } from '@ec2-node-reconciler/model/contract/labels.js';
import { defineSignal, emit, fromEnvelope, ignore, preview } from './signal-module.js';

type TaggedResource =
  { readonly kind: 'instance'; readonly instanceId: InstanceId } | { readonly kind: 'other'; readonly arn: string };

const INSTANCE_ARN_HINT = 'must be an EC2 instance ARN (arn:aws:ec2:<region>:<account>:instance/i-…)';

/**
 * Another resource type is not an error (a rule matching more than instances is a legitimate
 * setup) but an ARN that claims to be an instance and carries a bad id is: it is rejected.
 */
const ResourceArnSchema = z.string().transform((arn, ctx): TaggedResource => {
  const parts = arn.split(':');
  if (parts.length < 6 || parts[0] !== 'arn' || !(parts[1] ?? '').startsWith('aws')) {
    ctx.issues.push({ code: 'custom', message: 'must be a resource ARN', input: arn });
    return z.NEVER;
  }
  const service = parts[2];
  const resource = parts.slice(5).join(':');
  if (service !== 'ec2' || !resource.startsWith('instance/')) return { kind: 'other', arn };
  const instanceId = resource.slice('instance/'.length);
  if (!isInstanceId(instanceId)) {
    ctx.issues.push({ code: 'custom', message: INSTANCE_ARN_HINT, input: arn });
    return z.NEVER;
  }
  return { kind: 'instance', instanceId };
});

export const decommissionTag = defineSignal({
  kind: 'decommission-tag',
  source: 'aws.tag',
  detailType: 'Tag Change on Resource',
  detail: z.object({
    'changed-tag-keys': z.array(z.string()),
    tags: z.record(z.string(), z.string()),
  }),
  // One event per resource; more than one ARN would leave it unclear which instance the tags belong to.
  resources: z.tuple([ResourceArnSchema]),
  rule: {
    description: `Tag Change on an EC2 instance that sets ${DECOMMISSION_TAG}: operator decommission`,
    detail: () => ({
      service: ['ec2'],
      'resource-type': ['instance'],
      'changed-tag-keys': [DECOMMISSION_TAG],
      // `tags` holds the tags after the change: a removal of the key has nothing to act on.
      tags: { [DECOMMISSION_TAG]: [{ exists: true }] },
    }),
  },
  toSignals(event) {
    const [resource] = event.resources;
    if (resource.kind === 'other') return ignore(`tag change on ${preview(resource.arn)}: not an EC2 instance`);
    const instanceId = resource.instanceId;
    const { 'changed-tag-keys': changed, tags } = event.detail;
    if (!changed.includes(DECOMMISSION_TAG))
      return ignore(`tag change on ${instanceId} does not touch ${DECOMMISSION_TAG}`);
    // hasOwn, not `in`: a `__proto__` or `constructor` key must not count as the tag.
    if (!Object.hasOwn(tags, DECOMMISSION_TAG)) return ignore(`${DECOMMISSION_TAG} was removed from ${instanceId}`);
    return emit([
      {
        kind: 'decommission-tag',
        instanceId,
        ...fromEnvelope(event),
        description: `Operator decommission: ${DECOMMISSION_TAG}=${preview(tags[DECOMMISSION_TAG])} was set on ${instanceId}.`,
      },
    ]);
  },
});
