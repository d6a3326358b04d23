// The DescribeInstances scanner must read exactly what the SDK's deserializer + toInstanceView read:
// held to the SDK on the emulator's answers and on a page shaped like EC2's own (nested names that
// must not be mistaken for the instance's: a network interface's privateDnsName, a block device's
// status, a state reason's code), and it must step aside for a document it does not know.
import { DescribeInstancesCommand, EC2Client, type DescribeInstancesCommandOutput } from '@aws-sdk/client-ec2';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { toInstanceView } from '../../lib/aws/instance-view.js';
import { parseInstancesPage, UnexpectedInstancesXml } from '../../lib/aws/instances-xml.js';
import { Ec2Adapter } from '../../lib/aws/ec2.js';
import { madeClient } from '../../lib/aws/clients.js';
import type { InstanceId } from '@ec2-node-reconciler/model/instance-id.js';
import type { InstanceView } from '@ec2-node-reconciler/model/observation.js';
import { anInstance, instanceId, startWorld, type World } from '@ec2-node-reconciler/sandbox/test/aws/support/world.js';

const fromSdk = (output: Pick<DescribeInstancesCommandOutput, 'Reservations'>): InstanceView[] =>
  (output.Reservations ?? []).flatMap((r) => (r.Instances ?? []).flatMap((i) => toInstanceView(i) ?? []));

/** The SDK's own reading of a raw page: a client whose HTTP handler answers `xml`. */
async function sdkRead(xml: string): Promise<DescribeInstancesCommandOutput> {
  const client = new EC2Client({
    region: 'us-east-1',
    credentials: { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'secret' },
    requestHandler: {
      handle: () =>
        Promise.resolve({
          response: { statusCode: 200, headers: { 'content-type': 'text/xml' }, body: Buffer.from(xml) },
        }),
    },
  });
  try {
    return await client.send(new DescribeInstancesCommand({}));
  } finally {
    client.destroy();
  }
}

// Shaped like an answer of EC2 itself (2016-11-15 API), trimmed: what matters is the nesting.
const EC2_PAGE = `<?xml version="1.0" encoding="UTF-8"?>
<DescribeInstancesResponse xmlns="http://ec2.amazonaws.com/doc/2016-11-15/">
    <requestId>8f7724cf-496f-496e-8fe3-example</requestId>
    <reservationSet>
        <item>
            <reservationId>r-1234567890abcdef0</reservationId>
            <ownerId>123456789012</ownerId>
            <groupSet/>
            <instancesSet>
                <item>
                    <instanceId>i-1234567890abcdef0</instanceId>
                    <imageId>ami-bff32ccc</imageId>
                    <instanceState>
                        <code>16</code>
                        <name>running</name>
                    </instanceState>
                    <privateDnsName>ip-192-168-1-88.eu-west-1.compute.internal</privateDnsName>
                    <dnsName/>
                    <reason/>
                    <instanceType>t2.micro</instanceType>
                    <launchTime>2018-05-08T16:46:19.000Z</launchTime>
                    <placement>
                        <availabilityZone>eu-west-1c</availabilityZone>
                        <groupName/>
                        <tenancy>default</tenancy>
                    </placement>
                    <monitoring><state>disabled</state></monitoring>
                    <subnetId>subnet-56f5f633</subnetId>
                    <privateIpAddress>192.168.1.88</privateIpAddress>
                    <stateReason><code>Client.UserInitiatedShutdown</code><message>shutdown</message></stateReason>
                    <blockDeviceMapping>
                        <item>
                            <deviceName>/dev/xvda</deviceName>
                            <ebs><volumeId>vol-1234567890abcdef0</volumeId><status>attached</status><attachTime>2018-05-08T16:46:20.000Z</attachTime></ebs>
                        </item>
                    </blockDeviceMapping>
                    <instanceLifecycle>spot</instanceLifecycle>
                    <tagSet>
                        <item><key>Name</key><value>Server &amp; &quot;friends&quot; &#x263A;</value></item>
                        <item><key>eks:cluster-name</key><value>demo</value></item>
                        <item><key>empty</key><value/></item>
                    </tagSet>
                    <networkInterfaceSet>
                        <item>
                            <networkInterfaceId>eni-0e219ad4c7e1cf3cb</networkInterfaceId>
                            <status>in-use</status>
                            <privateDnsName>ip-10-9-9-9.other.internal</privateDnsName>
                            <attachment><status>attached</status></attachment>
                            <privateIpAddressesSet>
                                <item><privateIpAddress>192.168.1.88</privateIpAddress><privateDnsName>ip-10-8-8-8.nested.internal</privateDnsName><primary>true</primary></item>
                            </privateIpAddressesSet>
                            <tagSet><item><key>eni-tag</key><value>not the instance's</value></item></tagSet>
                        </item>
                    </networkInterfaceSet>
                    <metadataOptions><state>applied</state><httpTokens>required</httpTokens></metadataOptions>
                </item>
                <item>
                    <instanceId>i-0aaaaaaaaaaaaaaaa</instanceId>
                    <instanceState><code>48</code><name>terminated</name></instanceState>
                    <privateDnsName/>
                    <launchTime>2018-05-07T10:00:00.000Z</launchTime>
                    <placement><availabilityZone>eu-west-1a</availabilityZone></placement>
                </item>
                <item>
                    <instanceId>not-an-instance</instanceId>
                    <instanceState><code>16</code><name>running</name></instanceState>
                </item>
            </instancesSet>
        </item>
    </reservationSet>
    <nextToken>eyJ2IjoiMiJ9</nextToken>
</DescribeInstancesResponse>`;

