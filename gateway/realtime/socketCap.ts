/**
 * A cap on the sockets one user holds open on one gateway, so a script cannot tie up the server's memory and
 * file descriptors with sockets that all receive the same pushes.
 */

/** Most sockets one user may hold open on one gateway (tabs and devices together). */
export const MAX_SOCKETS_PER_USER = 16;

/** The refusal of a handshake for a user whose sockets (the members of `room`) are at the cap, or null. */
export function socketCapRefusal(
  rooms: ReadonlyMap<string, ReadonlySet<string>>,
  room: string,
  max = MAX_SOCKETS_PER_USER,
): Error | null {
  const open = rooms.get(room)?.size ?? 0;
  return open >= max ? new Error(`too many sockets: at most ${max} open per user`) : null;
}

/** Whether a socket that just joined `room` went past the cap (handshakes that raced each other). */
export function pastSocketCap(
  rooms: ReadonlyMap<string, ReadonlySet<string>>,
  room: string,
  max = MAX_SOCKETS_PER_USER,
): boolean {
  return (rooms.get(room)?.size ?? 0) > max;
}
