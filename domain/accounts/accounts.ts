/**
 * Accounts: registration, sign-in and sign-out, password changes, password resets by e-mail, ending the other
 * sessions, and roles. The stream is `account-<username>`: the user id
 * is the username, so registration is unique by construction (the stream must not exist yet).
 *
 * A password reset: `PasswordResetRequested` records a request (its id goes into the link e-mailed to the
 * user's confirmed addresses); `PasswordReset` uses it. Only the latest request is pending, for
 * {@link PASSWORD_RESET_TTL_MS} after it was made, until it is used or the password changes.
 */
import { DomainError, type Decider, type DomainEvent, eventTypes, unknownCommand } from '../decider.ts';

/** The concern name of account streams (`account-<username>`). */
export const ACCOUNT_CONCERN = 'account';

/**
 * Roles a user may hold: every account is a `user`; an `auditor` may also read other users' histories; an
 * `operator` may start maintenance jobs.
 */
export type Role = 'user' | 'auditor' | 'operator';

/** The roles that exist. */
export const ROLES: readonly Role[] = Object.freeze(['user', 'auditor', 'operator']);

/** The username rule of the API: 3–32 characters of `a-z 0-9 _ . -`. */
export const USERNAME_PATTERN = /^[a-z0-9_.-]{3,32}$/;

/** {@link USERNAME_PATTERN} in words, as every refusal and hint says it: `3 to 32 characters of a-z, 0-9, _ . -`. */
export const USERNAME_TEXT = '3 to 32 characters of a-z, 0-9, _ . -';

/** The password rule of the API: 8 to 128 characters, for a new password (registering, changing, resetting). */
export const PASSWORD_LENGTH = Object.freeze({ min: 8, max: 128 });

/** {@link PASSWORD_LENGTH} in words, as the forms' refusals say it: `8 to 128 characters`. */
export const PASSWORD_LENGTH_TEXT = `${PASSWORD_LENGTH.min} to ${PASSWORD_LENGTH.max} characters`;

/** The least of {@link PASSWORD_LENGTH} in words, as the forms' hints say it: `8 characters or more`. */
export const PASSWORD_MINIMUM_TEXT = `${PASSWORD_LENGTH.min} characters or more`;

/** Whether a new password's length is within {@link PASSWORD_LENGTH}. */
export function passwordLengthFits(password: string): boolean {
  return password.length >= PASSWORD_LENGTH.min && password.length <= PASSWORD_LENGTH.max;
}

/** How long a password reset request can be used after it was made: one hour. */
export const PASSWORD_RESET_TTL_MS = 60 * 60 * 1000;

/** Registers a new account with an already hashed password. */
export type RegisterUser = DomainEvent<'RegisterUser', { readonly username: string; readonly passwordHash: string }>;
/** Records a successful sign-in (the password was checked before). */
export type SignIn = DomainEvent<'SignIn', { readonly address: string }>;
/** Records a sign-out. */
export type SignOut = DomainEvent<'SignOut', Record<string, never>>;
/** Replaces the password (already hashed; the current one was checked before). */
export type ChangePassword = DomainEvent<'ChangePassword', { readonly passwordHash: string }>;
/** Records that the user ended every session but the one asking (the sessions themselves live in the session store). */
export type EndOtherSessions = DomainEvent<'EndOtherSessions', { readonly ended: number }>;
/** Grants a role to the account. */
export type GrantRole = DomainEvent<'GrantRole', { readonly role: Role; readonly grantedBy: string }>;
/**
 * Records a request to reset the password by e-mail (`at`: when it was made). The caller checked that the account
 * has a confirmed e-mail address to send the link to.
 */
export type RequestPasswordReset = DomainEvent<
  'RequestPasswordReset',
  { readonly requestId: string; readonly at: string }
>;
/**
 * Sets a new password (already hashed) through a reset request, whose link's token was checked before; `at` is
 * when the link was used, which must be within {@link PASSWORD_RESET_TTL_MS} of the request.
 */
