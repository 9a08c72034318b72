/**
 * An LLM at an address a user chose (their own `llm` key's base URL): before every request the
 * host is resolved and judged by the outbound guard, as mid-call tools are (private addresses
 * only with ALLOW_PRIVATE_TARGETS; link-local/metadata never). A refused address fails the
 * request with an LlmError saying so (the call's transcript and the turn then say why), and
 * nothing is sent. The streaming client connects with its own lookup afterwards: a name whose
 * answer changes between the two lookups is the remaining gap (docs/decisions.md).
 */
import { BlockedTargetError, checkTarget } from '../../lib/outbound.js';
import { LlmError, type Completion, type CompletionRequest, type ExtractionRequest, type LlmProvider } from './types.js';

export class GuardedLlm implements LlmProvider {
  readonly label: string;
  readonly standIn = false;

  constructor(
    private readonly inner: LlmProvider,
    private readonly baseUrl: string,
    private readonly allowPrivate: boolean,
  ) {
    this.label = inner.label;
  }

  private async guard(): Promise<void> {
    try {
      await checkTarget(this.baseUrl, this.allowPrivate);
    } catch (err) {
      if (err instanceof BlockedTargetError) throw new LlmError(`the account's LLM address is not allowed: ${err.message}`);
      // A name that does not resolve: the request itself fails and says so.
    }
  }

  async complete(request: CompletionRequest): Promise<Completion> {
    await this.guard();
    return this.inner.complete(request);
  }

  async extract(request: ExtractionRequest): Promise<Record<string, unknown>> {
    await this.guard();
    return this.inner.extract(request);
  }
}
