import { expect } from 'chai';
import type { AlertCondition } from '../../domain/alerts/conditions.ts';
import type { AlertAnswer } from '../../domain/contract/alerts.ts';
import { conditionAlertAnswer } from '../../domain/testing/alertAnswers.ts';
import { alertWay, wayMark } from './alertWords.ts';

describe('alerts in words', () => {
  const answer = (condition: Partial<AlertCondition>, extra: Partial<AlertAnswer> = {}): AlertAnswer =>
    conditionAlertAnswer('a1', condition, { createdt: '2026-11-20T15:00:00.000Z', ...extra });

  it("marks each alert by the way it waits for its source to go, beside its condition in the server's words", () => {
    const price = answer({ value: 190 }, { kind: 'PRICE', threshold: 190, alerttype: 'U' });
    const sma = answer({ op: 'crossing_down', value: { ref: 'sma:50' } }, { kind: 'SMA', alerttype: 'D', period: 50 });
    const rsi = answer({ op: 'less_than', source: 'rsi:14', value: 30 });
    const channel = answer({ op: 'inside_channel', lower: 180, upper: 190 });
    const moving = answer({ op: 'moving_up_pct', value: 5, bars: 3 });
    const crossing = answer({ op: 'crossing', value: { ref: 'sma:200' }, source: 'sma:50' });
    expect(
      [price, sma, rsi, channel, moving, crossing].map((a) => `${wayMark(alertWay(a))} ${a.conditiontext}`),
    ).to.deep.equal([
      '▲ Price is at or above 190.00',
      '▼ Price crosses below the 50-day SMA',
      '▼ RSI(14) is at or below 30',
      '◆ Price is inside the channel 180.00 – 190.00',
      '▲ Price moves up by 5% in 3 bars',
      '◆ 50-day SMA crosses the 200-day SMA',
    ]);
  });
});
