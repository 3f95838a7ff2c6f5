/**
 * Work that must not overlap per key (commands on one stream, triggers of one user): each task of a key starts
 * once the one before it settled, whether it succeeded or failed; tasks of different keys run side by side.
 * A key is forgotten once its last task settled, so the map holds only the keys with work under way.
 */
export class KeyedQueue {
  private readonly tails = new Map<string, Promise<void>>();

  /** Runs `task` after the tasks of `key` queued before it; answers what it answers. */
  run<T>(key: string, task: () => Promise<T>): Promise<T> {
    const previous = this.tails.get(key) ?? Promise.resolve();
    const result = previous.then(task);
    const tail = result.then(
      () => undefined,
      () => undefined,
    );
    this.tails.set(key, tail);
    void tail.then(() => {
      if (this.tails.get(key) === tail) this.tails.delete(key);
    });
    return result;
  }

  /** Keys with a task queued or running. */
  get size(): number {
    return this.tails.size;
  }
}
