import * as z from 'zod';
import { isInstanceId } from '@ec2-node-reconciler/model/instance-id.js';
import { AwsError } from '../errors.js';
import { el, isoTime, leaf, list, renderFragment, type XmlInput, type XmlRaw } from '../protocol/xml.js';
import type { InstanceRecord } from '../state/instances.js';
import { STATE_CODES } from '../state/instances.js';
import { compileFilters, instanceFilter, privateDnsNameOf, privateIpOf, type FilterInput } from './ec2-filters.js';
import { paginate, scanPage } from './pagination.js';
import type { Ec2QueryService, RequestContext } from './types.js';
import { issuePath, parseInput, queryBool, queryInt, type Issue } from './validate.js';

/** EC2's own validation errors: unknown and missing parameters have codes of their own. */
function ec2Invalid(issues: readonly Issue[]): AwsError {
  const issue = issues[0];
  if (!issue) return new AwsError('InvalidParameterValue', 'invalid request');
  if (issue.code === 'unrecognized_keys')
    return new AwsError('UnknownParameter', `The parameter ${issue.keys.join(', ')} is not recognized`);
  if (issue.code === 'invalid_type' && issue.input === undefined) {
    return new AwsError('MissingParameter', `The request must contain the parameter ${issuePath(issue.path, 'wire')}`);
  }
  const value = typeof issue.input === 'string' ? issue.input : JSON.stringify(issue.input);
  return new AwsError('InvalidParameterValue', `Invalid value '${value}' for ${issuePath(issue.path, 'wire')}`);
}

const Filters = z.array(z.strictObject({ Name: z.string(), Value: z.array(z.string()) }));
const Common = { DryRun: queryBool.optional() };

const DescribeFields = {
  ...Common,
  InstanceId: z.array(z.string()).optional(),
  Filter: Filters.optional(),
  MaxResults: queryInt.optional(),
  NextToken: z.string().optional(),
  IncludeManagedResources: queryBool.optional(),
};
const DescribeInstancesInput = z.strictObject(DescribeFields);
const DescribeInstanceStatusInput = z.strictObject({ ...DescribeFields, IncludeAllInstances: queryBool.optional() });

const TagInput = z.strictObject({ Key: z.string(), Value: z.string().optional() });
const CreateTagsInput = z.strictObject({ ...Common, ResourceId: z.array(z.string()), Tag: z.array(TagInput) });
const DeleteTagsInput = z.strictObject({
  ...Common,
  ResourceId: z.array(z.string()),
  Tag: z.array(z.strictObject({ Key: z.string().optional(), Value: z.string().optional() })).optional(),
});
const TerminateInstancesInput = z.strictObject({
  ...Common,
  InstanceId: z.array(z.string()),
  Force: queryBool.optional(),
  SkipOsShutdown: queryBool.optional(),
});

function dryRun(requested: boolean | undefined): void {
  if (requested) throw new AwsError('DryRunOperation', 'Request would have succeeded, but DryRun flag is set.', 412);
}

function checkMaxResults(maxResults: number | undefined, ids: readonly string[] | undefined): void {
  if (maxResults === undefined) return;
  if (ids && ids.length > 0)
    throw new AwsError(
      'InvalidParameterCombination',
      'The parameter instancesSet cannot be used with the parameter maxResults',
    );
  if (maxResults < 5)
    throw new AwsError(
      'InvalidParameterValue',
      `Value ( ${maxResults} ) for parameter maxResults is invalid. Expecting a value greater than 5.`,
    );
  if (maxResults > 1000)
    throw new AwsError(
      'InvalidParameterValue',
      `Value ( ${maxResults} ) for parameter maxResults is invalid. Expecting a value less than 1000.`,
    );
}

/**
 * Ids passed as InstanceIds must all be well formed and known (visible) or the whole call fails;
 * the same ids in an `instance-id` filter simply match nothing. Returns the records in request order.
 */
