import { expect } from 'chai';
import type { ChannelAnswer } from '../../domain/contract/channels.ts';
import { channelLabel, deliveryText, disabledText } from './channelWords.ts';

describe('delivery channels in words', () => {
  const channel = (id: string, type: ChannelAnswer['type'], name: string, confirmed = true): ChannelAnswer => ({
    id,
    type,
    name,
    confirmed,
    createdt: '2026-11-20T15:00:00.000Z',
  });
  const desk = channel('c1', 'webhook', 'Trading desk');
  const mail = channel('c2', 'email', 'Work email', false);
  const phone = channel('c3', 'webpush', 'Phone');

  it('names a channel with its kind unless the name says it, and an unconfirmed one as such', () => {
    expect(channelLabel(desk)).to.equal('Trading desk (Webhook)');
    expect(channelLabel(mail)).to.equal('Work email, not confirmed yet');
    expect(channelLabel(phone)).to.equal('Phone (Browser push)');
  });

  it('says a disabled webhook and an unsubscribed address receive nothing, and why a webhook is disabled', () => {
    const gone = { ...desk, disabled: { status: 410, at: '2026-11-21T15:00:00.000Z' } };
    expect(channelLabel(gone)).to.equal('Trading desk (Webhook), disabled');
    expect(channelLabel({ ...mail, unsubscribedAt: '2026-11-21T15:00:00.000Z' })).to.equal('Work email, unsubscribed');
    expect(disabledText(gone.disabled)).to.equal('Disabled: the receiver answered 410 Gone');
    expect(disabledText({ status: 404, at: gone.disabled.at })).to.equal('Disabled: the receiver answered 404');
  });

  it("says where an alert's triggers go: every channel, the bell only, or the channels named in the user's order", () => {
    expect(deliveryText(null, [desk, mail])).to.equal('Every channel');
    expect(deliveryText([], [desk, mail])).to.equal('The bell only');
    // Every channel of a user who has none yet is the bell, as the builder says; theirs once they add one.
    expect(deliveryText(null, [])).to.equal('The bell only (no channel yet)');
    expect(deliveryText(null, null)).to.equal('Every channel');
    expect(deliveryText(['c3', 'c1'], [desk, mail, phone])).to.equal('Trading desk (Webhook), Phone (Browser push)');
    expect(deliveryText(['c2'], [desk, mail])).to.equal('Work email');
  });

  it('counts the channels while the list is not loaded, and the ones it does not know', () => {
    expect(deliveryText(['c1'], null)).to.equal('1 channel');
    expect(deliveryText(['c1', 'c2'], null)).to.equal('2 channels');
    expect(deliveryText(['c1', 'gone'], [desk])).to.equal('Trading desk (Webhook), 1 other channel');
    expect(deliveryText(['x', 'y'], [desk])).to.equal('2 other channels');
  });
});
