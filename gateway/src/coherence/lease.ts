/** How long a lease lasts, by each process's monotonic clock: the longest a write waits for a member that does not answer. */
export const LEASE_MS = 1_000;

/** Taken off the local lease: timers fire late, and one process's clock may run a little fast against another's. */
export const LEASE_MARGIN_MS = 50;
