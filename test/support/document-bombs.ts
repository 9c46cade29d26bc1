import { Readable } from 'node:stream';
import { buffer } from 'node:stream/consumers';
import { constants, createDeflate } from 'node:zlib';
import yazl from 'yazl';

/**
 * Decompression bombs as an attacker builds them (issue 49): small files whose compressed parts
 * inflate to hundreds of megabytes. Made by streaming, so building one never holds what it
 * inflates to. Both are otherwise well-formed: a reader that does not bound what it inflates
 * reads them for real.
 */

const MB = 1024 * 1024;

/** `total` bytes of `unit` repeated, in chunks of about 1 MB. */
function repeated(unit: string, total: number, head = '', foot = ''): Readable {
  const chunk = unit.repeat(Math.max(1, Math.floor(MB / unit.length)));
  let sent = 0;
  return Readable.from(
    (function* () {
      yield head;
      while (sent < total) {
        yield chunk;
        sent += chunk.length;
      }
      yield foot;
    })(),
  );
}

const CONTENT_TYPES = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>`;
const RELS = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>`;
const DOC_HEAD = '<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>';
const DOC_FOOT = '</w:body></w:document>';

/** A DOCX whose word/document.xml inflates to about `inflatedMb` MB of one-letter paragraphs (270 MB: ~8 million). */
export async function docxBomb(inflatedMb = 270): Promise<Buffer> {
  const zip = new yazl.ZipFile();
  zip.addBuffer(Buffer.from(CONTENT_TYPES), '[Content_Types].xml');
  zip.addBuffer(Buffer.from(RELS), '_rels/.rels');
  zip.addReadStream(repeated('<w:p><w:r><w:t>a</w:t></w:r></w:p>', inflatedMb * MB, DOC_HEAD, DOC_FOOT), 'word/document.xml');
  zip.end();
  return buffer(zip.outputStream);
}

/** A one-page PDF whose content stream inflates to about `inflatedMb` MB of text-drawing operators. */
export async function pdfBomb(inflatedMb = 585): Promise<Buffer> {
  const deflate = createDeflate({ level: constants.Z_BEST_COMPRESSION });
  const stream = await buffer(repeated('BT /F1 12 Tf 72 720 Td (a) Tj ET\n', inflatedMb * MB).pipe(deflate));
  return pdfWithContent(stream);
}

/** A well-formed one-page PDF (Helvetica) whose page content is `compressed`, a Flate stream. */
export function pdfWithContent(compressed: Buffer): Buffer {
  const objects: Buffer[] = [
    Buffer.from('<< /Type /Catalog /Pages 2 0 R >>'),
    Buffer.from('<< /Type /Pages /Kids [3 0 R] /Count 1 >>'),
    Buffer.from('<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>'),
    Buffer.concat([Buffer.from(`<< /Length ${compressed.length} /Filter /FlateDecode >>\nstream\n`), compressed, Buffer.from('\nendstream')]),
    Buffer.from('<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>'),
  ];
  const parts: Buffer[] = [Buffer.from('%PDF-1.7\n')];
  const offsets: number[] = [];
  let at = parts[0]!.length;
  objects.forEach((body, i) => {
    const obj = Buffer.concat([Buffer.from(`${i + 1} 0 obj\n`), body, Buffer.from('\nendobj\n')]);
    offsets.push(at);
    parts.push(obj);
    at += obj.length;
  });
  const xref = [`xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`, ...offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`)].join('');
  parts.push(Buffer.from(`${xref}trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${at}\n%%EOF\n`));
  return Buffer.concat(parts);
}
