/**
 * `ROLE=all` (the default): the whole of StockPulse in one process — the projections, the live engine, the
 * delivery processor, the API and Socket.IO.
 */
import { engineNameOf } from '../../engine/running.ts';
import type { Config } from '../../platform/config.ts';
import type { Logger } from '../../platform/logger.ts';
import {
  openPorts,
  openRedisTickBus,
  runDelivery,
  runEngine,
  runProjections,
  runQuoteFeed,
  starting,
  storeClosedDays,
} from './parts.ts';
import { serveApi, systemOf, type RunningGateway } from './serve.ts';

/** Starts every part and serves the API and Socket.IO on `PORT`. */
export function startAllRole(config: Config, logger: Logger): Promise<RunningGateway> {
  return starting(async (stops) => {
    const ports = await openPorts(config, logger, stops, {
      cacheReadModels: true,
      writers: ['projections', 'delivery'],
    });
    const projections = await runProjections(ports, logger, stops);
    // With Redis, the engine is one member of the engines' group and sees only its share of the ticks, so the
    // gateway reads every tick into live quotes of its own; alone, the engine's bus and quotes are the process's.
    const redisBus = ports.redis ? await openRedisTickBus(ports.redis, ports.market, logger, stops) : null;
    const engine = await runEngine(config, ports, logger, stops, redisBus);
    const feed = redisBus ? await runQuoteFeed(config, ports, logger, stops, redisBus) : null;
    await storeClosedDays(config, ports, redisBus ?? engine.bus, logger, stops);
    const delivery = await runDelivery(config, ports, logger, stops, ports.redis ? engineNameOf(config) : undefined);
    const system = systemOf(config, logger, ports, {
      projections,
      engine,
      bus: redisBus ?? engine.bus,
      liveQuotes: feed?.quotes ?? engine.quotes,
      delivery: delivery.setup,
    });
    return serveApi(config, logger, stops, system);
  });
}
