import { expect } from 'chai';
import fc from 'fast-check';
import { DomainError, fold } from '../decider.ts';
import { STOCKPULSE_NAMESPACE, uuidV5 } from '../ids.ts';
import { checkFoldAtOnce } from '../testing/foldAtOnce.ts';
import { given } from '../testing/givenWhenThen.ts';
import { PLAIN_TEXT_MESSAGE } from '../text.ts';
import {
  ALERTS_LIMIT,
  ALERT_THRESHOLD_MAX,
  actionReport,
  alertMessage,
  alertOf,
  alertsDecider,
  armedAlerts,
  evolveAlert,
  formatCents,
  priceAlertFires,
  thresholdProblem,
  toCents,
  triggerCommandId,
  type AlertInput,
  type AlertMessageInput,
  type AlertsCommand,
  type AlertsEvent,
  type AlertsState,
  type AlertCreatedData,
  type AlertTriggeredData,
  type AlertUpdatedData,
} from './alerts.ts';
import {
  conditionTag,
  conditionText,
  formatSourceValue,
  isConditionProblem,
  parseCondition,
  priceCondition,
  smaCondition,
  type FiredLevels,
} from './conditions.ts';
import type { SmaPeriod } from '../screener/query.ts';

const AT = '2025-03-03T15:00:00.000Z';
const LATER = '2025-03-04T15:00:00.000Z';
const idOf = (n: number): string => uuidV5(`alert-${n}`, STOCKPULSE_NAMESPACE);
const A1 = idOf(1);
const A2 = idOf(2);

const input = (over: Partial<AlertInput> = {}): AlertInput => ({
  alertId: A1,
  symbol: 'AAPL',
  kind: 'PRICE',
  alerttype: 'U',
  threshold: 190,
  period: null,
  at: AT,
  ...over,
});
const create = (over: Partial<AlertInput> = {}): AlertsCommand => ({ type: 'CreateAlert', data: input(over) });
const update = (over: Partial<AlertInput> = {}): AlertsCommand => ({
  type: 'UpdateAlert',
  data: input({ at: LATER, ...over }),
});
const remove = (alertId: string): AlertsCommand => ({ type: 'DeleteAlert', data: { alertId } });
const trigger = (alertId: string, price = 191, changepct = 1.25, sma: number | null = null): AlertsCommand => ({
  type: 'TriggerAlert',
  data: { alertId, price, changepct, at: LATER, sma },
});

/** A price or SMA definition with the condition, frequency and expiry the decider writes beside its fields. */
function withCondition<T extends Record<string, unknown>>(data: T): T {
  const alerttype = data.alerttype as 'U' | 'D';
  const condition =
    data.kind === 'SMA'
      ? smaCondition(alerttype, data.period as SmaPeriod)
      : priceCondition(alerttype, data.threshold as number);
  return { condition, frequency: 'once', expires: null, ...data };
}
const created = (alertId = A1, over: Record<string, unknown> = {}): AlertsEvent => ({
  type: 'AlertCreated',
  data: withCondition({
    alertId,
    symbol: 'AAPL',
    kind: 'PRICE',
    alerttype: 'U',
    threshold: 190,
    thresholdCents: 19000,
    period: null,
    createdt: AT,
    ...over,
  }) as AlertCreatedData,
});
const updated = (over: Record<string, unknown> = {}): AlertsEvent => ({
  type: 'AlertUpdated',
  data: withCondition({
    alertId: A1,
    symbol: 'AAPL',
    kind: 'PRICE',
    alerttype: 'U',
    threshold: 190,
    thresholdCents: 19000,
    period: null,
    updatedt: LATER,
    ...over,
  }) as AlertUpdatedData,
});
const smaCreated = (alertId = A1, alerttype: 'U' | 'D' = 'U', period = 50): AlertsEvent =>
  created(alertId, { kind: 'SMA', alerttype, threshold: null, thresholdCents: null, period });
const deleted = (alertId = A1, symbol = 'AAPL'): AlertsEvent => ({ type: 'AlertDeleted', data: { alertId, symbol } });
const triggered = (over: Partial<AlertTriggeredData> = {}): AlertsEvent => ({
  type: 'AlertTriggered',
  data: {
    alertId: A1,
    symbol: 'AAPL',
    kind: 'PRICE',
    alerttype: 'U',
    threshold: 190,
    period: null,
    price: 191,
    changepct: 1.25,
    sma: null,
    notificationtype: 1,
    message: 'AAPL rose above 190.00: 191.00 (+1.25% on the day)',
    at: LATER,
    condition: priceCondition('U', 190),
    frequency: 'once',
    value: null,
    day: null,
    firing: 1,
    ...over,
  },
});
const manyCreated = (count: number): AlertsEvent[] => Array.from({ length: count }, (_, i) => created(idOf(100 + i)));

function refusal(command: AlertsCommand, past: AlertsEvent[] = []): DomainError {
  try {
    alertsDecider.decide(command, fold(alertsDecider, past));
  } catch (error) {
    if (error instanceof DomainError) return error;
    throw error;
  }
  throw new Error('the command was accepted');
}

