// The e-mails the product sends, as readable plain text plus simple, inline-styled HTML.
export interface RenderedMail {
  subject: string;
  text: string;
  html: string;
}

function escapeHtml(value: string): string {
  return value.replace(
    /[&<>"']/g,
    (char) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[char]!,
  );
}

function layout(title: string, paragraphs: string[], action: { label: string; url: string }, footer: string): string {
  const body = paragraphs.map((text) => `<p style="margin:0 0 16px;line-height:1.5">${escapeHtml(text)}</p>`).join('');
  return `<!doctype html><html><body style="margin:0;background:#0b1020;font-family:Arial,Helvetica,sans-serif;color:#e5e7eb">
<table role="presentation" width="100%" cellpadding="0" cellspacing="0"><tr><td align="center" style="padding:32px 16px">
<table role="presentation" width="560" cellpadding="0" cellspacing="0" style="background:#111827;border-radius:12px;padding:32px">
<tr><td><h1 style="margin:0 0 24px;font-size:22px;color:#ffffff">${escapeHtml(title)}</h1>${body}
<p style="margin:24px 0"><a href="${escapeHtml(action.url)}" style="background:#4f46e5;color:#ffffff;text-decoration:none;padding:12px 20px;border-radius:8px;display:inline-block;font-weight:bold">${escapeHtml(action.label)}</a></p>
<p style="margin:0 0 16px;font-size:13px;color:#9ca3af;line-height:1.5">If the button does not work, paste this link into your browser:<br><span style="word-break:break-all">${escapeHtml(action.url)}</span></p>
<p style="margin:24px 0 0;font-size:12px;color:#6b7280">${escapeHtml(footer)}</p></td></tr></table></td></tr></table></body></html>`;
}

export function verificationMail(name: string, url: string): RenderedMail {
  const greeting = `Hi ${name},`;
  const lines = [
    'Thanks for signing up for WATOS Trading Intelligence. Please confirm your e-mail address to activate your account.',
  ];
  const footer = 'This link expires in 24 hours. If you did not create an account, you can ignore this e-mail.';
  return {
    subject: 'Confirm your e-mail address',
    text: `${greeting}\n\n${lines.join('\n\n')}\n\nConfirm your e-mail: ${url}\n\n${footer}\n`,
    html: layout('Confirm your e-mail address', [greeting, ...lines], { label: 'Confirm e-mail', url }, footer),
  };
}

export function passwordResetMail(name: string, url: string): RenderedMail {
  const greeting = `Hi ${name},`;
  const lines = ['We received a request to reset the password of your WATOS Trading Intelligence account.'];
  const footer =
    'This link expires in 1 hour and works once. If you did not ask for a reset, ignore this e-mail: your password stays unchanged.';
  return {
    subject: 'Reset your password',
    text: `${greeting}\n\n${lines.join('\n\n')}\n\nChoose a new password: ${url}\n\n${footer}\n`,
    html: layout('Reset your password', [greeting, ...lines], { label: 'Choose a new password', url }, footer),
  };
}

export function existingAccountMail(name: string, loginUrl: string, resetUrl: string): RenderedMail {
  const greeting = `Hi ${name},`;
  const lines = [
    'Someone tried to create a new WATOS Trading Intelligence account with this e-mail address, which already has an account.',
    `If that was you, simply log in. Forgot your password? Reset it here: ${resetUrl}`,
  ];
  const footer = 'If it was not you, no action is needed: nothing was changed.';
  return {
    subject: 'You already have an account',
    text: `${greeting}\n\n${lines.join('\n\n')}\n\nLog in: ${loginUrl}\n\n${footer}\n`,
    html: layout('You already have an account', [greeting, ...lines], { label: 'Log in', url: loginUrl }, footer),
  };
}
