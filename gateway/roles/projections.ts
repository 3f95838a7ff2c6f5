/**
 * `ROLE=projections`: every projection (the read models) without the API; one such process per deployment.
 * With Redis its commits reach the gateways' sockets as `readmodel:changed` through the relay.
 */
import type { Config } from '../../platform/config.ts';
import type { Logger } from '../../platform/logger.ts';
import { openPorts, runProjections, starting } from './parts.ts';
import { serveHealth, systemOf, type RunningGateway } from './serve.ts';

/** Starts the projections and serves the health routes on `PORT`. */
export function startProjectionsRole(config: Config, logger: Logger): Promise<RunningGateway> {
  return starting(async (stops) => {
    const ports = await openPorts(config, logger, stops, { cacheReadModels: true, writers: ['projections'] });
    const projections = await runProjections(ports, logger, stops);
    const system = systemOf(config, logger, ports, { projections, engine: null, bus: null, liveQuotes: null });
    return serveHealth(config, logger, stops, system);
  });
}
