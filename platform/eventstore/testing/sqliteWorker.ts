/**
 * A separate process writing to a shared SQLite event store, for the multi-process and crash tests.
 * Usage: `node --import tsx sqliteWorker.ts <mode> <file> <stream> [count]`
 * - `batches`: appends batches of 10 events forever, printing each acknowledged last revision.
 * - `race`: appends `count` single events at the revision it last read, retrying on conflict;
 *   prints `done <conflicts>`.
 * - `timed`: appends `count` events 20 ms apart, each carrying the time it was sent.
 */
import { randomUUID } from 'node:crypto';
import { writeSync } from 'node:fs';
import { WrongExpectedRevisionError } from '../port.ts';
import { openSqliteEventStore } from '../sqlite.ts';

const [mode, file, stream, countText] = process.argv.slice(2);
if (!mode || !file || !stream) throw new Error('usage: sqliteWorker <mode> <file> <stream> [count]');
const count = Number(countText ?? '100');
const store = openSqliteEventStore({ file });

function say(line: string): void {
  writeSync(1, `${line}\n`);
}

if (mode === 'batches') {
  for (let batch = 0; ; batch++) {
    const events = Array.from({ length: 10 }, (_, i) => ({
      id: randomUUID(),
      type: 'Written',
      data: { batch, index: i, payload: 'x'.repeat(200) },
    }));
    const result = store.appendSync(stream, events, { expectedRevision: batch === 0 ? 'no_stream' : batch * 10 - 1 });
    say(`acked ${result.nextExpectedRevision}`);
  }
} else if (mode === 'race') {
  let conflicts = 0;
  for (let i = 0; i < count;) {
    const last = (await store.readStream(stream, { direction: 'backwards', maxCount: 1 }).catch(() => []))[0];
    try {
      store.appendSync(stream, [{ id: randomUUID(), type: 'Raced', data: { pid: process.pid, i } }], {
        expectedRevision: last ? last.revision : 'no_stream',
      });
      i++;
    } catch (error) {
      if (!(error instanceof WrongExpectedRevisionError)) throw error;
      conflicts++;
    }
  }
  say(`done ${conflicts}`);
} else if (mode === 'timed') {
  for (let i = 0; i < count; i++) {
    await new Promise((r) => setTimeout(r, 20));
    await store.appendToStream(stream, [{ id: randomUUID(), type: 'Timed', data: { sentAt: Date.now(), i } }]);
  }
  say('done');
}
await store.close();
