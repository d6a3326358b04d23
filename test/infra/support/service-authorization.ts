// What the Service Authorization Reference says of each IAM action the stack grants (and of the
// operator's decommission grant): its access level, and whether it names a resource type (supports
// resource-level permissions). The IAM walk (iam-walk.ts) reads it; an action missing here fails the
// walk until someone looks it up, so a new permission is never judged by a guess.
// Sources: docs.aws.amazon.com/service-authorization/latest/reference/list_<service>.html (amazonec2,
// amazonec2autoscaling, amazonelastickubernetesservice, awsstepfunctions, amazoneventbridge,
// awslambda, amazonsqs, amazoncloudwatchlogs, awsx-ray).

export type AccessLevel = 'List' | 'Read' | 'Write' | 'Permissions management' | 'Tagging';

export interface ActionFacts {
  readonly access: AccessLevel;
  /** The Resource types column is not empty: the action can be scoped to ARNs. */
  readonly resourceLevel: boolean;
}

const list = (resourceLevel: boolean): ActionFacts => ({ access: 'List', resourceLevel });
const read = (resourceLevel: boolean): ActionFacts => ({ access: 'Read', resourceLevel });
const write = (resourceLevel: boolean): ActionFacts => ({ access: 'Write', resourceLevel });

export const SERVICE_AUTHORIZATION: Readonly<Record<string, ActionFacts>> = {
  'ec2:DescribeInstances': list(false),
  'ec2:DescribeInstanceStatus': list(false),
  'ec2:CreateTags': { access: 'Tagging', resourceLevel: true },
  'ec2:DeleteTags': { access: 'Tagging', resourceLevel: true },
  'autoscaling:DescribeAutoScalingGroups': list(false),
  'autoscaling:DescribeWarmPool': list(false),
  'autoscaling:DescribeLifecycleHooks': list(false),
  'autoscaling:CompleteLifecycleAction': write(true),
  'autoscaling:RecordLifecycleActionHeartbeat': write(true),
  'autoscaling:SetInstanceHealth': write(true),
  'autoscaling:CreateOrUpdateTags': { access: 'Tagging', resourceLevel: true },
  'eks:DescribeCluster': read(true),
  'states:StartExecution': write(true),
  'states:DescribeExecution': read(true),
  'events:PutEvents': write(true),
  'lambda:InvokeFunction': write(true),
  'sqs:ReceiveMessage': read(true),
  'sqs:DeleteMessage': write(true),
  'sqs:GetQueueAttributes': read(true),
  'logs:CreateLogStream': write(true),
  'logs:PutLogEvents': write(true),
  // Step Functions' log delivery ("[permission only]" actions; no resource types).
  'logs:CreateLogDelivery': write(false),
  'logs:GetLogDelivery': read(false),
  'logs:UpdateLogDelivery': write(false),
  'logs:DeleteLogDelivery': write(false),
  'logs:ListLogDeliveries': list(false),
  'logs:PutResourcePolicy': { access: 'Permissions management', resourceLevel: false },
  'logs:DescribeResourcePolicies': list(false),
  'logs:DescribeLogGroups': list(true),
  // Active tracing (the `tracing` prop).
  'xray:PutTraceSegments': write(false),
  'xray:PutTelemetryRecords': write(false),
  'xray:GetSamplingRules': read(false),
  'xray:GetSamplingTargets': read(false),
};

/** Write, Permissions management and Tagging change something; List and Read do not. */
export const isMutating = (facts: ActionFacts): boolean => facts.access !== 'List' && facts.access !== 'Read';