function requireInstances(ids: readonly string[], ctx: RequestContext): InstanceRecord[] {
  const unique = [...new Set(ids)];
  const malformed = unique.find((id) => !isInstanceId(id));
  if (malformed !== undefined) throw new AwsError('InvalidInstanceID.Malformed', `Invalid id: "${malformed}"`);
  const now = ctx.state.now();
  const found = unique.map((id) => ({ id, record: ctx.state.instances.lookup(id, now) }));
  const missing = found.filter((f) => f.record === undefined).map((f) => f.id);
  if (missing.length === 1)
    throw new AwsError('InvalidInstanceID.NotFound', `The instance ID '${missing.join('')}' does not exist`);
  if (missing.length > 1)
    throw new AwsError('InvalidInstanceID.NotFound', `The instance IDs '${missing.join(', ')}' do not exist`);
  return found.flatMap((f) => (f.record ? [f.record] : []));
}

const invalidToken = (token: string): AwsError =>
  new AwsError('InvalidParameterValue', `Invalid value '${token}' for nextToken`);

/** EC2 caps the filter values of one call at 200, which is why the reconciler looks ids up in batches of 200. */
const MAX_FILTER_VALUES = 200;

function filtersOf(filters: readonly { Name: string; Value: readonly string[] }[] | undefined): FilterInput[] {
  const list = (filters ?? []).map((f) => ({ name: f.Name, values: f.Value }));
  if (list.reduce((sum, f) => sum + f.values.length, 0) > MAX_FILTER_VALUES) {
    throw new AwsError(
      'FilterLimitExceeded',
      `The maximum number of filter values specified on a single call is ${MAX_FILTER_VALUES}`,
    );
  }
  return list;
}

const stateXml = (name: string, state: InstanceRecord['state']): XmlInput =>
  el(name, el('code', String(STATE_CODES[state])), el('name', state));

function instanceXml(i: InstanceRecord): XmlInput[] {
  const terminated = i.state === 'terminated';
  const tags = [...i.tags].sort(([a], [b]) => a.localeCompare(b));
  return [
    el('instanceId', i.id),
    el('imageId', i.imageId),
    stateXml('instanceState', i.state),
    el('privateDnsName', privateDnsNameOf(i)),
    el('dnsName'),
    el('reason', i.transitionReason),
    el('amiLaunchIndex', '0'),
    el('productCodes'),
    el('instanceType', i.instanceType),
    el('launchTime', isoTime(i.launchedAt)),
    el('placement', el('availabilityZone', i.zone), el('groupName'), el('tenancy', 'default')),
    el('monitoring', el('state', 'disabled')),
    terminated ? undefined : el('subnetId', i.subnetId),
    terminated ? undefined : el('vpcId', i.vpcId),
    leaf('privateIpAddress', privateIpOf(i)),
    el('sourceDestCheck', 'true'),
    el('groupSet'),
    i.stateReason ? el('stateReason', el('code', i.stateReason.code), el('message', i.stateReason.message)) : undefined,
    el('architecture', 'x86_64'),
    el('rootDeviceType', 'ebs'),
    el('rootDeviceName', '/dev/xvda'),
    el('blockDeviceMapping'),
    i.spotInstanceRequestId ? el('instanceLifecycle', 'spot') : undefined,
    leaf('spotInstanceRequestId', i.spotInstanceRequestId),
    el('virtualizationType', 'hvm'),
    el('clientToken'),
    tags.length > 0 ? list('tagSet', tags, ([key, value]) => [el('key', key), el('value', value)]) : undefined,
    el('hypervisor', 'xen'),
    el('networkInterfaceSet'),
    el('ebsOptimized', 'false'),
    el('enaSupport', 'true'),
    el('cpuOptions', el('coreCount', '1'), el('threadsPerCore', '2')),
    el('capacityReservationSpecification', el('capacityReservationPreference', 'open')),
    el('hibernationOptions', el('configured', 'false')),
    el(
      'metadataOptions',
      el('state', 'applied'),
      el('httpTokens', 'required'),
      el('httpPutResponseHopLimit', '2'),
      el('httpEndpoint', 'enabled'),
      el('httpProtocolIpv6', 'disabled'),
      el('instanceMetadataTags', 'disabled'),
    ),
    el('enclaveOptions', el('enabled', 'false')),
    el('platformDetails', 'Linux/UNIX'),
    el('usageOperation', 'RunInstances'),
    el(
      'privateDnsNameOptions',
      el('hostnameType', 'ip-name'),
      el('enableResourceNameDnsARecord', 'false'),
      el('enableResourceNameDnsAAAARecord', 'false'),
    ),
    el('maintenanceOptions', el('autoRecovery', 'default')),
    el('currentInstanceBootMode', 'legacy-bios'),
  ];
}

