/**
 * Runs `task` every `everyMs`, each run starting `everyMs` after the previous one ended (never two at once, and
 * no run piling up behind a slow one), until the answered stop is called. A run that fails goes to `onError` and
 * the next one runs as planned. The timer does not keep the process alive.
 */
export function repeat(everyMs: number, task: () => Promise<void>, onError?: (error: Error) => void): () => void {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  const next = (): void => {
    timer = setTimeout(() => {
      task()
        .catch((error: unknown) => onError?.(error instanceof Error ? error : new Error(String(error))))
        .finally(() => {
          if (!stopped) next();
        });
    }, everyMs);
    timer.unref();
  };
  next();
  return () => {
    stopped = true;
    clearTimeout(timer);
  };
}
