/**
 * `/Unsubscribe?user=…&channel=…&token=…`: the page an alert email's unsubscribe link opens. It unsubscribes
 * when the button is pressed, so a mail scanner or a link preview opening it changes nothing.
 */
import { useMachine } from '@xstate/react';
import { Failed } from '../../components/LoadState.tsx';
import { useLocation } from '../../services/router.ts';
import { unsubscribeLinkOf, unsubscribeMachine } from './unsubscribe.machine.ts';

/** The unsubscribe page. */
export function UnsubscribeScreen() {
  const { params } = useLocation();
  const [state, send] = useMachine(unsubscribeMachine, { input: { link: unsubscribeLinkOf(params) } });
  const { error } = state.context;
  return (
    <main id="main" className="centered">
      <section className="screen unsubscribe" aria-labelledby="unsubscribe-title">
        <h1 id="unsubscribe-title">Unsubscribe from StockPulse alerts</h1>
        {state.matches('incomplete') && (
          <p role="alert">This link is incomplete: open the whole unsubscribe link of the alert email.</p>
        )}
        {(state.matches('ready') || state.matches('unsubscribing')) && (
          <>
            <p>StockPulse will stop sending alerts to this email address.</p>
            {error && <Failed message={error} />}
            <p>
              <button
                type="button"
                className="button primary"
                disabled={state.matches('unsubscribing')}
                onClick={() => send({ type: 'user.unsubscribe' })}
              >
                {state.matches('unsubscribing') ? 'Unsubscribing…' : 'Unsubscribe'}
              </button>
            </p>
            <p>If you want to keep receiving them, close this page: nothing changes.</p>
          </>
        )}
        {state.matches('unsubscribed') && (
          <p role="status">
            Unsubscribed: StockPulse sends no more alerts to this address. Alerts come back only if you confirm it
            again, from a confirmation email its StockPulse user may have sent.
          </p>
        )}
      </section>
    </main>
  );
}
