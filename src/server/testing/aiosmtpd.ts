// A real SMTP server for tests that is not written in JavaScript: Python's aiosmtpd (Debian's
// python3-aiosmtpd) run as a child process by smtpPeer.py on a free port. Each message arrives
// as it came over the wire, so a test sees the headers nodemailer actually sent.
import { spawn, spawnSync, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { freePort } from './ports.ts';

/** Debian installs python3-aiosmtpd for its own python3; SMTP_PEER_PYTHON names another. */
const PYTHON = process.env.SMTP_PEER_PYTHON ?? '/usr/bin/python3';
const SCRIPT = fileURLToPath(new URL('./smtpPeer.py', import.meta.url));

export interface ReceivedMail {
  from: string;
  to: string[];
  /** The message as received: headers, a blank line, the body; CRLF line ends. */
  raw: string;
  /** Every header as Python's e-mail parser reads it: [name, decoded value], in order. */
  headers: Array<[string, string]>;
  /** The text/plain body, decoded. */
  text: string;
}

export interface SmtpPeer {
  url: string;
  received: ReceivedMail[];
  close(): Promise<void>;
}

/** Whether aiosmtpd can run here (tests that need it say so when it cannot). */
export function aiosmtpdAvailable(): boolean {
  return spawnSync(PYTHON, ['-c', 'import aiosmtpd'], { stdio: 'ignore' }).status === 0;
}

export async function startAiosmtpd(): Promise<SmtpPeer> {
  const port = await freePort();
  const child: ChildProcessWithoutNullStreams = spawn(PYTHON, [SCRIPT, String(port)]);
  const received: ReceivedMail[] = [];
  let errors = '';
  child.stderr.on('data', (chunk: Buffer) => (errors += chunk.toString('utf8')));
  const lines = createInterface({ input: child.stdout });
  await new Promise<void>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`aiosmtpd exited with ${code}: ${errors}`)));
    lines.on('line', (line) => {
      const event = JSON.parse(line) as { ready?: true } & ReceivedMail;
      if (event.ready) resolve();
      else received.push({ from: event.from, to: event.to, raw: event.raw, headers: event.headers, text: event.text });
    });
  });
  return {
    url: `smtp://127.0.0.1:${port}`,
    received,
    close: () =>
      new Promise<void>((resolve) => {
        child.removeAllListeners('exit');
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.stdin.end();
      }),
  };
}
