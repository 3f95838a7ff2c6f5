import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import type { CommandMeta } from '../../domain/decider.ts';
import type { DeliveriesCommand } from '../../domain/deliveries/deliveries.ts';
import type { EventStore } from '../../platform/eventstore/port.ts';
import { openSqliteEventStore } from '../../platform/eventstore/sqlite.ts';
import { cachedDeliveryLog, directDeliveryLog } from './deliveryLog.ts';

const meta = (userId: string, commandId: string): CommandMeta => ({
  commandId,
  userId,
  at: new Date().toISOString(),
  actor: 'engine',
});

function attempt(deliveryId: string, n: number): DeliveriesCommand {
  return {
    type: 'RecordDeliveryAttempt',
    data: {
      deliveryId,
      attempt: n,
      kind: 'alert',
      alertId: null,
      triggerId: null,
      channelId: randomUUID(),
      channelType: 'webhook',
      at: new Date().toISOString(),
    },
  };
}

function outcome(deliveryId: string, n: number): DeliveriesCommand {
  return {
    type: 'RecordDeliveryOutcome',
    data: {
      deliveryId,
      attempt: n,
      ok: true,
      status: 200,
      error: null,
      final: false,
      retryAt: null,
      at: new Date().toISOString(),
    },
  };
}

describe('cached delivery log', function () {
  let dir: string;
  let events: EventStore;

  beforeEach(function () {
    dir = mkdtempSync(join(tmpdir(), 'sp-deliverylog-'));
    events = openSqliteEventStore({ file: join(dir, 'events.db') });
  });
  afterEach(async function () {
    await events.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('records each attempt once, on the user stream, with its command id', async function () {
    const log = cachedDeliveryLog(events);
    const id = randomUUID();
    expect((await log.record('ann', attempt(id, 1), meta('ann', `${id}/attempt/1`))).map((e) => e.type)).to.deep.equal([
      'DeliveryAttempted',
    ]);
    expect(await log.record('ann', attempt(id, 1), meta('ann', `${id}/attempt/1`))).to.deep.equal([]);
    expect((await log.record('ann', outcome(id, 1), meta('ann', `${id}/outcome/1`))).map((e) => e.type)).to.deep.equal([
      'DeliverySucceeded',
    ]);
    const recorded = await events.readStream('deliveries-ann');
    expect(recorded.map((e) => [e.type, e.metadata.userId, e.metadata.commandId, e.revision])).to.deep.equal([
      ['DeliveryAttempted', 'ann', `${id}/attempt/1`, 0],
      ['DeliverySucceeded', 'ann', `${id}/outcome/1`, 1],
    ]);
    // The whole-stream handler decides nothing more for the same outcome.
    expect(await directDeliveryLog(events).record('ann', outcome(id, 1), meta('ann', `${id}/outcome/1`))).to.deep.equal(
      [],
    );
  });

  it("keeps a user's many deliveries as the stream has them, moving its own state on with each append", async function () {
    const log = cachedDeliveryLog(events);
    const ids = Array.from({ length: 300 }, () => randomUUID());
    for (const [i, id] of ids.entries()) {
      expect(await log.record('cy', attempt(id, 1), meta('cy', `${id}/attempt/1`))).to.have.length(1);
      if (i % 2 === 0) await log.record('cy', outcome(id, 1), meta('cy', `${id}/outcome/1`));
    }
    expect(log.cached!()).to.deep.equal({ users: 1, deliveries: 300 });
    // A delivery that succeeded is not attempted again; one still pending takes its second attempt.
    for (const [i, id] of ids.entries()) {
      const decided = await log.record('cy', attempt(id, 2), meta('cy', `${id}/attempt/2`));
      expect(decided, `delivery ${i}`).to.have.length(i % 2 === 0 ? 0 : 1);
    }
    expect(log.cached!()).to.deep.equal({ users: 1, deliveries: 300 });
    // A log that folds the stream afresh sees every one of those attempts.
    const fresh = cachedDeliveryLog(events);
    for (const id of ids)
      expect(await fresh.record('cy', attempt(id, 2), meta('cy', `${id}/attempt/2b`))).to.deep.equal([]);
    expect(fresh.cached!()).to.deep.equal({ users: 1, deliveries: 300 });
    expect((await events.readStream('deliveries-cy')).length).to.equal(300 + 150 + 150);
  });

  it('never claims an attempt another writer recorded after its state was folded', async function () {
    const first = cachedDeliveryLog(events);
    const second = cachedDeliveryLog(events);
    const a = randomUUID();
    const b = randomUUID();
    await first.record('bo', attempt(a, 1), meta('bo', `${a}/attempt/1`));
    // The second log records attempt 1 of b, which the first has not seen.
    expect(await second.record('bo', attempt(b, 1), meta('bo', `${b}/attempt/1`))).to.have.length(1);
    expect(await first.record('bo', attempt(b, 1), meta('bo', `${b}/attempt/1`))).to.deep.equal([]);
    // A conflicting append is decided again on the new events, and chains to them.
    expect(await first.record('bo', attempt(b, 2), meta('bo', `${b}/attempt/2`))).to.have.length(1);
    expect(await second.record('bo', attempt(b, 2), meta('bo', `${b}/attempt/2`))).to.deep.equal([]);
    const recorded = await events.readStream('deliveries-bo');
    expect(recorded.map((e) => e.revision)).to.deep.equal([0, 1, 2]);
    for (let i = 1; i < recorded.length; i++) {
      expect(recorded[i]!.metadata.prevHash).to.equal(recorded[i - 1]!.metadata.hash);
    }
  });

  it('keeps the least recently used users beyond its bounds out of memory and reads them again when needed', async function () {
    const log = cachedDeliveryLog(events, { maxUsers: 3, maxDeliveries: 8 });
    const first = new Map<string, string>();
    for (let u = 0; u < 10; u++) {
      const user = `lru${u}`;
      for (let d = 0; d < 2; d++) {
        const id = randomUUID();
        if (d === 0) first.set(user, id);
        expect(await log.record(user, attempt(id, 1), meta(user, `${id}/attempt/1`))).to.have.length(1);
        expect(log.cached!().users).to.be.at.most(3);
      }
    }
    expect(log.cached!()).to.deep.equal({ users: 3, deliveries: 6 });
    // lru0 was read back from its stream: its recorded attempt is not claimed again, the next one is.
    const id = first.get('lru0')!;
    expect(await log.record('lru0', attempt(id, 1), meta('lru0', `${id}/attempt/1`))).to.deep.equal([]);
    expect(await log.record('lru0', attempt(id, 2), meta('lru0', `${id}/attempt/2`))).to.have.length(1);
    expect(log.cached!()).to.deep.equal({ users: 3, deliveries: 6 });
    // Five deliveries of one user leave room for one other user only (8 at most in all).
    for (let d = 0; d < 3; d++) {
      const next = randomUUID();
      await log.record('lru0', attempt(next, 1), meta('lru0', `${next}/attempt/1`));
    }
    expect(log.cached!()).to.deep.equal({ users: 2, deliveries: 7 });
    expect((await events.readStream('deliveries-lru0')).map((e) => e.type)).to.deep.equal([
      'DeliveryAttempted',
      'DeliveryAttempted',
      'DeliveryAttempted',
      'DeliveryAttempted',
      'DeliveryAttempted',
      'DeliveryAttempted',
    ]);
  });

  it('claims each attempt once when many are recorded at the same time by two logs', async function () {
    const logs = [cachedDeliveryLog(events), cachedDeliveryLog(events)];
    const ids = Array.from({ length: 20 }, () => randomUUID());
    const claims = await Promise.all(
      ids.flatMap((id) => logs.map((log) => log.record('cy', attempt(id, 1), meta('cy', `${id}/attempt/1`)))),
    );
    expect(claims.filter((c) => c.length === 1)).to.have.length(ids.length);
    expect(await events.readStream('deliveries-cy')).to.have.length(ids.length);
  });
});
