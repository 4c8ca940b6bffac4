// LLM over any OpenAI-compatible /v1/chat/completions endpoint, asked for one JSON object per call.
import OpenAI from 'openai';

import { LlmError, errorMessage } from '../../errors.js';
import type { Llm } from '../../services/ports.js';

export interface OpenAILlmOptions {
  baseURL: string;
  apiKey: string;
  model: string;
}

export class OpenAILlm implements Llm {
  private readonly client: OpenAI;
  readonly model: string;

  constructor(private readonly options: OpenAILlmOptions) {
    this.client = new OpenAI({ baseURL: options.baseURL, apiKey: options.apiKey, maxRetries: 1, timeout: 60_000 });
    this.model = options.model;
  }

  async completeJson(request: { system: string; user: string }): Promise<unknown> {
    let content: string | null | undefined;
    try {
      const res = await this.client.chat.completions.create({
        model: this.model,
        temperature: 0,
        // JSON mode: widely supported by compatible servers; the prompt also asks for JSON.
        response_format: { type: 'json_object' },
        messages: [
          { role: 'system', content: request.system },
          { role: 'user', content: request.user },
        ],
      });
      content = res.choices[0]?.message?.content;
    } catch (err) {
      throw new LlmError(`LLM request to ${this.options.baseURL} failed: ${errorMessage(err)}`, { cause: err });
    }
    if (!content) throw new LlmError(`LLM ${this.model} returned an empty answer`);
    try {
      // Some models wrap JSON in a Markdown fence despite JSON mode.
      return JSON.parse(content.replace(/^\s*```(?:json)?\s*|\s*```\s*$/g, ''));
    } catch {
      throw new LlmError(`LLM ${this.model} answered with something that is not JSON: ${content.slice(0, 120)}`);
    }
  }
}
