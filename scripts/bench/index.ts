/**
 * `npm run bench -- <name>`: runs one benchmark (or all with no name). Each prints a human table and, last,
 * one JSON line of figures; the exit code is 1 when a budget is missed.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { SERVER_NODE_FLAGS } from '../nodeFlags.ts';
import { benchEventStore, report as reportEventStore } from './eventstore.ts';
import { benchGateway, report as reportGateway } from './gateway.ts';

const benches: Record<string, () => Promise<boolean>> = {
  eventstore: async () => reportEventStore(await benchEventStore()),
  gateway: async () => reportGateway(await benchGateway()),
  market: async () => import('./market.ts').then((m) => m.report(m.benchMarket())),
  engine: async () => {
    const single = await import('./engine.ts').then((m) => m.report(m.benchEngine()));
    const mixed = await import('./engineMixed.ts').then((m) => m.reportMixed(m.benchEngineMixed()));
    return single && mixed;
  },
  latency: async () =>
    import('./latency.ts').then(async (m) =>
      m.report(await m.benchLatency({ armed: Number(process.env.BENCH_ARMED ?? m.ARMED_DEFAULT) })),
    ),
  ingest: async () => import('./ingest.ts').then(async (m) => m.report(await m.benchIngest())),
  scale: async () => import('./scale.ts').then((m) => m.benchScale()),
  delivery: async () => import('./delivery.ts').then(async (m) => m.report(await m.benchDelivery())),
  readmodels: async () => import('./readModels.ts').then(async (m) => m.report(await m.benchReadModels())),
  seal: async () => import('./seal.ts').then(async (m) => m.report(await m.benchSeal())),
  metrics: async () => import('./metrics.ts').then(async (m) => m.report(await m.benchMetrics())),
};

/**
 * Benchmarks whose own process stands in for the browsers and times what it receives, the servers being children
 * of theirs: they run in a process with Node's defaults rather than the server's flags `npm run bench` gives the
 * benchmarks that measure in this process (with a 64 MB young generation, the receiver's own collections took 18
 * to 30 ms and lengthened what it was timing meanwhile).
 */
const RECEIVERS = new Set(['latency']);

/** Runs one benchmark in a process of Node's defaults; answers whether its budgets were met. */
function withNodeDefaults(name: string): Promise<boolean> {
  const child = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(import.meta.url), name], {
    stdio: 'inherit',
  });
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('exit', (code) => resolve(code === 0));
  });
}

const serverFlags = SERVER_NODE_FLAGS.some((flag) => process.execArgv.includes(flag));
const names = process.argv.slice(2);
const unknown = names.filter((n) => !(n in benches));
if (unknown.length > 0) {
  console.error(`unknown benchmark ${unknown.join(', ')}; known: ${Object.keys(benches).join(', ')}`);
  process.exit(2);
}
let met = true;
for (const name of names.length > 0 ? names : Object.keys(benches)) {
  if (RECEIVERS.has(name) && serverFlags) {
    met = (await withNodeDefaults(name)) && met;
    continue;
  }
  console.error(`bench ${name}`);
  met = (await benches[name]!()) && met;
}
process.exitCode = met ? 0 : 1;