describe('alerts decider', () => {
  describe('creating an alert', () => {
    it('creates an armed price alert with the threshold in cents beside the number', () => {
      given(alertsDecider).when(create()).then([created()]);
    });

    it('upper-cases the symbol', () => {
      given(alertsDecider)
        .when(create({ symbol: ' msft ' }))
        .then([created(A1, { symbol: 'MSFT' })]);
    });

    it('rounds the threshold to the cent, half up on its decimal form', () => {
      given(alertsDecider)
        .when(create({ threshold: 190.005 }))
        .then([created(A1, { threshold: 190.01, thresholdCents: 19001 })]);
      given(alertsDecider)
        .when(create({ threshold: 0.1 + 0.2 }))
        .then([created(A1, { threshold: 0.3, thresholdCents: 30 })]);
    });

    it('creates an SMA alert with its period and no threshold, ignoring a close sent along', () => {
      given(alertsDecider)
        .when(create({ kind: 'SMA', period: 200, threshold: 123.45, alerttype: 'D' }))
        .then([smaCreated(A1, 'D', 200)]);
    });

    for (const period of [20, 50, 100, 200]) {
      it(`accepts an SMA period of ${period}`, () => {
        given(alertsDecider)
          .when(create({ kind: 'SMA', period, threshold: null }))
          .then([smaCreated(A1, 'U', period)]);
      });
    }

    it('ignores a period sent with a price alert', () => {
      given(alertsDecider)
        .when(create({ period: 50 }))
        .then([created()]);
    });

    for (const period of [0, 10, 21, 150, 201, null]) {
      it(`refuses an SMA period of ${String(period)}, naming the period`, () => {
        given(alertsDecider)
          .when(create({ kind: 'SMA', period }))
          .thenError('invalid_period');
        expect(refusal(create({ kind: 'SMA', period })).message).to.match(/^period must be one of 20, 50, 100, 200/);
      });
    }

    for (const threshold of [0, -1, Number.NaN, Number.POSITIVE_INFINITY, null, 0.004, ALERT_THRESHOLD_MAX + 0.01]) {
      it(`refuses a threshold of ${String(threshold)}, naming the threshold`, () => {
        given(alertsDecider).when(create({ threshold })).thenError('invalid_threshold');
        expect(refusal(create({ threshold })).field).to.equal('threshold');
      });
    }

    it(`accepts a threshold of exactly ${ALERT_THRESHOLD_MAX} and of 0.01`, () => {
      given(alertsDecider)
        .when(create({ threshold: ALERT_THRESHOLD_MAX }))
        .then([created(A1, { threshold: ALERT_THRESHOLD_MAX, thresholdCents: 100_000_000 })]);
      given(alertsDecider)
        .when(create({ threshold: 0.005 }))
        .then([created(A1, { threshold: 0.01, thresholdCents: 1 })]);
    });

    it('refuses an unknown direction or kind and a bad symbol, naming each', () => {
      given(alertsDecider)
        .when(create({ alerttype: 'X' as 'U' }))
        .thenError('invalid_alerttype');
      given(alertsDecider)
        .when(create({ kind: 'RSI' as 'SMA' }))
        .thenError('invalid_kind');
      given(alertsDecider)
        .when(create({ symbol: 'NOT A SYMBOL' }))
        .thenError('invalid_symbol');
      expect(refusal(create({ alerttype: 'X' as 'U' })).message).to.match(/^alerttype /);
    });

    it('refuses an id that is not a UUID', () => {
      given(alertsDecider)
        .when(create({ alertId: 'a1' }))
        .thenError('invalid_id');
    });

    it('refuses an id already taken', () => {
      given(alertsDecider, [created()]).when(create()).thenError('taken');
    });

    it(`holds up to exactly ${ALERTS_LIMIT} alerts and refuses one more`, () => {
      given(alertsDecider, manyCreated(ALERTS_LIMIT - 1))
        .when(create())
        .then([created()]);
      given(alertsDecider, manyCreated(ALERTS_LIMIT)).when(create()).thenError('limit');
    });

    it('has room again after a deletion', () => {
      const past = manyCreated(ALERTS_LIMIT);
      given(alertsDecider, [...past, deleted(idOf(100))])
        .when(create())
        .then([created()]);
    });
  });

  describe('updating an alert', () => {
    it('changes the alert and carries its whole new definition', () => {
      given(alertsDecider, [created()])
        .when(update({ threshold: 200.5, alerttype: 'D' }))
        .then([updated({ alerttype: 'D', threshold: 200.5, thresholdCents: 20050 })]);
    });

    it('may turn a price alert into an SMA alert', () => {
      given(alertsDecider, [created()])
        .when(update({ kind: 'SMA', period: 20 }))
        .then([updated({ kind: 'SMA', threshold: null, thresholdCents: null, period: 20 })]);
    });

    it('decides nothing when an armed alert is updated to what it is', () => {
      given(alertsDecider, [created()]).when(update()).thenNothing();
      given(alertsDecider, [created()])
        .when(update({ threshold: 190.001 }))
        .thenNothing();
    });

    it('re-arms a triggered alert even when nothing else changes', () => {
      given(alertsDecider, [created(), triggered()]).when(update()).then([updated()]);
    });

    it('refuses an alert that does not exist or was deleted', () => {
      given(alertsDecider).when(update()).thenError('not_found');
      given(alertsDecider, [created(), deleted()]).when(update()).thenError('not_found');
    });

    it('refuses a bad definition before looking for the alert', () => {
      given(alertsDecider)
        .when(update({ threshold: -5 }))
        .thenError('invalid_threshold');
    });
  });

  describe('deleting an alert', () => {
    it('deletes an alert, naming its symbol', () => {
      given(alertsDecider, [created(A1), created(A2, { symbol: 'MSFT' })])
        .when(remove(A2))
        .then([deleted(A2, 'MSFT')]);
    });

    it('refuses an alert that does not exist or was already deleted', () => {
      given(alertsDecider).when(remove(A1)).thenError('not_found');
      given(alertsDecider, [created(), deleted()]).when(remove(A1)).thenError('not_found');
    });

    it('finds an id written in upper case', () => {
      given(alertsDecider, [created()]).when(remove(A1.toUpperCase())).then([deleted()]);
    });
  });

  describe('triggering an alert', () => {
    it('fires an armed price alert with the notification it makes', () => {
      given(alertsDecider, [created()]).when(trigger(A1)).then([triggered()]);
    });

    it('fires an SMA alert as notification type 2 with the moving average in the message', () => {
      given(alertsDecider, [smaCreated()])
        .when(trigger(A1, 188.1, 0.84, 187.321))
        .then([
          triggered({
            kind: 'SMA',
            threshold: null,
            period: 50,
            price: 188.1,
            changepct: 0.84,
            sma: 187.321,
            notificationtype: 2,
            message: 'AAPL crossed above its 50-day SMA 187.32: 188.10 (+0.84% on the day)',
            condition: smaCondition('U', 50),
          }),
        ]);
    });

    it('decides nothing for a retried trigger of an alert already fired', () => {
      given(alertsDecider, [created(), triggered()]).when(trigger(A1)).thenNothing();
    });

    it('decides nothing for an alert deleted or never created', () => {
      given(alertsDecider, [created(), deleted()]).when(trigger(A1)).thenNothing();
      given(alertsDecider).when(trigger(A1)).thenNothing();
    });

    it('fires again once the alert was re-armed by an update', () => {
      given(alertsDecider, [created(), triggered(), updated()]).when(trigger(A1)).then([triggered()]);
    });

    it('refuses a price, change or moving average that is not a number', () => {
      given(alertsDecider, [created()]).when(trigger(A1, Number.NaN)).thenError('invalid_price');
      given(alertsDecider, [created()]).when(trigger(A1, 0)).thenError('invalid_price');
      given(alertsDecider, [created()])
        .when(trigger(A1, 191, Number.POSITIVE_INFINITY))
        .thenError('invalid_changepct');
      given(alertsDecider, [smaCreated()])
        .when(trigger(A1, 191, 1, -3))
        .thenError('invalid_sma');
    });
  });

  it('refuses a command type it does not know', () => {
    const unknown = { type: 'SnoozeAlert', data: {} } as unknown as AlertsCommand;
    given(alertsDecider).when(unknown).thenError('unknown_command');
  });

  describe('evolve', () => {
    it('arms a created alert, marks a fired one triggered and re-arms it on update', () => {
      const afterCreate = fold(alertsDecider, [created()]);
      expect(afterCreate.alerts[0]).to.include({ id: A1, status: 'armed', arming: 1, createdt: AT });
      const afterTrigger = fold(alertsDecider, [triggered()], afterCreate);
      expect(afterTrigger.alerts[0]).to.include({ status: 'triggered', arming: 1, updatedt: LATER });
      const afterUpdate = fold(alertsDecider, [updated({ threshold: 191, thresholdCents: 19100 })], afterTrigger);
      expect(afterUpdate.alerts[0]).to.include({ status: 'armed', arming: 2, createdt: AT, thresholdCents: 19100 });
    });

    it('is total: events about an absent alert leave the state as it is', () => {
      const state = fold(alertsDecider, [created()]);
      expect(fold(alertsDecider, [deleted(A2), triggered({ alertId: A2 }), created()], state)).to.deep.equal(state);
    });

    it('ignores an event type it does not know', () => {
      const unknown = { type: 'AlertSnoozed', data: {} } as unknown as AlertsEvent;
      const state = fold(alertsDecider, [created()]);
      expect(alertsDecider.evolve(state, unknown)).to.equal(state);
    });

    it('keeps alerts in the order they were created', () => {
      const state = fold(alertsDecider, [created(A1), created(A2, { symbol: 'MSFT' }), deleted(A1), created(idOf(3))]);
      expect(state.alerts.map((a) => a.id)).to.deep.equal([A2, idOf(3)]);
    });

    it('folds one alert alone with evolveAlert exactly as it folds it among the others', () => {
      const paused: AlertsEvent = { type: 'AlertPaused', data: { alertId: A1, symbol: 'AAPL', at: LATER } };
      const resumed: AlertsEvent = { type: 'AlertResumed', data: { alertId: A1, symbol: 'AAPL', at: LATER } };
      const expired: AlertsEvent = { type: 'AlertExpired', data: { alertId: A1, symbol: 'AAPL', at: LATER } };
      const ofA1 = [created(), triggered(), updated(), paused, resumed, triggered({ firing: 3 }), expired];
      const others = [created(A2, { symbol: 'MSFT' }), triggered({ alertId: A2 })];
      let alone: ReturnType<typeof evolveAlert>;
      for (const event of ofA1) alone = evolveAlert(alone, event);
      const state = fold(alertsDecider, [others[0]!, ...ofA1.slice(0, 3), others[1]!, ...ofA1.slice(3)]);
      expect(alone).to.deep.equal(state.alerts.find((a) => a.id === A1));
      expect(evolveAlert(alone, deleted())).to.equal(undefined);
      expect(evolveAlert(undefined, triggered())).to.equal(undefined);
      expect(evolveAlert(alone, created())).to.equal(alone);
    });
  });
});