describe('parseInstancesPage', () => {
  it('should read a page shaped like EC2’s exactly as the SDK and toInstanceView do, nested look-alikes ignored', async () => {
    const page = parseInstancesPage(EC2_PAGE);
    const sdk = await sdkRead(EC2_PAGE);

    expect(page.instances).toEqual(fromSdk(sdk));
    expect(page.nextToken).toBe(sdk.NextToken);
    expect(page.instances[0]).toMatchObject({
      privateDnsName: 'ip-192-168-1-88.eu-west-1.compute.internal',
      spot: true,
      tags: { Name: 'Server & "friends" ☺', 'eks:cluster-name': 'demo', empty: '' },
    });
    expect(page.instances.map((i) => i.id)).toEqual(['i-1234567890abcdef0', 'i-0aaaaaaaaaaaaaaaa']);
  });

  it('should refuse a document it does not know, so that the SDK reads it', () => {
    expect(() =>
      parseInstancesPage('<DescribeInstanceStatusResponse><instanceStatusSet/></DescribeInstanceStatusResponse>'),
    ).toThrow(UnexpectedInstancesXml);
    expect(() =>
      parseInstancesPage(
        '<DescribeInstancesResponse><reservationSet><![CDATA[x]]></reservationSet></DescribeInstancesResponse>',
      ),
    ).toThrow(UnexpectedInstancesXml);
    expect(() => parseInstancesPage('<DescribeInstancesResponse><reservationSet>')).toThrow(UnexpectedInstancesXml);
  });
});

describe('Ec2Adapter through the emulator', () => {
  let world: World;
  beforeEach(async () => {
    world = await startWorld();
  });
  afterEach(async () => {
    await world.close();
  });

  it('should list what the SDK would have read, page after page', async () => {
    for (let n = 1; n <= 1_005; n++) {
      world.aws.state.seedInstance(
        anInstance(n, {
          state: n % 7 === 0 ? 'stopped' : 'running',
          spot: n % 3 === 0,
          tags: { 'eks:cluster-name': 'demo', team: `a&b<${n % 5}>` },
          ...(n % 11 === 0 ? { autoScaling: { group: 'ng-a' } } : {}),
        }),
      );
    }
    const sdkPages: InstanceView[] = [];
    let token: string | undefined;
    do {
      const out = await world.ec2.send(
        new DescribeInstancesCommand({
          Filters: [{ Name: 'tag-key', Values: ['eks:cluster-name'] }],
          MaxResults: 1000,
          NextToken: token,
        }),
      );
      sdkPages.push(...fromSdk(out));
      token = out.NextToken;
    } while (token);

    const listed = await new Ec2Adapter(madeClient(world.ec2)).describeClusterInstances('demo');
    const id = (n: number) => instanceId(n) as InstanceId;
    const looked = await new Ec2Adapter(madeClient(world.ec2)).describeByIds([id(3), id(1_004), id(2_000)]);

    // The same instances as the SDK read them (a listing of more than a page is read in partitions
    // at once, so in another order: EC2 promises none).
    const byId = (a: InstanceView, b: InstanceView) => a.id.localeCompare(b.id);
    expect([...listed].sort(byId)).toEqual([...sdkPages].sort(byId));
    expect(listed).toHaveLength(1_005);
    expect(looked.found.map((i) => i.id)).toEqual([instanceId(3), instanceId(1_004)]);
    expect(looked.notFound).toEqual([instanceId(2_000)]);
  });
});
