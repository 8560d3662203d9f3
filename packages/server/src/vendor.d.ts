// Types for libmime (the Nodemailer project's MIME helpers), which ships none: what the inbound
// parser (reading) and the MIME builder (writing) use of it.
declare module 'libmime' {
  const libmime: {
    /** Decodes RFC 2047 encoded words in a header value. */
    decodeWords(str: string): string;
    /** `type/subtype; a=b` → its value (lower-cased by the caller) and parameters (RFC 2231 joined). */
    parseHeaderValue(str: string): { value: string; params: Record<string, string> };
    /** The whole value as RFC 2047 encoded words of at most `maxLength` characters each. */
    encodeWord(data: string, mimeWordEncoding: 'Q' | 'B', maxLength?: number): string;
    /** Only the words with non-ASCII characters encoded. */
    encodeWords(data: string, mimeWordEncoding: 'Q' | 'B', maxLength?: number): string;
    /** A header line folded at `lineLength` columns. */
    foldLines(str: string, lineLength?: number, afterSpace?: boolean): string;
  };
  export default libmime;
}
