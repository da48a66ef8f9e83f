/**
 * A real SMTP server on loopback (the `smtp-server` package) that keeps every message it accepts, for tests of the
 * emails the server sends. Plain SMTP without STARTTLS or authentication, as a local relay would be.
 *
 *   const smtp = await startSmtpServer();   // env: { SMTP_URL: smtp.url }
 *   ... await smtp.messages ...              // a message is here once the sender's `sendMail` resolved
 */
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

export interface ReceivedMail {
  /** Envelope sender and recipients, as the SMTP session gave them. */
  from: string;
  to: string[];
  /** Headers (names lowercase, folded lines joined, encoded words decoded). */
  headers: Record<string, string>;
  subject: string;
  /** The body, its transfer encoding (quoted-printable, base64) undone. */
  text: string;
}

export interface TestSmtpServer {
  url: string;
  messages: ReceivedMail[];
  /** Recipients answered `550` (a mailbox that does not exist) while listed here. */
  refusedRecipients: Set<string>;
  close(): Promise<void>;
}

/** `=?charset?Q|B?...?=` words of a header value (RFC 2047). */
function decodeWords(value: string): string {
  return value.replace(/=\?[^?]+\?([QqBb])\?([^?]*)\?=/g, (_word, encoding: string, data: string) => (encoding.toUpperCase() === 'B'
    ? Buffer.from(data, 'base64').toString('utf8')
    : decodeQuotedPrintable(data.replace(/_/g, ' '))));
}

function decodeQuotedPrintable(text: string): string {
  const joined = text.replace(/=\r?\n/g, '');
  const bytes: number[] = [];
  for (let index = 0; index < joined.length; index += 1) {
    const hex = joined.slice(index + 1, index + 3);
    if (joined[index] === '=' && /^[0-9A-Fa-f]{2}$/.test(hex)) {
      bytes.push(parseInt(hex, 16));
      index += 2;
    } else bytes.push(...Buffer.from(joined[index]!, 'utf8'));
  }
  return Buffer.from(bytes).toString('utf8');
}

export function parseMail(raw: string, envelope: { from: string; to: string[] }): ReceivedMail {
  const split = raw.indexOf('\r\n\r\n');
  const head = split === -1 ? raw : raw.slice(0, split);
  const body = split === -1 ? '' : raw.slice(split + 4);
  const headers: Record<string, string> = {};
  for (const line of head.replace(/\r\n[ \t]+/g, ' ').split('\r\n')) {
    const colon = line.indexOf(':');
    if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = decodeWords(line.slice(colon + 1).trim());
  }
  const encoding = (headers['content-transfer-encoding'] ?? '').toLowerCase();
  const text = encoding === 'quoted-printable' ? decodeQuotedPrintable(body)
    : encoding === 'base64' ? Buffer.from(body.replace(/\s+/g, ''), 'base64').toString('utf8')
      : body;
  return { ...envelope, headers, subject: headers.subject ?? '', text: text.replace(/\r\n/g, '\n').trimEnd() };
}

export async function startSmtpServer(): Promise<TestSmtpServer> {
  const messages: ReceivedMail[] = [];
  const refusedRecipients = new Set<string>();
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onRcptTo(address, _session, callback) {
      if (!refusedRecipients.has(address.address)) return callback();
      return callback(Object.assign(new Error(`No such mailbox: ${address.address}`), { responseCode: 550 }));
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('error', callback);
      stream.on('end', () => {
        const envelope = {
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((recipient) => recipient.address),
        };
        // Kept before the 250 goes back: once the sender's sendMail resolves, the message is in `messages`.
        messages.push(parseMail(Buffer.concat(chunks).toString('utf8'), envelope));
        callback();
      });
    },
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.server.address() as AddressInfo;
  return {
    url: `smtp://127.0.0.1:${port}`,
    messages,
    refusedRecipients,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
