import nodemailer from 'nodemailer';

/** One message: plain text only (a link and a sentence or two; no HTML to escape or track). */
interface Mail {
  to: string;
  subject: string;
  text: string;
}

/** Sends the service's mail (invites, password resets). Absent when `SMTP_URL` is not set. */
export interface Mailer {
  send(mail: Mail): Promise<void>;
  close(): void;
}

/**
 * A mailer over `SMTP_URL` (`smtp://user:pass@host:587`, `smtps://…` for TLS from the start),
 * from `SMTP_FROM` or `Hosted Agents <no-reply@HOST>` (HOST: the public base URL's). Undefined
 * without `SMTP_URL`: links are then only shown to whoever made them.
 */
export function mailerFromConfig(config: { SMTP_URL?: string; SMTP_FROM?: string; baseURL: string }): Mailer | undefined {
  if (!config.SMTP_URL) return undefined;
  const from = config.SMTP_FROM ?? `Hosted Agents <no-reply@${new URL(config.baseURL).hostname}>`;
  const transport = nodemailer.createTransport(config.SMTP_URL);
  return {
    async send(mail) {
      await transport.sendMail({ from, to: mail.to, subject: mail.subject, text: mail.text });
    },
    close: () => transport.close(),
  };
}
