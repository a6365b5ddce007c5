// SubjectAccessReviews to the kube-apiserver named by --authorization-kubeconfig: the current context's cluster
// (server, certificate-authority) and user (token, client certificate, …), as a delegating authorizer reads its
// kubeconfig. Sent with the webhook client stack (client.ts: undici pools, kubeconfig credentials, Go-worded
// transport errors). A SubjectAccessReview is cut off after 10 s (DelegatingAuthorizationOptions' client timeout)
// or at the caller's deadline, whichever is first.
import { CallCancellation, WebhookClients } from './client.js';
import type { CancelSignal } from './client.js';
import { CallingWebhookError } from './errors.js';
import { currentClusterConnection } from './kubeconfig.js';

/** authorizationv1.SubjectAccessReviewSpec, as JSON. */
export interface SubjectAccessReviewSpec {
  readonly user?: string;
  readonly uid?: string;
  readonly groups?: readonly string[];
  readonly extra?: Readonly<Record<string, readonly string[] | null>>;
  readonly resourceAttributes?: Readonly<Record<string, unknown>>;
  readonly nonResourceAttributes?: { readonly path: string; readonly verb: string };
}

/** authorizationv1.SubjectAccessReviewStatus */
export interface SubjectAccessReviewStatus {
  readonly allowed: boolean;
  readonly denied?: boolean;
  readonly reason?: string;
  readonly evaluationError?: string;
}

/** A review that got no status: the Go client's error text. */
export class SubjectAccessReviewError extends Error {
  override readonly name = 'SubjectAccessReviewError';
}

const REVIEW_PATH = '/apis/authorization.k8s.io/v1/subjectaccessreviews';
export const SUBJECT_ACCESS_REVIEW_TIMEOUT_MS = 10_000;

export class SubjectAccessReviewClient {
  private constructor(
    private readonly url: URL,
    private readonly caPEM: string,
    private readonly clients: WebhookClients,
  ) {}

  /** Reads the kubeconfig (its current context). Throws KubeconfigError when it cannot be used. */
  static fromKubeconfig(path: string): SubjectAccessReviewClient {
    const { base, caPEM, resolver } = currentClusterConnection(path);
    const url = new URL(base.toString().replace(/\/+$/, '') + REVIEW_PATH);
    return new SubjectAccessReviewClient(url, caPEM, new WebhookClients({ resolver, connectionsPerEndpoint: 8 }));
  }

  /** POSTs one SubjectAccessReview; its status, or SubjectAccessReviewError with the Go client's wording. */
  async create(spec: SubjectAccessReviewSpec, deadline: number, signal: CancelSignal = new CallCancellation()): Promise<SubjectAccessReviewStatus> {
    const body = Buffer.from(JSON.stringify({ kind: 'SubjectAccessReview', apiVersion: 'authorization.k8s.io/v1', metadata: {}, spec }));
    let response;
    try {
      response = await this.clients.post(
        { webhookName: 'subjectaccessreviews', url: this.url, caPEM: this.caPEM },
        { body, deadline: Math.min(deadline, Date.now() + SUBJECT_ACCESS_REVIEW_TIMEOUT_MS), signal },
      );
    } catch (err) {
      // the client's text after its webhook prefix: `Post "<url>?timeout=…": dial tcp …`
      if (err instanceof CallingWebhookError) throw new SubjectAccessReviewError(err.reason.replace(/^failed to call webhook: /, ''));
      throw err;
    }
    if (response.statusCode < 200 || response.statusCode > 206) {
      // a Status answer (403 when these credentials may not create SubjectAccessReviews): its message, as
      // client-go's StatusError reads
      let message = `the server responded with the status code ${response.statusCode} but did not return more information`;
      try {
        const status = JSON.parse(response.body) as { kind?: unknown; message?: unknown };
        if (status.kind === 'Status' && typeof status.message === 'string') message = status.message;
      } catch {
        // not a Status
      }
      throw new SubjectAccessReviewError(message);
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(response.body);
    } catch (err) {
      throw new SubjectAccessReviewError(`failed to decode the SubjectAccessReview response: ${(err as Error).message}`);
    }
    const status = (parsed as { status?: Record<string, unknown> } | null)?.status ?? {};
    return {
      allowed: status.allowed === true,
      ...(status.denied === true ? { denied: true } : {}),
      ...(typeof status.reason === 'string' && status.reason !== '' ? { reason: status.reason } : {}),
      ...(typeof status.evaluationError === 'string' && status.evaluationError !== '' ? { evaluationError: status.evaluationError } : {}),
    };
  }

  close(): Promise<void> {
    return this.clients.close();
  }
}
