import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import type { Role } from '../../domain/accounts/accounts.ts';
import type { Session, SessionStore } from './port.ts';
import { newToken, tokenHash } from './token.ts';

interface Row {
  user_id: string;
  roles: string;
  created_at: number;
  expires_at: number;
}

/** SessionStore on a SQLite file; expired rows are purged now and then. */
export class SqliteSessionStore implements SessionStore {
  private readonly db: Database.Database;
  private readonly insert: Database.Statement<[string, string, string, number, number]>;
  private readonly select: Database.Statement<[string], Row>;
  private readonly remove: Database.Statement<[string]>;
  private readonly purge: Database.Statement<[number]>;
  private readonly ofUser: Database.Statement<[string, string, number], { token_hash: string }>;
  private creations = 0;

  constructor(file: string) {
    if (file !== ':memory:') mkdirSync(dirname(file), { recursive: true });
    this.db = new Database(file);
    this.db.pragma('journal_mode = WAL');
    this.db.pragma('synchronous = NORMAL');
    this.db.pragma('busy_timeout = 10000');
    this.db.exec(`CREATE TABLE IF NOT EXISTS sessions (
      token_hash TEXT PRIMARY KEY, user_id TEXT NOT NULL, roles TEXT NOT NULL,
      created_at INTEGER NOT NULL, expires_at INTEGER NOT NULL)`);
    this.insert = this.db.prepare(
      'INSERT INTO sessions (token_hash, user_id, roles, created_at, expires_at) VALUES (?, ?, ?, ?, ?)',
    );
    this.select = this.db.prepare('SELECT user_id, roles, created_at, expires_at FROM sessions WHERE token_hash = ?');
    this.remove = this.db.prepare('DELETE FROM sessions WHERE token_hash = ?');
    this.purge = this.db.prepare('DELETE FROM sessions WHERE expires_at <= ?');
    this.db.exec('CREATE INDEX IF NOT EXISTS sessions_user ON sessions (user_id)');
    this.ofUser = this.db.prepare(
      'DELETE FROM sessions WHERE user_id = ? AND token_hash != ? AND expires_at > ? RETURNING token_hash',
    );
  }

  create(userId: string, roles: readonly Role[], ttlMs: number): Promise<string> {
    const token = newToken();
    const now = Date.now();
    this.insert.run(tokenHash(token), userId, JSON.stringify(roles), now, now + ttlMs);
    if (++this.creations % 100 === 0) this.purge.run(now);
    return Promise.resolve(token);
  }

  get(token: string): Promise<Session | null> {
    const row = this.select.get(tokenHash(token));
    if (!row || row.expires_at <= Date.now()) return Promise.resolve(null);
    return Promise.resolve({
      userId: row.user_id,
      roles: JSON.parse(row.roles) as Role[],
      createdAt: row.created_at,
      expiresAt: row.expires_at,
    });
  }

  delete(token: string): Promise<void> {
    this.remove.run(tokenHash(token));
    return Promise.resolve();
  }

  endOthers(userId: string, keep: string | null): Promise<readonly string[]> {
    const kept = keep === null ? '' : tokenHash(keep);
    return Promise.resolve(this.ofUser.all(userId, kept, Date.now()).map((row) => row.token_hash));
  }

  close(): Promise<void> {
    if (this.db.open) this.db.close();
    return Promise.resolve();
  }
}

/** Opens (creating when missing) the SQLite session store at `file`. */
export function openSqliteSessionStore(file: string): SqliteSessionStore {
  return new SqliteSessionStore(file);
}
