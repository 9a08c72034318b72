import { readBodyText } from './bounded.js';

/**
 * Where an OpenAI-compatible endpoint lives under a configured base URL. Operators write the
 * base either the way the OpenAI SDKs take it (`http://host:8000/v1`, as LLM_BASE_URL) or as the
 * bare server (`http://host:8000`, as most whisper/Kokoro server READMEs print it); both work:
 * a base whose path already ends in a version (`/v1`, `/v2`, …) is used as it is, any other gets
 * `/v1`.
 */
export function openAiEndpoint(baseUrl: string, path: string): string {
  const base = baseUrl.replace(/\/+$/, '');
  const versioned = /\/v\d+$/.test(new URL(base).pathname);
  return `${base}${versioned ? '' : '/v1'}/${path.replace(/^\/+/, '')}`;
}

/** The error text of a failed request: the JSON `error.message` servers send, else the start of the body. */
export async function failureDetail(res: Response): Promise<string> {
  // An error body is read up to 64 KiB: a server that streams one without end cannot stall us.
  const text = await readBodyText(res, 64 * 1024, 'error body', true).catch(() => '');
  try {
    const json = JSON.parse(text) as { error?: { message?: string } | string; message?: string; detail?: unknown };
    const detail = (typeof json.error === 'string' ? json.error : json.error?.message) ?? json.message ?? json.detail;
    if (detail !== undefined) return typeof detail === 'string' ? detail : JSON.stringify(detail);
  } catch {
    /* not JSON */
  }
  return text.slice(0, 300);
}
