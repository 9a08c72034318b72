/** Errors that become the spec's envelopes: `{message}` or `{message, errors}` (spec 7, CONTRACT §1). */

export type FieldErrors = Record<string, string[]>;

export class HttpError extends Error {
  constructor(
    readonly statusCode: number,
    message: string,
    /** Extra top-level keys of the body, e.g. `{success: false}` on campaign status errors. */
    readonly extra: Record<string, unknown> = {},
  ) {
    super(message);
  }

  body(): Record<string, unknown> {
    return { message: this.message, ...this.extra };
  }
}

export class ValidationError extends HttpError {
  constructor(
    readonly errors: FieldErrors,
    message = 'The given data was invalid.',
    extra: Record<string, unknown> = {},
  ) {
    super(422, message, extra);
  }

  override body(): Record<string, unknown> {
    return { message: this.message, ...this.extra, errors: this.errors };
  }
}

export const notFound = (message = 'Not found.', extra?: Record<string, unknown>) => new HttpError(404, message, extra);

/** A single-field validation error, e.g. `fieldError('status', 'The status ...')`. */
export function fieldError(field: string, message: string, top?: string): ValidationError {
  return new ValidationError({ [field]: [message] }, top);
}

/** Collects field errors across several checks and throws them together. */
export class ErrorBag {
  readonly errors: FieldErrors = {};

  add(field: string, message: string): this {
    (this.errors[field] ??= []).push(message);
    return this;
  }

  merge(other: FieldErrors): this {
    for (const [k, list] of Object.entries(other)) for (const m of list) this.add(k, m);
    return this;
  }

  get empty(): boolean {
    return Object.keys(this.errors).length === 0;
  }

  throwIfAny(message?: string, extra?: Record<string, unknown>): void {
    if (!this.empty) throw new ValidationError(this.errors, message, extra);
  }
}
