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
