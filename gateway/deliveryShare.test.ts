/**
 * Two `ROLE=delivery` processes on one log and a real Redis split the users between them: every delivery is
 * sent once, each process sends some, neither tries one the other has taken; when one is killed, the other takes
 * its users over once its heartbeat has expired.
 */
import { expect } from 'chai';
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { alertsDecider } from '../domain/alerts/alerts.ts';
import { channelsDecider } from '../domain/channels/channels.ts';
import type { CommandMeta } from '../domain/decider.ts';
import { startReceiver, type TestReceiver } from '../engine/delivery/testing/receiver.ts';
import { MARKET_DB_FILE } from '../engine/marketdata/store.ts';
import { handleCommand } from '../platform/commandHandler.ts';
import { openEventStore } from '../platform/eventstore/index.ts';
import { StreamNotFoundError, type EventStore } from '../platform/eventstore/port.ts';
import { freePort, startTestRedis, type TestRedis } from '../platform/testing/redisServer.ts';
import { marketTemplate, TEST_MARKET_DATE } from './testing/harness.ts';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

interface Proc {
  readonly name: string;
  readonly url: string;
  readonly child: ChildProcess;
  output: string;
}

function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}

/** A sample of a process's `/metrics` (summed over the series matching `labels`). */
async function sample(proc: Proc, name: string, labels = ''): Promise<number> {
  const text = await (await fetch(`${proc.url}/metrics`)).text();
  let sum = 0;
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    if (labels && !line.includes(labels)) continue;
    sum += Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return sum;
}

/** Polls `check` (every 50 ms) until it answers true, or fails naming `what`. */
async function until(what: string, check: () => Promise<boolean>, timeoutMs = 30_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    if (await check().catch(() => false)) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`not within ${timeoutMs} ms: ${what}`);
}

