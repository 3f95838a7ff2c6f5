import { expect } from 'chai';
import * as React from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { BellAlert } from './BellAlert.tsx';
import { bellAlertWords, messageDirection } from './bellText.ts';
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

describe('bell alert cell', () => {
  // The mocha run compiles .tsx with the classic JSX transform, which calls the global React.
  before(() => {
    (globalThis as { React?: typeof React }).React = React;
  });
  const render = (notification: BellNotification) =>
    renderToStaticMarkup(React.createElement(BellAlert, { notification }));

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
});
