/**
 * The HTTP server of a process without the API (roles `engine` and `projections`): `/healthz`, `/readyz` and
 * `/metrics` only, so an orchestrator can probe it and Prometheus can scrape it.
 */
import Koa from 'koa';
import Router from '@koa/router';
import type { EventStore } from '../platform/eventstore/port.ts';
import { mountHealthRoutes, type HealthDeps } from './routes/health.ts';

/** Builds the health-only Koa application; every other path answers 404 JSON. */
export function createHealthApp(events: EventStore, health: HealthDeps): Koa {
  const app = new Koa();
  const router = new Router();
  router.get('/healthz', (ctx) => {
    ctx.body = { status: 'ok' };
  });
  mountHealthRoutes(router, events, health);
  app.use(router.routes());
  app.use(router.allowedMethods());
  app.use((ctx) => {
    ctx.status = 404;
    ctx.body = { error: 'not_found', message: `no route ${ctx.method} ${ctx.path}: this process serves health only` };
  });
  return app;
}
