import { expect } from 'chai';
import fc from 'fast-check';
import { checkFoldOfEvents } from '../testing/foldAtOnce.ts';
import { given } from '../testing/givenWhenThen.ts';
import {
  deliveriesDecider,
  deliveryIdOf,
  foldDeliveries,
  type DeliveriesCommand,
  type DeliveriesEvent,
} from './deliveries.ts';

const AT = '2025-01-02T15:00:00.000Z';
const TRIGGER = '22222222-2222-4222-8222-222222222222';
const CHANNEL = '33333333-3333-4333-8333-333333333333';
const D = deliveryIdOf(TRIGGER, CHANNEL);

const attemptData = (attempt: number) => ({
  deliveryId: D,
  attempt,
  kind: 'alert' as const,
  alertId: null,
  triggerId: TRIGGER,
  channelId: CHANNEL,
  channelType: 'webhook' as const,
  at: AT,
});
const attempt = (n: number): DeliveriesCommand => ({ type: 'RecordDeliveryAttempt', data: attemptData(n) });
const attempted = (n: number): DeliveriesEvent => ({ type: 'DeliveryAttempted', data: attemptData(n) });
const outcome = (n: number, ok: boolean, final = false): DeliveriesCommand => ({
  type: 'RecordDeliveryOutcome',
  data: {
    deliveryId: D,
    attempt: n,
    ok,
    status: ok ? 200 : 503,
    error: ok ? null : 'answered 503',
    final,
    retryAt: final || ok ? null : AT,
    at: AT,
  },
});
const failed = (n: number, final = false): DeliveriesEvent => ({
  type: 'DeliveryFailed',
  data: { deliveryId: D, attempt: n, status: 503, error: 'answered 503', final, retryAt: final ? null : AT, at: AT },
});
const succeeded = (n: number): DeliveriesEvent => ({
  type: 'DeliverySucceeded',
  data: { deliveryId: D, attempt: n, status: 200, at: AT },
});

