import { expect } from 'chai';
import * as React from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import type { ChannelAnswer, DeliveryAnswer } from '../../../domain/contract/channels.ts';
import { BellAlert } from './BellAlert.tsx';
import { alertMessage, conditionMessage } from '../../../domain/alerts/alerts.ts';
import type { AlertCondition } from '../../../domain/alerts/conditions.ts';
import { bellAlertWords, bellRows, messageDirection, type BellRow } from './bellText.ts';
import type { BellNotification } from './bell.machine.ts';

function note(symbol: string, message: string, notificationtype: BellNotification['notificationtype'] = 1) {
  return {
    id: 'n1',
    symbol,
    notificationtype,
    notifcationmessage: message,
    createdt: '2026-01-01T00:00:00Z',
    read: false,
    note: null,
  };
}

describe('bell alert words', () => {
  it('reads the indicator from the message as the spec says: + up, - down, neither none', () => {
    expect(messageDirection('AAPL rose above 190.00 (+0.40% on the day)')).to.equal('up');
    expect(messageDirection('MSFT price crosses above 520.50: 521.10 (-0.31% on the day)')).to.equal('down');
    expect(messageDirection('AAPL price is at or above 190.00: 190.10')).to.equal(null);
  });

  it("reads an alert's message by the day's change it ends with: a hyphen before it is no move down", () => {
    // A flat day: no sign, no indicator, though `50-day` and `BF-B` have a `-`.
    const flat = 'AAPL price crosses above the 50-day SMA (186.42): 186.50 (0.00% on the day)';
    expect(messageDirection(flat)).to.equal(null);
    expect(messageDirection('BF-B price is at or above 40.00: 40.10 (0.00% on the day)')).to.equal(null);
    expect(messageDirection('BF-B rose above 40.00: 40.10 (+0.25% on the day)')).to.equal('up');
    expect(messageDirection('AAPL price crosses below the 50-day SMA (186.42): 186.40 (-0.40% on the day)')).to.equal(
      'down',
    );
    // A channel of the day's change: its `-2%` is a bound, the change after it the sign.
    const channel = 'AAPL Change % is outside the channel -2% – 2%: 2.10% at 190.00 (+2.10% on the day)';
    expect(messageDirection(channel)).to.equal('up');
    // A price alert's sign against the day's change: the direction's sign leads.
    expect(messageDirection('AAPL rose above 190.00: 190.02 (+, though down 0.50% on the day)')).to.equal('up');
    expect(messageDirection('AAPL fell below 180.00: 179.95 (-, though up 0.20% on the day)')).to.equal('down');
  });

  it("reads the server's messages as they are written: a price or SMA alert's direction, a condition's day", () => {
    const sign = (changepct: number) => (Math.round(changepct * 100) === 0 ? null : changepct > 0 ? 'up' : 'down');
    for (const symbol of ['AAPL', 'BF-B']) {
      for (const changepct of [-2.1, -0.004, 0, 0.004, 1.25]) {
        for (const alerttype of ['U', 'D'] as const) {
          const price = { symbol, kind: 'PRICE', alerttype, thresholdCents: 19_000, period: null, sma: null } as const;
          const sma = { ...price, kind: 'SMA', thresholdCents: null, period: 50, sma: 187.32 } as const;
          for (const input of [price, sma]) {
            const message = alertMessage({ ...input, price: 190.1, changepct });
            expect(messageDirection(message), message).to.equal(alerttype === 'U' ? 'up' : 'down');
          }
        }
        const conditions: AlertCondition[] = [
          { op: 'crossing_up', source: 'price', value: { ref: 'sma:50' }, lower: null, upper: null, bars: null },
          { op: 'outside_channel', source: 'changepct', value: null, lower: -2, upper: 2, bars: null },
        ];
        for (const condition of conditions) {
          const message = conditionMessage({ symbol, condition, price: 190.1, value: changepct, changepct });
          expect(messageDirection(message), message).to.equal(sign(changepct));
        }
      }
    }
  });

  it('names the type and keeps the whole message', () => {
    const message = 'NVDA RSI(14) is inside the channel 30 – 70: 55.2 at 182.10 (+1.02% on the day)';
    expect(bellAlertWords(note('NVDA', message, 4))).to.deep.equal({
      type: 'RSI',
      text: message,
      direction: 'up',
      note: null,
      full: message,
    });
  });
});

