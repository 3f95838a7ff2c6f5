/**
 * `npm run verify -- <username>`: walks the hash chain of each of the user's streams on the configured event
 * store and prints `chain intact: N events in K streams` (exit 0) or the first break (exit 1); an unknown user
 * or a wrong command line exits 2.
 */
import { USERNAME_PATTERN, USERNAME_TEXT } from '../domain/accounts/accounts.ts';
import { loadSeals } from '../platform/audit/seals.ts';
import { loadConfig } from '../platform/config.ts';
import { openEventStore } from '../platform/eventstore/index.ts';
import { loadUserHistory } from '../projections/audit/userHistory.ts';
import { describeVerification, verifyUserHistory } from '../projections/audit/verifyUser.ts';
import { consoleIo, isMain, type ScriptIo } from './scriptIo.ts';

/** Runs the command line `verify <username>` against the store `env` configures; answers the exit code. */
export async function runVerify(
  args: readonly string[],
  env: NodeJS.ProcessEnv = process.env,
  io: ScriptIo = consoleIo,
): Promise<number> {
  if (args.length !== 1) {
    io.err('usage: npm run verify -- <username>');
    return 2;
  }
  const username = args[0]!;
  if (!USERNAME_PATTERN.test(username)) {
    io.err(`verify refused: ${JSON.stringify(username)} is not a username (${USERNAME_TEXT})`);
    return 2;
  }
  const events = await openEventStore(loadConfig(env));
  try {
    const history = await loadUserHistory(events, username);
    if (!history) {
      io.err(`verify refused: no user ${JSON.stringify(username)}`);
      return 2;
    }
    const result = verifyUserHistory(history, await loadSeals(events));
    io.out(describeVerification(result));
    return result.intact ? 0 : 1;
  } finally {
    await events.close();
  }
}

if (isMain(import.meta.url)) {
  process.exitCode = await runVerify(process.argv.slice(2));
}
