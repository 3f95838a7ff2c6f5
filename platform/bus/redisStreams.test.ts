import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { connectRedis, type RedisClient } from '../redis.ts';
import { startTestRedis, type TestRedis } from '../testing/redisServer.ts';
import { shardOf, type ClosedDay, type Tick, type TickListener } from './port.ts';
import { compareStreamIds, createRedisTickBus, TickBusMemberTakenError, type RedisTickBus } from './redisStreams.ts';
import { tickBusContract } from './tickBus.contract.ts';

let shared: TestRedis | undefined;
let sharedClient: RedisClient | undefined;

/** One server for the whole file; each bus gets a stream of its own. */
async function server(): Promise<{ redis: TestRedis; client: RedisClient }> {
  shared ??= await startTestRedis();
  sharedClient ??= await connectRedis(shared.url);
  return { redis: shared, client: sharedClient };
}

after(async function () {
  if (sharedClient?.isOpen) await sharedClient.close();
  await shared?.stop();
});

tickBusContract('redis streams', async (onError) => {
  const { client } = await server();
  const bus = createRedisTickBus(client, { stream: `ticks-${randomUUID()}`, onError, blockMs: 500 });
  return { bus, close: () => bus.close() };
});

const SYMBOLS = ['AAPL', 'MSFT', 'NVDA', 'XOM', 'JPM', 'KO', 'T', 'F'];

function ticks(count: number, from = 0): Tick[] {
  return Array.from({ length: count }, (_, i) => ({
    symbol: SYMBOLS[(from + i) % SYMBOLS.length]!,
    price: 100 + i / 100,
    size: 1,
    ts: 1_735_830_000_000 + from + i,
  }));
}

function until(predicate: () => boolean, timeoutMs = 5000): Promise<void> {
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const check = (): void => {
      if (predicate()) resolve();
      else if (Date.now() - started > timeoutMs) reject(new Error(`condition not met in ${timeoutMs} ms`));
      else setTimeout(check, 5);
    };
    check();
  });
}

