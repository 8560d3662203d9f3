// The address rules live in @mailsvc/contract/email and the display-name rule in
// @mailsvc/contract/display-name, so the wrapper applies the same ones without depending on the
// server.
export { checkDisplayName } from '@mailsvc/contract/display-name';
export { isEmail, maskEmail, type ParsedEmail, parseDomain, parseEmail } from '@mailsvc/contract/email';
