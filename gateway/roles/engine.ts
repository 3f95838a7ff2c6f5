/**
 * `ROLE=engine`: the live engine (alert evaluation; the simulator or replay if configured) without the API.
 * With Redis it reads the shared tick bus as a member of the engines' group and its triggers reach the
 * gateways' sockets through the relay.
 */
import type { Config } from '../../platform/config.ts';
import type { Logger } from '../../platform/logger.ts';
import { openPorts, openRedisTickBus, runEngine, starting, storeClosedDays } from './parts.ts';
import { serveHealth, systemOf, type RunningGateway } from './serve.ts';

/** Starts the engine and serves the health routes on `PORT`. */
export function startEngineRole(config: Config, logger: Logger): Promise<RunningGateway> {
  return starting(async (stops) => {
    const ports = await openPorts(config, logger, stops, { cacheReadModels: false, writers: [] });
    const redisBus = ports.redis ? await openRedisTickBus(ports.redis, ports.market, logger, stops) : null;
    const engine = await runEngine(config, ports, logger, stops, redisBus);
    await storeClosedDays(config, ports, redisBus ?? engine.bus, logger, stops);
    const system = systemOf(config, logger, ports, {
      projections: null,
      engine,
      bus: redisBus ?? engine.bus,
      liveQuotes: null,
    });
    return serveHealth(config, logger, stops, system);
  });
}
