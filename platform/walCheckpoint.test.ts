import { expect } from 'chai';
import { walCheckpointer, type WalConnection } from './walCheckpoint.ts';

/** A connection that records the pragmas it runs and announces each. */
function recordingConnection(fail = false): WalConnection & {
  open: boolean;
  readonly ran: string[];
  next(): Promise<string>;
} {
  const ran: string[] = [];
  let waiting: ((pragma: string) => void) | undefined;
  return {
    open: true,
    ran,
    pragma(source: string): unknown {
      ran.push(source);
      waiting?.(source);
      waiting = undefined;
      if (fail) throw new Error('SQLITE_BUSY: database is locked');
      return [{ busy: 0, log: 0, checkpointed: 0 }];
    },
    next: () => new Promise<string>((resolve) => (waiting = resolve)),
  };
}

describe('walCheckpointer', function () {
  it('runs one passive checkpoint after a burst of writes, and none while idle', async function () {
    const db = recordingConnection();
    const checkpoints = walCheckpointer(db, 5);
    const ran = db.next();
    for (let i = 0; i < 10; i++) checkpoints.written();
    expect(db.ran).to.deep.equal([]);
    expect(await ran).to.equal('wal_checkpoint(PASSIVE)');
    expect(db.ran).to.have.length(1);
    // The next write schedules the next checkpoint.
    const again = db.next();
    checkpoints.written();
    await again;
    expect(db.ran).to.have.length(2);
    checkpoints.stop();
  });

  it('runs the due checkpoint at once on flush, and nothing when none is due', function () {
    const db = recordingConnection();
    const checkpoints = walCheckpointer(db, 60_000);
    checkpoints.flush();
    expect(db.ran).to.deep.equal([]);
    checkpoints.written();
    checkpoints.flush();
    expect(db.ran).to.deep.equal(['wal_checkpoint(PASSIVE)']);
    checkpoints.flush();
    expect(db.ran).to.have.length(1);
  });

  it('skips a closed connection, cancels on stop, and outlives a refused checkpoint', function () {
    const closed = recordingConnection();
    closed.open = false;
    const a = walCheckpointer(closed, 60_000);
    a.written();
    a.flush();
    expect(closed.ran).to.deep.equal([]);

    const stopped = recordingConnection();
    const b = walCheckpointer(stopped, 60_000);
    b.written();
    b.stop();
    b.flush();
    expect(stopped.ran).to.deep.equal([]);

    const busy = recordingConnection(true);
    const c = walCheckpointer(busy, 60_000);
    c.written();
    expect(() => c.flush()).not.to.throw();
    c.written();
    c.flush();
    expect(busy.ran).to.have.length(2);
  });
});