describe('armed alerts for the engine', () => {
  it('lists the alerts still waiting, without the fired ones', () => {
    const state = fold(alertsDecider, [created(A1), created(A2, { symbol: 'MSFT' }), triggered()]);
    expect(armedAlerts(state).map((a) => a.id)).to.deep.equal([A2]);
  });

  it('derives one trigger command id per arming, so a retried trigger appends nothing new', () => {
    const first = fold(alertsDecider, [created()]).alerts[0]!;
    expect(triggerCommandId(first)).to.equal(triggerCommandId({ ...first }));
    expect(triggerCommandId({ ...first, arming: 2 })).not.to.equal(triggerCommandId(first));
  });
});

describe('alert thresholds in cents', () => {
  it('converts to cents without float traps and back', () => {
    expect(toCents(190)).to.equal(19000);
    expect(toCents(1.005)).to.equal(101);
    expect(toCents(190.005)).to.equal(19001);
    expect(toCents(0.29)).to.equal(29);
    expect(toCents(1e-7)).to.equal(0);
    expect(formatCents(19000)).to.equal('190.00');
    expect(formatCents(5)).to.equal('0.05');
    expect(formatCents(100_000_000)).to.equal('1,000,000.00');
  });

  it('fires an upward price alert at exactly the threshold and above, not a cent below', () => {
    const up = { alerttype: 'U' as const, thresholdCents: 19000 };
    expect(priceAlertFires(up, 190)).to.equal(true);
    expect(priceAlertFires(up, 190.0000001)).to.equal(true);
    expect(priceAlertFires(up, 189.99)).to.equal(false);
    expect(priceAlertFires(up, 190.01)).to.equal(true);
  });

  it('fires a downward price alert at exactly the threshold and below, not a cent above', () => {
    const down = { alerttype: 'D' as const, thresholdCents: 29 };
    expect(priceAlertFires(down, 0.1 + 0.19)).to.equal(true);
    expect(priceAlertFires(down, 0.29)).to.equal(true);
    expect(priceAlertFires(down, 0.3)).to.equal(false);
    expect(priceAlertFires(down, 0.28)).to.equal(true);
  });

  it('never fires an SMA alert on a price threshold, nor on a price that is not a number', () => {
    expect(priceAlertFires({ alerttype: 'U', thresholdCents: null }, 1000)).to.equal(false);
    expect(priceAlertFires({ alerttype: 'U', thresholdCents: 100 }, Number.NaN)).to.equal(false);
  });
});

describe('the threshold rule', () => {
  it('accepts 0.01 to the highest threshold, the cent rounding included, and names what breaks it', () => {
    expect(thresholdProblem(0.01)).to.equal(null);
    expect(thresholdProblem(0.005), 'rounds to 0.01').to.equal(null);
    expect(thresholdProblem(ALERT_THRESHOLD_MAX)).to.equal(null);
    expect(thresholdProblem(0.004), 'rounds to 0.00').to.equal('below_minimum');
    expect(thresholdProblem(0)).to.equal('below_minimum');
    expect(thresholdProblem(-5)).to.equal('below_minimum');
    expect(thresholdProblem(ALERT_THRESHOLD_MAX + 0.01)).to.equal('above_maximum');
    expect(thresholdProblem(Number.NaN)).to.equal('not_a_number');
    expect(thresholdProblem(Number.POSITIVE_INFINITY)).to.equal('not_a_number');
  });
});

describe('alert messages', () => {
  const price = (
    alerttype: 'U' | 'D',
    changepct: number,
    symbol = 'AAPL',
    thresholdCents = 19000,
    at: number | null = null,
  ): string =>
    alertMessage({ symbol, kind: 'PRICE', alerttype, thresholdCents, period: null, sma: null, price: at, changepct });
  const sma = (
    alerttype: 'U' | 'D',
    changepct: number,
    value: number | null = 187.32,
    symbol = 'AAPL',
    at: number | null = null,
  ): string =>
    alertMessage({
      symbol,
      kind: 'SMA',
      alerttype,
      thresholdCents: null,
      period: 50,
      sma: value,
      price: at,
      changepct,
    });

  it('writes the examples of the product, with the price it fired at', () => {
    expect(price('U', 1.25, 'AAPL', 19000, 190.12)).to.equal('AAPL rose above 190.00: 190.12 (+1.25% on the day)');
    expect(price('D', -2.1, 'AAPL', 18000, 179.95)).to.equal('AAPL fell below 180.00: 179.95 (-2.10% on the day)');
    expect(sma('U', 0.84, 187.32, 'AAPL', 187.4)).to.equal(
      'AAPL crossed above its 50-day SMA 187.32: 187.40 (+0.84% on the day)',
    );
    expect(sma('D', -0.5, 187.32, 'AAPL', 187.3)).to.equal(
      'AAPL crossed below its 50-day SMA 187.32: 187.30 (-0.50% on the day)',
    );
  });

  it('says the price rose or fell to the level when it fired on it, to the cent', () => {
    expect(price('D', -2.1, 'AAPL', 18000, 180)).to.equal('AAPL fell to 180.00: 180.00 (-2.10% on the day)');
    expect(price('U', 1.25, 'AAPL', 19000, 190.001)).to.equal('AAPL rose to 190.00: 190.00 (+1.25% on the day)');
    expect(price('D', -2.1, 'AAPL', 18000, 179.99)).to.equal('AAPL fell below 180.00: 179.99 (-2.10% on the day)');
    expect(sma('U', 0.84, 187.32, 'AAPL', 187.32)).to.equal(
      'AAPL rose to its 50-day SMA 187.32: 187.32 (+0.84% on the day)',
    );
    expect(sma('D', -0.5, 187.3249, 'AAPL', 187.32)).to.equal(
      'AAPL fell to its 50-day SMA 187.32: 187.32 (-0.50% on the day)',
    );
    expect(sma('D', -0.5, null, 'AAPL', 187.32)).to.equal(
      'AAPL crossed below its 50-day SMA: 187.32 (-0.50% on the day)',
    );
  });

  it('leaves out a price that is not known or not a price', () => {
    expect(price('U', 1.25)).to.equal('AAPL rose above 190.00 (+1.25% on the day)');
    for (const at of [Number.NaN, 0, -1, Number.POSITIVE_INFINITY]) {
      expect(price('U', 1.25, 'AAPL', 19000, at)).to.equal('AAPL rose above 190.00 (+1.25% on the day)');
    }
  });

  it('keeps the direction sign when the day moved the other way, writing the change in words', () => {
    expect(price('U', -0.5)).to.equal('AAPL rose above 190.00 (+, though down 0.50% on the day)');
    expect(price('D', 0.4, 'AAPL', 18000)).to.equal('AAPL fell below 180.00 (-, though up 0.40% on the day)');
  });

  it('gives a flat day the direction sign', () => {
    expect(price('U', 0)).to.equal('AAPL rose above 190.00 (+0.00% on the day)');
    expect(price('D', 0.004)).to.equal('AAPL fell below 190.00 (-0.00% on the day)');
  });

  it('leaves out a moving average the engine did not give', () => {
    expect(sma('U', 1, null)).to.equal('AAPL crossed above its 50-day SMA (+1.00% on the day)');
  });

  describe('the sign rule: up messages contain +, down messages contain - and never +', () => {
    const changes = [-12.345, -2.1, -0.5, -0.004, 0, 0.004, 0.4, 1.25, 30];
    for (const symbol of ['AAPL', 'BF-B']) {
      for (const changepct of changes) {
        it(`holds for ${symbol} on a day of ${changepct}%`, () => {
          for (const message of [price('U', changepct, symbol), sma('U', changepct, 187.32, symbol)]) {
            expect(message, message).to.contain('+');
          }
          for (const message of [price('D', changepct, symbol), sma('D', changepct, 187.32, symbol)]) {
            expect(message, message).to.contain('-').and.not.contain('+');
          }
        });
      }
    }

    it('holds for every kind, direction and rounding edge', () => {
      const inputs: AlertMessageInput[] = [];
      for (const alerttype of ['U', 'D'] as const) {
        for (const changepct of [-0.005, 0.005, -0.0049, 0.0049, 99.995, -99.995]) {
          inputs.push({
            symbol: 'X',
            kind: 'PRICE',
            alerttype,
            thresholdCents: 1,
            period: null,
            sma: null,
            price: 0.01,
            changepct,
          });
        }
      }
      for (const message of inputs.map(alertMessage)) expect(/[+-]/.test(message), message).to.equal(true);
      for (const i of inputs.filter((x) => x.alerttype === 'D')) expect(alertMessage(i)).not.to.contain('+');
    });
  });
});

