// When a long-running command stops: the first SIGINT or SIGTERM begins a graceful stop; any
// further one while it runs is ignored, so a signal delivered twice (a service manager signalling
// the whole process group, npx, `mailsvc start` passing on what it got, a second Ctrl+C) cannot cut
// the stop short and drop requests in flight. kill -9 still ends it at once.
import type { Io } from './main.js';

export function untilStopSignal(io: Io, name: string): Promise<void> {
  return new Promise<void>((resolve) => {
    let isStopping = false;
    const onSignal = (signal: NodeJS.Signals) => {
      if (isStopping) {
        io.stderr(`${name}: ${signal} while stopping: still stopping (kill -9 ends it at once)`);
        return;
      }
      isStopping = true;
      resolve();
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
  });
}
