// What CloudFormation does to a template's values at deploy time, for the functions the CDK
// writes into this project's template: Ref (resources and pseudo parameters, AWS::StackId too), Fn::GetAtt,
// Fn::Join, Fn::Sub, Fn::Select and Fn::Split. Physical names follow CloudFormation's habit
// (`<stack>-<logicalId>-<suffix>`), with a stable suffix so runs repeat.
import { createHash } from 'node:crypto';
import { stableUuid } from '../aws/ids.js';
import { dnsSuffixOf, partitionOf } from '../aws/partitions.js';

export interface DeploymentEnv {
  readonly stackName: string;
  readonly region: string;
  readonly accountId: string;
  /** @default 'aws' */
  readonly partition?: string;
}

export interface TemplateResource {
  readonly Type: string;
  readonly Properties?: Readonly<Record<string, unknown>>;
  readonly DependsOn?: string | readonly string[];
}

/** How a resource answers Ref and Fn::GetAtt once deployed. */
export interface DeployedResource {
  readonly logicalId: string;
  readonly type: string;
  readonly physicalName: string;
  readonly ref: string;
  readonly attributes: Readonly<Record<string, string>>;
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** CloudFormation's generated names end in an upper-case suffix; ours is a digest of stack and logical id. */
function generatedName(env: DeploymentEnv, logicalId: string, maxLength: number): string {
  const suffix = createHash('sha256').update(`${env.stackName}/${logicalId}`).digest('hex').slice(0, 12).toUpperCase();
  const head = `${env.stackName}-${logicalId}`.slice(0, Math.max(1, maxLength - suffix.length - 1));
  return `${head}-${suffix}`;
}

/** The stack's id, `arn:<partition>:cloudformation:<region>:<account>:stack/<name>/<uuid>`, the uuid stable per stack name so runs repeat. */
export function stackIdOf(env: DeploymentEnv): string {
  const uuid = stableUuid(`stack:${env.stackName}`);
  return `arn:${env.partition ?? partitionOf(env.region)}:cloudformation:${env.region}:${env.accountId}:stack/${env.stackName}/${uuid}`;
}

/** Per type: the property holding an explicit name, the name's length limit, Ref and the attributes. */
interface TypeRule {
  readonly nameProperty?: string;
  readonly maxLength: number;
  readonly ref: (name: string, arn: string) => string;
  readonly arn?: (name: string, p: string, env: DeploymentEnv) => string;
  readonly attributes?: (name: string, arn: string, env: DeploymentEnv) => Record<string, string>;
}

const byName = (name: string): string => name;
const TYPE_RULES: Readonly<Record<string, TypeRule>> = {
  'AWS::IAM::Role': {
    nameProperty: 'RoleName',
    maxLength: 64,
    ref: byName,
    arn: (n, p, e) => `arn:${p}:iam::${e.accountId}:role/${n}`,
  },
  'AWS::IAM::Policy': { nameProperty: 'PolicyName', maxLength: 128, ref: byName },
  'AWS::Lambda::Function': {
    nameProperty: 'FunctionName',
    maxLength: 64,
    ref: byName,
    arn: (n, p, e) => `arn:${p}:lambda:${e.region}:${e.accountId}:function:${n}`,
  },
  'AWS::Logs::LogGroup': {
    nameProperty: 'LogGroupName',
    maxLength: 512,
    ref: byName,
    arn: (n, p, e) => `arn:${p}:logs:${e.region}:${e.accountId}:log-group:${n}:*`,
  },
  'AWS::Events::EventBus': {
    nameProperty: 'Name',
    maxLength: 256,
    ref: byName,
    arn: (n, p, e) => `arn:${p}:events:${e.region}:${e.accountId}:event-bus/${n}`,
    attributes: (n) => ({ Name: n }),
  },
  'AWS::Events::Rule': {
    nameProperty: 'Name',
    maxLength: 64,
    ref: byName,
    arn: (n, p, e) => `arn:${p}:events:${e.region}:${e.accountId}:rule/${n}`,
  },
  'AWS::StepFunctions::StateMachine': {
    nameProperty: 'StateMachineName',
    maxLength: 80,
    // A state machine's Ref is its ARN.
    ref: (_name, arn) => arn,
    arn: (n, p, e) => `arn:${p}:states:${e.region}:${e.accountId}:stateMachine:${n}`,
    attributes: (n) => ({ Name: n }),
  },
  'AWS::SQS::Queue': {
    nameProperty: 'QueueName',
    maxLength: 80,
    // A queue's Ref is its URL.
    ref: (name, arn) => queueUrl(arn, name),
    arn: (n, p, e) => `arn:${p}:sqs:${e.region}:${e.accountId}:${n}`,
    attributes: (n, arn) => ({ QueueName: n, QueueUrl: queueUrl(arn, n) }),
  },
  'AWS::Scheduler::Schedule': {
    nameProperty: 'Name',
    maxLength: 64,
    ref: byName,
    arn: (n, p, e) => `arn:${p}:scheduler:${e.region}:${e.accountId}:schedule/default/${n}`,
  },
};

function queueUrl(arn: string, name: string): string {
  const [, , , region, account] = arn.split(':');
  return `https://sqs.${region ?? ''}.amazonaws.com/${account ?? ''}/${name}`;
}

/** Resolves intrinsic functions over a deployed stack's resources. */
export class Resolver {
  private readonly deployed = new Map<string, DeployedResource>();
  private readonly partition: string;

