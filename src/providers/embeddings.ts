/**
 * OpenAI-compatible embeddings (`POST {baseUrl}/embeddings`), for `similar`:
 * the same HTTP client, retries and error wording as chat completions.
 */
import type { HttpOptions } from '../llm/http.js'
import { ProviderError, send, trimSlash } from './wire.js'

export interface EmbeddingRequest {
  baseUrl: string
  apiKey?: string
  model: string
  input: string[]
}

export interface EmbeddingResult {
  vectors: number[][]
  totalTokens: number
}

export function embeddingsUrl(baseUrl: string): string {
  return `${trimSlash(baseUrl)}/embeddings`
}

/** One vector per input, in the inputs' order (servers may answer out of order: `index` says which). */
export async function embed(request: EmbeddingRequest, http: HttpOptions = {}): Promise<EmbeddingResult> {
  const auth: Record<string, string> = request.apiKey ? { authorization: `Bearer ${request.apiKey}` } : {}
  const body = { model: request.model, input: request.input }
  const response = await send('embeddings', 'POST', embeddingsUrl(request.baseUrl), body, auth, http, request.apiKey ? [request.apiKey] : [])
  return readEmbeddings(response.data, response.text, request.input.length)
}

function readEmbeddings(data: unknown, text: string, count: number): EmbeddingResult {
  const body = data as { data?: Array<{ embedding?: unknown; index?: unknown }>; usage?: { total_tokens?: unknown } } | undefined
  const items = Array.isArray(body?.data) ? body.data : []
  const vectors: number[][] = []
  items.forEach((item, position) => {
    const at = typeof item?.index === 'number' ? item.index : position
    if (Array.isArray(item?.embedding) && item.embedding.every((x) => typeof x === 'number')) vectors[at] = item.embedding as number[]
  })
  if (vectors.filter(Boolean).length !== count || vectors.length !== count) {
    throw new ProviderError(`embeddings: reply has ${items.length} embeddings for ${count} inputs: ${text.replace(/\s+/g, ' ').slice(0, 200)}`)
  }
  const tokens = body?.usage?.total_tokens
  return { vectors, totalTokens: typeof tokens === 'number' ? tokens : 0 }
}

/** Cosine similarity of two vectors of the same length; 0 when either is all zeros. */
export function cosineSimilarity(a: number[], b: number[]): number {
  if (a.length !== b.length) throw new ProviderError(`embeddings of different lengths (${a.length} and ${b.length}): were they made by the same model?`)
  let dot = 0
  let na = 0
  let nb = 0
  for (let i = 0; i < a.length; i++) {
    dot += a[i]! * b[i]!
    na += a[i]! * a[i]!
    nb += b[i]! * b[i]!
  }
  return na === 0 || nb === 0 ? 0 : dot / Math.sqrt(na * nb)
}
