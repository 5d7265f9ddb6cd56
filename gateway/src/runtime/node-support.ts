/**
 * Which Node the gateway runs on, decided before anything else loads: this module imports
 * nothing, so a Node that cannot link the gateway (below 20.12, `node:crypto` has no `hash`)
 * still gets a reason instead of a linker error.
 *
 * The policy: the image's Node (24, tested by the whole suite) and Node 22 are supported, as
 * Active and Maintenance LTS lines; Node 20 from 20.12, and release lines nothing tests (odd,
 * newer), run with a warning (20 is end of life since 2026-04-30); anything older is refused.
 */
export const SUPPORTED_NODE_LINES = [22, 24] as const;
/** The oldest Node the gateway can link on at all. */
export const MINIMUM_NODE = '20.12.0';

export type NodeSupport =
  { verdict: 'supported'; message: string } | { verdict: 'unsupported'; message: string } | { verdict: 'refused'; message: string };

const parse = (version: string): [number, number, number] => {
  const [major = 0, minor = 0, patch = 0] = version.replace(/^v/, '').split('.').map(Number);
  return [major, minor, patch];
};

const atLeast = (version: string, minimum: string): boolean => {
  const [a, b] = [parse(version), parse(minimum)];
  for (let index = 0; index < 3; index += 1) if (a[index] !== b[index]) return a[index]! > b[index]!;
  return true;
};

/** The verdict on `version` (`process.version` by default), with the line to print. */
export function nodeSupport(version: string = process.version): NodeSupport {
  const [major] = parse(version);
  const supported = `supported: Node ${SUPPORTED_NODE_LINES.join(' and ')} (LTS)`;
  if ((SUPPORTED_NODE_LINES as readonly number[]).includes(major)) {
    return { verdict: 'supported', message: `running on Node ${version}; ${supported}` };
  }
  if (!atLeast(version, MINIMUM_NODE)) {
    return {
      verdict: 'refused',
      message: `catalog-gateway cannot run on Node ${version}: it needs at least ${MINIMUM_NODE} (node:crypto's hash()); ${supported}`,
    };
  }
  if (major % 2 === 1 || major > Math.max(...SUPPORTED_NODE_LINES)) {
    return { verdict: 'unsupported', message: `running on Node ${version}, a release line nothing tests; ${supported}` };
  }
  return { verdict: 'unsupported', message: `running on Node ${version}, end of life and not tested; ${supported}` };
}
