// The AWS emulator under a sweep-sized load: describing a 5000-instance cluster in pages of 1000
// (tag filter) and looking ids up in batches of 200 (instance-id filter), through the SDK v3 client.
import { DescribeInstancesCommand, EC2Client } from '@aws-sdk/client-ec2';
import { VirtualClock } from '@ec2-node-reconciler/model/clock.js';
import { startAwsEmulator } from '@ec2-node-reconciler/sandbox/aws/index.js';
import type { BenchOutput } from './run.js';

const INSTANCES = 5000;
const id = (n: number): string => `i-0${n.toString(16).padStart(16, '0')}`;

export default async function bench(): Promise<BenchOutput> {
  const aws = await startAwsEmulator({ clock: new VirtualClock(Date.UTC(2026, 10, 29, 12)) });
  const ec2 = new EC2Client(aws.clientConfig());
  try {
    const seedStart = performance.now();
    for (let n = 1; n <= INSTANCES; n++) {
      aws.state.seedInstance({
        id: id(n),
        state: 'running',
        zone: 'us-east-1a',
        launchedAgo: '1d',
        tags: { 'eks:cluster-name': 'demo' },
      });
    }
    const seedMs = performance.now() - seedStart;

    const sweepStart = performance.now();
    let seen = 0;
    let pages = 0;
    let token: string | undefined;
    do {
      const out = await ec2.send(
        new DescribeInstancesCommand({
          Filters: [{ Name: 'tag:eks:cluster-name', Values: ['demo'] }],
          MaxResults: 1000,
          NextToken: token,
        }),
      );
      seen += (out.Reservations ?? []).reduce((sum, r) => sum + (r.Instances?.length ?? 0), 0);
      pages++;
      token = out.NextToken;
    } while (token);
    const sweepMs = performance.now() - sweepStart;
    if (seen !== INSTANCES) throw new Error(`sweep saw ${seen} of ${INSTANCES} instances`);

    const lookupStart = performance.now();
    const batches = 10;
    for (let b = 0; b < batches; b++) {
      const ids = Array.from({ length: 200 }, (_, i) => id(b * 200 + i + 1));
      await ec2.send(new DescribeInstancesCommand({ Filters: [{ Name: 'instance-id', Values: ids }] }));
    }
    const lookupMs = (performance.now() - lookupStart) / batches;

    return {
      figures: {
        instances: INSTANCES,
        'seed ms': Math.round(seedMs),
        'sweep pages (1000 each)': pages,
        'sweep ms': Math.round(sweepMs),
        'ms per 200-id lookup': Number(lookupMs.toFixed(1)),
        requests: aws.counters.total,
        'heap MB': Math.round(process.memoryUsage().heapUsed / 1_048_576),
      },
    };
  } finally {
    ec2.destroy();
    await aws.close();
  }
}
