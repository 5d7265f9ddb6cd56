// Counts change capture's NOTIFYs (contract/sql/capture.sql) on a LISTENing connection of its own:
// what shows a claimer is woken only when it must be.
import pg from 'pg';
import { setTimeout as sleep } from 'node:timers/promises';
import { CATALOG_CHANGED_CHANNEL } from '@catalog/contract';

export interface CaptureNotifications {
  /** Notifications so far, those of every commit before the call included (sent at commit, before its answer). */
  received(): Promise<number>;
  close(): Promise<void>;
}

export async function listenForCaptureNotifications(databaseUrl: string): Promise<CaptureNotifications> {
  const listener = new pg.Client({ connectionString: databaseUrl });
  await listener.connect();
  let notifications = 0;
  listener.on('notification', (notification) => {
    if (notification.channel === CATALOG_CHANGED_CHANNEL) notifications += 1;
  });
  await listener.query(`LISTEN ${CATALOG_CHANGED_CHANNEL}`);
  return {
    async received() {
      // A round trip after the commits brings in what they sent.
      await sleep(50);
      await listener.query('SELECT 1');
      return notifications;
    },
    close: () => listener.end(),
  };
}