describe('deliveries decider', function () {
  it('derives one delivery id per trigger and channel, whatever the case', function () {
    expect(deliveryIdOf(TRIGGER.toUpperCase(), CHANNEL)).to.equal(D);
    expect(deliveryIdOf(TRIGGER, TRIGGER)).to.not.equal(D);
  });

  it('ends a delivery never attempted abandoned, once, and nothing is attempted after', function () {
    const { attempt: _attempt, ...fields } = attemptData(1);
    const data = { ...fields, error: 'the channel was removed' };
    const abandon: DeliveriesCommand = { type: 'RecordDeliveryAbandoned', data };
    const abandoned: DeliveriesEvent = { type: 'DeliveryAbandoned', data };
    given(deliveriesDecider).when(abandon).then([abandoned]);
    given(deliveriesDecider, [abandoned]).when(abandon).thenNothing();
    given(deliveriesDecider, [abandoned]).when(attempt(1)).thenNothing();
    // One attempted ends on its attempts (unsent), not abandoned.
    given(deliveriesDecider, [attempted(1), failed(1)])
      .when(abandon)
      .thenNothing();
  });

  it('records the first attempt, and nothing for an attempt already recorded', function () {
    given(deliveriesDecider)
      .when(attempt(1))
      .then([attempted(1)]);
    given(deliveriesDecider, [attempted(1)])
      .when(attempt(1))
      .thenNothing();
  });

  it('records a next attempt after a failure, or after an attempt whose outcome was lost', function () {
    given(deliveriesDecider, [attempted(1), failed(1)])
      .when(attempt(2))
      .then([attempted(2)]);
    given(deliveriesDecider, [attempted(1)])
      .when(attempt(2))
      .then([attempted(2)]);
  });

  it('records nothing more once a delivery succeeded or failed for good', function () {
    given(deliveriesDecider, [attempted(1), succeeded(1)])
      .when(attempt(2))
      .thenNothing();
    given(deliveriesDecider, [attempted(1), failed(1, true)])
      .when(attempt(2))
      .thenNothing();
    given(deliveriesDecider, [attempted(1), succeeded(1)])
      .when(outcome(1, false))
      .thenNothing();
  });

  it('records one outcome per attempt, only for the latest attempt', function () {
    given(deliveriesDecider, [attempted(1)])
      .when(outcome(1, true))
      .then([succeeded(1)]);
    given(deliveriesDecider, [attempted(1)])
      .when(outcome(1, false))
      .then([failed(1)]);
    given(deliveriesDecider, [attempted(1), failed(1)])
      .when(outcome(1, true))
      .thenNothing();
    given(deliveriesDecider, [attempted(1), attempted(2)])
      .when(outcome(1, true))
      .thenNothing();
    given(deliveriesDecider).when(outcome(1, true)).thenNothing();
  });

  it('ends a delivery waiting for its next attempt unsent, on its last attempt, adding none', function () {
    const unsent = (n: number): DeliveriesCommand => ({
      type: 'RecordDeliveryOutcome',
      data: {
        deliveryId: D,
        attempt: n,
        ok: false,
        status: null,
        error: 'the channel was removed',
        final: true,
        retryAt: null,
        at: AT,
        unsent: true,
      },
    });
    const ended: DeliveriesEvent = {
      type: 'DeliveryFailed',
      data: {
        deliveryId: D,
        attempt: 1,
        status: null,
        error: 'the channel was removed',
        final: true,
        retryAt: null,
        at: AT,
        unsent: true,
      },
    };
    given(deliveriesDecider, [attempted(1), failed(1)])
      .when(unsent(1))
      .then([ended]);
    given(deliveriesDecider, [attempted(1), failed(1), ended])
      .when(attempt(2))
      .thenNothing();
    given(deliveriesDecider, [attempted(1), failed(1), ended])
      .when(unsent(1))
      .thenNothing();
    // Not while an attempt waits for its outcome, nor for an attempt that is not the last.
    given(deliveriesDecider, [attempted(1)])
      .when(unsent(1))
      .thenNothing();
    given(deliveriesDecider, [attempted(1), failed(1), attempted(2), failed(2)])
      .when(unsent(1))
      .thenNothing();
    given(deliveriesDecider).when(unsent(1)).thenNothing();
  });

  it('folds many events at once into the state that folding them one by one gives, leaving the state given as it was', function () {
    const ids = [D, deliveryIdOf(TRIGGER, TRIGGER), '__proto__', 'constructor'];
    const eventArb: fc.Arbitrary<DeliveriesEvent> = fc
      .tuple(fc.constantFrom(...ids), fc.integer({ min: 1, max: 4 }), fc.integer({ min: 0, max: 3 }), fc.boolean())
      .map(([deliveryId, n, kind, final]): DeliveriesEvent => {
        if (kind === 0) return { type: 'DeliveryAttempted', data: { ...attemptData(n), deliveryId } };
        if (kind === 1) return { type: 'DeliverySucceeded', data: { deliveryId, attempt: n, status: 200, at: AT } };
        if (kind === 2) {
          const data = { deliveryId, attempt: n, status: 503, error: 'no', final, retryAt: final ? null : AT, at: AT };
          return { type: 'DeliveryFailed', data };
        }
        const { attempt: _attempt, ...rest } = attemptData(n);
        return { type: 'DeliveryAbandoned', data: { ...rest, deliveryId, error: 'channel removed' } };
      });
    fc.assert(
      fc.property(fc.array(eventArb, { maxLength: 12 }), fc.array(eventArb, { maxLength: 30 }), (first, then) => {
        // The generic fold (command handler, audit) takes the one-pass path, `foldDeliveries`.
        const { start, atOnce } = checkFoldOfEvents(deliveriesDecider, first, then);
        expect(foldDeliveries(start, then)).to.deep.equal(atOnce);
        if (then.length === 0) expect(atOnce).to.equal(start);
      }),
      { numRuns: 300, seed: 7 },
    );
  });

  it('refuses an attempt number below 1', function () {
    given(deliveriesDecider).when(attempt(0)).thenError('invalid_attempt');
  });
});
