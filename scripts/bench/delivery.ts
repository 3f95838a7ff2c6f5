/**
 * `npm run bench -- delivery`: alerts carried to webhooks, and what slow receivers cost the live path. The real
 * gateway (embedded adapters, `TICK_SOURCE=feed`, the delivery processor) runs in this process with loopback
 * webhook receivers (allowed through `WEBHOOK_ALLOWED_HOSTS`); ticks go onto the engine's bus as the feed route
 * puts them.
 *
 * 1. Webhooks: 10,000 price alerts of 1,000 users (one webhook each, answering at once) fire 10 at a time, one
 *    tick every 10 ms. Measured: the rate the engine recorded the triggers at, deliveries per second and the CPU
 *    time of the process per delivery (which tells more than rates on a machine shared with others), and from
 *    the trigger being durable (the engine's report) to the receiver having the request.
 * 2. Isolation: 20 users with connected sockets; one alert fires per round and its user's socket is timed from
 *    the tick to `notification`. Once without any receiver, once with every user's webhook answering after 3 s
 *    for half of them and at once for the other half.
 *
 * Prints a table, then one JSON line. `BENCH_TRIGGERS` overrides the 10,000.
 */
import { randomUUID } from 'node:crypto';
import { io as connect, type Socket } from 'socket.io-client';
import { alertsDecider, type AlertsCommand } from '../../domain/alerts/alerts.ts';
import { channelsDecider } from '../../domain/channels/channels.ts';
import type { ChannelAnswer } from '../../domain/contract/channels.ts';
import type { NotificationPush } from '../../domain/contract/socket.ts';
import { deliveryIdOf } from '../../domain/deliveries/deliveries.ts';
import { startReceiver, type TestReceiver } from '../../engine/delivery/testing/receiver.ts';
import { handleCommand } from '../../platform/commandHandler.ts';
import { startTestGateway, type TestClient, type TestGateway } from '../../gateway/testing/harness.ts';
import { percentile } from './gateway.ts';
import { round2 } from './child.ts';

/** p99 ms from trigger to webhook arrival with a prompt receiver. */
export const BUDGET_WEBHOOK_P99_MS = 50;
/** p99 ms from tick to socket notification while half the receivers take 3 s. */
export const BUDGET_SOCKET_P99_MS = 10;

/** Figures of one run. */
export interface DeliveryBenchResult {
  readonly bench: 'delivery';
  readonly triggers: number;
  readonly deliveriesPerSec: number;
  /** Triggers recorded per second by the engine while the ticks were offered (1,000 a second). */
  readonly triggersPerSec: number;
  readonly webhookP50Ms: number;
  readonly webhookP99Ms: number;
  /** CPU time of this process (user and system) per delivery while the webhooks are delivered. */
  readonly cpuMsPerDelivery: number;
  readonly socketP99NoReceiversMs: number;
  readonly socketP99SlowReceiversMs: number;
  readonly socketP50SlowReceiversMs: number;
  readonly rounds: number;
}

async function createAlerts(
  gw: TestGateway,
  userId: string,
  symbol: string,
  thresholds: readonly number[],
): Promise<void> {
  for (const threshold of thresholds) {
    const command: AlertsCommand = {
      type: 'CreateAlert',
      data: {
        alertId: randomUUID(),
        symbol,
        kind: 'PRICE',
        alerttype: 'U',
        threshold,
        period: null,
        at: new Date().toISOString(),
      },
    };
    await handleCommand(gw.running.system.events, alertsDecider, `alerts-${userId}`, command, {
      commandId: randomUUID(),
      userId,
      at: new Date().toISOString(),
      actor: `user:${userId}`,
    });
  }
}

async function addWebhook(user: TestClient, url: string): Promise<string> {
  const res = await user.post('/personalize/channels', { type: 'webhook', url });
  if (res.status !== 200) throw new Error(`channel: ${res.status} ${res.text}`);
  return (res.body as ChannelAnswer).id;
}

