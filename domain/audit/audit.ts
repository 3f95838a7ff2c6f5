/**
 * The auditor's own trail: every read of another user's history, state or hash chain, and every look at the
 * list of users, is recorded on the auditor's stream `audit-<auditor>`, so the auditors are audited too.
 */
import { USERNAME_PATTERN, USERNAME_TEXT } from '../accounts/accounts.ts';
import { DomainError, type Decider, type DomainEvent, eventTypes, unknownCommand } from '../decider.ts';

/** The concern name of audit streams (`audit-<auditor>`). */
export const AUDIT_CONCERN = 'audit';

/** Which part of a user's history was listed: the filter and page asked for. */
export interface HistoryQuery {
  /** The user whose history was read. */
  readonly username: string;
  /** Event types asked for; empty for every type. */
  readonly types: readonly string[];
  /** Earliest event time asked for (ISO), or null. */
  readonly from: string | null;
  /** Latest event time asked for (ISO), or null. */
  readonly to: string | null;
  /** The position the page starts after (`commit/prepare`), or null for the first page. */
  readonly after: string | null;
  /** Most events asked for. */
  readonly limit: number;
}

/** Which moment of a user's state was looked at: a time or a log position, or null for now. */
export interface StateQuery {
  /** The user whose state was read. */
  readonly username: string;
  /** The moment asked for (ISO), or null. */
  readonly at: string | null;
  /** The log position asked for (`commit/prepare`), or null. */
  readonly position: string | null;
}

/** What a verification of a user's hash chain found. */
export interface ChainVerification {
  /** The user whose streams were verified. */
  readonly username: string;
  /** Whether every stream's chain holds. */
  readonly intact: boolean;
  /** How many events were checked. */
  readonly events: number;
  /** How many streams were checked. */
  readonly streams: number;
}

/** Records that the auditor listed a page of a user's events. */
export type ViewUserHistory = DomainEvent<'ViewUserHistory', HistoryQuery>;
/** Records that the auditor looked at a user's state at a moment. */
export type ViewUserState = DomainEvent<'ViewUserState', StateQuery>;
/** Records that the auditor verified a user's hash chain, with what was found. */
export type VerifyUserChain = DomainEvent<'VerifyUserChain', ChainVerification>;
/** Records that the auditor listed the users. */
export type ViewUserList = DomainEvent<'ViewUserList', { readonly prefix: string | null }>;

/** Every command of the audit concern. */
export type AuditCommand = ViewUserHistory | ViewUserState | VerifyUserChain | ViewUserList;

/** The auditor listed a page of a user's events. */
export type UserHistoryViewed = DomainEvent<'UserHistoryViewed', HistoryQuery>;
/** The auditor looked at a user's state at a moment. */
export type UserStateViewed = DomainEvent<'UserStateViewed', StateQuery>;
/** The auditor verified a user's hash chain. */
export type UserChainVerified = DomainEvent<'UserChainVerified', ChainVerification>;
/** The auditor listed the users. */
export type UserListViewed = DomainEvent<'UserListViewed', { readonly prefix: string | null }>;

/** Every event of the audit concern. */
export type AuditEvent = UserHistoryViewed | UserStateViewed | UserChainVerified | UserListViewed;

/** Every event type of the audit reads concern. */
export const AUDIT_EVENT_TYPES = eventTypes<AuditEvent>()(
  'UserHistoryViewed',
  'UserStateViewed',
  'UserChainVerified',
  'UserListViewed',
);

/** What an auditor's trail adds up to: how many reads, and whose data was read, in order of the first read. */
export interface AuditState {
  /** Reads recorded. */
  readonly reads: number;
  /** The users whose history, state or chain was read, each once. */
  readonly users: readonly string[];
}

function requireUsername(username: string): void {
  if (!USERNAME_PATTERN.test(username)) {
    throw new DomainError('invalid_username', `username: ${USERNAME_TEXT}`, 'username');
  }
}

function decide(command: AuditCommand, _state: AuditState): AuditEvent[] {
  switch (command.type) {
    case 'ViewUserHistory':
      requireUsername(command.data.username);
      return [{ type: 'UserHistoryViewed', data: command.data }];
    case 'ViewUserState':
      requireUsername(command.data.username);
      return [{ type: 'UserStateViewed', data: command.data }];
    case 'VerifyUserChain':
      requireUsername(command.data.username);
      return [{ type: 'UserChainVerified', data: command.data }];
    case 'ViewUserList':
      return [{ type: 'UserListViewed', data: command.data }];
    default:
      throw unknownCommand(command, 'audit');
  }
}

function evolve(state: AuditState, event: AuditEvent): AuditState {
  switch (event.type) {
    case 'UserHistoryViewed':
    case 'UserStateViewed':
    case 'UserChainVerified': {
      const { username } = event.data;
      return {
        reads: state.reads + 1,
        users: state.users.includes(username) ? state.users : [...state.users, username],
      };
    }
    case 'UserListViewed':
      return { ...state, reads: state.reads + 1 };
    default: {
      // An event type this version does not know leaves the state as it is, so replaying the log never fails.
      const _exhaustive: never = event;
      return state;
    }
  }
}

/** The audit trail's rules: every read is recorded, naming a valid user. */
export const auditDecider: Decider<AuditCommand, AuditEvent, AuditState> = {
  initialState: Object.freeze({ reads: 0, users: Object.freeze([]) }),
  decide,
  evolve,
};
