/**
 * Outgoing email over real SMTP (nodemailer), for the few messages the server sends on its own (low-balance
 * alerts). Configured by SMTP_URL (smtp://user:pass@host:port, smtps:// for TLS from the first byte) and MAIL_FROM;
 * without SMTP_URL nothing is sent, and the first message that would have been says so once in the log.
 */
import nodemailer from 'nodemailer';
import type { Logger } from './logger.js';

export interface MailSettings {
  smtpUrl: string;
  from: string;
}

export interface OutgoingMail {
  to: string;
  subject: string;
  text: string;
}

export interface Mailer {
  /** Sends one message; false when no SMTP server is configured. A refusal by the server throws. */
  send(mail: OutgoingMail): Promise<boolean>;
  close(): void;
}

export function createMailer(settings: MailSettings | null, logger: Logger): Mailer {
  if (!settings) {
    let told = false;
    return {
      async send(mail) {
        if (!told) {
          told = true;
          logger.info({ subject: mail.subject }, 'email is off (SMTP_URL is not set): emails such as low-balance alerts are not sent');
        }
        return false;
      },
      close() {},
    };
  }
  // A connection per message: alerts are rare, and nothing is left open between them.
  const transport = nodemailer.createTransport(settings.smtpUrl);
  return {
    async send(mail) {
      await transport.sendMail({ from: settings.from, to: mail.to, subject: mail.subject, text: mail.text });
      return true;
    },
    close() {
      transport.close();
    },
  };
}
