// The admission listener's TLS material: the serving certificate and key (--tls-cert-file, --tls-private-key-file)
// and the optional client CA (--client-ca-file), loaded, checked as a pair, and kept current.
//
// A renewer may replace the files at any time and in any order (key first, certificate first, rename over,
// ConfigMap-style symlink swap). Every few seconds the files are read again; when their content changed, the new
// set is used only if it is complete and consistent — both PEMs parse, the private key belongs to the certificate,
// the CA bundle holds certificates, and Node builds a secure context from them. Otherwise the last good set keeps
// serving and the fault is logged and counted once per distinct content (a renewer caught mid-write is retried at
// the next poll, when the other file has arrived). New connections get the new set through
// `server.setSecureContext`; established ones keep theirs.
import { createHash, createPrivateKey, X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createSecureContext } from 'node:tls';
import type { SecureContextOptions, Server as TLSServer, TlsOptions } from 'node:tls';
import { Counter, Gauge } from 'prom-client';
import type { Registry } from 'prom-client';
import type { Logger } from '../log/logger.js';

/** TLS 1.2 is the floor (kube's webhook client speaks 1.2 and 1.3). */
export const minTLSVersion = 'TLSv1.2';

/** Default period of the file poll. */
export const defaultTLSReloadIntervalMs = 2_000;

export interface TLSFiles {
  /** --tls-cert-file: PEM, the serving certificate first, then any intermediates */
  readonly certFile: string;
  /** --tls-private-key-file: PEM, unencrypted (PKCS#8, PKCS#1 or SEC1) */
  readonly keyFile: string;
  /** --client-ca-file: PEM bundle; when set, clients must present a certificate signed by one of these */
  readonly clientCAFile?: string | undefined;
}

export interface TLSOptions extends TLSFiles {
  /** how often the files are re-read (flag candidate `--tls-reload-interval`, default 2s) */
  readonly reloadIntervalMs?: number;
}

/** One consistent set of TLS material, as read from the files. */
export interface TLSMaterial {
  readonly cert: Buffer;
  readonly key: Buffer;
  readonly clientCA?: Buffer | undefined;
  /** the serving certificate's (first certificate in the cert file) expiry */
  readonly notAfter: Date;
  readonly notBefore: Date;
  readonly subject: string;
  /** SHA-256 fingerprint of the serving certificate, `AB:CD:…` as Node prints it */
  readonly fingerprint256: string;
}

export class TLSLoadError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TLSLoadError';
  }
}

const pemCertificate = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g;

function parseCertificates(pem: Buffer, what: string, file: string): X509Certificate[] {
  const blocks = pem.toString('latin1').match(pemCertificate) ?? [];
  if (blocks.length === 0) throw new TLSLoadError(`${what} ${JSON.stringify(file)}: no PEM certificate found`);
  return blocks.map((block, i) => {
    try {
      return new X509Certificate(block);
    } catch (err) {
      throw new TLSLoadError(`${what} ${JSON.stringify(file)}: certificate ${i}: ${(err as Error).message}`);
    }
  });
}

/**
 * Checks one set of file contents and returns it as TLSMaterial; throws TLSLoadError naming the file and the fault.
 * Exported for tests and for callers that want to validate files without serving them.
 */
export function checkTLSMaterial(files: TLSFiles, cert: Buffer, key: Buffer, clientCA?: Buffer): TLSMaterial {
  const [leaf] = parseCertificates(cert, 'certificate file', files.certFile);
  let privateKey;
  try {
    privateKey = createPrivateKey(key);
  } catch (err) {
    throw new TLSLoadError(`private key file ${JSON.stringify(files.keyFile)}: ${(err as Error).message}`);
  }
  let matches = false;
  try {
    matches = leaf!.checkPrivateKey(privateKey);
  } catch {
    matches = false; // a key of another type (RSA key, EC certificate) throws instead of answering false
  }
  if (!matches) {
    throw new TLSLoadError(`tls: private key does not match public key (certificate file ${JSON.stringify(files.certFile)}, private key file ${JSON.stringify(files.keyFile)})`);
  }
  if (clientCA !== undefined) parseCertificates(clientCA, 'client CA file', files.clientCAFile ?? '');
  const material: TLSMaterial = {
    cert,
    key,
    clientCA,
    notAfter: new Date(leaf!.validTo),
    notBefore: new Date(leaf!.validFrom),
    subject: leaf!.subject.replace(/\n/g, ', '),
    fingerprint256: leaf!.fingerprint256,
  };
  try {
    createSecureContext(secureContextOptions(material));
  } catch (err) {
    throw new TLSLoadError(`certificate file ${JSON.stringify(files.certFile)}, private key file ${JSON.stringify(files.keyFile)}: ${(err as Error).message}`);
  }
  return material;
}

