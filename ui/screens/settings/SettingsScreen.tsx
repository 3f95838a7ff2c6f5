/**
 * Settings: the delivery channels alerts reach besides the bell (webhooks, email addresses, browsers by Web
 * Push), each with its last deliveries, a test and a remove button, a webhook's secret rotation (and, once its
 * receiver answered 410 Gone, a way to enable it again), and an unconfirmed address's confirmation sent again;
 * what this browser does with an alert while its tab is hidden; and the account: change the password, sign out
 * the other devices.
 */
import { useMachine } from '@xstate/react';
import { useEffect, useRef, type FormEvent } from 'react';
import { CHANNEL_TYPE_LABELS } from '../../../domain/channels/channels.ts';
import type { ChannelAnswer, DeliveryAnswer } from '../../../domain/contract/channels.ts';
import { deliveryStatusText, disabledText } from '../../components/channelWords.ts';
import { formText } from '../../components/formText.ts';
import { Dismissible, Empty, LoadState } from '../../components/LoadState.tsx';
import { usePreferences } from '../../services/preferences.ts';
import { formatRecent } from '../../services/time.ts';
import { AccountCard } from './AccountCard.tsx';
import { deliveriesOf, settingsMachine } from './settings.machine.ts';
import './settings.css';

function target(channel: ChannelAnswer): string {
  return channel.url ?? channel.address ?? channel.endpoint ?? '';
}

function DeliveryLine({ delivery }: { readonly delivery: DeliveryAnswer }) {
  const { timeZone } = usePreferences();
  const when = formatRecent(delivery.updatedt, timeZone);
  const what =
    delivery.kind === 'test'
      ? 'Test'
      : delivery.kind === 'confirm'
        ? 'Confirmation'
        : delivery.kind === 'reset'
          ? 'Password reset'
          : 'Alert';
  return (
    <li className={`delivery ${delivery.status}`}>
      {what} · {when} · {deliveryStatusText(delivery, timeZone)}
    </li>
  );
}