/** A delivery of the notification `n1`, to the webhook `c1`. */
function delivery(id: string, change: Partial<DeliveryAnswer>): DeliveryAnswer {
  return {
    id,
    kind: 'alert',
    alertId: 'a1',
    triggerId: 'n1',
    channelId: 'c1',
    channelType: 'webhook',
    status: 'pending',
    attempts: 1,
    lastStatus: null,
    lastError: null,
    retryAt: null,
    createdt: '2026-01-01T00:00:00Z',
    updatedt: '2026-01-01T00:00:00Z',
    ...change,
  };
}

describe('bell delivery warnings', () => {
  const desk: ChannelAnswer = { id: 'c1', type: 'webhook', name: 'desk', confirmed: true, createdt: '' };
  const failed = delivery('d1', { status: 'failed', attempts: 6, lastStatus: 503, lastError: 'answered 503' });
  const retrying = delivery('d2', {
    channelId: 'c2',
    channelType: 'email',
    attempts: 2,
    lastError: 'answered 421',
    retryAt: '2026-01-01T00:05:00Z',
  });

  it("words each warning as the alert manager does, naming the channel, or its kind while the channels aren't known", () => {
    const notifications = [note('AAPL', 'AAPL rose above 190.00 (+0.40% on the day)')];
    const [row] = bellRows(notifications, [failed, retrying], [desk], 'market');
    expect(row?.warnings).to.deep.equal([
      { id: 'd1', status: 'failed', text: 'desk (Webhook): failed: answered 503 (6 attempts)' },
      { id: 'd2', status: 'retrying', text: 'Email: retrying at 19:05 ET (2 attempts)' },
    ]);
    expect(bellRows(notifications, [failed], null, 'market')[0]?.warnings?.[0]?.text).to.equal(
      'Webhook: failed: answered 503 (6 attempts)',
    );
  });

  it('leaves a notification whose deliveries were made, or are on their first attempt, as it is', () => {
    const notifications = [note('AAPL', 'AAPL rose above 190.00 (+0.40% on the day)')];
    const quiet = [delivery('d3', { status: 'succeeded', lastStatus: 200 }), delivery('d4', {})];
    expect(bellRows(notifications, quiet, [desk], 'market')).to.equal(notifications);
  });
});

describe('bell alert cell', () => {
  // The mocha run compiles .tsx with the classic JSX transform, which calls the global React.
  before(() => {
    (globalThis as { React?: typeof React }).React = React;
  });
  const render = (notification: BellRow) => renderToStaticMarkup(React.createElement(BellAlert, { notification }));

  it('shows the whole message, the level and the fired price included, with the message as its tooltip', () => {
    const message = 'MSFT price crosses above 520.50: 521.10 (-0.31% on the day)';
    const html = render(note('MSFT', message));
    expect(html).to.include(`title="${message}"`);
    expect(html).to.include(`<span class="bell-message">${message}</span>`);
    expect(html).to.include('<span class="bell-type">Price</span>');
  });

  it('marks a message with + green up and one with - red down', () => {
    expect(render(note('AAPL', 'AAPL rose above 190.00 (+0.40% on the day)'))).to.include(
      '<span class="indicator up" role="img" aria-label="up">▲</span>',
    );
    expect(render(note('MSFT', 'MSFT fell below 400.00 (-1.20% on the day)'))).to.include(
      '<span class="indicator down" role="img" aria-label="down">▼</span>',
    );
    expect(render(note('AAPL', 'AAPL price is at or above 190.00: 190.10'))).not.to.match(/[▲▼]/);
  });

  it("shows the alert's note under the message, not counting its signs for the indicator", () => {
    const message = 'AAPL rose above 190.00 (+0.40% on the day)';
    const noted = { ...note('AAPL', message), note: 'Re-check - then sell' };
    expect(bellAlertWords(noted)).to.include({ direction: 'up', full: `${message} — “Re-check - then sell”` });
    const html = render(noted);
    expect(html).to.include('<span class="bell-note">“Re-check - then sell”</span>');
    expect(html).to.include(`title="${message} — “Re-check - then sell”"`);
    expect(render(note('AAPL', message))).not.to.include('bell-note');
  });

  it('shows a warning line, as text, under a message for each delivery that failed or waits for a retry', () => {
    const message = 'AAPL rose above 190.00 (+0.40% on the day)';
    const html = render({
      ...note('AAPL', message),
      warnings: [{ id: 'd1', status: 'failed', text: 'desk (Webhook): failed: answered 503 (6 attempts)' }],
    });
    expect(html).to.include(
      '<span class="bell-delivery bell-delivery-failed" role="note"><span aria-hidden="true">⚠ </span>desk (Webhook): failed: answered 503 (6 attempts)</span>',
    );
    expect(render(note('AAPL', message))).not.to.include('bell-delivery');
  });
});
