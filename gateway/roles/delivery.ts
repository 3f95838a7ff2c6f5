/**
 * `ROLE=delivery`: the delivery processor without the API, for deployments that keep slow receivers away from
 * every other process. Several may run: each keeps its own queue under its `ENGINE_NAME` (or host name); with
 * Redis they split the users between them (`engine/delivery/partition.ts`), a dead one's users going to the
 * others once its heartbeat expires, and the log still decides which of them makes each attempt, so no delivery
 * is sent twice. Its `/metrics` carries the delivery figures.
 */
import { engineNameOf } from '../../engine/running.ts';
import type { Config } from '../../platform/config.ts';
import type { Logger } from '../../platform/logger.ts';
import { openPorts, runDelivery, starting } from './parts.ts';
import { serveHealth, systemOf, type RunningGateway } from './serve.ts';

/** Starts the delivery processor and serves the health routes on `PORT`. */
export function startDeliveryRole(config: Config, logger: Logger): Promise<RunningGateway> {
  return starting(async (stops) => {
    const ports = await openPorts(config, logger, stops, { cacheReadModels: false, writers: ['delivery'] });
    const delivery = await runDelivery(config, ports, logger, stops, engineNameOf(config));
    const system = systemOf(config, logger, ports, {
      projections: null,
      engine: null,
      bus: null,
      liveQuotes: null,
      delivery: delivery.setup,
    });
    return serveHealth(config, logger, stops, system);
  });
}