describe('alert conditions, frequencies, pause, resume and expiry', () => {
  const channel = { op: 'entering_channel', lower: 180, upper: 190.005 };
  const withCondition = (over: Partial<AlertInput> = {}): AlertInput => ({
    alertId: A1,
    symbol: 'aapl',
    condition: channel,
    frequency: 'every_time',
    at: AT,
    ...over,
  });
  const conditionCreated = (over: Record<string, unknown> = {}): AlertsEvent => ({
    type: 'AlertCreated',
    data: {
      alertId: A1,
      symbol: 'AAPL',
      condition: { op: 'entering_channel', source: 'price', value: null, lower: 180, upper: 190.01, bars: null },
      frequency: 'every_time',
      expires: null,
      kind: 'CONDITION',
      alerttype: null,
      threshold: null,
      thresholdCents: null,
      period: null,
      createdt: AT,
      ...over,
    },
  });
  const fire = (data: Record<string, unknown> = {}): AlertsCommand => ({
    type: 'TriggerAlert',
    data: { alertId: A1, price: 185, changepct: 0.5, at: LATER, value: 185, ...data },
  });
  const status = (type: 'PauseAlert' | 'ResumeAlert' | 'ExpireAlert', at = LATER): AlertsCommand => ({
    type,
    data: { alertId: A1, at },
  });
  const change = (type: 'AlertPaused' | 'AlertResumed' | 'AlertExpired', at = LATER): AlertsEvent => ({
    type,
    data: { alertId: A1, symbol: 'AAPL', at },
  });

  it('creates a channel alert with its bounds kept to the cent and the older fields empty', () => {
    given(alertsDecider).when({ type: 'CreateAlert', data: withCondition() }).then([conditionCreated()]);
  });

  it('refuses a condition, a frequency or an expiry that breaks the rules, naming the field', () => {
    const cases: [Partial<AlertInput>, string][] = [
      [{ condition: { op: 'inside_channel', lower: 5 } }, 'condition.upper'],
      [{ condition: { op: 'greater_than', value: 2_000_000 } }, 'condition.value'],
      [{ condition: { op: 'moving_up', value: 1, bars: 0 } }, 'condition.bars'],
      [{ condition: { op: 'crossing', value: { ref: 'price' } } }, 'condition.value.ref'],
      [{ condition: { op: 'greater_than', source: 'rsi:14', value: 101 } }, 'condition.value'],
      [{ condition: { op: 'inside_channel', source: 'rsi:14', lower: -5, upper: 30 } }, 'condition.lower'],
      [{ condition: { op: 'less_than', source: 'sma:50', value: 0 } }, 'condition.value'],
      [{ condition: { op: 'crossing', source: 'ema:12', value: -3 } }, 'condition.value'],
      [{ condition: { op: 'greater_than', source: 'volume', value: -1 } }, 'condition.value'],
      [{ condition: { op: 'less_than', source: 'changepct', value: -100 } }, 'condition.value'],
      [{ condition: { op: 'moving_up', source: 'rsi:14', value: 100 } }, 'condition.value'],
      [{ condition: { op: 'moving_down_pct', value: 100 } }, 'condition.value'],
      [{ frequency: 'hourly' }, 'frequency'],
      [{ expires: 'tomorrow' }, 'expires'],
      [{ expires: '2025-03-03T14:00:00.000Z' }, 'expires'],
      // Series of other units: RSI points, shares or percent are no level of a price, nor a price of theirs.
      [{ condition: { op: 'less_than', source: 'rsi:14', value: { ref: 'price' } } }, 'condition.value'],
      [{ condition: { op: 'greater_than', value: { ref: 'rsi:14' } } }, 'condition.value.ref'],
      [{ condition: { op: 'crossing', source: 'volume', value: { ref: 'rsi:14' } } }, 'condition.value'],
      [
        { condition: { op: 'inside_channel', source: 'volume', lower: { ref: 'price' }, upper: 9e5 } },
        'condition.lower',
      ],
      [{ condition: { op: 'inside_channel', lower: 100, upper: { ref: 'changepct' } } }, 'condition.upper.ref'],
      // The same series written with a leading zero is still the source.
      [{ condition: { op: 'greater_than', source: 'sma:50', value: { ref: 'sma:050' } } }, 'condition.value.ref'],
      [{ condition: { op: 'greater_than', source: 'rsi:014', value: { ref: 'rsi:14' } } }, 'condition.value'],
      // A move in dollars is a price's: at least a cent, at most the highest price.
      [{ condition: { op: 'moving_down', value: 0.004 } }, 'condition.value'],
      [{ condition: { op: 'moving_up', source: 'ema:12', value: 2_000_000 } }, 'condition.value'],
      // A day or a time that does not exist, and a time without its zone.
      [{ expires: '2027-02-30T00:00:00Z' }, 'expires'],
      [{ expires: '2027-02-29T12:00:00Z' }, 'expires'],
      [{ expires: '2027-04-31T12:00:00Z' }, 'expires'],
      [{ expires: '2027-04-30T24:00:00Z' }, 'expires'],
      [{ expires: '2027-04-30T12:00:00+25:00' }, 'expires'],
      [{ expires: '2027-02-01T00:00:00' }, 'expires'],
      // Past year 9999 (here by its offset), whose ISO form no four-digit reader takes back.
      [{ expires: '9999-12-31T23:59:59-23:59' }, 'expires'],
    ];
    for (const [over, field] of cases) {
      const error = refusal({ type: 'CreateAlert', data: withCondition(over) });
      expect(error.field, JSON.stringify(over)).to.equal(field);
      expect(error.message.startsWith(`${field}:`), error.message).to.equal(true);
    }
  });

  it('names the highest price as the bound of a price level, whatever the size sent', () => {
    for (const value of [1e13, 2e6]) {
      const error = refusal({ type: 'CreateAlert', data: withCondition({ condition: { op: 'greater_than', value } }) });
      expect(error.message).to.equal('condition.value: must be at most 1000000 (a price in dollars)');
    }
  });

  it('tells a source of an unknown series, and the period an EMA, an SMA or the RSI must have', () => {
    const message = (source: string): string =>
      refusal({
        type: 'CreateAlert',
        data: withCondition({ condition: { op: 'greater_than', source, value: 100 } }),
      }).message;
    const emaPeriod = 'condition.source: ema period must be a whole number from 2 to 200';
    expect(message('ema:abc')).to.equal(emaPeriod);
    expect(message('ema:')).to.equal(emaPeriod);
    expect(message('EMA:1')).to.equal(emaPeriod);
    expect(message('ema:201')).to.equal(emaPeriod);
    expect(message('sma:30')).to.equal('condition.source: sma period must be one of 20, 50, 100, 200');
    expect(message('rsi:7')).to.equal('condition.source: rsi period must be 14');
    expect(message('macd')).to.equal(
      'condition.source: must be price, sma:<20|50|100|200>, ema:<2..200>, rsi:14, volume or changepct',
    );
  });

  it('reads a period written with leading zeros as the period, and keeps a move in dollars to the cent', () => {
    const [sma] = alertsDecider.decide(
      { type: 'CreateAlert', data: withCondition({ condition: { op: 'greater_than', source: 'SMA:050', value: 10 } }) },
      fold(alertsDecider, []),
    );
    expect((sma!.data as { condition: unknown }).condition).to.deep.include({ source: 'sma:50' });
    const [move] = alertsDecider.decide(
      { type: 'CreateAlert', data: withCondition({ condition: { op: 'moving_up', value: 5.004, bars: 3 } }) },
      fold(alertsDecider, []),
    );
    expect((move!.data as { condition: unknown }).condition).to.deep.include({ value: 5, bars: 3 });
    const [pct] = alertsDecider.decide(
      { type: 'CreateAlert', data: withCondition({ condition: { op: 'moving_up_pct', value: 0.125 } }) },
      fold(alertsDecider, []),
    );
    expect((pct!.data as { condition: unknown }).condition).to.deep.include({ value: 0.125, bars: 1 });
  });

  it('takes an expiry at any offset and on the last day of a month, as the instant it names', () => {
    for (const [expires, instant] of [
      ['2028-02-29T23:30:00+05:30', '2028-02-29T18:00:00.000Z'],
      ['2027-04-30T23:59:59.5-04:00', '2027-05-01T03:59:59.500Z'],
      ['2027-12-31T21:00Z', '2027-12-31T21:00:00.000Z'],
      ['9999-12-31T23:59:59.999Z', '9999-12-31T23:59:59.999Z'],
    ]) {
      const [event] = alertsDecider.decide(
        { type: 'CreateAlert', data: withCondition({ expires }) },
        fold(alertsDecider, []),
      );
      expect((event!.data as { expires: unknown }).expires, expires).to.equal(instant);
    }
  });

  it('keeps the frequency and the expiry of an alert an update does not send, and clears an expiry sent null', () => {
    const expires = '2026-01-01T00:00:00.000Z';
    const past = [conditionCreated({ expires })];
    const moved = { op: 'entering_channel', lower: 181, upper: 190 };
    const [kept] = alertsDecider.decide(
      { type: 'UpdateAlert', data: { alertId: A1, symbol: 'AAPL', condition: moved, at: LATER } },
      fold(alertsDecider, past),
    );
    expect(kept!.data).to.deep.include({ frequency: 'every_time', expires });
    const [cleared] = alertsDecider.decide(
      {
        type: 'UpdateAlert',
        data: { alertId: A1, symbol: 'AAPL', condition: moved, frequency: null, expires: null, at: LATER },
      },
      fold(alertsDecider, past),
    );
    expect(cleared!.data).to.deep.include({ frequency: 'every_time', expires: null });
    const [changed] = alertsDecider.decide(
      { type: 'UpdateAlert', data: { alertId: A1, symbol: 'AAPL', condition: moved, frequency: 'once', at: LATER } },
      fold(alertsDecider, past),
    );
    expect(changed!.data).to.deep.include({ frequency: 'once', expires });
  });

  it('refuses an update naming another symbol than its alert, and names the symbol', () => {
    for (const data of [
      { alertId: A1, symbol: 'MSFT', note: 'x', at: LATER },
      { alertId: A1, symbol: 'MSFT', condition: { op: 'greater_than', value: 700 }, at: LATER },
    ]) {
      given(alertsDecider, [conditionCreated()]).when({ type: 'UpdateAlert', data }).thenError('invalid_symbol');
      const error = refusal({ type: 'UpdateAlert', data }, [conditionCreated()]);
      expect(error.field).to.equal('symbol');
      expect(error.message).to.equal(
        'symbol: the alert is on AAPL; an update keeps its symbol (create an alert on MSFT instead)',
      );
    }
    // The same symbol, written in lower case, is the alert's own.
    const [noted] = alertsDecider.decide(
      { type: 'UpdateAlert', data: { alertId: A1, symbol: 'aapl', note: 'x', at: LATER } },
      fold(alertsDecider, [conditionCreated()]),
    );
    expect(noted!.data).to.deep.include({ symbol: 'AAPL', note: 'x' });
  });

  it('keeps the condition of an alert an update sends neither a condition nor an older field for', () => {
    const bare = { alertId: A1, symbol: 'AAPL', at: LATER };
    // A condition alert: only its frequency changes, and it is re-armed.
    const [frequency] = alertsDecider.decide(
      { type: 'UpdateAlert', data: { ...bare, frequency: 'once' } },
      fold(alertsDecider, [conditionCreated()]),
    );
    const { createdt: _createdt, ...definition } = conditionCreated().data as AlertCreatedData;
    expect(frequency).to.deep.equal({
      type: 'AlertUpdated',
      data: { ...definition, frequency: 'once', updatedt: LATER },
    });
    // An alert of the older body stays a price alert, its note added.
    given(alertsDecider, [created()])
      .when({ type: 'UpdateAlert', data: { ...bare, note: 'Trim on the way up' } })
      .then([updated({ note: 'Trim on the way up' })]);
    // Nothing changed on an armed alert: nothing to append.
    given(alertsDecider, [conditionCreated()]).when({ type: 'UpdateAlert', data: bare }).thenNothing();
    // An update that leaves the condition out names no condition field for an alert that does not exist.
    given(alertsDecider).when({ type: 'UpdateAlert', data: bare }).thenError('not_found');
  });

  it('names the kept expiry of an update that has passed, and asks for another', () => {
    const past = [conditionCreated({ expires: '2025-03-04T00:00:00.000Z' })];
    const decide = () =>
      alertsDecider.decide(
        { type: 'UpdateAlert', data: { alertId: A1, symbol: 'AAPL', note: 'again', at: LATER } },
        fold(alertsDecider, past),
      );
    expect(decide).to.throw(
      DomainError,
      "expires: the alert's own, 2025-03-04T00:00:00.000Z, has passed; send a later one, or null for none",
    );
    const [reopened] = alertsDecider.decide(
      { type: 'UpdateAlert', data: { alertId: A1, symbol: 'AAPL', expires: null, at: LATER } },
      fold(alertsDecider, past),
    );
    expect(reopened!.data).to.deep.include({ expires: null });
  });

  describe('a note', () => {
    const note = 'Buy 100 at the open; stop at 178';
    const withNote = conditionCreated({ note });
    const { createdt: _createdt, ...definition } = conditionCreated().data as AlertCreatedData;

    it('keeps the note trimmed in the event, and leaves a blank one out as none', () => {
      given(alertsDecider)
        .when({ type: 'CreateAlert', data: withCondition({ note: `  ${note}\t ` }) })
        .then([withNote]);
      for (const blank of [null, '', '   ']) {
        given(alertsDecider)
          .when({ type: 'CreateAlert', data: withCondition({ note: blank }) })
          .then([conditionCreated()]);
      }
      expect(fold(alertsDecider, [withNote]).alerts[0]!.note).to.equal(note);
      expect(fold(alertsDecider, [conditionCreated()]).alerts[0]!.note).to.equal(null);
    });

    it('refuses a note that is not text, is longer than 200 characters or is not one line, naming the note', () => {
      const cases: [unknown, string][] = [
        [42, 'note: must be text or null'],
        ['x'.repeat(201), 'note: must be at most 200 characters, got 201'],
        ['first line\nsecond line', 'note: must be one line, without control characters'],
        ['bell\u0007', 'note: must be one line, without control characters'],
        ['a\u2028b', 'note: must be one line, without control characters'],
        // Characters as a reader counts them: an emoji is one.
        ['😀'.repeat(201), 'note: must be at most 200 characters, got 201'],
        ['👨‍👩‍👧'.repeat(201), 'note: must be at most 200 characters, got 201'],
        ['🇫🇷👍🏽'.repeat(101), 'note: must be at most 200 characters, got 202'],
        // One character, but not without bound.
        [`a${'\u0301'.repeat(1600)}`, 'note: must be at most 200 characters, got 1601 code points'],
        ['a\ud800b', `note: ${PLAIN_TEXT_MESSAGE}`],
        // Shown in another order than it reads.
        ['abc\u202edef', `note: ${PLAIN_TEXT_MESSAGE}`],
      ];
      for (const [sent, message] of cases) {
        given(alertsDecider)
          .when({ type: 'CreateAlert', data: withCondition({ note: sent }) })
          .thenError('invalid_note');
        const decide = () =>
          alertsDecider.decide(
            { type: 'CreateAlert', data: withCondition({ note: sent }) },
            alertsDecider.initialState,
          );
        expect(decide).to.throw(DomainError, message);
      }
      for (const longest of ['é'.repeat(200), '😀'.repeat(200), '👨‍👩‍👧'.repeat(200), '🇫🇷👍🏽'.repeat(100)]) {
        given(alertsDecider)
          .when({ type: 'CreateAlert', data: withCondition({ note: longest }) })
          .then([conditionCreated({ note: longest })]);
      }
    });

    it('keeps the note an update does not send, clears it sent null, and re-arms an alert whose note changed', () => {
      const moved = { op: 'entering_channel', lower: 181, upper: 190 };
      const [kept] = alertsDecider.decide(
        { type: 'UpdateAlert', data: { alertId: A1, symbol: 'AAPL', condition: moved, at: LATER } },
        fold(alertsDecider, [withNote]),
      );
      expect(kept!.data).to.deep.include({ note });
      const [cleared] = alertsDecider.decide(
        { type: 'UpdateAlert', data: { alertId: A1, symbol: 'AAPL', condition: moved, note: null, at: LATER } },
        fold(alertsDecider, [withNote]),
      );
      expect(cleared!.data).to.not.have.property('note');
      expect(fold(alertsDecider, [withNote, cleared!]).alerts[0]!.note).to.equal(null);
      given(alertsDecider, [withNote])
        .when({ type: 'UpdateAlert', data: withCondition({ at: LATER }) })
        .thenNothing();
      given(alertsDecider, [withNote])
        .when({ type: 'UpdateAlert', data: withCondition({ note: 'Sell half', at: LATER }) })
        .then([{ type: 'AlertUpdated', data: { ...definition, note: 'Sell half', updatedt: LATER } }]);
    });

    it('goes with each firing, and with none when the alert has none', () => {
      const [fired] = alertsDecider.decide(fire({ firing: 1 }), fold(alertsDecider, [withNote]));
      expect(fired!.data).to.deep.include({ note });
      const [plain] = alertsDecider.decide(fire({ firing: 1 }), fold(alertsDecider, [conditionCreated()]));
      expect(plain!.data).to.not.have.property('note');
    });
  });

  it("takes the edges of each source's range: RSI 0 and 100, volume 0, a change just above -100%", () => {
    const accepted: AlertInput['condition'][] = [
      { op: 'greater_than', source: 'rsi:14', value: 100 },
      { op: 'inside_channel', source: 'rsi:14', lower: 0, upper: 30 },
      { op: 'greater_than', source: 'volume', value: 0 },
      { op: 'less_than', source: 'changepct', value: -99.5 },
      { op: 'moving_up_pct', source: 'rsi:14', value: 150 },
      { op: 'moving_down_pct', source: 'changepct', value: 250 },
      { op: 'moving_up_pct', value: 300 },
    ];
    for (const condition of accepted) {
      expect(isConditionProblem(parseCondition(condition)), JSON.stringify(condition)).to.equal(false);
    }
  });

  it('fires an every-time alert once per firing count, on a later tick, and keeps it armed', () => {
    const first = alertsDecider.decide(fire({ firing: 1 }), fold(alertsDecider, [conditionCreated()]));
    expect(first).to.have.length(1);
    expect(first[0]!.data).to.deep.include({
      notificationtype: 1,
      firing: 1,
      value: 185,
      message: 'AAPL price enters the channel 180.00 – 190.01: 185.00 (+0.50% on the day)',
    });
    const state = fold(alertsDecider, [conditionCreated(), ...first]);
    expect(state.alerts[0]).to.deep.include({ status: 'armed', firings: 1, triggerCount: 1, lastFired: LATER });
    given(alertsDecider, [conditionCreated(), ...first])
      .when(fire({ firing: 1 }))
      .thenNothing();
    given(alertsDecider, [conditionCreated(), ...first])
      .when(fire({ firing: 2 }))
      .thenNothing();
    const later = alertsDecider.decide(
      fire({ firing: 2, at: '2025-03-05T15:00:00.000Z' }),
      fold(alertsDecider, [conditionCreated(), ...first]),
    );
    expect(later.map((e) => e.type)).to.deep.equal(['AlertTriggered']);
  });

  it('says in the message what a level on another series was when it fired, and refuses a level not a number', () => {
    const onSma = conditionCreated({
      condition: {
        op: 'entering_channel',
        source: 'price',
        value: null,
        lower: 180,
        upper: { ref: 'sma:50' },
        bars: null,
      },
    });
    const fired = alertsDecider.decide(fire({ firing: 1, upper: 186.4249 }), fold(alertsDecider, [onSma]));
    expect(fired[0]!.data).to.deep.include({
      message: 'AAPL price enters the channel 180.00 – the 50-day SMA (186.42): 185.00 (+0.50% on the day)',
    });
    // Without the level (an engine that did not give it), the message as before.
    const bare = alertsDecider.decide(fire({ firing: 1 }), fold(alertsDecider, [onSma]));
    expect(bare[0]!.data).to.deep.include({
      message: 'AAPL price enters the channel 180.00 – the 50-day SMA: 185.00 (+0.50% on the day)',
    });
    given(alertsDecider, [onSma])
      .when(fire({ firing: 1, upper: Number.NaN }))
      .thenError('invalid_upper');
    given(alertsDecider, [onSma])
      .when(fire({ firing: 1, level: 'low' }))
      .thenError('invalid_level');
  });

  it('fires a once-per-bar alert once per trading day', () => {
    const created = conditionCreated({ frequency: 'once_per_bar' });
    const day1 = alertsDecider.decide(fire({ day: '2025-03-04' }), fold(alertsDecider, [created]));
    expect(day1[0]!.data).to.deep.include({ day: '2025-03-04', frequency: 'once_per_bar' });
    given(alertsDecider, [created, ...day1])
      .when(fire({ day: '2025-03-04' }))
      .thenNothing();
    given(alertsDecider, [created, ...day1])
      .when(fire())
      .thenNothing();
    expect(alertsDecider.decide(fire({ day: '2025-03-05' }), fold(alertsDecider, [created, ...day1]))).to.have.length(
      1,
    );
  });

  it('pauses an armed alert, which then does not fire, and resumes it under a new arming', () => {
    given(alertsDecider, [conditionCreated()])
      .when(status('PauseAlert'))
      .then([change('AlertPaused')]);
    given(alertsDecider, [conditionCreated(), change('AlertPaused')])
      .when(status('PauseAlert'))
      .thenNothing();
    given(alertsDecider, [conditionCreated(), change('AlertPaused')])
      .when(fire({ firing: 1 }))
      .thenNothing();
    given(alertsDecider, [conditionCreated(), change('AlertPaused')])
      .when(status('ResumeAlert'))
      .then([change('AlertResumed')]);
    const state = fold(alertsDecider, [conditionCreated(), change('AlertPaused'), change('AlertResumed')]);
    expect(state.alerts[0]).to.deep.include({ status: 'armed', arming: 2, firings: 0 });
  });

  it('refuses to pause a fired once alert and to resume one that is not paused or has expired', () => {
    given(alertsDecider, [created(), triggered()]).when(status('PauseAlert')).thenError('not_armed');
    given(alertsDecider, [created(), triggered()]).when(status('ResumeAlert')).thenError('not_paused');
    const expiring = conditionCreated({ expires: '2025-03-04T00:00:00.000Z' });
    given(alertsDecider, [expiring, change('AlertPaused', AT)])
      .when(status('ResumeAlert'))
      .thenError('expired');
  });

  describe('an action on several alerts', () => {
    const A3 = idOf(3);
    const act = (action: 'delete' | 'pause' | 'resume', alertIds: string[]): AlertsCommand => ({
      type: 'ActOnAlerts',
      data: { action, alertIds, at: LATER },
    });
    const ofAlert = (alertId: string, type: 'AlertPaused' | 'AlertResumed'): AlertsEvent => ({
      type,
      data: { alertId, symbol: 'AAPL', at: LATER },
    });

    it("decides what each alert's own command decides, in the order given, in one list", () => {
      given(alertsDecider, [created(A1), created(A2), created(A3)])
        .when(act('delete', [A3, A1]))
        .then([deleted(A3), deleted(A1)]);
      given(alertsDecider, [created(A1), created(A2)])
        .when(act('pause', [A2, A1]))
        .then([ofAlert(A2, 'AlertPaused'), ofAlert(A1, 'AlertPaused')]);
      given(alertsDecider, [created(A1), created(A2), ofAlert(A1, 'AlertPaused'), ofAlert(A2, 'AlertPaused')])
        .when(act('resume', [A1.toUpperCase(), A2]))
        .then([ofAlert(A1, 'AlertResumed'), ofAlert(A2, 'AlertResumed')]);
    });

    it('leaves the alerts their own command refuses, and changes the others', () => {
      // A1 fired (a once alert: not armed), A3 does not exist, A2 is armed; "x" is no alert id.
      const history = [created(A1), created(A2), triggered()];
      given(alertsDecider, history)
        .when(act('pause', [A1, A3, A2, 'x']))
        .then([ofAlert(A2, 'AlertPaused')]);
      given(alertsDecider, history)
        .when(act('delete', [A3]))
        .thenNothing();
    });

    it('refuses an empty list, one longer than the limit, an alert listed twice, and an unknown action', () => {
      given(alertsDecider, [created(A1)])
        .when(act('delete', []))
        .thenError('invalid_ids');
      const many = Array.from({ length: ALERTS_LIMIT + 1 }, (_, k) => idOf(100 + k));
      given(alertsDecider, [created(A1)])
        .when(act('delete', many))
        .thenError('invalid_ids');
      given(alertsDecider, [created(A1)])
        .when(act('delete', [A1, A1.toUpperCase()]))
        .thenError('duplicate');
      given(alertsDecider, [created(A1)])
        .when({ type: 'ActOnAlerts', data: { action: 'archive' as 'delete', alertIds: [A1], at: LATER } })
        .thenError('invalid_action');
    });

    it('reports, from its events and the state after them, what was done and why the rest was not', () => {
      const history = [created(A1), created(A2), triggered(), ofAlert(A2, 'AlertPaused')];
      const data = { action: 'pause' as const, alertIds: [A2, A1, A3], at: LATER };
      const state = fold(alertsDecider, history);
      const events = alertsDecider.decide({ type: 'ActOnAlerts', data }, state);
      // A2 is paused already: done, as pausing it alone is; A1 fired; A3 does not exist.
      expect(events).to.deep.equal([]);
      expect(actionReport(data, fold(alertsDecider, events, state), events)).to.deep.equal({
        done: [A2],
        refused: [
          { alertId: A1, code: 'not_armed', message: 'the alert is triggered, not armed' },
          { alertId: A3, code: 'not_found', message: 'no such alert' },
        ],
      });
      const deleting = { action: 'delete' as const, alertIds: [A3, A1], at: LATER };
      const gone = alertsDecider.decide({ type: 'ActOnAlerts', data: deleting }, state);
      expect(actionReport(deleting, fold(alertsDecider, gone, state), gone)).to.deep.equal({
        done: [A1],
        refused: [{ alertId: A3, code: 'not_found', message: 'no such alert' }],
      });
    });
  });

  it('expires an alert only once its expiry has passed, and an expired alert does not fire', () => {
    const expiring = conditionCreated({ expires: '2025-03-04T00:00:00.000Z' });
    given(alertsDecider, [expiring]).when(status('ExpireAlert', AT)).thenNothing();
    given(alertsDecider, [expiring])
      .when(status('ExpireAlert'))
      .then([change('AlertExpired')]);
    given(alertsDecider, [expiring, change('AlertExpired')])
      .when(status('ExpireAlert'))
      .thenNothing();
    given(alertsDecider, [expiring])
      .when(fire({ firing: 1 }))
      .thenNothing();
  });

  it('writes conditions in words for the web app and the bell', () => {
    const text = (condition: Record<string, unknown>, symbol?: string): string => {
      const parsed = parseCondition(condition);
      if (isConditionProblem(parsed)) throw new Error(parsed.message);
      return conditionText(parsed, symbol);
    };
    expect(text({ op: 'crossing_up', value: { ref: 'sma:50' } })).to.equal('Price crosses above the 50-day SMA');
    expect(text({ op: 'less_than', source: 'rsi:14', value: 30 }, 'AAPL')).to.equal('AAPL RSI(14) is at or below 30');
    expect(text({ op: 'moving_up_pct', value: 3, bars: 5 })).to.equal('Price moves up by 3% in 5 bars');
    expect(text({ op: 'outside_channel', source: 'changepct', lower: -2, upper: 2 })).to.equal(
      'Change % is outside the channel -2% – 2%',
    );
    expect(text({ op: 'greater_than', source: 'volume', value: 1_000_000 })).to.equal(
      'Volume is at or above 1,000,000',
    );
    expect(text({ op: 'entering_channel', lower: 1250, upper: 1312.5 }, 'AVGO')).to.equal(
      'AVGO price enters the channel 1,250.00 – 1,312.50',
    );
    // The day's change moving by points, or by a percent of its value, reads as two conditions.
    expect(text({ op: 'moving_up', source: 'changepct', value: 1, bars: 3 })).to.equal(
      'Change % moves up by 1 pt in 3 bars',
    );
    expect(text({ op: 'moving_down', source: 'changepct', value: 2.5 })).to.equal(
      'Change % moves down by 2.5 pts in 1 bar',
    );
    expect(text({ op: 'moving_up_pct', source: 'changepct', value: 1, bars: 3 })).to.equal(
      'Change % moves up by 1% in 3 bars',
    );
  });

  it("writes conditions as the chart's short tags, the source first when it is not the price", () => {
    const tag = (condition: Record<string, unknown>): string => {
      const parsed = parseCondition(condition);
      if (isConditionProblem(parsed)) throw new Error(parsed.message);
      return conditionTag(parsed);
    };
    expect(tag({ op: 'crossing_up', value: 190 })).to.equal('Cross ▲ 190.00');
    expect(tag({ op: 'crossing_down', value: { ref: 'sma:200' } })).to.equal('Cross ▼ SMA 200');
    expect(tag({ op: 'crossing', source: 'sma:50', value: { ref: 'sma:200' } })).to.equal('SMA 50 Cross SMA 200');
    expect(tag({ op: 'greater_than', value: { ref: 'ema:12' } })).to.equal('≥ EMA 12');
    expect(tag({ op: 'less_than', source: 'rsi:14', value: 30 })).to.equal('RSI 14 ≤ 30');
    expect(tag({ op: 'entering_channel', lower: 180, upper: 190.5 })).to.equal('Enter 180.00 – 190.50');
    expect(tag({ op: 'exiting_channel', lower: { ref: 'sma:50' }, upper: 200 })).to.equal('Exit SMA 50 – 200.00');
    expect(tag({ op: 'inside_channel', source: 'volume', lower: 1000, upper: 250_000 })).to.equal(
      'Volume Inside 1,000 – 250,000',
    );
    expect(tag({ op: 'outside_channel', source: 'changepct', lower: -2, upper: 2 })).to.equal(
      'Change % Outside -2% – 2%',
    );
    expect(tag({ op: 'moving_up_pct', value: 3, bars: 5 })).to.equal('▲ 3% in 5 bars');
    expect(tag({ op: 'moving_down', value: 2.5 })).to.equal('▼ 2.50 in 1 bar');
    expect(tag({ op: 'moving_up', source: 'changepct', value: 1 })).to.equal('Change % ▲ 1 pt in 1 bar');
    // Each is shorter than its words, which the chart shows on hover.
    for (const condition of [
      { op: 'entering_channel', lower: 180, upper: 190.5 },
      { op: 'crossing_up', value: { ref: 'sma:50' } },
      { op: 'moving_up_pct', value: 3, bars: 5 },
    ]) {
      const parsed = parseCondition(condition);
      if (isConditionProblem(parsed)) throw new Error(parsed.message);
      expect(conditionTag(parsed).length).to.be.below(conditionText(parsed).length / 1.5);
    }
  });

  it('writes brief tags where the short ones are too wide: a channel without its bounds, a move without its window, a crossing without the word', () => {
    const brief = (condition: Record<string, unknown>): string => {
      const parsed = parseCondition(condition);
      if (isConditionProblem(parsed)) throw new Error(parsed.message);
      return conditionTag(parsed, true);
    };
    expect(brief({ op: 'entering_channel', lower: 180, upper: 190.5 })).to.equal('Enter');
    expect(brief({ op: 'outside_channel', source: 'rsi:14', lower: 30, upper: 70 })).to.equal('RSI 14 Outside');
    expect(brief({ op: 'moving_up_pct', value: 3, bars: 5 })).to.equal('▲ 3%');
    expect(brief({ op: 'moving_down', source: 'volume', value: 50_000, bars: 2 })).to.equal('Volume ▼ 50,000');
    // A crossing's direction without the word; a level's tag is brief already.
    expect(brief({ op: 'crossing_up', value: 190 })).to.equal('▲ 190.00');
    expect(brief({ op: 'crossing', source: 'sma:50', value: { ref: 'sma:200' } })).to.equal('SMA 50 ↕ SMA 200');
    expect(brief({ op: 'crossing_down', value: { ref: 'sma:50' } })).to.equal('▼ SMA 50');
    expect(brief({ op: 'greater_than', value: { ref: 'ema:12' } })).to.equal('≥ EMA 12');
    expect(brief({ op: 'less_than', source: 'rsi:14', value: 30 })).to.equal('RSI 14 ≤ 30');
  });

  it('writes the levels that are not constants with their values when it fired', () => {
    const text = (condition: Record<string, unknown>, fired: FiredLevels): string => {
      const parsed = parseCondition(condition);
      if (isConditionProblem(parsed)) throw new Error(parsed.message);
      return conditionText(parsed, 'AAPL', fired);
    };
    expect(text({ op: 'crossing_up', value: { ref: 'sma:50' } }, { level: 186.425, upper: null })).to.equal(
      'AAPL price crosses above the 50-day SMA (186.43)',
    );
    expect(text({ op: 'moving_up_pct', value: 3, bars: 5 }, { level: 191.1, upper: null })).to.equal(
      'AAPL price moves up by 3% in 5 bars (to 191.10)',
    );
    expect(
      text(
        { op: 'inside_channel', source: 'ema:12', lower: { ref: 'sma:50' }, upper: { ref: 'sma:200' } },
        { level: 186.425, upper: 201.1 },
      ),
    ).to.equal('AAPL 12-day EMA is inside the channel the 50-day SMA (186.43) – the 200-day SMA (201.10)');
    // A constant level keeps its own words; an unknown value is left out.
    expect(text({ op: 'crossing', value: 190 }, { level: 190.5, upper: null })).to.equal('AAPL price crosses 190.00');
    expect(text({ op: 'crossing', value: { ref: 'ema:12' } }, { level: null, upper: null })).to.equal(
      'AAPL price crosses the 12-day EMA',
    );
  });

  it('formats a value of each series as the messages and the history show it', () => {
    expect(formatSourceValue('price', 186.4)).to.equal('186.40');
    expect(formatSourceValue('sma:50', 7483.754)).to.equal('7,483.75');
    expect(formatSourceValue('rsi:14', 28.414)).to.equal('28.41');
    expect(formatSourceValue('volume', 1_234_567.6)).to.equal('1,234,568');
    expect(formatSourceValue('changepct', -2.1)).to.equal('-2.10%');
    // A value that rounds to zero has no sign to show.
    expect(formatSourceValue('changepct', -0.001)).to.equal('0.00%');
    expect(formatSourceValue('changepct', -0)).to.equal('0.00%');
    expect(formatSourceValue('changepct', -0.005)).to.equal('-0.01%');
    expect(formatSourceValue('ema:12', -0.004)).to.equal('0.00');
  });
});