export type ResetPassword = DomainEvent<
  'ResetPassword',
  { readonly requestId: string; readonly passwordHash: string; readonly at: string }
>;

/** Every command of the accounts concern. */
export type AccountCommand =
  | RegisterUser
  | SignIn
  | SignOut
  | ChangePassword
  | EndOtherSessions
  | GrantRole
  | RequestPasswordReset
  | ResetPassword;

/** An account was created. */
export type UserRegistered = DomainEvent<
  'UserRegistered',
  { readonly username: string; readonly passwordHash: string }
>;
/** The user signed in. */
export type UserSignedIn = DomainEvent<'UserSignedIn', { readonly address: string }>;
/** The user signed out. */
export type UserSignedOut = DomainEvent<'UserSignedOut', Record<string, never>>;
/** The password was changed (the current one was given); a pending reset request can no longer be used. */
export type PasswordChanged = DomainEvent<'PasswordChanged', { readonly passwordHash: string }>;
/** The user's other sessions were ended (`ended`: how many were live). */
export type OtherSessionsEnded = DomainEvent<'OtherSessionsEnded', { readonly ended: number }>;
/** A role was granted to the user. */
export type RoleGranted = DomainEvent<'RoleGranted', { readonly role: Role; readonly grantedBy: string }>;
/**
 * A password reset was asked for (`at`: when): the delivery processor e-mails its link to each confirmed e-mail
 * address of the user. It replaces any earlier request still pending. The link's token is derived from the
 * request id, never recorded.
 */
export type PasswordResetRequested = DomainEvent<
  'PasswordResetRequested',
  { readonly requestId: string; readonly at: string }
>;
/** The password was set through reset request `requestId`, which is used up; every session of the user ends. */
export type PasswordReset = DomainEvent<'PasswordReset', { readonly requestId: string; readonly passwordHash: string }>;

/** Every event of the accounts concern. */
export type AccountEvent =
  | UserRegistered
  | UserSignedIn
  | UserSignedOut
  | PasswordChanged
  | OtherSessionsEnded
  | RoleGranted
  | PasswordResetRequested
  | PasswordReset;

/** Every event type of the account concern. */
export const ACCOUNT_EVENT_TYPES = eventTypes<AccountEvent>()(
  'UserRegistered',
  'UserSignedIn',
  'UserSignedOut',
  'PasswordChanged',
  'OtherSessionsEnded',
  'RoleGranted',
  'PasswordResetRequested',
  'PasswordReset',
);

/** A password reset request that can still be used (unless it is older than {@link PASSWORD_RESET_TTL_MS}). */
export interface PendingReset {
  /** The request's id, as its link carries it. */
  readonly requestId: string;
  /** When it was made (ISO 8601). */
  readonly at: string;
}

/** One account as its stream tells it. */
export interface AccountState {
  /** The username, or null before registration. */
  readonly username: string | null;
  /** The scrypt hash of the password (`scrypt$N$r$p$salt$hash`). */
  readonly passwordHash: string | null;
  /** The roles held. */
  readonly roles: readonly Role[];
  /** How many sign-ins were recorded. */
  readonly signIns: number;
  /** The latest reset request, until it is used or the password changes; absent when none. */
  readonly pendingReset?: PendingReset;
}

const initialState: AccountState = { username: null, passwordHash: null, roles: [], signIns: 0 };

/** The state without its pending reset request. */
function withoutPendingReset(state: AccountState): AccountState {
  if (state.pendingReset === undefined) return state;
  const { pendingReset: _used, ...rest } = state;
  return rest;
}

function requireRegistered(state: AccountState): void {
  if (state.username === null) throw new DomainError('not_found', 'username: no such account', 'username');
}

/**
 * Why reset request `requestId` cannot be used at `at`, or null when it can: it must be the account's pending
 * request (not used, not replaced by a newer one, the password not changed since) and at most
 * {@link PASSWORD_RESET_TTL_MS} old.
 */
