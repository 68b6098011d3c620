// Fault test: the server process is killed (SIGKILL, no chance to clean up) while a large CSV
// is streaming in. Nothing may be half-stored: no file row, no object under a final name.
// A restart on the same DATA_DIR must come up without repair, remove the dead process's
// temporary, keep the session and the files stored before, and take new uploads.
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { multipartBody, multipartHead } from '../testing/spreadsheets.ts';
import {
  startServerProcess,
  subscribeOverHttp,
  type HttpSession,
  type ServerProcess,
} from '../testing/serverProcess.ts';
import { waitFor } from '../testing/waitFor.ts';
import type { FileEntry } from '../../shared/schemas/files.ts';
import { TEMP_PREFIX } from './disk.ts';

const TRADES_CSV = Buffer.from('date,symbol,side,qty,price\n2026-01-02,BTC-USD,buy,0.5,97000\n');
const ROW = Buffer.from('2026-01-02,BTC-USD,buy,0.5,97000.25,"a note, quoted"\n');
/** 64 KiB of CSV rows per write. */
const CHUNK = Buffer.concat(Array.from({ length: Math.ceil(65_536 / ROW.length) }, () => ROW));

describe('server killed mid-upload', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'watos-kill-upload-'));
  const uploads = join(dataDir, 'uploads');
  const servers: ServerProcess[] = [];
  afterAll(() => {
    for (const server of servers)
      if (server.child.exitCode === null && server.child.signalCode === null) server.child.kill('SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
  });

  const folder = async () => {
    const names = await readdir(uploads).catch(() => [] as string[]);
    return {
      objects: names.filter((name) => !name.startsWith(TEMP_PREFIX)).sort(),
      temporaries: names.filter((name) => name.startsWith(TEMP_PREFIX)),
    };
  };

  async function uploadWhole(
    server: ServerProcess,
    session: HttpSession,
    userId: string,
    data: Buffer,
    filename: string,
  ): Promise<FileEntry> {
    const { body, contentType } = multipartBody([
      { name: 'user_id', value: userId },
      { name: 'file', filename, contentType: 'text/csv', data },
    ]);
    const response = await fetch(`${server.origin}/upload`, {
      method: 'POST',
      headers: { origin: server.origin, cookie: session.cookieHeader, 'content-type': contentType },
      body: new Uint8Array(body),
    });
    const answer = (await response.json()) as { success?: boolean; file?: FileEntry };
    expect(response.status, JSON.stringify(answer)).toBe(201);
    return answer.file!;
  }

  async function listed(server: ServerProcess, session: HttpSession): Promise<FileEntry[]> {
    const response = await fetch(`${server.origin}/files`, { headers: { cookie: session.cookieHeader } });
    expect(response.status).toBe(200);
    return ((await response.json()) as { files: FileEntry[] }).files;
  }

  it('leaves no row and no object, and a restart on the same DATA_DIR is clean', { timeout: 180_000 }, async () => {
    const first = await startServerProcess({ dataDir, env: { UPLOAD_MAX_MB: '50' }, startTimeoutMs: 120_000 });
    servers.push(first);
    const { session, userId } = await subscribeOverHttp(first.origin, 'killed-mid-upload@example.com');
    const kept = await uploadWhole(first, session, userId, TRADES_CSV, 'kept.csv');
    const before = await folder();
    expect(before.objects).toHaveLength(1);
    expect(before.temporaries).toEqual([]);

    // A 40 MB CSV, streamed; the server is killed once it has written a good part of it.
    const { head, contentType } = multipartHead({ user_id: userId }, { filename: 'big.csv', contentType: 'text/csv' });
    const upload = httpRequest(`${first.origin}/upload`, {
      method: 'POST',
      headers: {
        origin: first.origin,
        cookie: session.cookieHeader,
        'content-type': contentType,
        'transfer-encoding': 'chunked',
      },
    });
    const cut = new Promise<string>((resolve) => {
      upload.on('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
      upload.once('response', (response) => resolve(`answered ${response.statusCode}`));
    });
    upload.write(head);
    let sent = 0;
    let killed = false;
    const sending = (async () => {
      while (!killed && sent < 40 * 1024 * 1024) {
        sent += CHUNK.length;
        if (!upload.write(CHUNK)) await Promise.race([once(upload, 'drain'), cut]);
      }
    })();
    const temporary = await waitFor(
      async () => {
        const [name] = (await folder()).temporaries;
        const size = name ? ((await stat(join(uploads, name)).catch(() => null))?.size ?? 0) : 0;
        return size > 2 * 1024 * 1024 && name;
      },
      'the server to have written 2 MB of the upload',
      20_000,
    );
    first.child.kill('SIGKILL');
    killed = true;
    expect((await first.exited()).signal).toBe('SIGKILL');
    expect(await cut).not.toMatch(/^answered/);
    await sending;
    expect(sent).toBeLessThan(40 * 1024 * 1024);

    // What the dead process left: its temporary, and nothing under a final name.
    const afterKill = await folder();
    expect(afterKill.objects).toEqual(before.objects);
    expect(afterKill.temporaries).toEqual([temporary]);

    // Restart on the same directory: the embedded database opens without repair, the session
    // still holds, the temporary is gone, the earlier file is intact and listed alone.
    const second = await startServerProcess({ dataDir, env: { UPLOAD_MAX_MB: '50' }, startTimeoutMs: 120_000 });
    servers.push(second);
    const files = await listed(second, session);
    expect(files.map((file) => file.id)).toEqual([kept.id]);
    expect(
      await waitFor(async () => (await folder()).temporaries.length === 0, 'the sweep of the dead temporary', 20_000),
    ).toBe(true);
    expect((await folder()).objects).toEqual(before.objects);
    const download = await fetch(`${second.origin}${kept.url}`, { headers: { cookie: session.cookieHeader } });
    expect(download.status).toBe(200);
    expect(Buffer.from(await download.arrayBuffer()).equals(TRADES_CSV)).toBe(true);

    // And it takes new uploads; SIGTERM then stops it cleanly.
    const fresh = await uploadWhole(second, session, userId, TRADES_CSV, 'after-restart.csv');
    expect((await listed(second, session)).map((file) => file.id).sort()).toEqual([kept.id, fresh.id].sort());
    expect((await folder()).objects).toHaveLength(2);
    expect((await second.stop()).code).toBe(0);
  });
});
