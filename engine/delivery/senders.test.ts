import { expect } from 'chai';
import type { Channel } from '../../domain/channels/channels.ts';
import type { WebhookPayload } from '../../domain/contract/channels.ts';
import { emailContent, marketTime, pushContent } from './senders.ts';

const channel = { id: 'c1', type: 'email', address: 'a@example.com' } as unknown as Channel;

function alertPayload(overrides: Partial<WebhookPayload> = {}): WebhookPayload {
  return {
    id: 'd1',
    alertId: 'a1',
    symbol: 'AAPL',
    message: 'AAPL rose above 510.00 (+1.25% on the day)',
    notificationtype: 1,
    price: 510,
    at: '2026-11-30T17:16:22.108Z',
    position: '1/1',
    note: null,
    ...overrides,
  };
}

describe('message content', function () {
  describe('marketTime', function () {
    it('reads an instant on the New York clock, to the second, labelled ET, daylight saving included', function () {
      expect(marketTime('2026-11-30T17:16:22.108Z')).to.equal('2026-11-30 12:16:22 ET');
      expect(marketTime('2026-07-01T13:30:00Z')).to.equal('2026-07-01 09:30:00 ET');
      // Past midnight UTC is still the day before in New York.
      expect(marketTime('2026-12-01T03:00:05Z')).to.equal('2026-11-30 22:00:05 ET');
    });

    it('answers text that is no time as it is', function () {
      expect(marketTime('soon')).to.equal('soon');
    });
  });

  describe('an alert email', function () {
    it('says the market time, not the payload’s UTC, and links the chart and the alerts', function () {
      const { subject, text, html } = emailContent({
        channel,
        payload: alertPayload(),
        origin: 'https://stocks.example.com/',
      });
      expect(subject).to.equal('StockPulse: AAPL rose above 510.00 (+1.25% on the day)');
      expect(text).to.contain('AAPL at 510.00, 2026-11-30 12:16:22 ET\n');
      expect(text).to.not.contain('T17:16');
      expect(text).to.contain('Chart: https://stocks.example.com/PriceCharts?stock=AAPL\n');
      expect(text).to.contain('Your alerts: https://stocks.example.com/Alerts\n');
      expect(html).to.contain('<p>AAPL at 510.00, 2026-11-30 12:16:22 ET</p>');
      expect(html).to.contain('<a href="https://stocks.example.com/PriceCharts?stock=AAPL">AAPL chart</a>');
      expect(html).to.contain('<a href="https://stocks.example.com/Alerts">Your alerts</a>');
    });

    it('escapes the links and the symbol in the HTML part', function () {
      const { text, html } = emailContent({
        channel,
        payload: alertPayload({ symbol: 'BRK&B', note: 'Sell <half>' }),
        origin: 'http://localhost:38127',
      });
      expect(text).to.contain('Chart: http://localhost:38127/PriceCharts?stock=BRK%26B');
      expect(text).to.contain('Your note: Sell <half>');
      expect(html).to.contain('href="http://localhost:38127/PriceCharts?stock=BRK%26B">BRK&#38;B chart</a>');
      expect(html).to.contain('<p>Your note: Sell &#60;half&#62;</p>');
    });

    it('links nothing without the origin, nor for a test message', function () {
      expect(emailContent({ channel, payload: alertPayload() }).text).to.not.contain('Chart:');
      const test = emailContent({
        channel,
        payload: alertPayload({ symbol: '', price: null, alertId: null, message: 'Test message' }),
        origin: 'http://localhost:3000',
      });
      expect(test.text).to.equal('Test message\n\n2026-11-30 12:16:22 ET\n');
      expect(test.html).to.not.contain('<a ');
    });

    it('ends with the unsubscribe link in both parts when it has one, and with none otherwise', function () {
      const link = 'https://stocks.example.com/api/channels/unsubscribe?user=ada&channel=c1&token=ab';
      const { text, html } = emailContent({
        channel,
        payload: alertPayload(),
        origin: 'https://s',
        unsubscribeLink: link,
      });
      expect(text.endsWith(`\n--\nTo stop StockPulse alerts to this address, unsubscribe: ${link}\n`)).to.equal(true);
      expect(html).to.match(
        /<hr><p><small>To stop StockPulse alerts to this address: <a href="[^"]+">unsubscribe<\/a>\.<\/small><\/p>$/,
      );
      expect(html).to.contain(`href="${link.replaceAll('&', '&#38;')}"`);
      const without = emailContent({ channel, payload: alertPayload(), origin: 'https://s' });
      expect(without.text).to.not.contain('unsubscribe');
      expect(without.html).to.not.contain('unsubscribe');
    });
  });

  describe('a push notification', function () {
    it('says the market time after the message, the note on a line of its own', function () {
      const content = pushContent(alertPayload({ note: 'Check the news first' }));
      expect(content.title).to.equal('StockPulse: AAPL');
      expect(content.body).to.equal(
        'AAPL rose above 510.00 (+1.25% on the day), 2026-11-30 12:16:22 ET\nCheck the news first',
      );
      expect(content.url).to.equal('/PriceCharts?stock=AAPL');
    });

    it("is tagged with the trigger's id (the bell's notification id), or its own id when it tells of none", function () {
      const payload = alertPayload({});
      expect(pushContent(payload, 'trigger-1').tag).to.equal('trigger-1');
      expect(pushContent(payload).tag).to.equal(payload.id);
    });
  });
});
