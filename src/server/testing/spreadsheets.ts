// Test files for My Stuff: real xlsx workbooks (exceljs), legacy-xls-shaped bytes, hand-built
// zip archives (including zip bombs, honest and lying about their size), and multipart
// bodies as a browser sends them.
import { randomBytes } from 'node:crypto';
import { crc32, createDeflateRaw } from 'node:zlib';
import ExcelJS from 'exceljs';

export async function xlsxWorkbook(sheets: Record<string, Array<Array<string | number>>>): Promise<Buffer> {
  const book = new ExcelJS.Workbook();
  for (const [name, rows] of Object.entries(sheets)) {
    const sheet = book.addWorksheet(name);
    for (const row of rows) sheet.addRow(row);
  }
  return Buffer.from(await book.xlsx.writeBuffer());
}

/** Bytes that start like an Excel 97-2003 workbook (OLE2 signature). */
export function legacyXlsBytes(): Buffer {
  return Buffer.concat([
    Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]),
    Buffer.alloc(504),
    randomBytes(1024),
  ]);
}

export interface ZipEntry {
  name: string;
  /** Uncompressed content, or a count of zero bytes (deflated in a stream, never held whole). */
  content: Buffer | { zeros: number };
  /** Size to declare in the headers instead of the true one (a lying zip bomb). */
  declaredSize?: number;
}

async function deflateEntry(content: ZipEntry['content']): Promise<{ data: Buffer; crc: number; size: number }> {
  const deflate = createDeflateRaw({ level: 9 });
  const chunks: Buffer[] = [];
  deflate.on('data', (chunk: Buffer) => chunks.push(chunk));
  const finished = new Promise<void>((resolve, reject) => {
    deflate.on('end', resolve);
    deflate.on('error', reject);
  });
  let crc = 0;
  let size = 0;
  const write = async (chunk: Buffer) => {
    crc = crc32(chunk, crc);
    size += chunk.length;
    if (!deflate.write(chunk)) await new Promise((resolve) => deflate.once('drain', resolve));
  };
  if (Buffer.isBuffer(content)) await write(content);
  else {
    const block = Buffer.alloc(1024 * 1024);
    for (let left = content.zeros; left > 0; left -= block.length)
      await write(left >= block.length ? block : block.subarray(0, left));
  }
  deflate.end();
  await finished;
  return { data: Buffer.concat(chunks), crc, size };
}

/** A zip archive (deflate) of the entries, written by hand so tests control every header. */
export async function zipArchive(entries: ZipEntry[]): Promise<Buffer> {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const entry of entries) {
    const { data, crc, size } = await deflateEntry(entry.content);
    const declared = entry.declaredSize ?? size;
    const name = Buffer.from(entry.name, 'utf8');
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(0, 6);
    local.writeUInt16LE(8, 8);
    local.writeUInt16LE(0, 10);
    local.writeUInt16LE(0x21, 12);
    local.writeUInt32LE(crc >>> 0, 14);
    local.writeUInt32LE(data.length, 18);
    local.writeUInt32LE(declared, 22);
    local.writeUInt16LE(name.length, 26);
    local.writeUInt16LE(0, 28);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(0, 8);
    central.writeUInt16LE(8, 10);
    central.writeUInt16LE(0, 12);
    central.writeUInt16LE(0x21, 14);
    central.writeUInt32LE(crc >>> 0, 16);
    central.writeUInt32LE(data.length, 20);
    central.writeUInt32LE(declared, 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt32LE(offset, 42);
    locals.push(local, name, data);
    centrals.push(central, name);
    offset += local.length + name.length + data.length;
  }
  const directory = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directory, end]);
}

/** An xlsx-shaped archive whose worksheet unpacks to `unpackedBytes` of zeros. */
export function zipBomb(unpackedBytes: number, options: { lieAboutSize?: boolean } = {}): Promise<Buffer> {
  return zipArchive([
    { name: '[Content_Types].xml', content: Buffer.from('<Types/>') },
    {
      name: 'xl/workbook.xml',
      content: Buffer.from('<workbook><sheets><sheet name="Data" sheetId="1"/></sheets></workbook>'),
    },
    {
      name: 'xl/worksheets/sheet1.xml',
      content: { zeros: unpackedBytes },
      declaredSize: options.lieAboutSize ? 1024 : undefined,
    },
  ]);
}

export type MultipartPart =
  { name: string; value: string } | { name: string; filename: string; contentType: string; data: Buffer };

/** A multipart/form-data body as a browser builds it from FormData, parts in the given order. */
export function multipartBody(parts: MultipartPart[]): { body: Buffer; contentType: string } {
  const boundary = `----WatosTestBoundary${randomBytes(8).toString('hex')}`;
  const chunks: Buffer[] = [];
  for (const part of parts) {
    if ('value' in part) {
      chunks.push(
        Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${part.name}"\r\n\r\n${part.value}\r\n`),
      );
    } else {
      const filename = part.filename.replace(/"/g, '%22');
      chunks.push(
        Buffer.from(
          `--${boundary}\r\nContent-Disposition: form-data; name="${part.name}"; filename="${filename}"\r\nContent-Type: ${part.contentType}\r\n\r\n`,
        ),
      );
      chunks.push(part.data, Buffer.from('\r\n'));
    }
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return { body: Buffer.concat(chunks), contentType: `multipart/form-data; boundary=${boundary}` };
}

/** The opening of a multipart body with one file part whose content follows (for streaming tests). */
export function multipartHead(
  fields: Record<string, string>,
  file: { filename: string; contentType: string },
): { head: Buffer; tail: Buffer; contentType: string } {
  const boundary = `----WatosTestBoundary${randomBytes(8).toString('hex')}`;
  const fieldText = Object.entries(fields)
    .map(([name, value]) => `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`)
    .join('');
  const head = Buffer.from(
    `${fieldText}--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${file.filename}"\r\nContent-Type: ${file.contentType}\r\n\r\n`,
  );
  return {
    head,
    tail: Buffer.from(`\r\n--${boundary}--\r\n`),
    contentType: `multipart/form-data; boundary=${boundary}`,
  };
}
