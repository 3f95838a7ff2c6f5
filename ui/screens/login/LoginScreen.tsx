/**
 * /Login: sign in or create an account on one page, with a line on what the product does and the errors in
 * place (wrong password, name taken, too many attempts with the wait time).
 */
import { useMachine } from '@xstate/react';
import type { FormEvent } from 'react';
import { loginMachine } from './login.machine.ts';
import { formText } from '../../components/formText.ts';

/** The sign-in page; `onSignedIn` gets the user's initial. */
export function LoginScreen({ onSignedIn }: { readonly onSignedIn: (initial: string) => void }) {
  const [state, send] = useMachine(
    loginMachine.provide({ actions: { signedIn: (_, user) => onSignedIn(user.initial) } }),
  );
  const { mode, error } = state.context;
  const busy = state.matches('submitting') || state.matches('done');
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
  return (
    <main className="login" id="main">
      <section className="login-card" aria-labelledby="login-title">
        <h1 id="login-title">StockPulse</h1>
        <p className="tagline">
          Live quotes, price and moving-average alerts the moment they cross, and screeners, patterns and correlations
          over the whole US market.
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
            <input name="username" autoComplete="username" required autoFocus disabled={busy} />
          </label>
          <label>
            Password
            <input
              name="password"
              type="password"
              autoComplete={registering ? 'new-password' : 'current-password'}
              required
              disabled={busy}
            />
          </label>
          {registering && (
            <p className="hint">3–32 characters of a-z, 0-9, _ . - for the name; 8 or more for the password.</p>
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
      </section>
    </main>
  );
}