function readSync(file: string, what: string): Buffer {
  try {
    return readFileSync(file);
  } catch (err) {
    throw new TLSLoadError(`${what} ${JSON.stringify(file)}: ${(err as Error).message}`);
  }
}

/** Reads and checks the files once, synchronously (startup). */
export function loadTLSMaterial(files: TLSFiles): TLSMaterial {
  const cert = readSync(files.certFile, 'certificate file');
  const key = readSync(files.keyFile, 'private key file');
  const ca = files.clientCAFile ? readSync(files.clientCAFile, 'client CA file') : undefined;
  return checkTLSMaterial(files, cert, key, ca);
}

/** The options `tls.createSecureContext` / `server.setSecureContext` take for this material. */
export function secureContextOptions(m: TLSMaterial): SecureContextOptions {
  return { cert: m.cert, key: m.key, ...(m.clientCA ? { ca: m.clientCA } : {}), minVersion: minTLSVersion };
}

/** unchanged: the files hold what is served; reloaded: new material swapped in; failed: the files are unusable, the last good material is served. */
export type TLSReloadResult = 'unchanged' | 'reloaded' | 'failed';

export interface ServingCertificatesOptions extends TLSOptions {
  readonly logger: Logger;
  readonly registry: Registry;
}

function contentKey(parts: ReadonlyArray<Buffer | undefined>): string {
  const h = createHash('sha256');
  for (const p of parts) {
    h.update(p === undefined ? '-' : String(p.length));
    h.update(':');
    if (p !== undefined) h.update(p);
  }
  return h.digest('hex');
}

function metric<T>(registry: Registry, name: string, create: () => T): T {
  return (registry.getSingleMetric(name) as T | undefined) ?? create();
}

/**
 * The serving certificate, key and client CA of one listener, kept current by polling the files.
 * Construction loads them synchronously and throws TLSLoadError when they are unusable (startup must fail).
 */
export class ServingCertificates {
  readonly #files: TLSFiles;
  readonly #intervalMs: number;
  readonly #log: Logger;
  readonly #servers = new Set<TLSServer>();
  readonly #expiry: Gauge;
  readonly #reloads: Counter<'status'>;
  #current: TLSMaterial;
  /** content key of the files as last read, good or bad: a failure is reported once per distinct content */
  #lastSeen: string;
  /** content key of #current */
  #currentKey: string;
  #timer: NodeJS.Timeout | undefined;
  #checking: Promise<TLSReloadResult> | undefined;