describe('redis streams tick bus', function () {
  let client: RedisClient;
  let stream: string;
  const buses: RedisTickBus[] = [];

  function bus(): RedisTickBus {
    const b = createRedisTickBus(client, { stream, blockMs: 500, leaseMs: 600 });
    buses.push(b);
    return b;
  }

  beforeEach(async function () {
    ({ client } = await server());
    stream = `ticks-${randomUUID()}`;
  });

  afterEach(async function () {
    for (const b of buses.splice(0)) await b.close();
  });

  it('orders stream ids numerically', function () {
    expect(compareStreamIds('9-0', '10-0')).to.equal(-1);
    expect(compareStreamIds('10-2', '10-10')).to.equal(-1);
    expect(compareStreamIds('10-2', '10-2')).to.equal(0);
    expect(compareStreamIds('11-0', '10-99')).to.equal(1);
  });

  it('publishes each batch as one entry of the stream, readable by any producer or consumer', async function () {
    const b = bus();
    await b.publish(ticks(3));
    const entries = await client.sendCommand<[string, string[]][]>(['XRANGE', stream, '-', '+']);
    expect(entries).to.have.length(1);
    const [, fields] = entries[0]!;
    expect(fields[0]).to.equal('kind');
    expect(fields[1]).to.equal('ticks');
    expect(JSON.parse(fields[3]!)).to.deep.equal(ticks(3));
  });

  it('keeps the closes of the latest trading days for a process that starts after them, a played day apart', async function () {
    const day = (date: string, close: number, played?: 'demo' | 'replay'): ClosedDay => ({
      date,
      bars: [{ symbol: 'AAPL', date, open: close, high: close, low: close, close, volume: 1 }],
      ...(played ? { played } : {}),
    });
    const publisher = createRedisTickBus(client, { stream, blockMs: 500, closesKept: 3 });
    buses.push(publisher);
    const seen: ClosedDay[] = [];
    await bus().subscribe({ onTicks: () => undefined, onDayClosed: (d) => void seen.push(d) }).ready;
    expect(await publisher.recentCloses()).to.deep.equal([]);
    for (const [date, close] of [
      ['2026-11-23', 1],
      ['2026-11-25', 3],
      ['2026-11-24', 2],
      ['2026-11-26', 4],
    ] as const) {
      await publisher.publishDayClosed(day(date, close));
    }
    await publisher.publishDayClosed(day('2026-11-27', 9, 'demo'));
    // A date closed again (a missed session closed late, say) keeps its last close.
    await publisher.publishDayClosed(day('2026-11-25', 5));
    await until(() => seen.length === 6);
    expect(seen.map((d) => d.date)).to.deep.equal([
      '2026-11-23',
      '2026-11-25',
      '2026-11-24',
      '2026-11-26',
      '2026-11-27',
      '2026-11-25',
    ]);
    // The latest three dates, oldest first, from any process on the same Redis; the played day not among them.
    expect(await bus().recentCloses()).to.deep.equal([
      day('2026-11-24', 2),
      day('2026-11-25', 5),
      day('2026-11-26', 4),
    ]);
    expect(await bus().recentCloses('2026-11-24')).to.deep.equal([day('2026-11-25', 5), day('2026-11-26', 4)]);
    expect(await bus().recentCloses('2026-11-26')).to.deep.equal([]);
  });

  it('reads ticks an external producer appends with XADD, dropping malformed ones', async function () {
    const b = bus();
    const got: Tick[] = [];
    await b.subscribe({ onTicks: (t) => void got.push(...t) }).ready;
    const data = JSON.stringify([{ symbol: 'AAPL', price: 251.5, size: 10, ts: 5 }, { symbol: 'MSFT' }, 'junk']);
    await client.sendCommand(['XADD', stream, '*', 'kind', 'ticks', 'data', data]);
    await until(() => got.length === 1);
    expect(got).to.deep.equal([{ symbol: 'AAPL', price: 251.5, size: 10, ts: 5 }]);
  });

  it('lets a named member that crashed resume: it gets what was published while it was down, once', async function () {
    const first = bus();
    const seen: Tick[] = [];
    const listener: TickListener = { onTicks: (t) => void seen.push(...t) };
    await first.subscribe(listener, { group: 'engines', member: 'engine-a' }).ready;
    await first.publish(ticks(8));
    await until(() => seen.length === 8);
    await first.crash();

    const publisher = bus();
    await publisher.publish(ticks(8, 8));
    await publisher.publish(ticks(8, 16));

    const second = bus();
    await second.subscribe(listener, { group: 'engines', member: 'engine-a' }).ready;
    await until(() => seen.length === 24);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(seen.map((t) => t.ts)).to.deep.equal(ticks(24).map((t) => t.ts));
  });

  it('reads on when Redis loses its data: the group is made again and the ticks published after reach the member', async function () {
    const engine = bus();
    const seen: Tick[] = [];
    const errors: unknown[] = [];
    const reading = createRedisTickBus(client, {
      stream,
      blockMs: 200,
      leaseMs: 600,
      onError: (error) => errors.push(error),
    });
    buses.push(reading);
    await reading.subscribe({ onTicks: (t) => void seen.push(...t) }, { group: 'engines', member: 'engine-a' }).ready;
    await engine.publish(ticks(8));
    await until(() => seen.length === 8);

    // A restart without persistence: the stream, its groups and the membership are gone.
    await client.sendCommand(['FLUSHALL']);
    await until(() => errors.some((e) => e instanceof Error && e.message.startsWith('NOGROUP')));
    await engine.publish(ticks(8, 8));
    await until(() => seen.length === 16);
    expect(seen.map((t) => t.ts)).to.deep.equal(ticks(16).map((t) => t.ts));
  });

  it('delivers again, after a crash, a batch whose work was not durable yet', async function () {
    const first = bus();
    const batches: number[] = [];
    await first.subscribe(
      {
        onTicks: (t) => {
          batches.push(t.length);
          return new Promise<void>(() => undefined);
        },
      },
      { group: 'engines', member: 'engine-a' },
    ).ready;
    await first.publish(ticks(5));
    await until(() => batches.length === 1);
    await first.crash();

    const second = bus();
    const again: Tick[] = [];
    await second.subscribe({ onTicks: (t) => void again.push(...t) }, { group: 'engines', member: 'engine-a' }).ready;
    await until(() => again.length === 5);
    expect(again).to.deep.equal(ticks(5));
  });

  it('resumes a crashed member with the membership in force where it stopped', async function () {
    const a = bus();
    const b = bus();
    const gotA: Tick[] = [];
    const gotB: Tick[] = [];
    await a.subscribe({ onTicks: (t) => void gotA.push(...t) }, { group: 'g', member: 'a' }).ready;
    await b.subscribe({ onTicks: (t) => void gotB.push(...t) }, { group: 'g', member: 'b' }).ready;
    await b.crash();
    const batch = ticks(SYMBOLS.length * 2);
    await a.publish(batch);
    await until(() => gotA.length === batch.filter((t) => shardOf(t.symbol, 2) === 0).length);
    const restarted = bus();
    await restarted.subscribe({ onTicks: (t) => void gotB.push(...t) }, { group: 'g', member: 'b' }).ready;
    await until(() => gotA.length + gotB.length === batch.length);
    for (const t of gotB) expect(shardOf(t.symbol, 2), t.symbol).to.equal(1);
  });

  it('refuses a member name that a live process holds', async function () {
    const a = bus();
    await a.subscribe({ onTicks: () => undefined }, { group: 'g', member: 'same' }).ready;
    const b = bus();
    const refused = await b.subscribe({ onTicks: () => undefined }, { group: 'g', member: 'same' }).ready.then(
      () => null,
      (error: unknown) => error,
    );
    expect(refused).to.be.instanceOf(TickBusMemberTakenError);
  });

  it('hands an anonymous member that leaves its ticks up to its leave, and the others the rest: none lost, none twice', async function () {
    const a = bus();
    const b = bus();
    const gotA: Tick[] = [];
    const gotB: Tick[] = [];
    const subA = a.subscribe({ onTicks: (t) => void gotA.push(...t) }, { group: 'g' });
    await subA.ready;
    await b.subscribe({ onTicks: (t) => void gotB.push(...t) }, { group: 'g' }).ready;
    const all = ticks(400);
    const publishing = (async () => {
      for (let i = 0; i < 400; i += 10) await a.publish(all.slice(i, i + 10));
    })();
    await new Promise((resolve) => setTimeout(resolve, 5));
    await subA.unsubscribe();
    await publishing;
    await until(() => gotA.length + gotB.length === 400);
    await new Promise((resolve) => setTimeout(resolve, 100));
    const ts = [...gotA, ...gotB].map((t) => t.ts).sort((x, y) => x - y);
    expect(ts).to.deep.equal(all.map((t) => t.ts));
  });

  it('keeps the place of a named member that stops, until it is retired', async function () {
    const a = bus();
    const b = bus();
    const gotA: Tick[] = [];
    const gotB: Tick[] = [];
    await a.subscribe({ onTicks: (t) => void gotA.push(...t) }, { group: 'g', member: 'a' }).ready;
    const subB = b.subscribe({ onTicks: (t) => void gotB.push(...t) }, { group: 'g', member: 'b' });
    await subB.ready;
    await subB.unsubscribe();
    const batch = ticks(SYMBOLS.length);
    await a.publish(batch);
    await until(() => gotA.length === batch.filter((t) => shardOf(t.symbol, 2) === 0).length);
    const back = bus();
    await back.subscribe({ onTicks: (t) => void gotB.push(...t) }, { group: 'g', member: 'b' }).ready;
    await until(() => gotA.length + gotB.length === batch.length);
    await back.close();
    await a.retire('g', 'b');
    gotA.length = 0;
    await a.publish(batch);
    await until(() => gotA.length === batch.length);
  });
});
