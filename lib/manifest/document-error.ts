// The error of a manifest document that cannot be read at all (kept apart from document.ts so that the YAML decoder
// below it can throw it without importing the module that imports the decoder).

/** A document that cannot be read at all; the message is the decode error text. */
export class DocumentSyntaxError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DocumentSyntaxError';
  }
}
