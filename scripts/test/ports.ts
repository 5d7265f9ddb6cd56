import getPort from 'get-port';

/** A free loopback port (get-port also never hands out the same one twice within seconds). */
export const freePort = (): Promise<number> => getPort({ host: '127.0.0.1' });
