/**
 * Starts StockPulse with the configuration of the environment (see the README's Configuration table).
 */
import { main } from '../gateway/main.ts';
import { ConfigError } from '../platform/config.ts';

/** Whether an error is the operator's to fix (a refused setting, a port in use), so its message suffices. */
function isOperatorError(err: unknown): err is Error {
  if (err instanceof ConfigError) return true;
  const code = (err as { code?: unknown } | null)?.code;
  return err instanceof Error && typeof code === 'string' && /^E[A-Z]+$/.test(code);
}

try {
  await main();
} catch (err) {
  process.stderr.write(`${isOperatorError(err) ? err.message : err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
}