describe('alerts folded many events at once', function () {
  const ids = [A1, A2, idOf(3)];
  const commandArb: fc.Arbitrary<AlertsCommand> = fc
    .tuple(fc.constantFrom(...ids), fc.integer({ min: 0, max: 6 }), fc.integer({ min: 150, max: 250 }))
    .map(([alertId, kind, price]): AlertsCommand => {
      const stamp = { at: LATER };
      if (kind === 0) return create({ alertId, threshold: price });
      if (kind === 1) return update({ alertId, threshold: price, frequency: 'every_time' });
      if (kind === 2) return remove(alertId);
      if (kind === 3) return { type: 'PauseAlert', data: { alertId, ...stamp } };
      if (kind === 4) return { type: 'ResumeAlert', data: { alertId, ...stamp } };
      return {
        ...trigger(alertId, price),
        data: { ...trigger(alertId, price).data, firing: price },
      } as AlertsCommand;
    });

  it('give the state that folding them one by one gives, for any split of a stream of commands', function () {
    let events = 0;
    fc.assert(
      fc.property(fc.array(commandArb, { minLength: 30, maxLength: 80 }), fc.nat(), (commands, cut) => {
        events += checkFoldAtOnce(alertsDecider, commands, cut).length;
      }),
      { numRuns: 300, seed: 11 },
    );
    expect(events).to.be.above(1000);
  });

  it('find each alert by id where a scan of the list finds it, folded one by one, at once, or both', function () {
    // Twenty alerts first, so the lists are long enough to be searched by their positions.
    const fillerIds = Array.from({ length: 20 }, (_, i) => idOf(100 + i));
    const filler = fillerIds.map((alertId) => create({ alertId, threshold: 200 }));
    const known = [...ids, idOf(9), ...fillerIds];
    let found = 0;
    const check = (state: AlertsState): void => {
      for (const id of known) {
        const alert = alertOf(state, id);
        expect(alert).to.equal(state.alerts.find((a) => a.id === id));
        if (alert !== undefined) found += 1;
      }
    };
    fc.assert(
      fc.property(fc.array(commandArb, { minLength: 30, maxLength: 80 }), fc.nat(), (commands, cut) => {
        const events = checkFoldAtOnce(alertsDecider, [...filler, ...commands], cut);
        const split = events.length === 0 ? 0 : cut % (events.length + 1);
        check(fold(alertsDecider, events));
        check(alertsDecider.evolveAll!(alertsDecider.initialState, events));
        check(alertsDecider.evolveAll!(fold(alertsDecider, events.slice(0, split)), events.slice(split)));
        // From a state searched first, so its positions are known and the fold starts from them; the state
        // folded from is searched again after (its positions must not have changed with the fold).
        const searched = fold(alertsDecider, events.slice(0, split));
        check(searched);
        check(alertsDecider.evolveAll!(searched, events.slice(split)));
        check(searched);
        const atOnce = alertsDecider.evolveAll!(alertsDecider.initialState, events.slice(0, split));
        check(atOnce);
        // One by one, searched after each event, so that each list's positions are made and handed on.
        let state = atOnce;
        for (const event of events.slice(split)) {
          state = alertsDecider.evolve(state, event);
          check(state);
        }
      }),
      { numRuns: 300, seed: 12 },
    );
    expect(found).to.be.above(1000);
  });
});
