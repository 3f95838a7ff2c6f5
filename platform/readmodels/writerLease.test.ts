import { expect } from 'chai';
import { connectRedis, type RedisClient } from '../redis.ts';
import { startTestRedis, type TestRedis } from '../testing/redisServer.ts';
import { holdWriterLease, ReadModelsInUseError, writerLeaseKey, WriterLeaseLostError } from './writerLease.ts';

/** Short lives, so that a lease run out is seen in a second. */
const FAST = { ttlMs: 600, renewMs: 200, prefix: 'test:writer' } as const;
const KEY = writerLeaseKey('projections', FAST.prefix);

describe('the projections lease on Redis (a real redis-server)', function () {
  this.timeout(30_000);
  let server: TestRedis;
  let a: RedisClient;
  let b: RedisClient;
  before(async function () {
    server = await startTestRedis();
    a = await connectRedis(server.url);
    b = await connectRedis(server.url);
  });
  after(async function () {
    await a.quit();
    await b.quit();
    await server.stop();
  });
  afterEach(async function () {
    await a.del(KEY);
  });

  it('refuses a second holder while the first renews, naming it, and lets it take the lease once released', async function () {
    const release = await holdWriterLease(a, 'projections', FAST);
    const holder = await a.get(KEY);
    expect(holder).to.match(/ pid \d+ /);
    let refused: unknown;
    await holdWriterLease(b, 'projections', FAST).then(
      (second) => second(),
      (error: unknown) => (refused = error),
    );
    expect(refused).to.be.instanceOf(ReadModelsInUseError);
    expect((refused as ReadModelsInUseError).message).to.equal(
      `the read models in Redis are in use: another StockPulse process (${holder}) runs the projections on them; ` +
        'run them in one process per Redis (ROLE=all or ROLE=projections), and the others with ROLE=gateway or engine',
    );
    // Still the first's, and still renewed after the refusal.
    expect(await a.get(KEY)).to.equal(holder);
    await release();
    expect(await a.get(KEY)).to.equal(null);
    const again = await holdWriterLease(b, 'projections', FAST);
    expect(await b.get(KEY)).to.not.equal(holder);
    await again();
  });

  it('takes a lease whose holder stopped renewing (killed) once it runs out, within its life', async function () {
    // What a process killed with SIGKILL leaves: its lease, no longer renewed.
    await a.set(KEY, 'gone pid 1 0000', { PX: FAST.ttlMs });
    const started = Date.now();
    const release = await holdWriterLease(b, 'projections', FAST);
    const waited = Date.now() - started;
    expect(await b.get(KEY)).to.match(/ pid \d+ /);
    expect(waited, 'waited for the old lease to run out').to.be.within(FAST.ttlMs / 2, FAST.ttlMs + FAST.renewMs + 500);
    await release();
  });

  it('keeps its lease alive past its life, and takes it again after Redis lost it, without an error', async function () {
    const errors: Error[] = [];
    const release = await holdWriterLease(a, 'projections', { ...FAST, onError: (e) => errors.push(e) });
    const holder = await a.get(KEY);
    // Held through half a life more than a lease lives unrenewed.
    const since = Date.now();
    await until(async () => {
      expect(await b.get(KEY)).to.equal(holder);
      return Date.now() - since > 1.5 * FAST.ttlMs;
    }, 3 * FAST.ttlMs);
    await b.del(KEY);
    await until(async () => (await b.get(KEY)) === holder, 3 * FAST.renewMs);
    expect(errors).to.deep.equal([]);
    await release();
  });

  it('tells a holder whose lease another process took that it lost it, once, and leaves that lease alone', async function () {
    const lost: WriterLeaseLostError[] = [];
    const errors: Error[] = [];
    const release = await holdWriterLease(a, 'projections', {
      ...FAST,
      onError: (e) => errors.push(e),
      onLost: (e) => lost.push(e),
    });
    // As a second process does once this one was held up past the lease's life and the lease ran out.
    await b.set(KEY, 'elsewhere pid 7 0badcafe', { PX: 60_000 });
    await until(() => Promise.resolve(lost.length > 0), 3 * FAST.renewMs);
    expect(lost[0]!.message).to.equal(
      'the lease of the projections on the read models in Redis was taken by another StockPulse process ' +
        '(elsewhere pid 7 0badcafe) while this one was held up past its life: this one stops, so that one process ' +
        'writes them',
    );
    await release();
    expect(await b.get(KEY)).to.equal('elsewhere pid 7 0badcafe');
    expect(lost).to.have.length(1);
    expect(errors).to.deep.equal([]);
  });

  it('gives each instance of the delivery a lease of its own, and refuses a second of the same name, naming it', async function () {
    const one = await holdWriterLease(a, 'delivery', { ...FAST, instance: 'mail1' });
    const two = await holdWriterLease(b, 'delivery', { ...FAST, instance: 'mail2' });
    const holder = await a.get(writerLeaseKey('delivery', FAST.prefix, 'mail1'));
    let refused: unknown;
    await holdWriterLease(b, 'delivery', { ...FAST, instance: 'mail1' }).then(
      (second) => second(),
      (error: unknown) => (refused = error),
    );
    expect(refused).to.be.instanceOf(ReadModelsInUseError);
    expect((refused as ReadModelsInUseError).message).to.equal(
      `the read models in Redis are in use: another StockPulse process (${holder}) runs the delivery named mail1 ` +
        'on them; give each delivery process an ENGINE_NAME of its own (the host name when unset)',
    );
    await one();
    await two();
    expect(await a.keys(`${FAST.prefix}:*`)).to.deep.equal([]);
  });

  it('leaves the lease released when a renewal was under way at the release, rather than taking it again', async function () {
    let open!: () => void;
    let asked!: () => void;
    const renewalAsked = new Promise<void>((resolve) => (asked = resolve));
    let renewal: Promise<unknown> | undefined;
    // The holder's connection, its first script (a renewal) held back until the release has run.
    const held = new Proxy(a, {
      get(target, name, receiver) {
        if (name !== 'eval') return Reflect.get(target, name, receiver) as unknown;
        return (...args: Parameters<RedisClient['eval']>) => {
          if (renewal !== undefined) return target.eval(...args);
          renewal = new Promise<void>((resolve) => (open = resolve)).then(() => target.eval(...args));
          asked();
          return renewal;
        };
      },
    });
    const release = await holdWriterLease(held, 'projections', FAST);
    await renewalAsked;
    await release();
    expect(await b.get(KEY)).to.equal(null);
    open();
    await renewal;
    // What a renewal finding the lease gone would do next (take it), given the time of a few round trips.
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(await b.get(KEY)).to.equal(null);
  });
});

/** Waits until `check` answers true, polling; fails after `ms`. */
async function until(check: () => Promise<boolean>, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`not reached within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