  constructor(options: ServingCertificatesOptions) {
    this.#files = { certFile: options.certFile, keyFile: options.keyFile, clientCAFile: options.clientCAFile || undefined };
    this.#intervalMs = options.reloadIntervalMs ?? defaultTLSReloadIntervalMs;
    this.#log = options.logger;
    this.#expiry = metric(options.registry, 'static_admissiond_serving_certificate_expiration_timestamp_seconds', () => new Gauge({
      name: 'static_admissiond_serving_certificate_expiration_timestamp_seconds',
      help: 'Expiry (notAfter, Unix seconds) of the serving certificate the admission listener currently presents.',
      registers: [options.registry],
    }));
    this.#reloads = metric(options.registry, 'static_admissiond_serving_certificate_reloads_total', () => new Counter({
      name: 'static_admissiond_serving_certificate_reloads_total',
      help: 'Loads of the admission listener\'s TLS files (serving certificate, key, client CA) by status; the initial load counts as a success, a failure keeps the last good set.',
      labelNames: ['status'] as const,
      registers: [options.registry],
    }));
    this.#current = loadTLSMaterial(this.#files);
    this.#lastSeen = this.#currentKey = contentKey([this.#current.cert, this.#current.key, this.#current.clientCA]);
    this.#expiry.set(this.#current.notAfter.getTime() / 1000);
    this.#reloads.inc({ status: 'success' });
    this.#logLoaded('Loaded serving certificate');
  }

  get current(): TLSMaterial {
    return this.#current;
  }

  get files(): TLSFiles {
    return this.#files;
  }

  /** Options for `https.createServer`: the current material, TLS 1.2 minimum, and client-certificate enforcement when a client CA is configured. */
  serverOptions(): TlsOptions {
    const requireClientCert = this.#files.clientCAFile !== undefined;
    return { ...secureContextOptions(this.#current), requestCert: requireClientCert, rejectUnauthorized: requireClientCert };
  }

  /** Servers whose secure context follows this material from now on. */
  attach(server: TLSServer): void {
    this.#servers.add(server);
  }

  detach(server: TLSServer): void {
    this.#servers.delete(server);
  }

  /** Starts polling the files every `reloadIntervalMs`. The timer does not keep the process alive. */
  start(): void {
    if (this.#timer !== undefined) return;
    const tick = (): void => {
      void this.check().finally(() => {
        if (this.#timer !== undefined) this.#timer = setTimeout(tick, this.#intervalMs).unref();
      });
    };
    this.#timer = setTimeout(tick, this.#intervalMs).unref();
  }

  stop(): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  /** Reads the files now and swaps in the new material when it changed and is usable. Concurrent calls share one read. */
  check(): Promise<TLSReloadResult> {
    this.#checking ??= this.#check().finally(() => {
      this.#checking = undefined;
    });
    return this.#checking;
  }

  async #check(): Promise<TLSReloadResult> {
    let cert: Buffer;
    let key: Buffer;
    let ca: Buffer | undefined;
    try {
      [cert, key, ca] = await Promise.all([
        readFile(this.#files.certFile).catch((err: Error) => Promise.reject(new TLSLoadError(`certificate file ${JSON.stringify(this.#files.certFile)}: ${err.message}`))),
        readFile(this.#files.keyFile).catch((err: Error) => Promise.reject(new TLSLoadError(`private key file ${JSON.stringify(this.#files.keyFile)}: ${err.message}`))),
        this.#files.clientCAFile === undefined
          ? Promise.resolve(undefined)
          : readFile(this.#files.clientCAFile).catch((err: Error) => Promise.reject(new TLSLoadError(`client CA file ${JSON.stringify(this.#files.clientCAFile)}: ${err.message}`))),
      ]);
    } catch (err) {
      return this.#failed(`read:${(err as Error).message}`, err);
    }
    const seen = contentKey([cert, key, ca]);
    // Same content as at the last poll: still served, or still broken (reported once already).
    if (seen === this.#lastSeen) return seen === this.#currentKey ? 'unchanged' : 'failed';
    if (seen === this.#currentKey) {
      // back to the content being served (a file was briefly missing or broken): nothing to swap
      this.#lastSeen = seen;
      return 'unchanged';
    }
    let next: TLSMaterial;
    try {
      next = checkTLSMaterial(this.#files, cert, key, ca);
    } catch (err) {
      return this.#failed(seen, err);
    }
    const options = secureContextOptions(next);
    try {
      for (const server of this.#servers) server.setSecureContext(options);
    } catch (err) {
      // Cannot happen after checkTLSMaterial built a context from the same options; restore the old one anyway.
      for (const server of this.#servers) server.setSecureContext(secureContextOptions(this.#current));
      return this.#failed(seen, err);
    }
    this.#lastSeen = this.#currentKey = seen;
    this.#current = next;
    this.#expiry.set(next.notAfter.getTime() / 1000);
    this.#reloads.inc({ status: 'success' });
    this.#logLoaded('Reloaded serving certificate');
    return 'reloaded';
  }

  #failed(seen: string, err: unknown): TLSReloadResult {
    if (seen === this.#lastSeen) return 'failed';
    this.#lastSeen = seen;
    this.#reloads.inc({ status: 'failure' });
    this.#log.error(err, 'Serving certificate files changed but cannot be used; keeping the last good certificate', {
      certFile: this.#files.certFile,
      keyFile: this.#files.keyFile,
      servingCertificate: this.#current.fingerprint256,
      notAfter: this.#current.notAfter.toISOString(),
    });
    return 'failed';
  }

  #logLoaded(msg: string): void {
    const m = this.#current;
    this.#log.info(msg, {
      certFile: this.#files.certFile,
      subject: m.subject,
      fingerprint: m.fingerprint256,
      notBefore: m.notBefore.toISOString(),
      notAfter: m.notAfter.toISOString(),
      clientCAFile: this.#files.clientCAFile ?? '',
    });
    const now = Date.now();
    if (m.notAfter.getTime() <= now || m.notBefore.getTime() > now) {
      this.#log.error(new Error(`certificate valid from ${m.notBefore.toISOString()} to ${m.notAfter.toISOString()}`), 'Serving certificate is not valid now; kube-apiserver will refuse it', { certFile: this.#files.certFile });
    }
  }
}