describe('delivery shared by two processes (ROLE=delivery, Redis)', function () {
  this.timeout(180_000);
  let redis: TestRedis;
  let dataDir: string;
  let receiver: TestReceiver;
  let events: EventStore;
  const procs: Proc[] = [];

  async function start(name: string): Promise<Proc> {
    const port = await freePort();
    const child = spawn(process.execPath, ['--import', 'tsx', join(root, 'scripts', 'start.ts')], {
      cwd: root,
      env: {
        ...process.env,
        ROLE: 'delivery',
        PUBLIC_ORIGIN: 'http://127.0.0.1:3000',
        REDIS_URL: redis.url,
        PORT: String(port),
        DATA_DIR: dataDir,
        ENGINE_NAME: name,
        MARKET_AS_OF: TEST_MARKET_DATE,
        WEBHOOK_ALLOWED_HOSTS: '127.0.0.1',
        LOG_LEVEL: 'warn',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const proc: Proc = { name, url: `http://127.0.0.1:${port}`, child, output: '' };
    child.stdout?.on('data', (chunk: Buffer) => (proc.output += chunk.toString()));
    child.stderr?.on('data', (chunk: Buffer) => (proc.output += chunk.toString()));
    procs.push(proc);
    await until(
      `${name} answers /healthz`,
      async () => {
        if (child.exitCode !== null) throw new Error(`${name} exited: ${proc.output}`);
        return (await fetch(`${proc.url}/healthz`)).ok;
      },
      60_000,
    );
    return proc;
  }

  function meta(userId: string, actor: CommandMeta['actor'] = `user:${userId}`): CommandMeta {
    return { commandId: randomUUID(), userId, at: new Date().toISOString(), actor };
  }

  /** Gives each user a webhook and fires one alert of each, as the engine does. */
  async function fire(users: readonly string[]): Promise<void> {
    for (const userId of users) {
      await handleCommand(
        events,
        channelsDecider,
        `channels-${userId}`,
        {
          type: 'AddChannel',
          data: {
            channelId: randomUUID(),
            spec: { type: 'webhook', url: `${receiver.url}/hook`, name: '' },
            at: new Date().toISOString(),
          },
        },
        meta(userId),
      );
      const alertId = randomUUID();
      const at = new Date().toISOString();
      await handleCommand(
        events,
        alertsDecider,
        `alerts-${userId}`,
        {
          type: 'CreateAlert',
          data: { alertId, symbol: 'AAPL', kind: 'PRICE', alerttype: 'U', threshold: 190, period: null, at },
        },
        meta(userId),
      );
      await handleCommand(
        events,
        alertsDecider,
        `alerts-${userId}`,
        { type: 'TriggerAlert', data: { alertId, price: 191.5, changepct: 1.2, at } },
        meta(userId, 'engine'),
      );
    }
  }

  /**
   * Checks that every delivery of `userIds` succeeded once and that the receiver got each attempt once: one
   * request per `DeliveryAttempted` (an attempt that timed out on a loaded machine is sent again, with the same
   * `Idempotency-Key`, and recorded as a second attempt).
   */
  async function expectSentOnce(userIds: readonly string[]): Promise<void> {
    // A failed attempt is retried after 30 s.
    await until(
      'every delivery recorded as succeeded',
      async () => (await Promise.all(userIds.map(recordOf))).every((types) => types.includes('DeliverySucceeded')),
      90_000,
    );
    const requestsByKey = new Map<string, number>();
    for (const r of receiver.requests) {
      const key = String(r.headers['idempotency-key']);
      requestsByKey.set(key, (requestsByKey.get(key) ?? 0) + 1);
    }
    for (const userId of userIds) {
      const recorded = await events.readStream(`deliveries-${userId}`);
      const types = recorded.map((e) => e.type);
      expect(
        types.filter((t) => t === 'DeliverySucceeded'),
        userId,
      ).to.have.length(1);
      expect(types.at(-1), userId).to.equal('DeliverySucceeded');
      const deliveryId = (recorded[0]!.data as { deliveryId: string }).deliveryId;
      expect(requestsByKey.get(deliveryId), userId).to.equal(types.filter((t) => t === 'DeliveryAttempted').length);
    }
  }

  /** The event types of a user's delivery record. */
  async function recordOf(userId: string): Promise<string[]> {
    try {
      return (await events.readStream(`deliveries-${userId}`)).map((e) => e.type);
    } catch (error) {
      if (error instanceof StreamNotFoundError) return [];
      throw error;
    }
  }

  before(async function () {
    redis = await startTestRedis();
    dataDir = mkdtempSync(join(tmpdir(), 'sp-share-'));
    copyFileSync(marketTemplate(42), join(dataDir, MARKET_DB_FILE));
    events = await openEventStore({ eventStoreUrl: null, dataDir, chainKey: null });
    receiver = await startReceiver();
  });

  after(async function () {
    for (const proc of procs) if (proc.child.exitCode === null && proc.child.signalCode === null) proc.child.kill();
    await Promise.all(procs.map((proc) => exited(proc.child)));
    await events?.close();
    await receiver?.close();
    await redis?.stop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  afterEach(function () {
    if (this.currentTest?.state === 'failed') {
      for (const proc of procs) console.error(`--- ${proc.name}\n${proc.output.slice(-4000)}`);
    }
  });

  it('sends each delivery once, from both processes, and takes over the users of one that dies', async function () {
    const [a, b] = await Promise.all([start('deliverya'), start('deliveryb')]);
    await until('both see two delivery processes', async () => {
      const seen = await Promise.all([a, b].map((proc) => sample(proc, 'stockpulse_delivery_processes')));
      return seen.every((n) => n === 2);
    });

    const users = Array.from({ length: 40 }, (_, i) => `share${i}`);
    await fire(users);
    await receiver.waitFor(users.length, 60_000);
    await expectSentOnce(users);
    expect(new Set(receiver.requests.map((r) => String(r.headers['idempotency-key']))).size).to.equal(users.length);
    const sent = await Promise.all(
      [a, b].map((proc) => sample(proc, 'stockpulse_delivery_attempts_total', 'result="ok"')),
    );
    expect(sent[0]! + sent[1]!).to.equal(users.length);
    expect(sent[0], 'deliveries sent by a').to.be.above(0);
    expect(sent[1], 'deliveries sent by b').to.be.above(0);
    const taken = await Promise.all(
      [a, b].map((proc) => sample(proc, 'stockpulse_delivery_attempts_total', 'result="taken"')),
    );
    expect(taken, 'attempts one process found already made by the other').to.deep.equal([0, 0]);

    // b dies without leaving: once its key has expired, a takes every user.
    b.child.kill('SIGKILL');
    await exited(b.child);
    const later = Array.from({ length: 20 }, (_, i) => `later${i}`);
    await fire(later);
    await receiver.waitFor(users.length + later.length, 60_000);
    await expectSentOnce([...users, ...later]);
    expect(new Set(receiver.requests.map((r) => String(r.headers['idempotency-key']))).size).to.equal(
      users.length + later.length,
    );
    expect(await sample(a, 'stockpulse_delivery_attempts_total', 'result="ok"')).to.equal(sent[0]! + later.length);
    expect(await sample(a, 'stockpulse_delivery_processes')).to.equal(1);
  });
});
