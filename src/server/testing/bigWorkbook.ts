// Large xlsx workbooks for the spreadsheet-reading tests and bench/spreadsheet.bench.ts,
// generated here (nothing downloaded): a hand-built zip whose worksheet XML is written row by
// row into a streaming deflate, so a workbook that unpacks to ~200 MB is made without ever
// holding its XML. Rows look like a trade log (date, symbol, side, quantity, price, notional,
// note), with pseudo-random figures so the archive compresses about as well as real data.
import { constants, crc32, createDeflateRaw, deflateRawSync } from 'node:zlib';

export interface BigWorkbookOptions {
  /** Unpacked size of the worksheet XML to reach, roughly (the last row crosses it). */
  sheetBytes: number;
  /** Shared strings beyond the few the rows use (to make sharedStrings.xml itself large). */
  extraSharedStrings?: number;
  /** zlib level; 1 makes a larger archive faster, 6 is what Excel-like tools produce. */
  level?: number;
}

export interface BigWorkbook {
  data: Buffer;
  /** Data rows of the sheet (after the header row). */
  dataRows: number;
  unpackedBytes: number;
}

const SYMBOLS = ['BTC-USD', 'ETH-USD', 'SOL-USD', 'XRP-USD', 'ADA-USD', 'DOGE-USD', 'buy', 'sell', 'filled', 'partial'];
const HEADER = ['Date', 'Symbol', 'Side', 'Quantity', 'Price', 'Notional', 'Note'];
const XML_HEAD = '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n';
const MAIN_NS = 'http://schemas.openxmlformats.org/spreadsheetml/2006/main';
const REL_NS = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';

/** The cell texts of data row `index` as the reader should show them. */
export function bigWorkbookRow(index: number): string[] {
  const figures = rowFigures(index);
  const date = new Date(Date.UTC(2026, 0, 1) + (index % 3650) * 86_400_000).toISOString().slice(0, 10);
  return [
    date,
    SYMBOLS[index % 6]!,
    SYMBOLS[6 + (index % 2)]!,
    String(figures.quantity),
    String(figures.price),
    String(figures.notional),
    SYMBOLS[8 + (index % 2)]!,
  ];
}

function rowFigures(index: number) {
  // A cheap deterministic hash: varied digits, as real prices and sizes are.
  const mixed = Math.imul(index ^ 0x9e3779b9, 0x85ebca6b) >>> 0;
  const quantity = (mixed % 2000) / 100;
  const price = 97_000 + (index % 500) * 0.25;
  return { quantity, price, notional: Math.round(quantity * price * 100) / 100 };
}

function rowXml(index: number): string {
  const r = index + 2;
  const { quantity, price, notional } = rowFigures(index);
  const serial = 46023 + (index % 3650); // 2026-01-01 onwards, shown as a date by style 1
  return (
    `<row r="${r}"><c r="A${r}" s="1"><v>${serial}</v></c><c r="B${r}" t="s"><v>${7 + (index % 6)}</v></c>` +
    `<c r="C${r}" t="s"><v>${13 + (index % 2)}</v></c><c r="D${r}"><v>${quantity}</v></c><c r="E${r}"><v>${price}</v></c>` +
    `<c r="F${r}"><v>${notional}</v></c><c r="G${r}" t="s"><v>${15 + (index % 2)}</v></c></row>`
  );
}

interface Entry {
  name: string;
  chunks: () => Iterable<string>;
}

async function deflateEntry(entry: Entry, level: number): Promise<{ data: Buffer; crc: number; size: number }> {
  const deflate = createDeflateRaw({ level, memLevel: 9, strategy: constants.Z_DEFAULT_STRATEGY });
  const parts: Buffer[] = [];
  deflate.on('data', (chunk: Buffer) => parts.push(chunk));
  const finished = new Promise<void>((resolve, reject) => {
    deflate.on('end', resolve);
    deflate.on('error', reject);
  });
  let crc = 0;
  let size = 0;
  let pending: string[] = [];
  let pendingLength = 0;
  const flush = async () => {
    const chunk = Buffer.from(pending.join(''));
    pending = [];
    pendingLength = 0;
    crc = crc32(chunk, crc);
    size += chunk.length;
    if (!deflate.write(chunk)) await new Promise((resolve) => deflate.once('drain', resolve));
  };
  for (const text of entry.chunks()) {
    pending.push(text);
    pendingLength += text.length;
    if (pendingLength >= 256 * 1024) await flush();
  }
  await flush();
  deflate.end();
  await finished;
  return { data: Buffer.concat(parts), crc, size };
}

