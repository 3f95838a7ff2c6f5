/**
 * Accounts: registration, sign-in and sign-out, password changes, ending the other sessions, and roles. The stream is `account-<username>`: the user id
 * is the username, so registration is unique by construction (the stream must not exist yet).
 */
import { DomainError, type Decider, type DomainEvent } from '../decider.ts';

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

/** Every command of the accounts concern. */
export type AccountCommand = RegisterUser | SignIn | SignOut | ChangePassword | EndOtherSessions | GrantRole;

/** An account was created. */
export type UserRegistered = DomainEvent<
  'UserRegistered',
  { readonly username: string; readonly passwordHash: string }
>;
/** The user signed in. */
export type UserSignedIn = DomainEvent<'UserSignedIn', { readonly address: string }>;
/** The user signed out. */
export type UserSignedOut = DomainEvent<'UserSignedOut', Record<string, never>>;
/** The password was changed. */
export type PasswordChanged = DomainEvent<'PasswordChanged', { readonly passwordHash: string }>;
/** The user's other sessions were ended (`ended`: how many were live). */
export type OtherSessionsEnded = DomainEvent<'OtherSessionsEnded', { readonly ended: number }>;
/** A role was granted to the user. */
export type RoleGranted = DomainEvent<'RoleGranted', { readonly role: Role; readonly grantedBy: string }>;

/** Every event of the accounts concern. */
export type AccountEvent =
  UserRegistered | UserSignedIn | UserSignedOut | PasswordChanged | OtherSessionsEnded | RoleGranted;

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
}

const initialState: AccountState = { username: null, passwordHash: null, roles: [], signIns: 0 };

function requireRegistered(state: AccountState): void {
  if (state.username === null) throw new DomainError('not_found', 'username: no such account', 'username');
}

function decide(command: AccountCommand, state: AccountState): AccountEvent[] {
  switch (command.type) {
    case 'RegisterUser': {
      if (state.username !== null) throw new DomainError('taken', 'username: already taken', 'username');
      if (!USERNAME_PATTERN.test(command.data.username)) {
        throw new DomainError('invalid_username', 'username: 3-32 characters of a-z 0-9 _ . -', 'username');
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
    default: {
      const exhaustive: never = command;
      throw new DomainError(
        'unknown_command',
        `type: unknown command ${String((exhaustive as { type: unknown }).type)}`,
      );
    }
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
      return { ...state, passwordHash: event.data.passwordHash };
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
