// Line ends on the wire are CRLF (RFC 5322 §2.3, RFC 5321 §2.3.8). Our own MIME is CRLF throughout;
// anything else (a bare CR or LF) is made CRLF before it is signed and sent.

/** Whether every CR is followed by LF and every LF preceded by CR (native scans, no copy). */
export function isCrlfOnly(buf: Buffer): boolean {
  let lf = 0;
  for (let i = buf.indexOf(10); i !== -1; i = buf.indexOf(10, i + 1)) {
    if (i === 0 || buf[i - 1] !== 13) return false;
    lf++;
  }
  let cr = 0;
  for (let i = buf.indexOf(13); i !== -1; i = buf.indexOf(13, i + 1)) cr++;
  // every LF has its own CR before it, so equal counts leave no CR without an LF
  return cr === lf;
}

/** `buf` with every line end CRLF; `buf` itself when it is already. */
export function toCrlf(buf: Buffer): Buffer {
  return isCrlfOnly(buf) ? buf : Buffer.from(buf.toString('latin1').replace(/\r\n|\r|\n/g, '\r\n'), 'latin1');
}
