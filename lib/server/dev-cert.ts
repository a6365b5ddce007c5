// Throw-away certificates for `serve --dev` and for tests: a self-signed CA and a serving certificate it signs for
// 127.0.0.1, ::1 and localhost, ECDSA P-256 (the cheapest to generate and to handshake). Generated with
// @peculiar/x509 over Node's WebCrypto, loaded only when first used so the daemon never loads it otherwise.
import { webcrypto } from 'node:crypto';
import { isIP } from 'node:net';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

type X509 = typeof import('@peculiar/x509');

let x509Module: Promise<X509> | undefined;
function loadX509(): Promise<X509> {
  x509Module ??= import('@peculiar/x509').then((m) => {
    m.cryptoProvider.set(webcrypto as unknown as Parameters<typeof m.cryptoProvider.set>[0]);
    return m;
  });
  return x509Module;
}

const ecdsa = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;
const clockSkewMs = 5 * 60_000;
const dayMs = 86_400_000;

/** A PEM certificate and its PEM (PKCS#8) private key. */
export interface CertificateAndKey {
  readonly certPEM: string;
  readonly keyPEM: string;
}

export interface CertificateAuthority extends CertificateAndKey {
  /** issues a certificate signed by this CA */
  issue(options: IssueOptions): Promise<CertificateAndKey>;
}

export interface IssueOptions {
  readonly commonName: string;
  /** IP addresses and DNS names for the subjectAltName extension */
  readonly hosts?: readonly string[];
  /** serverAuth (default) or clientAuth */
  readonly usage?: 'server' | 'client';
  readonly validityDays?: number;
}

function randomSerial(): string {
  const bytes = webcrypto.getRandomValues(new Uint8Array(16));
  bytes[0] = bytes[0]! & 0x7f; // positive
  return Buffer.from(bytes).toString('hex');
}

async function keyPEM(x509: X509, key: webcrypto.CryptoKey): Promise<string> {
  return x509.PemConverter.encode(await webcrypto.subtle.exportKey('pkcs8', key), 'PRIVATE KEY');
}

/** Creates a self-signed CA (ECDSA P-256, basicConstraints CA:TRUE pathlen 0). */
export async function createCertificateAuthority(commonName: string, validityDays = 365): Promise<CertificateAuthority> {
  const x509 = await loadX509();
  const keys = await webcrypto.subtle.generateKey(ecdsa, true, ['sign', 'verify']);
  const now = Date.now();
  const cert = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: randomSerial(),
    name: `CN=${commonName}`,
    notBefore: new Date(now - clockSkewMs),
    notAfter: new Date(now + validityDays * dayMs),
    signingAlgorithm: ecdsa,
    keys,
    extensions: [
      new x509.BasicConstraintsExtension(true, 0, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
    ],
  });
  return {
    certPEM: cert.toString('pem') + '\n',
    keyPEM: await keyPEM(x509, keys.privateKey),
    async issue(options: IssueOptions): Promise<CertificateAndKey> {
      const leafKeys = await webcrypto.subtle.generateKey(ecdsa, true, ['sign', 'verify']);
      const issuedAt = Date.now();
      const hosts = options.hosts ?? [];
      const leaf = await x509.X509CertificateGenerator.create({
        serialNumber: randomSerial(),
        subject: `CN=${options.commonName}`,
        issuer: cert.subject,
        notBefore: new Date(issuedAt - clockSkewMs),
        notAfter: new Date(issuedAt + (options.validityDays ?? validityDays) * dayMs),
        signingAlgorithm: ecdsa,
        publicKey: leafKeys.publicKey,
        signingKey: keys.privateKey,
        extensions: [
          new x509.BasicConstraintsExtension(false, undefined, true),
          new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
          new x509.ExtendedKeyUsageExtension([options.usage === 'client' ? x509.ExtendedKeyUsage.clientAuth : x509.ExtendedKeyUsage.serverAuth]),
          await x509.AuthorityKeyIdentifierExtension.create(cert),
          ...(hosts.length > 0
            ? [new x509.SubjectAlternativeNameExtension(hosts.map((h) => (isIP(h) ? { type: 'ip' as const, value: h } : { type: 'dns' as const, value: h })))]
            : []),
        ],
      });
      return { certPEM: leaf.toString('pem') + '\n', keyPEM: await keyPEM(x509, leafKeys.privateKey) };
    },
  };
}

/** The hosts the dev serving certificate is valid for. */
export const devCertificateHosts: readonly string[] = ['127.0.0.1', '::1', 'localhost'];

export interface DevCertificates {
  /** the temporary directory holding the files below */
  readonly dir: string;
  /** the CA certificate (PEM): the caBundle of the registration, and what a client trusts */
  readonly caFile: string;
  /** for --tls-cert-file */
  readonly certFile: string;
  /** for --tls-private-key-file (mode 0600) */
  readonly keyFile: string;
  /** base64 of the CA PEM, ready for `clientConfig.caBundle` */
  readonly caBundle: string;
  readonly caPEM: string;
  /** removes the directory */
  cleanup(): void;
}

/**
 * Generates a throw-away CA and a serving certificate for 127.0.0.1, ::1 and localhost (valid `validityDays`,
 * default 30) and writes `ca.crt`, `tls.crt`, `tls.key` to a new directory under `parentDir` (default the OS
 * temporary directory).
 */
export async function generateDevCertificates(options: { parentDir?: string; validityDays?: number } = {}): Promise<DevCertificates> {
  const validityDays = options.validityDays ?? 30;
  const ca = await createCertificateAuthority('static-admissiond dev CA (throw-away)', validityDays);
  const serving = await ca.issue({ commonName: 'static-admissiond', hosts: devCertificateHosts, usage: 'server', validityDays });
  const dir = mkdtempSync(join(options.parentDir ?? tmpdir(), 'static-admissiond-dev-'));
  const caFile = join(dir, 'ca.crt');
  const certFile = join(dir, 'tls.crt');
  const keyFile = join(dir, 'tls.key');
  writeFileSync(caFile, ca.certPEM, { mode: 0o644 });
  writeFileSync(certFile, serving.certPEM, { mode: 0o644 });
  writeFileSync(keyFile, serving.keyPEM, { mode: 0o600 });
  return {
    dir,
    caFile,
    certFile,
    keyFile,
    caPEM: ca.certPEM,
    caBundle: Buffer.from(ca.certPEM).toString('base64'),
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  };
}
