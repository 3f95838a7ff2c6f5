import { expect } from 'chai';
import { deliverySecrets } from './secrets.ts';

const secrets = deliverySecrets(Buffer.from('a test key of at least thirty-two characters'));
const CHANNEL = '0b7b1d4e-9c39-4c58-8f0e-3c8d3b3f1a11';

describe('delivery secrets', function () {
  it('derives a webhook secret per channel and generation; generation 0 is the secret of a webhook never rotated', function () {
    const first = secrets.webhookSecret(CHANNEL);
    expect(first).to.match(/^whsec_[0-9a-f]{64}$/);
    expect(secrets.webhookSecret(CHANNEL, 0)).to.equal(first);
    expect(secrets.webhookSecret(CHANNEL.toUpperCase(), 0)).to.equal(first);
    const rotated = [1, 2, 3].map((generation) => secrets.webhookSecret(CHANNEL, generation));
    expect(new Set([first, ...rotated]).size).to.equal(4);
    expect(secrets.webhookSecret(CHANNEL, 1)).to.equal(rotated[0]);
    // Another deployment's key derives other secrets.
    const other = deliverySecrets(Buffer.from('another deployment key, thirty-two characters'));
    expect(other.webhookSecret(CHANNEL, 1)).to.not.equal(rotated[0]);
  });

  it('checks an unsubscribe token of its own purpose, user and channel', function () {
    const token = secrets.unsubscribeToken('ada', CHANNEL);
    expect(token).to.match(/^[0-9a-f]{64}$/);
    expect(secrets.checkUnsubscribeToken('ada', CHANNEL, token)).to.equal(true);
    expect(secrets.checkUnsubscribeToken('ada', CHANNEL.toUpperCase(), token)).to.equal(true);
    expect(secrets.checkUnsubscribeToken('bob', CHANNEL, token)).to.equal(false);
    expect(secrets.checkUnsubscribeToken('ada', CHANNEL, token.slice(1))).to.equal(false);
    // The confirmation link's token is another purpose's: neither stands for the other.
    const confirm = secrets.confirmToken('ada', CHANNEL);
    expect(confirm).to.not.equal(token);
    expect(secrets.checkUnsubscribeToken('ada', CHANNEL, confirm)).to.equal(false);
    expect(secrets.checkConfirmToken('ada', CHANNEL, token)).to.equal(false);
  });
});