/**
 * An instance's `item`, rendered once and again only when what it shows changes (state, launch time, reasons,
 * tags): a 100,000-instance listing re-renders nothing that did not change.
 */
const rendered = new WeakMap<InstanceRecord, { readonly key: string; readonly xml: XmlRaw }>();
function instanceItem(i: InstanceRecord): XmlRaw {
  let tags = '';
  for (const [k, v] of i.tags) tags += `${k}\u0000${v}\u0000`;
  const key = `${i.state}\u0001${i.launchedAt}\u0001${i.transitionReason}\u0001${i.stateReason?.code ?? ''}\u0001${i.stateReason?.message ?? ''}\u0001${tags}`;
  const cached = rendered.get(i);
  if (cached?.key === key) return cached.xml;
  const xml = renderFragment(el('item', ...instanceXml(i)));
  rendered.set(i, { key, xml });
  return xml;
}

/** Consecutive instances of one reservation share a `reservationSet` item, as on EC2. */
function reservationsXml(instances: readonly InstanceRecord[], ownerId: string): XmlInput {
  const groups: InstanceRecord[][] = [];
  for (const instance of instances) {
    const last = groups[groups.length - 1];
    if (last?.[0]?.reservationId === instance.reservationId) last.push(instance);
    else groups.push([instance]);
  }
  return list('reservationSet', groups, (members) => [
    el('reservationId', members[0]?.reservationId ?? ''),
    el('ownerId', ownerId),
    el('groupSet'),
    el('instancesSet', members.map(instanceItem)),
  ]);
}

/**
 * The instances a listing looks at, each with its position in listing order, from `start` on: those
 * an exact `instance-id` filter names (looked up, not scanned for), else every instance.
 */
function candidatesFrom(
  filters: readonly FilterInput[],
  ctx: RequestContext,
): (start: number) => Iterable<readonly [InstanceRecord, number]> {
  const byId = filters.find((f) => f.name === 'instance-id' && f.values.every((v) => !/[*?]/.test(v)));
  if (byId) {
    const named = ctx.state.instances.positioned(byId.values);
    return (start) => named.filter(([, position]) => position >= start);
  }
  return (start) => ctx.state.instances.fromPosition(start);
}

function describeInstances(params: unknown, ctx: RequestContext): XmlInput[] {
  const input = parseInput(DescribeInstancesInput, params, ec2Invalid);
  dryRun(input.DryRun);
  checkMaxResults(input.MaxResults, input.InstanceId);
  const filters = filtersOf(input.Filter);
  const matches = compileFilters(filters, instanceFilter);
  const ids = input.InstanceId ?? [];
  if (ids.length > 0) {
    const page = paginate(
      requireInstances(ids, ctx).filter(matches),
      { size: input.MaxResults, token: input.NextToken, kind: 'di' },
      invalidToken,
    );
    return [reservationsXml(page.items, ctx.state.accountId), leaf('nextToken', page.nextToken)];
  }
  const now = ctx.state.now();
  const visible = (i: InstanceRecord) => ctx.state.instances.isVisible(i, now) && matches(i);
  const page = scanPage(
    candidatesFrom(filters, ctx),
    visible,
    { size: input.MaxResults, token: input.NextToken, kind: 'di' },
    invalidToken,
  );
  return [reservationsXml(page.items, ctx.state.accountId), leaf('nextToken', page.nextToken)];
}

