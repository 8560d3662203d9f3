// @mailsvc/server as a library: embed the core in your own process (tests, a custom launcher).
// The `mailsvc` command is the usual way to run it (src/cli/main.ts).
export { buildApp, closeApp } from './api/app.js';
export { startDelivery } from './cli/worker.js';
export { type Config, ConfigError, loadConfig } from './config.js';
export { openRuntime, type Runtime } from './runtime.js';
