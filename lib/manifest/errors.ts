// Errors of the manifest loader. Messages carry upstream's wording and name the file they concern.

export class ManifestError extends Error {
  readonly code: string;
  constructor(message: string, options?: { cause?: unknown; code?: string }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'ManifestError';
    this.code = options?.code ?? 'SAD_ERR_MANIFEST';
  }
}

/** Code of the errors reading the manifest directory itself (missing, unreadable). */
export const manifestDirErrorCode = 'SAD_ERR_MANIFEST_DIR';
