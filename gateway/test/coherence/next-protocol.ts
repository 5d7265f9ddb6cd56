// A gateway one coherence protocol ahead of this source, as a rolling update runs the next
// release beside this one: this very source, copied, with its protocol's name bumped. Its keys
// and channel are the next protocol's; everything else it does is this source's.
import assert from 'node:assert/strict';
import { cp, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));
/** Where the protocol is named (one line, `const PROTOCOL = 'catalog:<n>';`). */
const KEYS_FILE = join('gateway', 'src', 'redis', 'keys.ts');
const PROTOCOL_LINE = /^const PROTOCOL = 'catalog:(\d+)';$/m;

export interface NextProtocolSource {
  /** The CLI to start it with (startGatewayCli's `entry`). */
  readonly entry: string;
  /** This source's protocol and the copy's. */
  readonly protocols: readonly [current: string, next: string];
  remove(): Promise<void>;
}

/**
 * Copies gateway/src into a temporary tree beside links to the repository's node_modules and the
 * gateway's dist (the IDE's assets), and bumps the protocol there. Fails when the protocol is not
 * named where this expects it, so a renamed constant cannot quietly make two gateways of one protocol.
 */
export async function nextProtocolSource(): Promise<NextProtocolSource> {
  const root = await mkdtemp(join(tmpdir(), 'next-protocol-'));
  await cp(join(repoRoot, 'gateway', 'src'), join(root, 'gateway', 'src'), { recursive: true });
  await cp(join(repoRoot, 'gateway', 'package.json'), join(root, 'gateway', 'package.json'));
  await symlink(join(repoRoot, 'gateway', 'dist'), join(root, 'gateway', 'dist'));
  await symlink(join(repoRoot, 'node_modules'), join(root, 'node_modules'));
  const keysFile = join(root, KEYS_FILE);
  const source = await readFile(keysFile, 'utf8');
  const current = PROTOCOL_LINE.exec(source);
  assert.ok(current, `${KEYS_FILE} does not name its protocol as \`const PROTOCOL = 'catalog:<n>';\``);
  const next = Number(current[1]) + 1;
  await writeFile(keysFile, source.replace(PROTOCOL_LINE, `const PROTOCOL = 'catalog:${next}';`));
  return {
    entry: join(root, 'gateway', 'src', 'cli.ts'),
    protocols: [`catalog:${current[1]}`, `catalog:${next}`],
    remove: () => rm(root, { recursive: true, force: true }),
  };
}
