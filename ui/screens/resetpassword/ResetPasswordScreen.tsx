/**
 * `/ResetPassword?user=…&request=…&token=…`: the page a password reset link opens, signed in or not. The new
 * password is typed twice; once set, every session of the user is signed out and the page links the sign-in.
 */
import { useMachine } from '@xstate/react';
import type { FormEvent } from 'react';
import { Link } from '../../components/Link.tsx';
import { NewPasswordInput } from '../../components/NewPasswordInput.tsx';
import { formText } from '../../components/formText.ts';
import { useLocation } from '../../services/router.ts';
import { PASSWORD_MINIMUM_TEXT } from '../../../domain/accounts/accounts.ts';
import { endedText, resetLinkOf, resetPasswordMachine, type ResetField } from './resetPassword.machine.ts';
import { refusalMarks } from '../../components/fieldRefusal.ts';

/** The reset page. */
export function ResetPasswordScreen() {
  const { params } = useLocation();
  const [state, send] = useMachine(resetPasswordMachine, { input: { link: resetLinkOf(params) } });
  const { error, errorField, linkRefused, endedSessions, link } = state.context;
  const busy = state.matches('resetting');
  // The field the refusal is about is marked and described by it.
  const refusal = (field: ResetField) => refusalMarks(errorField === field, 'reset-error');
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const fields = new FormData(event.currentTarget);
    send({
      type: 'user.submit',
      form: { newPassword: formText(fields, 'new'), repeated: formText(fields, 'repeated') },
    });
  };
  return (
    <main className="login" id="main">
      <section className="login-card" aria-labelledby="reset-title">
        <h1 id="reset-title">Reset your password</h1>
        {state.matches('incomplete') && (
          <p role="alert">
            This link is incomplete: open the whole link of the reset e-mail, or{' '}
            <Link to="/Login?forgot">ask for a new one</Link>.
          </p>
        )}
        {(state.matches('ready') || busy) && (
          <form onSubmit={submit} noValidate aria-describedby={error ? 'reset-error' : 'reset-hint'}>
            <p className="tagline" id="reset-hint">
              Choose a new password for <strong>{link?.user}</strong>: {PASSWORD_MINIMUM_TEXT}. Every device signed in
              to the account is signed out.
            </p>
            {/* For the browser's password manager: the account the new password is for. */}
            <input name="username" type="text" autoComplete="username" value={link?.user ?? ''} readOnly hidden />
            <label>
              New password
              <NewPasswordInput name="new" autoFocus disabled={busy} {...refusal('new')} />
            </label>
            <label>
              New password, again
              <NewPasswordInput name="repeated" disabled={busy} {...refusal('repeated')} />
            </label>
            {error && (
              <p className="error" id="reset-error" role="alert">
                {error}
                {linkRefused && (
                  <>
                    {' '}
                    <Link to="/Login?forgot">Ask for a new link</Link>
                  </>
                )}
              </p>
            )}
            <button type="submit" className="button primary" disabled={busy}>
              {busy ? 'Please wait…' : 'Set the new password'}
            </button>
          </form>
        )}
        {state.matches('done') && (
          <p role="status">
            Your password is set. {endedText(endedSessions ?? 0)}. <Link to="/Login">Sign in</Link> with the new
            password.
          </p>
        )}
      </section>
    </main>
  );
}
