/**
 * `/ConfirmEmail?user=…&channel=…&token=…`: the page an email channel's confirmation link opens. It confirms
 * when the button is pressed, so a mail scanner or a link preview opening it confirms nothing.
 */
import { useMachine } from '@xstate/react';
import { Failed } from '../../components/LoadState.tsx';
import { Link } from '../../components/Link.tsx';
import { useLocation } from '../../services/router.ts';
import { confirmEmailMachine, confirmLinkOf } from './confirmEmail.machine.ts';

/** The confirmation page. */
export function ConfirmEmailScreen() {
  const { params } = useLocation();
  const [state, send] = useMachine(confirmEmailMachine, { input: { link: confirmLinkOf(params) } });
  const { error } = state.context;
  return (
    <main id="main" className="centered">
      <section className="screen confirm-email" aria-labelledby="confirm-title">
        <h1 id="confirm-title">Confirm your alert address</h1>
        {state.matches('incomplete') && (
          <p role="alert">This link is incomplete: open the whole link of the confirmation email.</p>
        )}
        {(state.matches('ready') || state.matches('confirming')) && (
          <>
            <p>StockPulse will send your alerts to this email address once you confirm it.</p>
            {error && <Failed message={error} />}
            <p>
              <button
                type="button"
                className="button primary"
                disabled={state.matches('confirming')}
                onClick={() => send({ type: 'user.confirm' })}
              >
                {state.matches('confirming') ? 'Confirming…' : 'Confirm this address'}
              </button>
            </p>
            <p>If you did not ask for this, close this page: nothing is sent until the address is confirmed.</p>
          </>
        )}
        {state.matches('confirmed') && (
          <p role="status">
            The address is confirmed: alerts will reach it. <Link to="/Settings">Go to the settings</Link>.
          </p>
        )}
      </section>
    </main>
  );
}
