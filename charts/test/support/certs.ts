import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runOk } from '../../../scripts/test/process.js';
import { requireTool } from './tools.js';

export interface KeyPair {
  cert: string;
  key: string;
}

/** Every certificate and key the test control plane needs, as file paths. */
export interface ClusterCertificates {
  ca: KeyPair;
  apiserver: KeyPair;
  serviceAccountKey: string;
  serviceAccountPublicKey: string;
  clients: Record<ClientName, KeyPair>;
}

export type ClientName = 'admin' | 'controller-manager' | 'scheduler' | 'kwok' | 'front-proxy';

/** Identities the API server's RBAC knows: built-in users for the control plane components. */
const CLIENT_SUBJECTS: Record<ClientName, string> = {
  admin: '/O=system:masters/CN=catalog-test-admin',
  'controller-manager': '/CN=system:kube-controller-manager',
  scheduler: '/CN=system:kube-scheduler',
  kwok: '/O=system:masters/CN=kwok',
  // The API server's identity towards aggregated APIs (metrics-server), by its request headers.
  'front-proxy': '/CN=front-proxy-client',
};

/** The first IP of the service range, which in-cluster clients reach the API server by. */
export const KUBERNETES_SERVICE_IP = '10.96.0.1';

/** A fresh CA (valid two days), a serving cert for 127.0.0.1 and client certs, made by openssl. */
export async function createClusterCertificates(dir: string): Promise<ClusterCertificates> {
  const openssl = requireTool('openssl', 'openssl');
  const file = (name: string) => join(dir, name);
  const newEcKey = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];

  const ca = { cert: file('ca.crt'), key: file('ca.key') };
  await runOk(openssl, [
    'req',
    '-x509',
    ...newEcKey,
    '-keyout',
    ca.key,
    '-out',
    ca.cert,
    '-days',
    '2',
    '-subj',
    '/CN=catalog-gateway-test-ca',
  ]);

  const issue = async (name: string, subject: string, extensions: string): Promise<KeyPair> => {
    const pair = { cert: file(`${name}.crt`), key: file(`${name}.key`) };
    writeFileSync(file(`${name}.ext`), extensions);
    await runOk(openssl, ['req', '-new', ...newEcKey, '-keyout', pair.key, '-out', file(`${name}.csr`), '-subj', subject]);
    await runOk(openssl, [
      'x509',
      '-req',
      '-in',
      file(`${name}.csr`),
      '-CA',
      ca.cert,
      '-CAkey',
      ca.key,
      '-CAcreateserial',
      '-out',
      pair.cert,
      '-days',
      '2',
      '-extfile',
      file(`${name}.ext`),
    ]);
    return pair;
  };

  const apiserver = await issue(
    'apiserver',
    '/CN=kube-apiserver',
    [
      'keyUsage = critical, digitalSignature, keyEncipherment',
      'extendedKeyUsage = serverAuth',
      'subjectAltName = IP:127.0.0.1, DNS:localhost, DNS:kubernetes, DNS:kubernetes.default, ' +
        `DNS:kubernetes.default.svc, IP:${KUBERNETES_SERVICE_IP}`,
    ].join('\n'),
  );

  const clients = {} as Record<ClientName, KeyPair>;
  for (const [name, subject] of Object.entries(CLIENT_SUBJECTS) as [ClientName, string][]) {
    clients[name] = await issue(
      name,
      subject,
      ['keyUsage = critical, digitalSignature, keyEncipherment', 'extendedKeyUsage = clientAuth'].join('\n'),
    );
  }

  const serviceAccountKey = file('service-account.key');
  const serviceAccountPublicKey = file('service-account.pub');
  await runOk(openssl, ['genpkey', '-algorithm', 'RSA', '-pkeyopt', 'rsa_keygen_bits:2048', '-out', serviceAccountKey]);
  await runOk(openssl, ['pkey', '-in', serviceAccountKey, '-pubout', '-out', serviceAccountPublicKey]);

  return { ca, apiserver, serviceAccountKey, serviceAccountPublicKey, clients };
}

/**
 * The kube-apiserver flags both test clusters share: serving and client certificates, service
 * account tokens, the Service range and RBAC.
 */
export function apiServerSecurityFlags(certs: ClusterCertificates, serviceCidr: string): string[] {
  return [
    `--tls-cert-file=${certs.apiserver.cert}`,
    `--tls-private-key-file=${certs.apiserver.key}`,
    `--client-ca-file=${certs.ca.cert}`,
    '--service-account-issuer=https://kubernetes.default.svc',
    `--service-account-key-file=${certs.serviceAccountPublicKey}`,
    `--service-account-signing-key-file=${certs.serviceAccountKey}`,
    `--service-cluster-ip-range=${serviceCidr}`,
    '--authorization-mode=Node,RBAC',
  ];
}
