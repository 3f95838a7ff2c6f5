/**
 * The log's secret chain key, which keys every event's hash (`hashChain.ts`) and signs the seals (`seals.ts`):
 * `CHAIN_KEY` when configured (every process writing to one log must share it), else a random key generated
 * into `DATA_DIR/chain.key` (readable by its owner only) on first start and read from there afterwards.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Config } from '../config.ts';
import type { EventStore } from '../eventstore/port.ts';

/** The key file inside `DATA_DIR`. */
export const CHAIN_KEY_FILE = 'chain.key';

const keys = new WeakMap<EventStore, Buffer>();

/** Makes `key` the chain key of every command handled and chain checked on `store`. */
export function useChainKey(store: EventStore, key: Buffer): void {
  keys.set(store, key);
}

/** The chain key of a store, or undefined for a store without one (its events get plain hashes). */
export function chainKeyOf(store: EventStore): Buffer | undefined {
  return keys.get(store);
}

/** The configured chain key, or the one in `DATA_DIR` (generated there on first use). */
export function loadChainKey(config: Pick<Config, 'dataDir' | 'chainKey'>): Buffer {
  if (config.chainKey !== null) return Buffer.from(config.chainKey, 'utf8');
  const file = path.join(config.dataDir, CHAIN_KEY_FILE);
  fs.mkdirSync(config.dataDir, { recursive: true });
  try {
    // `wx`: two processes starting at once on one folder keep the first key written.
    fs.writeFileSync(file, randomBytes(32).toString('hex'), { flag: 'wx', mode: 0o600 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  const text = fs.readFileSync(file, 'utf8').trim();
  if (text.length < 32) throw new Error(`${file}: the chain key is shorter than 32 characters`);
  return Buffer.from(text, 'utf8');
}
