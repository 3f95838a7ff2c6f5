import type { InputHTMLAttributes } from 'react';
import { PASSWORD_LENGTH } from '../../domain/accounts/accounts.ts';

/**
 * The field of a new password (the settings' Account card, the reset page): the API's length, offered to the
 * browser's password manager as a new password. Further attributes (name, state, refusal marks) go to the input.
 */
export function NewPasswordInput(props: InputHTMLAttributes<HTMLInputElement>) {
  return (
    <input
      type="password"
      required
      minLength={PASSWORD_LENGTH.min}
      maxLength={PASSWORD_LENGTH.max}
      autoComplete="new-password"
      {...props}
    />
  );
}
