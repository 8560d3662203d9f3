/** A reason a command cannot start, printed as one line (exit 1) instead of a stack trace. */
export class StartupError extends Error {}