function openSocket(url: string, user: TestClient): Promise<Socket> {
  const cookie = [...user.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  const socket = connect(url, {
    transports: ['websocket'],
    reconnection: false,
    forceNew: true,
    extraHeaders: { cookie },
  });
  return new Promise((resolve, reject) => {
    socket.once('connect', () => resolve(socket));
    socket.once('connect_error', reject);
  });
}

function priceOf(gw: TestGateway, symbol: string): number {
  const quote = gw.running.system.liveQuotes?.quotes([symbol])[0];
  if (!quote) throw new Error(`no quote of ${symbol}`);
  return quote.price;
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Tick to socket notification, one alert per round, for users whose sockets are open. */
async function socketRounds(
  gw: TestGateway,
  users: readonly (TestClient & { username: string })[],
  symbol: string,
  rounds: number,
): Promise<number[]> {
  const engine = gw.running.system.engine!;
  const base = Math.round(priceOf(gw, symbol) * 100 + 100) / 100;
  for (let u = 0; u < users.length; u++) {
    const mine = Array.from({ length: rounds }, (_, i) => i).filter((i) => i % users.length === u);
    await createAlerts(
      gw,
      users[u]!.username,
      symbol,
      mine.map((i) => round2(base + 0.01 * i)),
    );
  }
  await engine.alerts.waitFor(await gw.running.system.events.headPosition());
  const sockets = await Promise.all(users.map((user) => openSocket(gw.url, user)));
  const samples: number[] = [];
  try {
    for (let i = 0; i < rounds; i++) {
      const socket = sockets[i % users.length]!;
      const arrived = new Promise<number>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no notification in round ${i}`)), 5000);
        socket.once('notification', (_push: NotificationPush) => {
          clearTimeout(timer);
          resolve(performance.now());
        });
      });
      const sent = performance.now();
      await engine.bus.publish([{ symbol, price: round2(base + 0.01 * i) + 0.001, size: 1, ts: Date.now() }]);
      samples.push((await arrived) - sent);
      await sleep(Math.max(0, 20 - (performance.now() - sent)));
    }
  } finally {
    for (const s of sockets) s.disconnect();
  }
  return samples;
}

/** Runs the benchmark. */
export async function benchDelivery(): Promise<DeliveryBenchResult> {
  const triggers = Number(process.env.BENCH_TRIGGERS ?? 10_000);
  const prompt = await startReceiver();
  const slow = await startReceiver(() => ({ status: 200, delayMs: 3000 }));
  const receivers: TestReceiver[] = [prompt, slow];
  const gw = await startTestGateway({ env: { WEBHOOK_ALLOWED_HOSTS: '127.0.0.1' } });
  try {
    const engine = gw.running.system.engine!;
    // 1. Webhooks: ten alerts per user, so that each user's streams stay as short as a real user's.
    const perUser = 10;
    const userCount = Math.ceil(triggers / perUser);
    const base = Math.round(priceOf(gw, 'AAPL') * 100 + 100) / 100;
    const levels = Math.ceil(triggers / 10);
    const channelOf = new Map<string, string>();
    for (let u = 0; u < userCount; u++) {
      const userId = `bench${u}`;
      const channelId = randomUUID();
      await handleCommand(
        gw.running.system.events,
        channelsDecider,
        `channels-${userId}`,
        {
          type: 'AddChannel',
          data: {
            channelId,
            spec: { type: 'webhook', url: `${prompt.url}/hook`, name: '' },
            at: new Date().toISOString(),
          },
        },
        { commandId: randomUUID(), userId, at: new Date().toISOString(), actor: `user:${userId}` },
      );
      channelOf.set(userId, channelId);
      const thresholds = Array.from({ length: perUser }, (_, k) => u * perUser + k)
        .filter((i) => i < triggers)
        .map((i) => round2(base + 0.01 * (i % levels)));
      await createAlerts(gw, userId, 'AAPL', thresholds);
    }
    await engine.alerts.waitFor(await gw.running.system.events.headPosition());
    const triggeredAt = new Map<string, number>();
    const stop = engine.onTrigger((trigger) => {
      const channel = channelOf.get(trigger.userId);
      if (channel) triggeredAt.set(deliveryIdOf(trigger.eventId, channel), performance.now());
    });
    const cpuBefore = process.cpuUsage();
    const start = performance.now();
    for (let level = 0; level < levels; level++) {
      const sent = performance.now();
      await engine.bus.publish([
        { symbol: 'AAPL', price: round2(base + 0.01 * level) + 0.001, size: 1, ts: Date.now() },
      ]);
      await sleep(Math.max(0, 10 - (performance.now() - sent)));
    }
    const arrivals = await prompt.waitFor(triggers, 300_000);
    const cpu = process.cpuUsage(cpuBefore);
    stop();
    const end = Math.max(...arrivals.map((r) => r.arrivedAt));
    const triggerTimes = [...triggeredAt.values()];
    const lastTrigger = Math.max(...triggerTimes);
    const latencies = arrivals.map(
      (r) => r.arrivedAt - (triggeredAt.get(String(r.headers['idempotency-key'])) ?? r.arrivedAt),
    );
    // 2. Isolation: the same rounds without receivers, then with half of them slow.
    const quiet = await Promise.all(Array.from({ length: 20 }, () => gw.user('quiet')));
    const noReceivers = await socketRounds(gw, quiet, 'MSFT', 200);
    const busy = await Promise.all(Array.from({ length: 20 }, () => gw.user('busy')));
    for (let i = 0; i < busy.length; i++) await addWebhook(busy[i]!, `${(i % 2 === 0 ? slow : prompt).url}/hook`);
    const slowReceivers = await socketRounds(gw, busy, 'NVDA', 200);
    return {
      bench: 'delivery',
      triggers: arrivals.length,
      deliveriesPerSec: Math.round(arrivals.length / ((end - start) / 1000)),
      triggersPerSec: Math.round(triggerTimes.length / ((lastTrigger - start) / 1000)),
      webhookP50Ms: round2(percentile(latencies, 50)),
      webhookP99Ms: round2(percentile(latencies, 99)),
      cpuMsPerDelivery: round2((cpu.user + cpu.system) / 1000 / arrivals.length),
      socketP99NoReceiversMs: round2(percentile(noReceivers, 99)),
      socketP99SlowReceiversMs: round2(percentile(slowReceivers, 99)),
      socketP50SlowReceiversMs: round2(percentile(slowReceivers, 50)),
      rounds: slowReceivers.length,
    };
  } finally {
    await gw.close();
    for (const r of receivers) await r.close();
  }
}

/** Prints the figures; answers whether the budgets are met. */
export function report(r: DeliveryBenchResult): boolean {
  const met = r.webhookP99Ms < BUDGET_WEBHOOK_P99_MS && r.socketP99SlowReceiversMs < BUDGET_SOCKET_P99_MS;
  console.log(`delivery of ${r.triggers.toLocaleString('en-US')} triggers to a loopback webhook receiver`);
  console.log(`  triggers recorded       ${r.triggersPerSec.toLocaleString('en-US')}/s (offered 1,000/s)`);
  console.log(
    `  deliveries              ${r.deliveriesPerSec.toLocaleString('en-US')}/s, ${r.cpuMsPerDelivery} ms of CPU each`,
  );
  console.log(
    `  trigger → webhook       p50 ${r.webhookP50Ms} ms, p99 ${r.webhookP99Ms} ms (budget p99 < ${BUDGET_WEBHOOK_P99_MS} ms)`,
  );
  console.log(`  tick → socket, no receivers        p99 ${r.socketP99NoReceiversMs} ms`);
  console.log(
    `  tick → socket, half receivers 3 s  p50 ${r.socketP50SlowReceiversMs} ms, p99 ${r.socketP99SlowReceiversMs} ms over ${r.rounds} rounds (budget p99 < ${BUDGET_SOCKET_P99_MS} ms)`,
  );
  console.log(met ? 'budgets met' : 'BUDGET MISSED');
  console.log(JSON.stringify(r));
  return met;
}
