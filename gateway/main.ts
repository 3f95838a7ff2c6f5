/**
 * The process: reads the configuration, starts the composition of its `ROLE` (one module per role in
 * `roles/`: `all.ts`, `gateway.ts`, `engine.ts`, `projections.ts`,
 * `delivery.ts`), and shuts it down on SIGINT or SIGTERM.
 * No other module picks adapters or starts parts.
 */
import fs from 'node:fs';
import { loadConfig, type Config } from '../platform/config.ts';
import { createLogger, type Logger } from '../platform/logger.ts';
import { startAllRole } from './roles/all.ts';
import { startDeliveryRole } from './roles/delivery.ts';
import { startEngineRole } from './roles/engine.ts';
import { startGatewayRole } from './roles/gateway.ts';
import { startProjectionsRole } from './roles/projections.ts';
import type { RunningGateway } from './roles/serve.ts';

export type { RunningGateway } from './roles/serve.ts';

/** Longest wait for open connections and ports to close before the process exits anyway. */
const SHUTDOWN_GRACE_MS = 10_000;

/** How long a process that has stopped waits for what a library left open before it exits anyway. */
const EXIT_AFTER_STOP_MS = 1000;

/** The composition of each role. */
const ROLES: Readonly<Record<Config['role'], (config: Config, logger: Logger) => Promise<RunningGateway>>> = {
  all: startAllRole,
  gateway: startGatewayRole,
  engine: startEngineRole,
  projections: startProjectionsRole,
  delivery: startDeliveryRole,
};

/** Starts the process of the `ROLE` the configuration read from `env` names, without installing signal handlers. */
export async function startGateway(env: NodeJS.ProcessEnv = process.env, logger?: Logger): Promise<RunningGateway> {
  const config = loadConfig(env);
  const log = logger ?? createLogger(config);
  if (config.eventStoreUrl === null) fs.mkdirSync(config.dataDir, { recursive: true });
  return ROLES[config.role](config, log);
}

/** Runs the gateway until SIGINT or SIGTERM, then closes it and lets the process exit. */
export async function main(env: NodeJS.ProcessEnv = process.env): Promise<RunningGateway> {
  const logger = createLogger(loadConfig(env));
  const running = await startGateway(env, logger);
  const stop = (signal: NodeJS.Signals): void => {
    logger.info({ signal }, 'shutting down');
    // The timer is unref'd: it only matters when something keeps the process alive after closing.
    setTimeout(() => {
      logger.error('shutdown took too long, exiting');
      process.exit(1);
    }, SHUTDOWN_GRACE_MS).unref();
    running.close().then(
      () => {
        process.exitCode = 0;
        // Everything is closed and stored: a handle a library still holds (a pooled connection, a timer) must not
        // keep the process, nor turn a clean stop into the grace timer's failure.
        setTimeout(() => {
          logger.warn({ handles: process.getActiveResourcesInfo() }, 'exiting with handles still open after stopping');
          process.exit(0);
        }, EXIT_AFTER_STOP_MS).unref();
      },
      (err: unknown) => {
        logger.error({ err }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  // Stopped by itself (logged): a supervisor sees the failure and may start it again.
  void running.failure.then(() => process.exit(1));
  return running;
}
