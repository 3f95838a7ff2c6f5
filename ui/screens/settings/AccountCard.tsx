/**
 * The settings screen's account card: change the password (which signs out every other device) and sign out
 * the other devices alone. A refusal stays until the field it is about is edited or the form is sent again.
 */
import { useMachine } from '@xstate/react';
import { useEffect, useRef, type FormEvent } from 'react';
import { PASSWORD_MINIMUM_TEXT } from '../../../domain/accounts/accounts.ts';
import { Dismissible } from '../../components/LoadState.tsx';
import { NewPasswordInput } from '../../components/NewPasswordInput.tsx';
import { accountMachine, type PasswordField } from './account.machine.ts';
import { formText } from '../../components/formText.ts';
import { refusalMarks } from '../../components/fieldRefusal.ts';

/** The account card. */
export function AccountCard() {
  const [state, send] = useMachine(accountMachine);
  const { done, error, errorField } = state.context;
  const busy = !state.matches('idle');
  const form = useRef<HTMLFormElement>(null);
  const changed = state.context.changes;
  // Once the password is changed, the fields are emptied; a refusal keeps them to correct.
  useEffect(() => {
    if (changed > 0) form.current?.reset();
  }, [changed]);

  const changePassword = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const fields = new FormData(event.currentTarget);
    send({
      type: 'user.changePassword',
      form: {
        currentPassword: formText(fields, 'current'),
        newPassword: formText(fields, 'new'),
        repeated: formText(fields, 'repeated'),
      },
    });
  };

  // Each field tells the machine it was edited, and is marked while a refusal is about it.
  const field = (name: PasswordField) => ({
    onChange: () => send({ type: 'user.edit', field: name }),
    ...refusalMarks(errorField === name, 'account-error'),
  });

  return (
    <section className="settings-card" aria-labelledby="account-title">
      <h2 id="account-title">Account</h2>
      {error && <Dismissible id="account-error" message={error} onDismiss={() => send({ type: 'user.dismiss' })} />}
      {done && (
        <p className="settings-done" role="status">
          {done}
        </p>
      )}
      <form
        ref={form}
        className="settings-form settings-password"
        onSubmit={changePassword}
        noValidate
        aria-label="Change the password"
      >
        <label>
          Current password
          <input
            name="current"
            type="password"
            required
            autoComplete="current-password"
            {...field('currentPassword')}
          />
        </label>
        <label>
          New password
          <NewPasswordInput name="new" placeholder={PASSWORD_MINIMUM_TEXT} {...field('newPassword')} />
        </label>
        <label>
          New password, again
          <NewPasswordInput name="repeated" {...field('repeated')} />
        </label>
        <button type="submit" className="button" disabled={busy}>
          {state.matches('changing') ? 'Changing…' : 'Change password'}
        </button>
      </form>
      <p className="settings-hint">Changing the password signs out every other device and browser.</p>
      <p>
        <button
          type="button"
          className="button"
          disabled={busy}
          onClick={() => send({ type: 'user.endOtherSessions' })}
        >
          {state.matches('ending') ? 'Signing out…' : 'Sign out other devices'}
        </button>
      </p>
    </section>
  );
}
