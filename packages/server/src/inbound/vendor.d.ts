// Types for libmime (the Nodemailer project's MIME helpers), which ships none.
declare module 'libmime' {
  const libmime: {
    /** Decodes RFC 2047 encoded words in a header value. */
    decodeWords(str: string): string;
    /** `type/subtype; a=b` → its value (lower-cased by the caller) and parameters (RFC 2231 joined). */
    parseHeaderValue(str: string): { value: string; params: Record<string, string> };
  };
  export default libmime;
}
