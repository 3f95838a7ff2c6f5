/**
 * For tests: an SMTP server on loopback that keeps every message it takes, with a wait for a message instead of
 * a sleep, and the links and words of a message read through its quoted-printable encoding.
 */
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

/** One message as the server took it. */
export interface ReceivedMail {
  /** The envelope's recipients. */
  readonly to: readonly string[];
  /** The message as sent (headers and parts). */
  readonly raw: string;
  /** The message with its quoted-printable soft breaks and escapes decoded, to read links and words in. */
  readonly text: string;
}

/** A running SMTP server. */
export interface TestSmtp {
  /** Its `SMTP_URL` (`smtp://127.0.0.1:<port>`). */
  readonly url: string;
  /** Every message so far, in arrival order. */
  readonly mails: readonly ReceivedMail[];
  /** Resolves with the first message, past or coming, that `accept` takes (rejects after `timeoutMs`, default 10 s). */
  waitFor(accept: (mail: ReceivedMail) => boolean, timeoutMs?: number): Promise<ReceivedMail>;
  close(): Promise<void>;
}

/** Decodes quoted-printable soft breaks and escapes, enough to read links and words in a raw message. */
export function unquote(raw: string): string {
  return raw
    .replace(/=\r?\n/g, '')
    .replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
}

/** Starts an SMTP server on a free loopback port, without TLS or authentication. */
export async function startTestSmtp(): Promise<TestSmtp> {
  const mails: ReceivedMail[] = [];
  const waiters = new Set<(mail: ReceivedMail) => void>();
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        const raw = Buffer.concat(chunks).toString('utf8');
        const mail = { to: session.envelope.rcptTo.map((r) => r.address), raw, text: unquote(raw) };
        mails.push(mail);
        callback();
        for (const waiter of [...waiters]) waiter(mail);
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.server.address() as AddressInfo;
  return {
    url: `smtp://127.0.0.1:${port}`,
    mails,
    waitFor: (accept, timeoutMs = 10_000) => {
      const past = mails.find(accept);
      if (past) return Promise.resolve(past);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          waiters.delete(waiter);
          reject(new Error(`no such mail within ${timeoutMs} ms; ${mails.length} taken`));
        }, timeoutMs);
        const waiter = (mail: ReceivedMail): void => {
          if (!accept(mail)) return;
          clearTimeout(timer);
          waiters.delete(waiter);
          resolve(mail);
        };
        waiters.add(waiter);
      });
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
