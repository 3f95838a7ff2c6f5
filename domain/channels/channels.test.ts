import { expect } from 'chai';
import { DomainError, fold } from '../decider.ts';
import { given } from '../testing/givenWhenThen.ts';
import {
  CHANNELS_LIMIT,
  channelsDecider,
  channelsForAlert,
  type ChannelSpec,
  type ChannelsCommand,
  type ChannelsEvent,
} from './channels.ts';

const AT = '2025-01-02T15:00:00.000Z';
const ID = (n: number): string => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
const ALERT = '11111111-1111-4111-8111-111111111111';
/** A browser's P-256 public key, uncompressed (a point of the curve). */
const P256DH = 'BJecsw9gCxCZrtPaZJ69VXFBDgukiHBcaPPl45a36gF3U9hvHqz31cf0HeX1bxD-6OcZxbmAk_HP9bKrluX7RpE';
const AUTH = 'A'.repeat(22);

const add = (n: number, spec: ChannelSpec): ChannelsCommand => ({
  type: 'AddChannel',
  data: { channelId: ID(n), spec, at: AT },
});
const webhook = (url = 'https://hooks.example.com/a', name = ''): ChannelSpec => ({ type: 'webhook', url, name });
const email = (address = 'me@example.com'): ChannelSpec => ({ type: 'email', address });
const push = (endpoint = 'https://push.example.com/sub/1'): ChannelSpec => ({
  type: 'webpush',
  subscription: { endpoint, p256dh: P256DH, auth: AUTH },
});
const added = (n: number, spec: ChannelSpec): ChannelsEvent => {
  const [event] = channelsDecider.decide(add(n, spec), channelsDecider.initialState);
  return event!;
};

/** The refusal of a command after past events. */
function refusal(command: ChannelsCommand, past: ChannelsEvent[] = []): DomainError {
  try {
    channelsDecider.decide(command, fold(channelsDecider, past));
  } catch (error) {
    if (error instanceof DomainError) return error;
    throw error;
  }
  throw new Error('the command was accepted');
}

