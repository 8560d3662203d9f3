// @mailsvc/wrapper: one POST route per template, forwarding to the core POST /v1/send.
// The Firebase entry (../firebase/index.ts, the Firebase kit) is not exported here, so importing
// the wrapper never needs firebase-functions.
export {
  type AppCheckResult,
  type AppCheckVerifier,
  FirebaseAdminMissingError,
  firebaseAppCheckVerifier,
} from './app-check.js';
export {
  AnonymousAccessError,
  checkAnonymousAccess,
  loadWrapperConfig,
  localWrapperConfig,
  type WrapperConfig,
  WrapperConfigError,
  wrapperConfigFrom,
  wrapperSpec,
} from './config.js';
export { coreErrorHandling, type WrapperErrorCode, wrapperErrors } from './errors.js';
export { type CoreReply, type CoreSendBody, createForwarder, type Forwarder } from './forward.js';
export { linkProblems } from './links.js';
export { createWrapperLogger } from './logger.js';
export { buildOpenApi } from './openapi.js';
export {
  BODY_LIMIT,
  createRouter,
  type RouterOptions,
  recipientLimitKey,
  routePathOf,
  type WrapperRequest,
  type WrapperResponse,
  type WrapperRouter,
} from './router.js';
export { type TemplateRoute, templateRoutes } from './routes.js';
export { type RunningWrapper, type StartWrapperOptions, startWrapperServer } from './server.js';