type Summary = 'ok' | 'not-applicable';
const statusOf = (i: InstanceRecord): Summary => (i.state === 'running' ? 'ok' : 'not-applicable');

/** DescribeInstanceStatus filters; event filters match any of the instance's scheduled events. */
function statusFilter(name: string): ((i: InstanceRecord) => readonly string[]) | undefined {
  switch (name) {
    case 'availability-zone':
      return (i) => [i.zone];
    case 'instance-state-name':
      return (i) => [i.state];
    case 'instance-state-code':
      return (i) => [String(STATE_CODES[i.state])];
    case 'instance-status.status':
    case 'system-status.status':
      return (i) => [statusOf(i)];
    case 'instance-status.reachability':
    case 'system-status.reachability':
      return (i) => (i.state === 'running' ? ['passed'] : []);
    case 'event.code':
      return (i) => i.scheduledEvents.map((e) => e.code);
    case 'event.description':
      return (i) => i.scheduledEvents.map((e) => e.description);
    case 'event.instance-event-id':
      return (i) => i.scheduledEvents.map((e) => e.id);
    case 'event.not-before':
      return (i) => i.scheduledEvents.map((e) => isoTime(e.notBefore));
    case 'event.not-after':
      return (i) => i.scheduledEvents.flatMap((e) => (e.notAfter === undefined ? [] : [isoTime(e.notAfter)]));
    default:
      return undefined;
  }
}

function statusSummary(name: string, i: InstanceRecord): XmlInput {
  const status = statusOf(i);
  return el(
    name,
    el('status', status),
    status === 'ok' ? el('details', el('item', el('name', 'reachability'), el('status', 'passed'))) : undefined,
  );
}

function describeInstanceStatus(params: unknown, ctx: RequestContext): XmlInput[] {
  const input = parseInput(DescribeInstanceStatusInput, params, ec2Invalid);
  dryRun(input.DryRun);
  checkMaxResults(input.MaxResults, input.InstanceId);
  const matches = compileFilters(filtersOf(input.Filter), statusFilter);
  const ids = input.InstanceId ?? [];
  const now = ctx.state.now();
  // Without IncludeAllInstances only running instances have a status to report.
  const selected = (i: InstanceRecord) => (input.IncludeAllInstances === true || i.state === 'running') && matches(i);
  const page =
    ids.length > 0
      ? paginate(
          requireInstances(ids, ctx).filter(selected),
          { size: input.MaxResults, token: input.NextToken, kind: 'dis' },
          invalidToken,
        )
      : scanPage(
          (start) => ctx.state.instances.fromPosition(start),
          (i) => ctx.state.instances.isVisible(i, now) && selected(i),
          { size: input.MaxResults, token: input.NextToken, kind: 'dis' },
          invalidToken,
        );
  return [
    list('instanceStatusSet', page.items, (i) => [
      el('instanceId', i.id),
      el('availabilityZone', i.zone),
      i.scheduledEvents.length > 0
        ? list('eventsSet', i.scheduledEvents, (e) => [
            el('instanceEventId', e.id),
            el('code', e.code),
            // EC2 keeps a past event for a while, marked as completed.
            el(
              'description',
              e.notAfter !== undefined && e.notAfter < now ? `[Completed] ${e.description}` : e.description,
            ),
            el('notBefore', isoTime(e.notBefore)),
            e.notAfter === undefined ? undefined : el('notAfter', isoTime(e.notAfter)),
          ])
        : undefined,
      stateXml('instanceState', i.state),
      statusSummary('systemStatus', i),
      statusSummary('instanceStatus', i),
    ]),
    leaf('nextToken', page.nextToken),
  ];
}

