import type { Role } from '../../domain/accounts/accounts.ts';
import { eventTime, type Projection } from '../projection.ts';

/** What the accounts read model holds of a user (never the password hash). */
export interface AccountDocument {
  /** The username. */
  readonly username: string;
  /** Roles held. */
  readonly roles: readonly Role[];
  /** When the account was created (ISO). */
  readonly registeredAt: string;
  /** When the user last signed in (ISO), or null. */
  readonly lastSignInAt: string | null;
}

/** The accounts of the system, for auditors and the Maint page. */
export const accountsProjection: Projection<AccountDocument> = {
  name: 'accounts',
  version: 1,
  handles: ['UserRegistered', 'RoleGranted', 'UserSignedIn'],
  evolve: (doc, event) => {
    switch (event.type) {
      case 'UserRegistered': {
        const { username } = event.data as { username: string };
        return { username, roles: ['user'], registeredAt: eventTime(event), lastSignInAt: null };
      }
      case 'RoleGranted': {
        if (!doc) return null;
        const { role } = event.data as { role: Role };
        return doc.roles.includes(role) ? doc : { ...doc, roles: [...doc.roles, role] };
      }
      case 'UserSignedIn':
        return doc ? { ...doc, lastSignInAt: eventTime(event) } : null;
      default:
        return doc ?? null;
    }
  },
};
