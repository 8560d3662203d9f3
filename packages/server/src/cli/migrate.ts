import { loadConfig } from '../config.js';
import { openDatabase } from '../db/connection.js';
import { describeConnectFailure } from '../db/errors.js';
import { migrate } from '../db/migrate.js';
import { StartupError } from '../startup-error.js';
import type { Io } from './main.js';

export async function runMigrate(_args: string[], io: Io): Promise<number> {
  const config = loadConfig();
  const database = await openDatabase({
    databaseUrl: config.DATABASE_URL,
    dataDir: config.dataDir,
    command: 'migrate',
  });
  try {
    const applied = await migrate(database.pool);
    io.stdout(applied.length ? `applied ${applied.join(', ')}` : 'database is up to date');
    return 0;
  } catch (err) {
    const failure = describeConnectFailure(database.location, err);
    throw failure ? new StartupError(failure) : err;
  } finally {
    await database.close().catch(() => {});
  }
}
