/** Plain-text and HTML bodies of every e-mail Parley sends. Pure functions; values are escaped. */

export type MailTemplate = 'verify' | 'reset' | 'email_revert' | 'authorize_ip';

export interface RenderedMail {
  template: MailTemplate;
  subject: string;
  text: string;
  html: string;
  link: string;
}

const HTML_ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => HTML_ESCAPES[c]);
}

const PATHS: Record<MailTemplate, string> = {
  verify: '/verify',
  reset: '/reset',
  email_revert: '/email-revert',
  authorize_ip: '/authorize-ip',
};

const COPY: Record<
  MailTemplate,
  { subject: string; intro: string; action: string; outro: string }
> = {
  verify: {
    subject: 'Verify your e-mail address',
    intro: 'Please confirm that this is your e-mail address.',
    action: 'Verify e-mail',
    outro: 'The link is valid for 24 hours.',
  },
  reset: {
    subject: 'Reset your password',
    intro: 'Someone asked to reset the password of your account.',
    action: 'Choose a new password',
    outro: 'The link is valid for 1 hour. If you did not ask for this, ignore this e-mail.',
  },
  email_revert: {
    subject: 'Your e-mail address was changed',
    intro:
      'The e-mail address of your account was changed. If this was not you, restore this address and choose a new password.',
    action: 'Restore my e-mail address',
    outro: 'The link is valid for 48 hours.',
  },
  authorize_ip: {
    subject: 'New login location',
    intro: 'Someone tried to log in to your account from a new location.',
    action: 'Authorize this login',
    outro: 'The link is valid for 15 minutes. If this was not you, change your password.',
  },
};

/** Renders one template; `details` are extra lines (e.g. the IP address), escaped in HTML. */
export function renderMail(
  template: MailTemplate,
  webAppUrl: string,
  token: string,
  details: { username?: string; lines?: string[] } = {},
): RenderedMail {
  const copy = COPY[template];
  const link = `${webAppUrl}${PATHS[template]}#token=${encodeURIComponent(token)}`;
  const greeting = `Hello${details.username ? ` ${details.username}` : ''},`;
  const lines = details.lines ?? [];
  const text = [
    greeting,
    '',
    copy.intro,
    ...lines,
    '',
    `${copy.action}:`,
    link,
    '',
    copy.outro,
    '',
  ].join('\n');
  const html = [
    '<!doctype html><html><body style="font-family:sans-serif">',
    `<p>${escapeHtml(greeting)}</p>`,
    `<p>${escapeHtml(copy.intro)}</p>`,
    ...lines.map((l) => `<p>${escapeHtml(l)}</p>`),
    `<p><a href="${escapeHtml(link)}">${escapeHtml(copy.action)}</a></p>`,
    `<p style="color:#666">${escapeHtml(copy.outro)}</p>`,
    '</body></html>',
  ].join('\n');
  return { template, subject: copy.subject, text, html, link };
}
