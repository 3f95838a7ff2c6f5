/**
 * The delivery figures of a process, with prom-client in a registry of their own (the gateway prints it under
 * `/metrics`): attempts and finished deliveries by channel type and outcome, attempts in flight, the queue, and
 * the time from a trigger to its delivery.
 */
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { DeliveryPartition } from './partition.ts';
import type { AttemptResult } from './senders.ts';
import type { AttemptOutcome, DeliveryProcessor, QueuedDelivery } from './processor.ts';

/** Upper bounds of the trigger-to-delivery buckets, in seconds. */
export const DELIVERY_LATENCY_BUCKETS: readonly number[] = Object.freeze([
  0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 900,
]);

/** The delivery metrics of one processor. */
export interface DeliveryMetrics {
  readonly registry: Registry;
  /** Counts one recorded outcome (pass it as the processor's `onOutcome`). */
  readonly observe: (delivery: QueuedDelivery, result: AttemptResult, outcome: AttemptOutcome) => void;
  /** Counts a delivery ended without being sent further (pass it as the processor's `onUnsent`). */
  readonly unsent: (delivery: QueuedDelivery) => void;
  /** Counts an attempt another delivery process had already recorded (pass it as the processor's `onTaken`). */
  readonly taken: (delivery: QueuedDelivery) => void;
  /** Reads the in-flight, queued, parked and waiting counts, and the processes sharing the work, at each scrape. */
  readonly track: (processor: Tracked, partition?: Pick<DeliveryPartition, 'members'>) => void;
}

type Tracked = Pick<DeliveryProcessor, 'pending' | 'inFlight' | 'parked' | 'waiting' | 'cached'>;

/** Makes the metrics; `now` gives milliseconds since the epoch (default `Date.now`). */
export function deliveryMetrics(now: () => number = Date.now): DeliveryMetrics {
  const registry = new Registry();
  let processor: Tracked | undefined;
  let members = (): number => 1;
  const attempts = new Counter({
    name: 'stockpulse_delivery_attempts_total',
    help: 'Delivery attempts by channel type and result (ok, error; taken: another process had recorded it).',
    labelNames: ['channel', 'result'] as const,
    registers: [registry],
  });
  const deliveries = new Counter({
    name: 'stockpulse_deliveries_total',
    help:
      'Deliveries finished by channel type and outcome (succeeded, failed; unsent: ended without a further ' +
      'attempt, its channel receiving nothing).',
    labelNames: ['channel', 'outcome'] as const,
    registers: [registry],
  });
  const latency = new Histogram({
    name: 'stockpulse_delivery_latency_seconds',
    help: "Time from an alert's trigger to its delivery's success, by channel type.",
    labelNames: ['channel'] as const,
    buckets: [...DELIVERY_LATENCY_BUCKETS],
    registers: [registry],
  });
  new Gauge({
    name: 'stockpulse_delivery_in_flight',
    help: 'Delivery attempts under way.',
    registers: [registry],
    collect() {
      this.set(processor?.inFlight() ?? 0);
    },
  });
  new Gauge({
    name: 'stockpulse_delivery_queue',
    help:
      'Deliveries queued and not finished (parked: left to another delivery process; waiting: due, for a channel ' +
      'with its most attempts in flight).',
    labelNames: ['state'] as const,
    registers: [registry],
    collect() {
      this.set({ state: 'queued' }, processor?.pending() ?? 0);
      this.set({ state: 'parked' }, processor?.parked() ?? 0);
      this.set({ state: 'waiting' }, processor?.waiting() ?? 0);
    },
  });
  new Gauge({
    name: 'stockpulse_delivery_processes',
    help: 'Delivery processes sharing the users, this one included.',
    registers: [registry],
    collect() {
      this.set(members());
    },
  });
  new Gauge({
    name: 'stockpulse_delivery_cached_users',
    help: 'Users whose delivery state is held in memory.',
    registers: [registry],
    collect() {
      this.set(processor?.cached().users ?? 0);
    },
  });
  return {
    registry,
    observe: (delivery, result, outcome) => {
      const channel = delivery.channelType;
      attempts.inc({ channel, result: result.ok ? 'ok' : 'error' });
      if (!outcome.final) return;
      deliveries.inc({ channel, outcome: result.ok ? 'succeeded' : 'failed' });
      const triggeredAt = delivery.kind === 'alert' ? Date.parse(delivery.payload.at) : NaN;
      if (result.ok && Number.isFinite(triggeredAt)) {
        latency.observe({ channel }, Math.max(0, now() - triggeredAt) / 1000);
      }
    },
    unsent: (delivery) => deliveries.inc({ channel: delivery.channelType, outcome: 'unsent' }),
    taken: (delivery) => attempts.inc({ channel: delivery.channelType, result: 'taken' }),
    track: (running, partition) => {
      processor = running;
      if (partition) members = () => Math.max(1, partition.members().length);
    },
  };
}
