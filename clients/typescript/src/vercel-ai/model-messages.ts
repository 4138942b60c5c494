/**
 * AI SDK `ModelMessage`s to the planner's native messages, and the planned window back.
 *
 * Native is the planner format that fits `ModelMessage` best: one native message per message,
 * except a `tool` message, which holds one part per result and becomes one native `tool` message
 * per result (the planner's unit). Each native message carries, in a field of its own that the
 * planner returns verbatim (`model_message`), which message (and which result part) it came
 * from, so mapping back returns the caller's own messages as they were, with their provider
 * options, reasoning and files: nothing is rebuilt from text. What the planner writes itself is
 * the drop notice, a plain user message with no such field, and, when shaping is on (`collapse`,
 * `cap`), a result's replacement text (the ticket or the cap's marker), which comes back as the
 * caller's result part with its `output` replaced by that text (`text`, or `error-text` for an
 * error output).
 *
 * What carries no text for the planner: reasoning, files and images add no characters;
 * provider-executed tool calls and their results, answered inside the assistant message, are no
 * calls; an approval request rides with its assistant message, and a `tool` message that holds
 * only approval responses rides with the message before it. A denied execution is sent as
 * `not_dispatched`: it answers its call, but it is no result.
 */

import type { ModelMessage, ToolContent, ToolResultPart } from 'ai';

/** Which caller message (and which result part of a `tool` message) a native message is. */
export interface ModelMessageOrigin {
  readonly index: number;
  readonly part: number | null;
}

export interface NativeMessage {
  role: 'system' | 'user' | 'assistant' | 'tool';
  content: string;
  tool_calls?: Array<{ id: string; name: string; arguments: unknown }>;
  tool_call_id?: string;
  tool_name?: string;
  not_dispatched?: boolean;
  model_message: ModelMessageOrigin;
}

/** The native transcript of `messages`, oldest first. */
export function toNativeMessages(messages: readonly ModelMessage[]): NativeMessage[] {
  const native: NativeMessage[] = [];
  messages.forEach((message, index) => {
    const whole = { index, part: null };
    switch (message.role) {
      case 'system':
        native.push({ role: 'system', content: message.content, model_message: whole });
        break;
      case 'user':
        native.push({ role: 'user', content: textOf(message.content), model_message: whole });
        break;
      case 'assistant': {
        const calls =
          typeof message.content === 'string'
            ? []
            : message.content.flatMap((part) =>
                part.type === 'tool-call' && !part.providerExecuted
                  ? [{ id: part.toolCallId, name: part.toolName, arguments: part.input ?? {} }]
                  : [],
              );
        native.push({
          role: 'assistant',
          content: textOf(message.content),
          ...(calls.length > 0 ? { tool_calls: calls } : {}),
          model_message: whole,
        });
        break;
      }
      case 'tool':
        message.content.forEach((part, partIndex) => {
          if (part.type === 'tool-result') {
            native.push(nativeResult(part, { index, part: partIndex }));
          }
        });
        break;
    }
  });
  return native;
}

/**
 * The planner's `window` (native, as answered for `native`) as `ModelMessage`s: each kept message
 * as the caller sent it, a `tool` message with only its kept results, and the notice as a user
 * message.
 */
export function fromPlannedWindow(
  window: readonly unknown[],
  messages: readonly ModelMessage[],
  sent: readonly NativeMessage[] = toNativeMessages(messages),
): ModelMessage[] {
  const sentText = new Map(sent.map((entry) => [originKey(entry.model_message), entry.content]));
  const riders = messagesWithoutNative(messages, sent);
  const planned: ModelMessage[] = [];
  let open: { index: number; kept: Map<number, ToolResultPart> } | undefined;

  const close = (): void => {
    if (open === undefined) {
      return;
    }
    const original = messages[open.index];
    if (original?.role === 'tool') {
      const kept = open.kept;
      const content = original.content.flatMap<ToolContent[number]>((part, partIndex) => {
        if (part.type !== 'tool-result') {
          return [part];
        }
        const keptPart = kept.get(partIndex);
        return keptPart ? [keptPart] : [];
      });
      planned.push({ ...original, content });
    } else if (original !== undefined) {
      planned.push(original);
    }
    for (const rider of riders.get(open.index) ?? []) {
      planned.push(rider);
    }
    open = undefined;
  };

  for (const entry of window) {
    const native = entry as Partial<NativeMessage>;
    const origin = native.model_message;
    if (origin === undefined) {
      close();
      planned.push({ role: 'user', content: native.content ?? '' });
      continue;
    }
    if (open?.index !== origin.index) {
      close();
      open = { index: origin.index, kept: new Map() };
    }
    const original = messages[origin.index];
    if (original?.role === 'tool' && origin.part !== null) {
      const part = original.content[origin.part] as ToolResultPart;
      const shaped = native.content !== sentText.get(originKey(origin));
      open.kept.set(origin.part, shaped ? withText(part, native.content ?? '') : part);
    }
  }
  close();
  return planned;
}

/**
 * A shaped result: the caller's part with its output replaced by the planner's text (an error
 * output stays an error, as `error-text`).
 */
function withText(part: ToolResultPart, text: string): ToolResultPart {
  const error = part.output.type === 'error-text' || part.output.type === 'error-json';
  return { ...part, output: { type: error ? 'error-text' : 'text', value: text } };
}

function nativeResult(part: ToolResultPart, origin: ModelMessageOrigin): NativeMessage {
  const denied = part.output.type === 'execution-denied';
  return {
    role: 'tool',
    content: resultText(part.output),
    tool_call_id: part.toolCallId,
    tool_name: part.toolName,
    ...(denied ? { not_dispatched: true } : {}),
    model_message: origin,
  };
}

/** The text a tool result shows the model, as the planner should weigh it. */
function resultText(output: ToolResultPart['output']): string {
  switch (output.type) {
    case 'text':
    case 'error-text':
      return output.value;
    case 'json':
    case 'error-json':
      return JSON.stringify(output.value);
    case 'execution-denied':
      return output.reason ?? '';
    case 'content':
      return output.value.map((item) => (item.type === 'text' ? item.text : '')).join('');
  }
}

function textOf(content: string | ReadonlyArray<{ type: string; text?: string }>): string {
  if (typeof content === 'string') {
    return content;
  }
  return content.map((part) => (part.type === 'text' ? (part.text ?? '') : '')).join('');
}

function originKey(origin: ModelMessageOrigin): string {
  return `${origin.index}:${origin.part ?? ''}`;
}

/** Messages that became no native message, by the index of the message they ride with. */
function messagesWithoutNative(
  messages: readonly ModelMessage[],
  sent: readonly NativeMessage[],
): Map<number, ModelMessage[]> {
  const represented = new Set(sent.map((entry) => entry.model_message.index));
  const riders = new Map<number, ModelMessage[]>();
  let anchor: number | undefined;
  messages.forEach((message, index) => {
    if (represented.has(index)) {
      anchor = index;
    } else if (anchor !== undefined) {
      riders.set(anchor, [...(riders.get(anchor) ?? []), message]);
    }
  });
  return riders;
}