export function resetRefusal(state: AccountState, requestId: string, at: string): DomainError | null {
  const pending = state.pendingReset;
  if (pending === undefined || pending.requestId !== requestId.toLowerCase()) {
    return new DomainError(
      'reset_not_pending',
      'request: is not a pending password reset of this account (already used, replaced by a newer request, ' +
        'or the password was changed since)',
      'request',
    );
  }
  const age = Date.parse(at) - Date.parse(pending.at);
  if (!(age <= PASSWORD_RESET_TTL_MS)) {
    return new DomainError('reset_expired', 'request: has expired (a reset link works for one hour)', 'request');
  }
  return null;
}

function decide(command: AccountCommand, state: AccountState): AccountEvent[] {
  switch (command.type) {
    case 'RegisterUser': {
      if (state.username !== null) throw new DomainError('taken', 'username: already taken', 'username');
      if (!USERNAME_PATTERN.test(command.data.username)) {
        throw new DomainError('invalid_username', `username: ${USERNAME_TEXT}`, 'username');
      }
      return [
        { type: 'UserRegistered', data: { username: command.data.username, passwordHash: command.data.passwordHash } },
      ];
    }
    case 'SignIn':
      requireRegistered(state);
      return [{ type: 'UserSignedIn', data: { address: command.data.address } }];
    case 'SignOut':
      requireRegistered(state);
      return [{ type: 'UserSignedOut', data: {} }];
    case 'ChangePassword':
      requireRegistered(state);
      return [{ type: 'PasswordChanged', data: { passwordHash: command.data.passwordHash } }];
    case 'EndOtherSessions':
      requireRegistered(state);
      return [{ type: 'OtherSessionsEnded', data: { ended: command.data.ended } }];
    case 'GrantRole':
      requireRegistered(state);
      if (!ROLES.includes(command.data.role))
        throw new DomainError('invalid_role', `role: must be one of ${ROLES.join(', ')}`, 'role');
      if (state.roles.includes(command.data.role)) return [];
      return [{ type: 'RoleGranted', data: { role: command.data.role, grantedBy: command.data.grantedBy } }];
    case 'RequestPasswordReset':
      requireRegistered(state);
      return [
        {
          type: 'PasswordResetRequested',
          data: { requestId: command.data.requestId.toLowerCase(), at: command.data.at },
        },
      ];
    case 'ResetPassword': {
      requireRegistered(state);
      const refusal = resetRefusal(state, command.data.requestId, command.data.at);
      if (refusal !== null) throw refusal;
      return [
        {
          type: 'PasswordReset',
          data: { requestId: command.data.requestId.toLowerCase(), passwordHash: command.data.passwordHash },
        },
      ];
    }
    default:
      throw unknownCommand(command, 'accounts');
  }
}

function evolve(state: AccountState, event: AccountEvent): AccountState {
  switch (event.type) {
    case 'UserRegistered':
      return { ...state, username: event.data.username, passwordHash: event.data.passwordHash, roles: ['user'] };
    case 'UserSignedIn':
      return { ...state, signIns: state.signIns + 1 };
    case 'UserSignedOut':
    case 'OtherSessionsEnded':
      return state;
    case 'PasswordChanged':
    case 'PasswordReset':
      return { ...withoutPendingReset(state), passwordHash: event.data.passwordHash };
    case 'PasswordResetRequested':
      return { ...state, pendingReset: { requestId: event.data.requestId, at: event.data.at } };
    case 'RoleGranted':
      return state.roles.includes(event.data.role) ? state : { ...state, roles: [...state.roles, event.data.role] };
    default:
      return state;
  }
}

/** The accounts decider. */
export const accountDecider: Decider<AccountCommand, AccountEvent, AccountState> = { initialState, decide, evolve };

/** The initial shown on the avatar: the first letter of the username, upper case. */
export function initialOf(username: string): string {
  return username.charAt(0).toUpperCase();
}
