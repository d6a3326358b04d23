// Kubernetes emulator at sweep scale: 100,000 Nodes with their Leases and 200,000 pods, listed over
// HTTP in pages of 500 the way the reconciler's observe step lists them. The emulator runs in a
// child process capped at a 2 GiB heap (--max-old-space-size=2048), so "fits in 2 GiB" is proven,
// not assumed; this process is the client: raw HTTP lists (JSON.parse of every page), then the
// reconciler's own NodeClient and LeaseClient (KubeClient, zod-validated pages, projections).
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { KubeClient } from '../../lib/kube/client.js';
import { bearerConnection } from '../../lib/kube/connection.js';
import { LeaseClient } from '../../lib/kube/leases.js';
import { NodeClient } from '../../lib/kube/nodes.js';
import { VirtualClock } from '@ec2-node-reconciler/model/clock.js';
import { startKubeEmulator } from '@ec2-node-reconciler/sandbox/kube/index.js';
import type { BenchOutput } from './run.js';

const NODES = Number(process.env['KUBE_BENCH_NODES'] ?? 100_000);
const PODS_PER_NODE = 2;
const PAGE = 500;
const HEAP_LIMIT_MB = 2048;
const CHILD_FLAG = 'KUBE_LIST_BENCH_CHILD';

let peakRss = 0;
let peakHeap = 0;
const sample = (): void => {
  const m = process.memoryUsage();
  peakRss = Math.max(peakRss, m.rss);
  peakHeap = Math.max(peakHeap, m.heapUsed);
};
const mib = (bytes: number): number => Math.round(bytes / 1024 / 1024);

async function listAll(
  url: string,
  path: string,
): Promise<{ objects: number; bytes: number; pages: number; seconds: number }> {
  let objects = 0;
  let bytes = 0;
  let pages = 0;
  let token = '';
  const started = performance.now();
  do {
    const response = await fetch(
      `${url}${path}?limit=${PAGE}${token === '' ? '' : `&continue=${encodeURIComponent(token)}`}`,
      {
        headers: { Accept: 'application/json' },
      },
    );
    const text = await response.text();
    if (response.status !== 200) throw new Error(`listing ${path}: HTTP ${response.status} ${text.slice(0, 200)}`);
    bytes += text.length;
    // Parse like a client would, then drop the page (the reconciler keeps only a projection).
    const page = JSON.parse(text) as { items: unknown[]; metadata: { continue?: string } };
    objects += page.items.length;
    pages++;
    token = page.metadata.continue ?? '';
  } while (token !== '');
  return { objects, bytes, pages, seconds: (performance.now() - started) / 1000 };
}

/** The emulator side (child process): seed, serve, report memory when asked on stdin. */
async function serve(): Promise<void> {
  const timer = setInterval(sample, 100);
  const clock = new VirtualClock(Date.UTC(2026, 10, 29, 10, 0, 0));
  const kube = await startKubeEmulator({ clock, uids: 'sequential', requestLogCapacity: 10_000 });
  const seedStart = performance.now();
  for (let i = 0; i < NODES; i++) {
    const name = `ip-10-${(i >> 16) & 0xff}-${(i >> 8) & 0xff}-${i & 0xff}.ec2.internal`;
    kube.store.seedNode({
      name,
      // Built from the index's digits: 0x0a00000000000000 + i is past 2^53, where floats lose the low bits.
      instanceId: `i-0a${i.toString(16).padStart(15, '0')}`,
      zone: ['us-east-1a', 'us-east-1b', 'us-east-1c'][i % 3] ?? 'us-east-1a',
      createdAt: clock.now() - 86_400_000,
      lastHeartbeat: clock.now() - (i % 10) * 1000,
    });
    for (let p = 0; p < PODS_PER_NODE; p++) {
      const rs = `app-${(i * PODS_PER_NODE + p) % 1000}-5d8f9c7b6`;
      kube.store.seedPod({
        name: `${rs}-${i.toString(36)}${p}`,
        namespace: `team-${i % 20}`,
        node: name,
        owner: `ReplicaSet/${rs}`,
      });
    }
    if (i % 5000 === 0) sample();
  }
  const seedSeconds = (performance.now() - seedStart) / 1000;
  sample();
  const afterSeed = process.memoryUsage();
  // Heartbeats move on: Leases are renewed lazily while they are listed.
  clock.advance(30_000);
  process.stdout.write(
    `${JSON.stringify({ url: kube.url, seedSeconds, heapAfterSeed: afterSeed.heapUsed, rssAfterSeed: afterSeed.rss })}\n`,
  );
  for await (const _line of process.stdin) break;
  clearInterval(timer);
  sample();
  process.stdout.write(`${JSON.stringify({ peakHeap, peakRss })}\n`);
  await kube.close();
}

