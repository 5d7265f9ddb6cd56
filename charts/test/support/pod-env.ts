// A rendered container's environment and arguments as the kubelet hands them to the process:
// Secret references and the pod's name filled in, $(VAR) references expanded.

/** The values a pod's Secret references resolve to, by key. */
export type SecretValues = Record<string, string>;

/** Expands $(NAME) references to variables defined in `env`; unknown ones stay as written, as the kubelet leaves them. */
export function expandReferences(text: string, env: Record<string, string>): string {
  return text.replace(/\$\(([A-Za-z_][A-Za-z0-9_]*)\)/g, (reference, name: string) => env[name] ?? reference);
}

/**
 * The container's env entries in order, each expanded against those before it (the kubelet's
 * rule): literal values, Secret keys from `secrets` (an optional key that is absent is left
 * out), and metadata.name as `podName`; `overrides` replace values by name (a pod's DNS name by
 * an address of the test, say).
 */
export function containerEnv(
  container: { env?: any[] },
  secrets: SecretValues,
  podName: string,
  overrides: Record<string, string> = {},
): Record<string, string> {
  const env: Record<string, string> = {};
  for (const entry of container.env ?? []) {
    let value: string | undefined;
    if (entry.name in overrides) value = overrides[entry.name];
    else if ('value' in entry) value = expandReferences(String(entry.value), env);
    else if (entry.valueFrom?.secretKeyRef) {
      const { key, optional } = entry.valueFrom.secretKeyRef;
      if (!(key in secrets) && !optional) throw new Error(`${entry.name}: no test value for Secret key ${key}`);
      value = secrets[key];
    } else if (entry.valueFrom?.fieldRef?.fieldPath === 'metadata.name') value = podName;
    else throw new Error(`${entry.name}: unsupported env source ${JSON.stringify(entry.valueFrom)}`);
    if (value !== undefined) env[entry.name] = value;
  }
  return env;
}
