/**
 * `GET /api/session` of api.md: whether the caller is signed in, as whom, and with which roles, so a screen
 * shows what the user may do without asking a route that would refuse.
 */
import { z } from 'zod';
import type { Role } from '../accounts/accounts.ts';

/** The roles as the session answer names them. */
const roleSchema = z.enum(['user', 'auditor'] as const satisfies readonly Role[]);

/** The answer of `GET /api/session`: roles are those the session was created with (they count from a sign-in). */
export const sessionAnswer = z.object({
  signedIn: z.boolean(),
  username: z.string().nullable(),
  roles: z.array(roleSchema),
});

/** What `GET /api/session` answers. */
export type SessionAnswer = z.infer<typeof sessionAnswer>;
