/**
 * A consumer in its own process, for the crash test: `node --import tsx consumerWorker.ts <events.db> <readmodels.db>`.
 * Prints `commit <n>` after each commit, slowly enough that a kill lands between commits and inside handlers.
 */
import { writeSync } from 'node:fs';
import { openSqliteEventStore } from '../../eventstore/sqlite.ts';
import { openSqliteReadModelStore } from '../../readmodels/sqlite.ts';
import { startConsumer } from '../runner.ts';
import { countingConsumer } from './countingConsumer.ts';

const [eventsFile, readModelsFile] = process.argv.slice(2);
if (!eventsFile || !readModelsFile) throw new Error('usage: consumerWorker <events.db> <readmodels.db>');
const events = openSqliteEventStore({ file: eventsFile });
const readModels = openSqliteReadModelStore({ file: readModelsFile });
let commits = 0;
await startConsumer(events, readModels, countingConsumer('crashy', 'crash-'), {
  batchSize: 37,
  onCommit: () => writeSync(1, `commit ${++commits}\n`),
});