/** The client side (bench process): list over HTTP while the child serves under a 2 GiB heap cap. */
export default async function bench(): Promise<BenchOutput> {
  const self = fileURLToPath(import.meta.url);
  const child = spawn(process.execPath, [`--max-old-space-size=${HEAP_LIMIT_MB}`, '--import', 'tsx', self], {
    env: { ...process.env, [CHILD_FLAG]: '1' },
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
  const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  const next = async (): Promise<Record<string, unknown>> => {
    const line = await lines.next();
    if (line.done === true)
      throw new Error(
        `kube list bench child ended early with ${String(await exited)} (out of memory at ${HEAP_LIMIT_MB} MiB?)`,
      );
    return JSON.parse(line.value) as Record<string, unknown>;
  };
  try {
    const ready = await next();
    const url = String(ready['url']);
    const nodes = await listAll(url, '/api/v1/nodes');
    const leases = await listAll(url, '/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases');
    const pods = await listAll(url, '/api/v1/pods');
    // The sweep's own observe step: KubeClient, zod validation of every page, the projections.
    const kube = new KubeClient(bearerConnection({ server: url, token: 'bench' }));
    const observeStart = performance.now();
    const nodeViews = await new NodeClient(kube).listNodes();
    const observeNodesSeconds = (performance.now() - observeStart) / 1000;
    const leaseStart = performance.now();
    const leaseViews = await new LeaseClient(kube).listLeases();
    const observeLeasesSeconds = (performance.now() - leaseStart) / 1000;
    if (nodeViews.length !== NODES || leaseViews.size !== NODES)
      throw new Error(`observed ${nodeViews.length} nodes and ${leaseViews.size} leases, expected ${NODES}`);
    // What a drain asks: one node's pods out of all of them, by field selector.
    const drainLists = 200;
    const drainStart = performance.now();
    for (let i = 0; i < drainLists; i++) {
      await (
        await fetch(
          `${url}/api/v1/pods?fieldSelector=spec.nodeName%3Dip-10-0-${i >> 8}-${i & 0xff}.ec2.internal&limit=500`,
        )
      ).text();
    }
    const drainListMs = (performance.now() - drainStart) / drainLists;
    child.stdin.write('report\n');
    const memory = await next();
    if (nodes.objects !== NODES || leases.objects !== NODES)
      throw new Error(`listed ${nodes.objects} nodes and ${leases.objects} leases, expected ${NODES}`);
    const peakRss = Number(memory['peakRss']);
    return {
      figures: {
        nodes: NODES,
        pods: NODES * PODS_PER_NODE,
        heapLimitMiB: HEAP_LIMIT_MB,
        seedSeconds: Number(Number(ready['seedSeconds']).toFixed(1)),
        heapAfterSeedMiB: mib(Number(ready['heapAfterSeed'])),
        rssAfterSeedMiB: mib(Number(ready['rssAfterSeed'])),
        nodeBytesAvg: Math.round(nodes.bytes / nodes.objects),
        nodeListPages: nodes.pages,
        nodeListSeconds: Number(nodes.seconds.toFixed(2)),
        nodeListObjectsPerSecond: Math.round(nodes.objects / nodes.seconds),
        nodeListMiBPerSecond: Math.round(nodes.bytes / 1024 / 1024 / nodes.seconds),
        leaseListSeconds: Number(leases.seconds.toFixed(2)),
        leaseListObjectsPerSecond: Math.round(leases.objects / leases.seconds),
        observeNodesSeconds: Number(observeNodesSeconds.toFixed(2)),
        observeNodesPerSecond: Math.round(NODES / observeNodesSeconds),
        observeLeasesSeconds: Number(observeLeasesSeconds.toFixed(2)),
        podListSeconds: Number(pods.seconds.toFixed(2)),
        podListObjectsPerSecond: Math.round(pods.objects / pods.seconds),
        podsOfOneNodeListMs: Number(drainListMs.toFixed(2)),
        emulatorPeakHeapMiB: mib(Number(memory['peakHeap'])),
        emulatorPeakRssMiB: mib(peakRss),
        emulatorWithinTwoGiB: peakRss < 2 * 1024 * 1024 * 1024,
      },
    };
  } finally {
    child.stdin.end();
    await exited;
  }
}

if (process.env[CHILD_FLAG] === '1') await serve();
