/**
 * `npm run grant -- <username> <role>`: records `RoleGranted` through the accounts decider on the configured
 * event store, granted by `script`. The user's open sessions keep the roles they were created with: the user
 * signs in again to use the new role. Exit codes: 0 granted (or already held), 2 refused.
 */
import { ROLES } from '../domain/accounts/accounts.ts';
import { GrantRefused, grantRole } from '../gateway/auth/grant.ts';
import { loadConfig } from '../platform/config.ts';
import { openEventStore } from '../platform/eventstore/index.ts';
import { consoleIo, isMain, type ScriptIo } from './scriptIo.ts';

/** Runs the command line `grant <username> <role>` against the store `env` configures; answers the exit code. */
export async function runGrant(
  args: readonly string[],
  env: NodeJS.ProcessEnv = process.env,
  io: ScriptIo = consoleIo,
): Promise<number> {
  if (args.length !== 2) {
    io.err(`usage: npm run grant -- <username> <role>   (roles: ${ROLES.join(', ')})`);
    return 2;
  }
  const [username, role] = args as [string, string];
  const events = await openEventStore(loadConfig(env));
  try {
    const outcome = await grantRole(events, username, role);
    io.out(
      outcome.granted
        ? `granted ${role} to ${username} (RoleGranted at ${outcome.position}); ${username} signs in again to use it`
        : `${username} already holds ${role}; nothing recorded`,
    );
    return 0;
  } catch (error) {
    if (error instanceof GrantRefused) {
      io.err(`grant refused: ${error.message}`);
      return 2;
    }
    throw error;
  } finally {
    await events.close();
  }
}

if (isMain(import.meta.url)) {
  process.exitCode = await runGrant(process.argv.slice(2));
}