/** Only instances live in this emulator; any other resource id is refused the way EC2 refuses bad ids. */
function requireTaggableInstances(ids: readonly string[], ctx: RequestContext): InstanceRecord[] {
  const other = ids.find((id) => !id.startsWith('i-'));
  if (other !== undefined) throw new AwsError('InvalidID', `The ID '${other}' is not valid`);
  return requireInstances(ids, ctx);
}

function checkTagKey(key: string): void {
  if (key.toLowerCase().startsWith('aws:'))
    throw new AwsError('InvalidParameterValue', "Tag keys starting with 'aws:' are reserved for internal use");
}

const MAX_TAGS = 50;

function createTags(params: unknown, ctx: RequestContext): XmlInput[] {
  const input = parseInput(CreateTagsInput, params, ec2Invalid);
  dryRun(input.DryRun);
  for (const tag of input.Tag) {
    checkTagKey(tag.Key);
    if (tag.Key.length < 1 || tag.Key.length > 128)
      throw new AwsError(
        'InvalidParameterValue',
        `Tag key exceeds the maximum length of 128 characters: ${tag.Key.slice(0, 40)}`,
      );
    if ((tag.Value ?? '').length > 256)
      throw new AwsError('InvalidParameterValue', `Tag value exceeds the maximum length of 256 characters: ${tag.Key}`);
  }
  const instances = requireTaggableInstances(input.ResourceId, ctx);
  const tags = new Map(input.Tag.map((t) => [t.Key, t.Value ?? '']));
  for (const instance of instances) {
    const keys = new Set([...instance.tags.keys(), ...tags.keys()]);
    if (keys.size > MAX_TAGS) throw new AwsError('TagLimitExceeded', `Tag limit exceeded for resource ${instance.id}`);
  }
  const now = ctx.state.now();
  for (const instance of instances) ctx.state.instances.setTags(instance.id, tags, now, 'api');
  return [el('return', 'true')];
}

function deleteTags(params: unknown, ctx: RequestContext): XmlInput[] {
  const input = parseInput(DeleteTagsInput, params, ec2Invalid);
  dryRun(input.DryRun);
  const tags = input.Tag?.map((t) => {
    if (t.Key === undefined) throw new AwsError('MissingParameter', 'The request must contain the parameter Tag.N.Key');
    checkTagKey(t.Key);
    return { key: t.Key, value: t.Value };
  });
  const instances = requireTaggableInstances(input.ResourceId, ctx);
  const now = ctx.state.now();
  for (const instance of instances) ctx.state.instances.deleteTags(instance.id, tags ?? 'all', now, 'api');
  return [el('return', 'true')];
}

function terminateInstances(params: unknown, ctx: RequestContext): XmlInput[] {
  const input = parseInput(TerminateInstancesInput, params, ec2Invalid);
  dryRun(input.DryRun);
  const instances = requireInstances(input.InstanceId, ctx);
  const now = ctx.state.now();
  const changes = instances.map((i) => ({ id: i.id, ...ctx.state.instances.terminate(i.id, now) }));
  return [
    list('instancesSet', changes, (c) => [
      el('instanceId', c.id),
      stateXml('currentState', c.current),
      stateXml('previousState', c.previous),
    ]),
  ];
}

export const ec2Service: Ec2QueryService = {
  name: 'ec2',
  protocol: 'ec2',
  xmlns: 'http://ec2.amazonaws.com/doc/2016-11-15/',
  // EC2 answers throttling with HTTP 503, unlike the 400 of the other query services.
  throttlingError: () => new AwsError('RequestLimitExceeded', 'Request limit exceeded.', 503),
  operations: {
    DescribeInstances: describeInstances,
    DescribeInstanceStatus: describeInstanceStatus,
    CreateTags: createTags,
    DeleteTags: deleteTags,
    TerminateInstances: terminateInstances,
  },
};
