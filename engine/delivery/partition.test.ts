import { expect } from 'chai';
import { connectRedis, type RedisClient } from '../../platform/redis.ts';
import { startTestRedis, type TestRedis } from '../../platform/testing/redisServer.ts';
import { ownerOf, redisPartition, type DeliveryPartition } from './partition.ts';

const users = Array.from({ length: 3000 }, (_, i) => `user${i}`);

describe('delivery partition', function () {
  it('gives each user to one member, evenly, and moves only the users of a member that leaves', function () {
    const three = ['a-1', 'b-2', 'c-3'];
    const owners = new Map(users.map((u) => [u, ownerOf(u, three)]));
    for (const member of three) {
      const share = users.filter((u) => owners.get(u) === member).length / users.length;
      expect(share, member).to.be.within(0.28, 0.39);
    }
    const two = ['a-1', 'c-3'];
    for (const u of users) {
      const before = owners.get(u);
      if (before !== 'b-2') expect(ownerOf(u, two), u).to.equal(before);
      else expect(two).to.include(ownerOf(u, two));
    }
    expect(ownerOf('anyone', [])).to.equal(undefined);
  });

  describe('on Redis', function () {
    this.timeout(20_000);
    let redis: TestRedis;
    const clients: RedisClient[] = [];
    const partitions: DeliveryPartition[] = [];

    before(async function () {
      redis = await startTestRedis();
    });
    after(async function () {
      for (const p of partitions) await p.stop().catch(() => undefined);
      for (const c of clients) await c.quit().catch(() => undefined);
      await redis.stop();
    });

    async function join(name: string, prefix: string): Promise<DeliveryPartition> {
      const client = await connectRedis(redis.url);
      clients.push(client);
      const partition = await redisPartition(client, { name, heartbeatMs: 50, prefix });
      partitions.push(partition);
      return partition;
    }

    const changed = (partition: DeliveryPartition, count: number): Promise<void> =>
      new Promise((resolve) => {
        const check = (): void => {
          if (partition.members().length !== count) return;
          stop();
          resolve();
        };
        const stop = partition.onChange(check);
        check();
      });

    it("splits the users between the processes alive and gives a leaving one's users to the others", async function () {
      const a = await join('one', 'split');
      const b = await join('two', 'split');
      await Promise.all([changed(a, 2), changed(b, 2)]);
      expect(a.members()).to.deep.equal(b.members());
      const mine = users.filter((u) => a.owns(u));
      const theirs = users.filter((u) => b.owns(u));
      expect(mine.length + theirs.length).to.equal(users.length);
      expect(mine.length).to.be.above(users.length / 3);
      expect(theirs.length).to.be.above(users.length / 3);
      await b.stop();
      await changed(a, 1);
      expect(users.every((u) => a.owns(u))).to.equal(true);
    });

    it('takes over the users of a process whose heartbeat stopped once its key has expired', async function () {
      const survivor = await join('survivor', 'expiry');
      const client = await connectRedis(redis.url);
      clients.push(client);
      // A process that registered once and died: its key expires after 1.5 s.
      await client.multi().set('expiry:member:ghost-1', '1', { PX: 1500 }).sAdd('expiry:members', 'ghost-1').exec();
      await changed(survivor, 2);
      expect(users.some((u) => !survivor.owns(u))).to.equal(true);
      await changed(survivor, 1);
      expect(users.every((u) => survivor.owns(u))).to.equal(true);
    });
  });
});
