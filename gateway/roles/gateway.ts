/**
 * `ROLE=gateway`: the API, Socket.IO and the feed route over the read models the projections process keeps
 * and the engines that run elsewhere; as many as needed.
 */
import type { Config } from '../../platform/config.ts';
import type { Logger } from '../../platform/logger.ts';
import { openPorts, openRedisTickBus, runQuoteFeed, starting, storeClosedDays } from './parts.ts';
import { serveApi, systemOf, type RunningGateway } from './serve.ts';

/** Opens the ports, follows the tick bus (with Redis) and serves the API and Socket.IO on `PORT`. */
export function startGatewayRole(config: Config, logger: Logger): Promise<RunningGateway> {
  return starting(async (stops) => {
    const ports = await openPorts(config, logger, stops, { cacheReadModels: false, writers: [] });
    // Without Redis there is no tick bus: the quotes are the last closes and the feed route answers 404.
    const bus = ports.redis ? await openRedisTickBus(ports.redis, ports.market, logger, stops) : null;
    const feed = bus ? await runQuoteFeed(config, ports, logger, stops, bus) : null;
    if (bus) await storeClosedDays(config, ports, bus, logger, stops);
    const system = systemOf(config, logger, ports, {
      projections: null,
      engine: null,
      bus,
      liveQuotes: feed?.quotes ?? null,
    });
    return serveApi(config, logger, stops, system);
  });
}