  constructor(
    private readonly env: DeploymentEnv,
    private readonly resources: Readonly<Record<string, TemplateResource>>,
  ) {
    this.partition = env.partition ?? 'aws';
  }

  /** The resource as deployed (names and ARNs), computed on first use. */
  resource(logicalId: string): DeployedResource {
    const cached = this.deployed.get(logicalId);
    if (cached) return cached;
    const resource = this.resources[logicalId];
    if (!resource) throw new Error(`resolving the template: no resource ${logicalId}`);
    const rule = TYPE_RULES[resource.Type];
    const explicit = rule?.nameProperty ? resource.Properties?.[rule.nameProperty] : undefined;
    const physicalName =
      explicit !== undefined ? this.string(explicit) : generatedName(this.env, logicalId, rule?.maxLength ?? 64);
    const arn = rule?.arn?.(physicalName, this.partition, this.env) ?? '';
    const deployed: DeployedResource = {
      logicalId,
      type: resource.Type,
      physicalName,
      ref: rule ? rule.ref(physicalName, arn) : physicalName,
      attributes: { ...(arn ? { Arn: arn } : {}), ...rule?.attributes?.(physicalName, arn, this.env) },
    };
    this.deployed.set(logicalId, deployed);
    return deployed;
  }

  /** A value with every intrinsic function applied. */
  resolve(value: unknown): unknown {
    if (Array.isArray(value)) return value.map((item) => this.resolve(item));
    if (!isRecord(value)) return value;
    const [key, ...others] = Object.keys(value);
    if (key !== undefined && others.length === 0) {
      const argument = value[key];
      switch (key) {
        case 'Ref':
          return this.ref(this.string(argument));
        case 'Fn::GetAtt':
          return this.getAtt(argument);
        case 'Fn::Join':
          return this.join(argument);
        case 'Fn::Sub':
          return this.sub(argument);
        case 'Fn::Select':
          return this.select(argument);
        case 'Fn::Split':
          return this.split(argument);
        default:
          if (key.startsWith('Fn::')) throw new Error(`resolving the template: ${key} is not supported`);
      }
    }
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, this.resolve(v)]));
  }

  /** A value that must resolve to text. */
  string(value: unknown): string {
    const resolved = this.resolve(value);
    if (typeof resolved === 'string') return resolved;
    if (typeof resolved === 'number' || typeof resolved === 'boolean') return String(resolved);
    throw new Error(`resolving the template: expected text, got ${JSON.stringify(resolved)}`);
  }

  private ref(name: string): string {
    switch (name) {
      case 'AWS::Partition':
        return this.partition;
      case 'AWS::Region':
        return this.env.region;
      case 'AWS::AccountId':
        return this.env.accountId;
      case 'AWS::StackName':
        return this.env.stackName;
      case 'AWS::StackId':
        return stackIdOf(this.env);
      case 'AWS::URLSuffix':
        return dnsSuffixOf(this.env.region);
      case 'AWS::NoValue':
        throw new Error('resolving the template: AWS::NoValue outside a property');
      default:
        return this.resource(name).ref;
    }
  }

  private getAtt(argument: unknown): string {
    const parts: readonly unknown[] = Array.isArray(argument) ? (argument as unknown[]) : String(argument).split('.');
    const [logicalId, attribute] = parts;
    const resource = this.resource(this.string(logicalId));
    const name = this.string(attribute);
    const found = resource.attributes[name];
    if (found === undefined)
      throw new Error(`resolving the template: ${resource.type} ${resource.logicalId} has no attribute ${name} here`);
    return found;
  }

  private join(argument: unknown): string {
    if (!Array.isArray(argument) || argument.length !== 2)
      throw new Error('resolving the template: Fn::Join takes [delimiter, [values]]');
    const [delimiter, parts] = argument as [unknown, unknown];
    const list = this.resolve(parts);
    if (!Array.isArray(list)) throw new Error('resolving the template: Fn::Join needs a list');
    return list.map((part) => this.string(part)).join(this.string(delimiter));
  }

  private sub(argument: unknown): string {
    const parts: readonly unknown[] = Array.isArray(argument) ? (argument as unknown[]) : [argument, {}];
    const [template, variables] = parts;
    const bound = isRecord(variables) ? variables : {};
    return this.string(template).replace(/\$\{([^}!][^}]*)\}/g, (_, name: string) => {
      if (Object.hasOwn(bound, name)) return this.string(bound[name]);
      return name.includes('.') ? this.getAtt(name) : this.ref(name);
    });
  }

  private select(argument: unknown): unknown {
    if (!Array.isArray(argument) || argument.length !== 2)
      throw new Error('resolving the template: Fn::Select takes [index, list]');
    const list = this.resolve(argument[1]);
    const index = Number(this.string(argument[0]));
    if (!Array.isArray(list) || list[index] === undefined)
      throw new Error(`resolving the template: Fn::Select index ${index} out of range`);
    return list[index];
  }

  private split(argument: unknown): string[] {
    if (!Array.isArray(argument) || argument.length !== 2)
      throw new Error('resolving the template: Fn::Split takes [delimiter, text]');
    return this.string(argument[1]).split(this.string(argument[0]));
  }
}
