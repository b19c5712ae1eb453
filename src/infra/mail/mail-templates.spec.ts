import { redactLink } from './log-mail.adapter';
import { escapeHtml, renderMail } from './mail-templates';

describe('mail templates', () => {
  it('escapes HTML', () => {
    expect(escapeHtml(`<a href="x">&'`)).toBe('&lt;a href=&quot;x&quot;&gt;&amp;&#39;');
  });

  it('renders text and HTML with the link to the web app', () => {
    const mail = renderMail('reset', 'https://app.example', 'tok_EN-123', {
      username: '<b>eve</b>',
      lines: ['IP address: 1.2.3.4'],
    });
    expect(mail.subject).toBe('Reset your password');
    expect(mail.link).toBe('https://app.example/reset#token=tok_EN-123');
    expect(mail.text).toContain('https://app.example/reset#token=tok_EN-123');
    expect(mail.text).toContain('IP address: 1.2.3.4');
    expect(mail.html).toContain('href="https://app.example/reset#token=tok_EN-123"');
    expect(mail.html).toContain('&lt;b&gt;eve&lt;/b&gt;');
    expect(mail.html).not.toContain('<b>eve</b>');
  });

  it.each([
    ['verify', '/verify#token='],
    ['email_revert', '/email-revert#token='],
    ['authorize_ip', '/authorize-ip#token='],
  ] as const)('links %s to %s', (template, path) => {
    expect(renderMail(template, 'https://w', 't').link).toBe(`https://w${path}t`);
  });

  it('redacts tokens in logged links', () => {
    expect(redactLink('https://w/reset#token=secret123')).toBe('https://w/reset#token=[REDACTED]');
    expect(redactLink('https://w/x?a=1&token=s&b=2')).toBe('https://w/x?a=1&token=[REDACTED]&b=2');
  });
});