describe('channels decider', function () {
  it('adds a webhook named after its host when no name is given', function () {
    given(channelsDecider)
      .when(add(1, webhook()))
      .then([
        {
          type: 'ChannelAdded',
          data: {
            channelId: ID(1),
            type: 'webhook',
            name: 'hooks.example.com',
            url: 'https://hooks.example.com/a',
            address: null,
            subscription: null,
            createdt: AT,
          },
        },
      ]);
  });

  for (const [url, why] of [
    ['ftp://example.com/x', 'another scheme'],
    ['https://user:pw@example.com/', 'credentials in the URL'],
    ['example.com/hook', 'no scheme'],
    [`https://example.com/${'a'.repeat(2001)}`, 'too long'],
    // The URL parser would drop them and keep another URL than the one sent.
    ['https://example.com/z\r\nX-Injected: 1', 'a line break'],
    ['https://example.com/a\tb', 'a tab'],
  ]) {
    it(`refuses a webhook URL with ${why}`, function () {
      given(channelsDecider)
        .when(add(1, webhook(url)))
        .thenError('invalid_url');
    });
  }

  it('refuses an address that is not an email address', function () {
    // Control characters too: the mail server would take `a\u0000b@…` as another mailbox, `ab@…`.
    for (const bad of [
      'me',
      'me@',
      '@example.com',
      'me@example',
      'a b@example.com',
      'a\u0000b@example.com',
      'a\u001b[31m@example.com',
      'a\u007fb@example.com',
      'a\u0085b@example.com',
      '\u200b@example.com',
      'a\u200db@example.com',
      'me\u00ad@example.com',
      'a\u00a0b@example.com',
      '\u3000@example.com',
    ]) {
      given(channelsDecider)
        .when(add(1, email(bad)))
        .thenError('invalid_address');
    }
  });

  it('refuses a webhook name with control characters, naming the name', function () {
    for (const name of ['a\u001b[31mred', 'line\nbreak', 'nul\u0000']) {
      given(channelsDecider)
        .when(add(1, webhook(undefined, name)))
        .thenError('invalid_name');
    }
  });

  it('refuses push keys of the wrong shape, or off the curve, naming the key', function () {
    // The right key with its last bit changed is off the curve; 65 bytes of 7 are no point either.
    const changed = Buffer.from(P256DH, 'base64url');
    changed[64] = changed[64]! ^ 1;
    for (const p256dh of [
      'short',
      'B'.repeat(87),
      changed.toString('base64url'),
      Buffer.alloc(65, 7).toString('base64url'),
    ]) {
      const spec: ChannelSpec = {
        type: 'webpush',
        subscription: { endpoint: 'https://p.example.com/1', p256dh, auth: AUTH },
      };
      given(channelsDecider)
        .when({ type: 'AddChannel', data: { channelId: ID(1), spec, at: AT } })
        .thenError('invalid_key');
    }
  });

  it('adds the same browser or address once', function () {
    given(channelsDecider, [added(1, push())])
      .when(add(2, push()))
      .thenNothing();
    for (const again of ['me@example.com', ' ME@EXAMPLE.COM ']) {
      given(channelsDecider, [added(1, email('Me@Example.com'))])
        .when(add(2, email(again)))
        .thenNothing();
    }
  });

  it('refuses a webhook URL that is already a channel, naming the url, however the URL is written', function () {
    for (const url of [
      'https://hooks.example.com/a',
      'HTTPS://Hooks.Example.COM:443/a',
      'https://hooks.example.com/./a',
      'https://hooks.example.com/b/../a',
    ]) {
      const past = [added(1, webhook('https://hooks.example.com/a', 'Desk'))];
      given(channelsDecider, past)
        .when(add(2, webhook(url, 'Desk again')))
        .thenError('taken');
      const error = refusal(add(2, webhook(url, 'Desk again')), past);
      expect(error.field, url).to.equal('url');
      expect(error.message, url).to.equal('url "https://hooks.example.com/a" is already the webhook of channel "Desk"');
    }
  });

  it('adds another webhook of the same host, and the same URL again once its channel is removed', function () {
    given(channelsDecider, [added(1, webhook('https://hooks.example.com/a'))])
      .when(add(2, webhook('https://hooks.example.com/a?desk=2')))
      .then([added(2, webhook('https://hooks.example.com/a?desk=2'))]);
    given(channelsDecider, [
      added(1, webhook('https://hooks.example.com/a')),
      { type: 'ChannelRemoved', data: { channelId: ID(1) } },
    ])
      .when(add(2, webhook('https://hooks.example.com/a')))
      .then([added(2, webhook('https://hooks.example.com/a'))]);
  });

  it(`refuses a channel past ${CHANNELS_LIMIT}`, function () {
    const past = Array.from({ length: CHANNELS_LIMIT }, (_, i) => added(i + 1, webhook(`https://h.example.com/${i}`)));
    given(channelsDecider, past).when(add(99, webhook())).thenError('limit');
  });

  it('confirms an email channel once, and only an email channel', function () {
    const confirm: ChannelsCommand = { type: 'ConfirmEmailChannel', data: { channelId: ID(1), at: AT } };
    given(channelsDecider, [added(1, email())])
      .when(confirm)
      .then([{ type: 'EmailChannelConfirmed', data: { channelId: ID(1), at: AT } }]);
    given(channelsDecider, [added(1, email()), { type: 'EmailChannelConfirmed', data: { channelId: ID(1), at: AT } }])
      .when(confirm)
      .thenNothing();
    given(channelsDecider, [added(1, webhook())])
      .when(confirm)
      .thenError('not_found');
  });

  it('removes a channel, refusing one that is not there', function () {
    given(channelsDecider, [added(1, webhook())])
      .when({ type: 'RemoveChannel', data: { channelId: ID(1) } })
      .then([{ type: 'ChannelRemoved', data: { channelId: ID(1) } }]);
    given(channelsDecider)
      .when({ type: 'RemoveChannel', data: { channelId: ID(1) } })
      .thenError('not_found');
  });

  it('drops a push subscription once; nothing for a channel already gone', function () {
    const drop: ChannelsCommand = { type: 'DropPushSubscription', data: { channelId: ID(1), reason: 'answered 410' } };
    given(channelsDecider, [added(1, push())])
      .when(drop)
      .then([{ type: 'PushSubscriptionRemoved', data: { channelId: ID(1), reason: 'answered 410' } }]);
    given(channelsDecider).when(drop).thenNothing();
  });

  it('disables a webhook whose receiver answered 410 once, and only a webhook', function () {
    const disable: ChannelsCommand = { type: 'DisableWebhook', data: { channelId: ID(1), status: 410, at: AT } };
    const disabled: ChannelsEvent = { type: 'WebhookDisabled', data: { channelId: ID(1), status: 410, at: AT } };
    given(channelsDecider, [added(1, webhook())])
      .when(disable)
      .then([disabled]);
    given(channelsDecider, [added(1, webhook()), disabled])
      .when(disable)
      .thenNothing();
    given(channelsDecider, [added(1, email())])
      .when(disable)
      .thenNothing();
    given(channelsDecider).when(disable).thenNothing();
  });

  it('delivers no alert to a disabled webhook until it is enabled again', function () {
    const disabled: ChannelsEvent = { type: 'WebhookDisabled', data: { channelId: ID(1), status: 410, at: AT } };
    const state = fold(channelsDecider, [added(1, webhook()), added(2, webhook('https://h.example.com/2')), disabled]);
    expect(state.channels[0]!.disabled).to.deep.equal({ status: 410, at: AT });
    expect(channelsForAlert(state, ALERT).map((c) => c.id)).to.deep.equal([ID(2)]);
    const enabled = channelsDecider.evolve(state, { type: 'WebhookEnabled', data: { channelId: ID(1), at: AT } });
    expect(enabled.channels[0]).to.not.have.property('disabled');
    expect(channelsForAlert(enabled, ALERT).map((c) => c.id)).to.deep.equal([ID(1), ID(2)]);
  });

  it('enables a disabled webhook; nothing for one enabled; refuses another kind or a missing one', function () {
    const enable: ChannelsCommand = { type: 'EnableWebhook', data: { channelId: ID(1), at: AT } };
    const disabled: ChannelsEvent = { type: 'WebhookDisabled', data: { channelId: ID(1), status: 410, at: AT } };
    given(channelsDecider, [added(1, webhook()), disabled])
      .when(enable)
      .then([{ type: 'WebhookEnabled', data: { channelId: ID(1), at: AT } }]);
    given(channelsDecider, [added(1, webhook())])
      .when(enable)
      .thenNothing();
    given(channelsDecider, [added(1, email())])
      .when(enable)
      .thenError('not_webhook');
    given(channelsDecider).when(enable).thenError('not_found');
  });

  it('rotates a webhook secret to the next generation each time, naming channelId when refused', function () {
    const rotate: ChannelsCommand = { type: 'RotateWebhookSecret', data: { channelId: ID(1), at: AT } };
    const rotated = (generation: number): ChannelsEvent => ({
      type: 'WebhookSecretRotated',
      data: { channelId: ID(1), generation, at: AT },
    });
    given(channelsDecider, [added(1, webhook())])
      .when(rotate)
      .then([rotated(1)]);
    given(channelsDecider, [added(1, webhook()), rotated(1), rotated(2)])
      .when(rotate)
      .then([rotated(3)]);
    given(channelsDecider, [added(1, push())])
      .when(rotate)
      .thenError('not_webhook');
    const other = refusal(rotate, [added(1, email())]);
    expect(other.field).to.equal('channelId');
    expect(other.message).to.equal(
      `channelId ${ID(1)}: only a webhook has a signing secret, and this channel is an email address`,
    );
    const missing = refusal(rotate);
    expect([missing.code, missing.field, missing.message]).to.deep.equal([
      'not_found',
      'channelId',
      `channelId ${ID(1)}: no such channel`,
    ]);
    expect(fold(channelsDecider, [added(1, webhook()), rotated(1)]).channels[0]!.secretGeneration).to.equal(1);
  });

  it('sends an unconfirmed address its confirmation again, and only such an address', function () {
    const resend: ChannelsCommand = { type: 'ResendEmailConfirmation', data: { channelId: ID(1), at: AT } };
    given(channelsDecider, [added(1, email())])
      .when(resend)
      .then([{ type: 'EmailConfirmationResent', data: { channelId: ID(1), at: AT } }]);
    given(channelsDecider, [added(1, email()), { type: 'EmailChannelConfirmed', data: { channelId: ID(1), at: AT } }])
      .when(resend)
      .thenError('confirmed');
    given(channelsDecider, [added(1, webhook())])
      .when(resend)
      .thenError('not_email');
    given(channelsDecider).when(resend).thenError('not_found');
  });

  it('unsubscribes a confirmed address, which its holder may confirm again; nothing when nothing is left to stop', function () {
    const unsubscribe: ChannelsCommand = { type: 'UnsubscribeEmailChannel', data: { channelId: ID(1), at: AT } };
    const confirmed: ChannelsEvent = { type: 'EmailChannelConfirmed', data: { channelId: ID(1), at: AT } };
    const unsubscribed: ChannelsEvent = { type: 'EmailChannelUnsubscribed', data: { channelId: ID(1), at: AT } };
    given(channelsDecider, [added(1, email()), confirmed])
      .when(unsubscribe)
      .then([unsubscribed]);
    given(channelsDecider, [added(1, email()), confirmed, unsubscribed])
      .when(unsubscribe)
      .thenNothing();
    given(channelsDecider, [added(1, email()), confirmed, unsubscribed, confirmed])
      .when(unsubscribe)
      .then([unsubscribed]);
    given(channelsDecider, [added(1, webhook())])
      .when(unsubscribe)
      .thenNothing();
    given(channelsDecider).when(unsubscribe).thenNothing();
    // Unsubscribed, the address gets no alert, and may be sent its confirmation again.
    const state = fold(channelsDecider, [added(1, email()), confirmed, unsubscribed]);
    expect(state.channels[0]).to.include({ confirmed: false, unsubscribedAt: AT });
    expect(channelsForAlert(state, ALERT)).to.deep.equal([]);
    given(channelsDecider, [added(1, email()), confirmed, unsubscribed])
      .when({ type: 'ResendEmailConfirmation', data: { channelId: ID(1), at: AT } })
      .then([{ type: 'EmailConfirmationResent', data: { channelId: ID(1), at: AT } }]);
    const again = fold(channelsDecider, [confirmed], state);
    expect(again.channels[0]).to.include({ confirmed: true }).and.not.have.property('unsubscribedAt');
  });

  it('records the channels an alert names, refusing one the user does not have', function () {
    given(channelsDecider, [added(1, webhook())])
      .when({ type: 'ChooseAlertChannels', data: { alertId: ALERT, channelIds: [ID(1), ID(1)] } })
      .then([{ type: 'AlertChannelsChosen', data: { alertId: ALERT, channelIds: [ID(1)] } }]);
    given(channelsDecider, [added(1, webhook())])
      .when({ type: 'ChooseAlertChannels', data: { alertId: ALERT, channelIds: [ID(1), ID(2)] } })
      .thenError('unknown_channel');
  });

  it('drops an alert’s choice once, so its triggers go to every channel again', function () {
    const chosen: ChannelsEvent = { type: 'AlertChannelsChosen', data: { alertId: ALERT, channelIds: [ID(1)] } };
    const clear: ChannelsCommand = { type: 'ChooseAlertChannels', data: { alertId: ALERT, channelIds: null } };
    given(channelsDecider, [added(1, webhook()), added(2, webhook()), chosen])
      .when(clear)
      .then([{ type: 'AlertChannelsCleared', data: { alertId: ALERT } }]);
    given(channelsDecider, [added(1, webhook()), chosen, { type: 'AlertChannelsCleared', data: { alertId: ALERT } }])
      .when(clear)
      .thenNothing();
    const state = fold(channelsDecider, [
      added(1, webhook()),
      added(2, webhook()),
      chosen,
      { type: 'AlertChannelsCleared', data: { alertId: ALERT } },
    ]);
    expect(channelsForAlert(state, ALERT).map((c) => c.id)).to.deep.equal([ID(1), ID(2)]);
  });

  it('delivers to the named channels still there, or to every confirmed channel', function () {
    const state = fold(channelsDecider, [
      added(1, webhook()),
      added(2, email()),
      added(3, push()),
      { type: 'AlertChannelsChosen', data: { alertId: ALERT, channelIds: [ID(1), ID(3)] } },
      { type: 'ChannelRemoved', data: { channelId: ID(3) } },
    ]);
    expect(channelsForAlert(state, ALERT).map((c) => c.id)).to.deep.equal([ID(1)]);
    expect(channelsForAlert(state, ID(9)).map((c) => c.id)).to.deep.equal([ID(1)]);
    const confirmed = channelsDecider.evolve(state, {
      type: 'EmailChannelConfirmed',
      data: { channelId: ID(2), at: AT },
    });
    expect(channelsForAlert(confirmed, ID(9)).map((c) => c.id)).to.deep.equal([ID(1), ID(2)]);
  });

  it('sends an alert whose every named channel was removed to every channel again, not to none', function () {
    const other = 'u1:a2';
    const state = fold(channelsDecider, [
      added(1, webhook()),
      added(3, push()),
      { type: 'AlertChannelsChosen', data: { alertId: ALERT, channelIds: [ID(3)] } },
      { type: 'AlertChannelsChosen', data: { alertId: other, channelIds: [ID(1), ID(3)] } },
      { type: 'ChannelRemoved', data: { channelId: ID(3) } },
    ]);
    expect(state.alertChannels).to.deep.equal({ [other]: [ID(1)] });
    expect(channelsForAlert(state, ALERT).map((c) => c.id)).to.deep.equal([ID(1)]);
    // Choosing the channels it now goes to is no change; naming none again is the same as every channel.
    given(channelsDecider, [
      added(1, webhook()),
      { type: 'AlertChannelsChosen', data: { alertId: ALERT, channelIds: [ID(1)] } },
      { type: 'PushSubscriptionRemoved', data: { channelId: ID(1) } },
    ])
      .when({ type: 'ChooseAlertChannels', data: { alertId: ALERT, channelIds: null } })
      .thenNothing();
  });
});
