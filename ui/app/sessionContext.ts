/** The session actor shared by the whole app through React context. */
import { createActorContext } from '@xstate/react';
import { sessionMachine } from './session.machine.ts';

/** Provider and hooks of the session actor. */
export const Session = createActorContext(sessionMachine);
