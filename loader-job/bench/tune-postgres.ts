import pg from 'pg';
import type { PostgresServer } from '../../scripts/test/postgres.js';

/** Bulk-load settings a dedicated loading server would have; both contenders run under them. */
const SETTINGS: Record<string, string> = {
  shared_buffers: '1GB',
  max_wal_size: '16GB',
  checkpoint_timeout: '30min',
  wal_buffers: '64MB',
  max_parallel_maintenance_workers: '2',
};

export async function tuneForBulkLoads(postgres: PostgresServer): Promise<void> {
  const client = new pg.Client({ connectionString: postgres.adminUrl });
  await client.connect();
  try {
    for (const [name, value] of Object.entries(SETTINGS)) await client.query(`ALTER SYSTEM SET ${name} = '${value}'`);
  } finally {
    await client.end();
  }
  // shared_buffers and wal_buffers only change on restart.
  await postgres.stop();
  await postgres.start();
}