/** The settings screen. */
export default function SettingsScreen() {
  const [state, send] = useMachine(settingsMachine);
  const { channels, deliveries, secret, tests, resent, prefs, permission, error, saveError, busyId } = state.context;
  const busy = !state.matches({ ready: 'idle' });
  const { timeZone } = usePreferences();
  const secretOf = channels.find((c) => c.id === secret?.channelId);

  // The form of the channel being added is emptied once it is added; refused, it keeps what was typed, to mend.
  const adding = useRef<HTMLFormElement | null>(null);
  useEffect(() => {
    if (busy || adding.current === null) return;
    if (saveError === null) adding.current.reset();
    adding.current = null;
  }, [busy, saveError]);
  const addWebhook = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    adding.current = event.currentTarget;
    send({
      type: 'user.addChannel',
      channel: { type: 'webhook', url: formText(form, 'url'), name: formText(form, 'name') },
    });
  };
  const addEmail = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    adding.current = event.currentTarget;
    send({ type: 'user.addChannel', channel: { type: 'email', address: formText(form, 'address') } });
  };

  return (
    <section className="screen settings" aria-labelledby="settings-title">
      <h1 id="settings-title">Settings</h1>
      {saveError && <Dismissible message={saveError} onDismiss={() => send({ type: 'user.dismissError' })} />}
      <LoadState
        loading={state.matches('loading')}
        error={state.matches('failed') ? (error ?? 'The settings could not be loaded') : null}
        onRetry={() => send({ type: 'user.retry' })}
      >
        <section className="settings-card" aria-labelledby="browser-title">
          <h2 id="browser-title">This browser</h2>
          <p>While the StockPulse tab is hidden, an alert can pop up as a system notification and play a sound.</p>
          <label className="settings-toggle">
            <input
              type="checkbox"
              checked={prefs.notify && permission === 'granted'}
              disabled={busy || permission === 'unsupported'}
              onChange={(e) => send({ type: 'user.setNotify', on: e.currentTarget.checked })}
            />
            Show a notification
          </label>
          <label className="settings-toggle">
            <input
              type="checkbox"
              checked={prefs.sound}
              onChange={(e) => send({ type: 'user.setSound', on: e.currentTarget.checked })}
            />
            Play a sound
          </label>
          <p>
            <button
              type="button"
              className="button"
              disabled={busy}
              onClick={() => send({ type: 'user.addThisBrowser' })}
            >
              Receive alerts in this browser with no tab open
            </button>
          </p>
        </section>

        <section className="settings-card" aria-labelledby="channels-title">
          <h2 id="channels-title">Delivery channels</h2>
          <p>Every alert goes to the bell and to these channels, unless the alert names some of them.</p>
          {secret && (
            <div className="settings-secret" role="status">
              <p>
                {secret.reason === 'rotated'
                  ? `New signing secret of ${secretOf?.name ?? 'the webhook'}, shown only now: `
                  : 'Signing secret of the new webhook, shown only now: '}
                <code>{secret.secret}</code>
              </p>
              {secret.reason === 'rotated' && <p>Deliveries signed from now on use it; the former one no longer.</p>}
              <p className="settings-secret-actions">
                <button type="button" className="button small" onClick={() => send({ type: 'user.copySecret' })}>
                  {secret.copied ? 'Copied' : 'Copy'}
                </button>
                <button type="button" className="button small" onClick={() => send({ type: 'user.dismissSecret' })}>
                  I have copied it
                </button>
              </p>
            </div>
          )}
          {channels.length === 0 ? (
            <Empty>No channel yet: add a webhook, an email address or this browser.</Empty>
          ) : (
            <ul className="channels" aria-label="Channels">
              {channels.map((channel) => {
                const test = tests[channel.id];
                const recent = deliveriesOf(deliveries, channel.id);
                return (
                  <li
                    key={channel.id}
                    className="channel"
                    aria-label={`${CHANNEL_TYPE_LABELS[channel.type]} ${channel.name}`}
                  >
                    <div className="channel-head">
                      <strong>{CHANNEL_TYPE_LABELS[channel.type]}</strong>
                      {/* An address is its own name: written once. */}
                      {channel.name !== target(channel) && <span className="channel-name">{channel.name}</span>}
                      <span className="channel-target">{target(channel)}</span>
                      {channel.disabled && <span className="channel-disabled">{disabledText(channel.disabled)}</span>}
                      {!channel.confirmed && (
                        <span className="channel-pending">
                          {channel.unsubscribedAt
                            ? `unsubscribed ${formatRecent(channel.unsubscribedAt, timeZone)} through an alert email: ` +
                              'send the confirmation again to receive alerts'
                            : 'waiting for the address to be confirmed'}
                        </span>
                      )}
                      <span className="channel-actions">
                        {channel.disabled && (
                          <button
                            type="button"
                            className="button small"
                            disabled={busy}
                            onClick={() => send({ type: 'user.enable', id: channel.id })}
                          >
                            {state.matches({ ready: 'enabling' }) && busyId === channel.id
                              ? 'Enabling…'
                              : 'Enable again'}
                          </button>
                        )}
                        {channel.type === 'webhook' && (
                          <button
                            type="button"
                            className="button small"
                            disabled={busy}
                            onClick={() => send({ type: 'user.rotateSecret', id: channel.id })}
                          >
                            {state.matches({ ready: 'rotating' }) && busyId === channel.id
                              ? 'Rotating…'
                              : 'Rotate secret'}
                          </button>
                        )}
                        {channel.type === 'email' && !channel.confirmed && (
                          <button
                            type="button"
                            className="button small"
                            disabled={busy}
                            onClick={() => send({ type: 'user.resendConfirmation', id: channel.id })}
                          >
                            {state.matches({ ready: 'resending' }) && busyId === channel.id
                              ? 'Sending…'
                              : 'Send the confirmation again'}
                          </button>
                        )}
                        <button
                          type="button"
                          className="button small"
                          disabled={busy || !channel.confirmed}
                          onClick={() => send({ type: 'user.test', id: channel.id })}
                        >
                          {state.matches({ ready: 'testing' }) && busyId === channel.id ? 'Sending…' : 'Send a test'}
                        </button>
                        <button
                          type="button"
                          className="button small"
                          disabled={busy}
                          aria-label={`Remove ${channel.name}`}
                          onClick={() => send({ type: 'user.remove', id: channel.id })}
                        >
                          Remove
                        </button>
                      </span>
                    </div>
                    {!channel.confirmed && resent.includes(channel.id) && (
                      <p className="test-result ok" role="status">
                        Confirmation sent again: open the link in that email
                      </p>
                    )}
                    {test && (
                      <p className={test.ok ? 'test-result ok' : 'test-result failed'} role="status">
                        {test.ok
                          ? `Test delivered${test.status ? ` (${test.status})` : ''}`
                          : `Test failed: ${test.error ?? test.status ?? ''}`}
                      </p>
                    )}
                    {recent.length > 0 && (
                      <ul className="deliveries" aria-label={`Last deliveries to ${channel.name}`}>
                        {recent.map((d) => (
                          <DeliveryLine key={d.id} delivery={d} />
                        ))}
                      </ul>
                    )}
                  </li>
                );
              })}
            </ul>
          )}
          <form className="settings-form" onSubmit={addWebhook} aria-label="Add a webhook">
            <label className="settings-wide">
              Webhook URL
              <input name="url" type="url" required placeholder="https://example.com/stockpulse" />
            </label>
            <label>
              Webhook name (optional)
              <input name="name" type="text" maxLength={60} placeholder="e.g. Desk" />
            </label>
            <button type="submit" className="button" disabled={busy}>
              Add webhook
            </button>
          </form>
          <form className="settings-form" onSubmit={addEmail} aria-label="Add an email address">
            <label className="settings-wide">
              Email address
              <input name="address" type="email" required placeholder="you@example.com" />
            </label>
            <button type="submit" className="button" disabled={busy}>
              Add email
            </button>
          </form>
        </section>
        <AccountCard />
      </LoadState>
    </section>
  );
}