function zip(files: Array<{ name: string; data: Buffer; crc: number; size: number }>): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const file of files) {
    const name = Buffer.from(file.name, 'utf8');
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(8, 8);
    local.writeUInt16LE(0x21, 12);
    local.writeUInt32LE(file.crc >>> 0, 14);
    local.writeUInt32LE(file.data.length, 18);
    local.writeUInt32LE(file.size, 22);
    local.writeUInt16LE(name.length, 26);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(8, 10);
    central.writeUInt16LE(0x21, 14);
    central.writeUInt32LE(file.crc >>> 0, 16);
    central.writeUInt32LE(file.data.length, 20);
    central.writeUInt32LE(file.size, 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt32LE(offset, 42);
    locals.push(local, name, file.data);
    centrals.push(central, name);
    offset += local.length + name.length + file.data.length;
  }
  const directory = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(files.length, 8);
  end.writeUInt16LE(files.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directory, end]);
}

const small = (name: string, text: string) => {
  const data = Buffer.from(text);
  return { name, data: deflateRawSync(data), crc: crc32(data), size: data.length };
};

/** A one-sheet 'Trades' workbook whose worksheet XML unpacks to about `sheetBytes`. */
export async function bigWorkbook(options: BigWorkbookOptions): Promise<BigWorkbook> {
  const level = options.level ?? 6;
  let dataRows = 0;
  const sheet: Entry = {
    name: 'xl/worksheets/sheet1.xml',
    *chunks() {
      let written = 0;
      const head =
        `${XML_HEAD}<worksheet xmlns="${MAIN_NS}" xmlns:r="${REL_NS}"><dimension ref="A1:G2"/><sheetData>` +
        `<row r="1">${HEADER.map((_, column) => `<c r="${String.fromCharCode(65 + column)}1" t="s"><v>${column}</v></c>`).join('')}</row>`;
      yield head;
      written += head.length;
      while (written < options.sheetBytes) {
        const batch: string[] = [];
        for (let i = 0; i < 1000; i += 1) batch.push(rowXml(dataRows++));
        const text = batch.join('');
        written += text.length;
        yield text;
      }
      yield '</sheetData></worksheet>';
    },
  };
  const extra = options.extraSharedStrings ?? 0;
  const strings: Entry = {
    name: 'xl/sharedStrings.xml',
    *chunks() {
      const all = [...HEADER, ...SYMBOLS];
      yield `${XML_HEAD}<sst xmlns="${MAIN_NS}" count="${all.length + extra}" uniqueCount="${all.length + extra}">`;
      yield all.map((text) => `<si><t>${text}</t></si>`).join('');
      for (let start = 0; start < extra; start += 1000) {
        const batch: string[] = [];
        for (let i = start; i < Math.min(extra, start + 1000); i += 1)
          batch.push(`<si><t>unused note ${i} ${rowFigures(i).price}</t></si>`);
        yield batch.join('');
      }
      yield '</sst>';
    },
  };
  const sheetPart = await deflateEntry(sheet, level);
  const stringsPart = await deflateEntry(strings, level);
  const files = [
    small(
      '[Content_Types].xml',
      `${XML_HEAD}<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/><Override PartName="/xl/worksheets/sheet1.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/><Override PartName="/xl/styles.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.styles+xml"/><Override PartName="/xl/sharedStrings.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sharedStrings+xml"/></Types>`,
    ),
    small(
      '_rels/.rels',
      `${XML_HEAD}<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="${REL_NS}/officeDocument" Target="xl/workbook.xml"/></Relationships>`,
    ),
    small(
      'xl/workbook.xml',
      `${XML_HEAD}<workbook xmlns="${MAIN_NS}" xmlns:r="${REL_NS}"><sheets><sheet name="Trades" sheetId="1" r:id="rId1"/></sheets></workbook>`,
    ),
    small(
      'xl/_rels/workbook.xml.rels',
      `${XML_HEAD}<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="${REL_NS}/worksheet" Target="worksheets/sheet1.xml"/><Relationship Id="rId2" Type="${REL_NS}/styles" Target="styles.xml"/><Relationship Id="rId3" Type="${REL_NS}/sharedStrings" Target="sharedStrings.xml"/></Relationships>`,
    ),
    small(
      'xl/styles.xml',
      `${XML_HEAD}<styleSheet xmlns="${MAIN_NS}"><numFmts count="0"/><fonts count="1"><font/></fonts><fills count="1"><fill/></fills><borders count="1"><border/></borders><cellStyleXfs count="1"><xf numFmtId="0"/></cellStyleXfs><cellXfs count="2"><xf numFmtId="0" xfId="0"/><xf numFmtId="14" xfId="0" applyNumberFormat="1"/></cellXfs></styleSheet>`,
    ),
    { name: 'xl/sharedStrings.xml', ...stringsPart },
    { name: 'xl/worksheets/sheet1.xml', ...sheetPart },
  ];
  const unpackedBytes = files.reduce((total, file) => total + file.size, 0);
  return { data: zip(files), dataRows, unpackedBytes };
}
