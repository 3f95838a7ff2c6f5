/**
 * /Login: sign in or create an account on one page, with a line on what the product does and the errors in
 * place (wrong password, name taken, too many attempts with the wait time). "Forgot password?" (or
 * `/Login?forgot`) asks for a reset link by user name instead.
 */
import { useMachine } from '@xstate/react';
import type { FormEvent, MouseEvent } from 'react';
import { useLocation } from '../../services/router.ts';
import { RESET_REQUESTED_TEXT, forgotPasswordMachine } from './forgotPassword.machine.ts';
import { PASSWORD_MINIMUM_TEXT, USERNAME_TEXT } from '../../../domain/accounts/accounts.ts';
import { loginMachine, type LoginField } from './login.machine.ts';
import { formText } from '../../components/formText.ts';
import { refusalMarks } from '../../components/fieldRefusal.ts';

/** The "Forgot password?" form in place of the sign-in form, then the answer, the same whatever the name. */
function ForgotPassword({
  machine,
}: {
  readonly machine: ReturnType<typeof useMachine<typeof forgotPasswordMachine>>;
}) {
  const [state, send] = machine;
  const { error } = state.context;
  const sending = state.matches('sending');
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    send({ type: 'user.submit', username: formText(form, 'username').trim().toLowerCase() });
  };
  return (
    <main className="login" id="main">
      <section className="login-card" aria-labelledby="forgot-title">
        <h1 id="forgot-title">Reset your password</h1>
        {state.matches('sent') ? (
          <p role="status">{RESET_REQUESTED_TEXT}</p>
        ) : (
          <form onSubmit={submit} noValidate aria-describedby={error ? 'forgot-error' : 'forgot-hint'}>
            <p className="tagline" id="forgot-hint">
              Type the name you sign in with: a link to set a new password goes to the account&apos;s confirmed e-mail
              addresses.
            </p>
            <label>
              User name
              <input name="username" autoComplete="username" required autoFocus disabled={sending} />
            </label>
            {error && (
              <p className="error" id="forgot-error" role="alert">
                {error}
              </p>
            )}
            <button type="submit" className="button primary" disabled={sending}>
              {sending ? 'Please wait…' : 'Send the link'}
            </button>
          </form>
        )}
        <p>
          <button type="button" className="button" onClick={() => send({ type: 'user.close' })}>
            Back to sign in
          </button>
        </p>
      </section>
    </main>
  );
}

/** The sign-in page; `onSignedIn` gets the user's initial. */
export function LoginScreen({ onSignedIn }: { readonly onSignedIn: (initial: string) => void }) {
  const [state, send] = useMachine(
    loginMachine.provide({ actions: { signedIn: (_, user) => onSignedIn(user.initial) } }),
  );
  const { params } = useLocation();
  const forgot = useMachine(forgotPasswordMachine, { input: { open: params.has('forgot') } });
  const { mode, error, errorField } = state.context;
  const busy = state.matches('submitting') || state.matches('done');
  // The field the refusal is about is marked and described by it.
  const refusal = (field: LoginField) => refusalMarks(errorField === field, 'login-error');
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    send({
      type: 'user.submit',
      username: formText(form, 'username').trim().toLowerCase(),
      password: formText(form, 'password'),
    });
  };
  const registering = mode === 'register';
  if (!forgot[0].matches('closed')) return <ForgotPassword machine={forgot} />;
  const openForgot = (event: MouseEvent<HTMLAnchorElement>) => {
    event.preventDefault();
    forgot[1]({ type: 'user.open' });
  };
  return (
    <main className="login" id="main">
      <section className="login-card" aria-labelledby="login-title">
        <h1 id="login-title">StockPulse</h1>
        <p className="tagline">
          Live quotes; alerts on the price, moving averages, RSI, volume or the day’s change, in the app, by e-mail, Web
          Push or webhook; and screeners, patterns and correlations over the whole US market.
        </p>
        <div className="tabs" role="tablist" aria-label="Sign in or create an account">
          <button
            type="button"
            role="tab"
            aria-selected={!registering}
            className={registering ? 'tab' : 'tab active'}
            onClick={() => send({ type: 'user.switchMode', mode: 'signIn' })}
          >
            Sign in
          </button>
          <button
            type="button"
            role="tab"
            aria-selected={registering}
            className={registering ? 'tab active' : 'tab'}
            onClick={() => send({ type: 'user.switchMode', mode: 'register' })}
          >
            Create account
          </button>
        </div>
        <form onSubmit={submit} noValidate aria-describedby={error ? 'login-error' : undefined}>
          <label>
            User name
            <input
              name="username"
              autoComplete="username"
              required
              autoFocus
              disabled={busy}
              {...refusal('username')}
            />
          </label>
          <label>
            Password
            <input
              name="password"
              type="password"
              autoComplete={registering ? 'new-password' : 'current-password'}
              required
              disabled={busy}
              {...refusal('password')}
            />
          </label>
          {registering && (
            <p className="hint">
              {USERNAME_TEXT} for the name; {PASSWORD_MINIMUM_TEXT} for the password.
            </p>
          )}
          {error && (
            <p className="error" id="login-error" role="alert">
              {error}
            </p>
          )}
          <button type="submit" className="button primary" disabled={busy}>
            {busy ? 'Please wait…' : registering ? 'Create account' : 'Sign in'}
          </button>
        </form>
        {!registering && (
          <p>
            <a href="/Login?forgot" onClick={openForgot}>
              Forgot password?
            </a>
          </p>
        )}
      </section>
    </main>
  );
}
