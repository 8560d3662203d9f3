// A CSV reader for files chosen in the browser (RFC 4180): fields separated by commas, records by
// CRLF or LF (a lone CR too); a field in double quotes may hold commas, line breaks and doubled
// quotes (""). A byte order mark is ignored. Lenient where the RFC is silent: a quote inside an
// unquoted field, or text after a closing quote, is kept as it is.

export class CsvError extends Error {}

interface Cursor {
  text: string;
  at: number;
}

/** A quoted field from the opening quote at `c.at`; leaves `c.at` after the closing quote. */
function quotedField(c: Cursor, record: number): string {
  let out = '';
  let from = c.at + 1;
  for (;;) {
    const quote = c.text.indexOf('"', from);
    if (quote === -1)
      throw new CsvError(`row ${record}: a quoted field is not closed before the end of the file`);
    out += c.text.slice(from, quote);
    if (c.text[quote + 1] === '"') {
      out += '"';
      from = quote + 2;
      continue;
    }
    c.at = quote + 1;
    return out;
  }
}

/** The rest of a field up to the next comma or line break (or the end). */
function plainField(c: Cursor): string {
  const from = c.at;
  const { text } = c;
  while (c.at < text.length) {
    const ch = text.charCodeAt(c.at);
    if (ch === 44 || ch === 10 || ch === 13) break; // , \n \r
    c.at++;
  }
  return text.slice(from, c.at);
}

/**
 * Every record of the file, in order, as its fields. A blank line is a record of one empty field
 * (kept, so that record numbers match the file's rows); a final line break adds no record.
 */
export function parseCsv(input: string): string[][] {
  const c: Cursor = { text: input.charCodeAt(0) === 0xfeff ? input.slice(1) : input, at: 0 };
  const { text } = c;
  const records: string[][] = [];
  let fields: string[] = [];
  while (c.at < text.length) {
    let field = text[c.at] === '"' ? quotedField(c, records.length + 1) : '';
    field += plainField(c);
    fields.push(field);
    const ch = text[c.at];
    if (ch === ',') {
      c.at++;
      if (c.at === text.length) fields.push('');
      continue;
    }
    // A line break or the end of the text ends the record.
    records.push(fields);
    fields = [];
    if (ch === '\r' && text[c.at + 1] === '\n') c.at += 2;
    else if (ch !== undefined) c.at++;
  }
  if (fields.length > 0) records.push(fields); // the text ended after a comma
  return records;
}
