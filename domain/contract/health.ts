/**
 * The routes every process answers without a session: liveness, readiness, metrics, and the API reference.
 */
import { z } from './zod.ts';
import { route } from './route.ts';

const check = z.object({ ok: z.boolean(), detail: z.string().optional() });

/** Liveness, readiness and metrics. */
export const healthApi = {
  getHealthz: route({
    method: 'GET',
    path: '/healthz',
    summary: 'The process answers',
    tag: 'health',
    access: 'public',
    response: z.object({ status: z.literal('ok') }),
  }),
  getReadyz: route({
    method: 'GET',
    path: '/readyz',
    summary:
      'Whether the event store answers, the projections have caught up and the tick source is live (503 naming what is not)',
    tag: 'health',
    access: 'public',
    response: z.object({
      status: z.enum(['ready', 'unavailable']),
      checks: z.object({ store: check, projections: check, tickSource: check }),
    }),
  }),
  getMetrics: route({
    method: 'GET',
    path: '/metrics',
    summary: 'Metrics of the parts this process runs, in the Prometheus text format',
    tag: 'health',
    access: 'public',
    response: z.string(),
    contentType: 'text/plain; version=0.0.4',
  }),
};

/** The API reference: this document, and a readable page over it. */
export const docsApi = {
  getDocs: route({
    method: 'GET',
    path: '/api/docs',
    summary: 'The API reference: this OpenAPI document, or the readable page when the caller asks for HTML',
    tag: 'reference',
    access: 'public',
    response: z.record(z.string(), z.unknown()),
  }),
  getDocsOpenapiJson: route({
    method: 'GET',
    path: '/api/docs/openapi.json',
    summary: 'This OpenAPI 3.1 document',
    tag: 'reference',
    access: 'public',
    response: z.record(z.string(), z.unknown()),
  }),
  getDocsByFile: route({
    method: 'GET',
    path: '/api/docs/:file',
    summary: 'The readable reference page (index.html) and the files of its viewer',
    tag: 'reference',
    access: 'public',
    params: z.object({ file: z.string() }),
    response: z.string(),
    contentType: 'text/html',
  }),
};
