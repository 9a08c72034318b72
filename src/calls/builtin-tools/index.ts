/**
 * Built-in tools in a call (issue 20): each stored item of `assistants.builtin_tools` becomes
 * one or two LLM functions, and a call of such a function acts on the line or on a calendar.
 *
 * Function names carry a hyphen (like the session's `end-call`), so they never collide with a
 * mid-call tool's name (those are `[A-Za-z0-9_]`); a second item of the same type gets `-2`, …
 *
 * - call_transfer → `transfer-call`: the carrier's transfer when the leg has one (Twilio:
 *   redirect to a `<Dial>`); elsewhere (sandbox, browser) a simulated transfer. Either way the
 *   call ends as `completed` with the target in the transcript.
 * - dtmf_input → `press-digits`: DTMF on the line (`media.sendDigits` on audio legs,
 *   `sendDigits` on text legs; the sandbox records them).
 * - collect_keypad → `collect-keypad`: the caller's key presses (leg `dtmf` events) until the
 *   stop key or the timeout after the last key; the digits are the result. Keys count from the
 *   call on, the timeout only once the assistant's words before it have been heard (`spokenSoFar`).
 * - calendar_integration → `check-availability` and `book-appointment` (Cal.com v2, calcom.ts).
 * - end_call: the session's own `end-call`; an item only gives it its description.
 * - assistant_transfer → `transfer-to-assistant`: the call continues with another assistant of
 *   the same user (its prompt, voice, tools and settings), after `message_before_transfer`; the
 *   session applies the switch (`switchTo`).
 * - warm_call_transfer → `warm-transfer` (warm-transfer.ts): hold message and music, the
 *   supervisor's leg, the briefing with the LLM's summary, then both joined by the carrier (Twilio:
 *   a conference); back to the caller when the supervisor does not answer. Needs the call's hooks
 *   (`attach`), which the session gives.
 */
import type { Logger } from 'pino';
import type { StoredBuiltinTool } from '../../db/schema.js';
import type { ToolSpec } from '../../providers/llm/types.js';
import type { Clock, TimerHandle } from '../../telephony/clock.js';
import type { CarrierLeg } from '../../telephony/types.js';
import type { TtsProvider, TtsStreamOptions } from '../../providers/tts/types.js';
import type { MidCallTool } from '../tool-runner.js';
import { availableSlots, createBooking, type CalcomTarget } from './calcom.js';
import { warmTransfer, type WarmTransferData, type WarmTransferDeps } from './warm-transfer.js';

export interface BuiltinContext {
  leg: CarrierLeg;
  clock: Clock;
  log: Logger;
  /** The outbound guard's switch (ALLOW_PRIVATE_TARGETS). */
  allowPrivate: boolean;
  /** Opens a sealed credential (src/lib/secrets.ts). */
  unseal(sealed: string): string;
  /** The assistant's timezone, the default for calendar questions. */
  timezone: string;
  /** warm_call_transfer: the supervisor's leg from one of the user's numbers, and the LLM's summary. */
  warm?: Pick<WarmTransferDeps, 'dial' | 'summarize'>;
  /** Another assistant of the call's user, ready to take the call over (null: not the user's, or gone). */
  assistantFor?(assistantId: number): Promise<AssistantHandOver | null>;
}

/** What another assistant brings to a call it takes over (assistant_transfer). */
export interface AssistantHandOver {
  id: number;
  name: string;
  /** Filled with the call's variables, like the first assistant's. */
  systemPrompt: string;
  initialMessage: string;
  model: string;
  temperature: number;
  tools: MidCallTool[];
  builtinTools: StoredBuiltinTool[];
  endCallDescription: string | null;
  /** Its IANA timezone (calendar defaults). */
  timezone: string;
  /** Its voice on an audio leg (provider and stream options at the leg's rate), or null when none can speak. */
  voice(sampleRate: number): { provider: TtsProvider; options: TtsStreamOptions } | null;
}

/** What a built-in may do on the call itself (the session gives these once it exists). */
export type CallHooks = Pick<WarmTransferDeps, 'sayToCaller' | 'note' | 'holdMusic' | 'brief' | 'callEnded'> & {
  /**
   * Resolves once everything the assistant has said so far (in the turn that runs the tool too)
   * has reached the caller: played on an audio leg, handed to the leg on a text leg.
   */
  spokenSoFar(): Promise<void>;
};

/** What the session does with a built-in function's result. */
export interface BuiltinResult {
  ok: boolean;
  /** What the LLM reads as the function's result (JSON text). */
  content: string;
  /** Said on the line before anything else happens (e.g. the warm transfer message). */
  say?: string;
  /** A line for the transcript that is not speech (e.g. where the call was transferred). */
  note?: string;
  /**
   * The call ends after this function (a transfer), after `say`. `handOver` gives the caller to
   * the carrier's transfer (the line is then no longer ours: no hang-up follows).
   */
  end?: { reason: string; handOver?: () => Promise<void> };
  /** The call continues with this assistant (assistant_transfer); `greet`: it says its opening line. */
  switchTo?: { target: AssistantHandOver; greet: boolean };
}

/** The transcript line of an assistant_transfer: it names the assistant that took the call over. */
export const handOverNote = (target: Pick<AssistantHandOver, 'id' | 'name'>) => `Assistant transfer: the call continues with assistant ${target.id} (${target.name}).`;

type Handler = (args: Record<string, unknown>) => Promise<BuiltinResult>;

const json = (x: unknown) => JSON.stringify(x);
const noParams = { type: 'object', properties: {}, additionalProperties: false } as const;
const DTMF = /^[0-9*#wW]{1,64}$/;

export class BuiltinToolbox {
  private readonly handlers = new Map<string, Handler>();
  private readonly functionSpecs: ToolSpec[] = [];
  private readonly used = new Map<string, number>();
  private digitListener: ((digit: string) => void) | null = null;
  private call: CallHooks | null = null;
  /** The description a built-in end_call item gives the session's end-call function. */
  endCallDescription: string | null = null;
  /** The current assistant's timezone (calendar defaults); another assistant brings its own. */
  private timezone: string;

  constructor(items: readonly StoredBuiltinTool[], private readonly ctx: BuiltinContext) {
    this.timezone = ctx.timezone;
    this.endCallDescription = this.adopt(items);
  }

  /**
   * The functions of another assistant's items replace these (assistant_transfer); the call's
   * own `end-call` keeps its place. Returns the end_call item's description.
   */
  replaceItems(items: readonly StoredBuiltinTool[], timezone: string): string | null {
    this.timezone = timezone;
    this.handlers.clear();
    this.functionSpecs.length = 0;
    this.used.clear();
    this.endCallDescription = this.adopt(items);
    return this.endCallDescription;
  }

  private adopt(items: readonly StoredBuiltinTool[]): string | null {
    const ctx = this.ctx;
    let endCall: string | null = null;
    for (const item of items) {
      switch (item.type) {
        case 'end_call':
          endCall ??= item.data.description?.trim() || null;
          break;
        case 'call_transfer':
          this.add('transfer-call', item.data.description || `Transfer the caller to ${item.data.phone_number} when they ask for a person or the request is outside your scope.`, noParams, () => this.transfer(item.data));
          break;
        case 'dtmf_input':
          this.add(
            'press-digits',
            item.data.description || 'Press keys on the phone line to navigate an automated phone menu (IVR).',
            {
              type: 'object',
              properties: { digits: { type: 'string', description: 'Keys to press: 0-9, * and #; w waits half a second' } },
              required: ['digits'],
              additionalProperties: false,
            },
            (args) => this.pressDigits(args),
          );
          break;
        case 'collect_keypad':
          this.add(
            'collect-keypad',
            `Ask the caller to type digits on their phone keypad, then call this to receive them${item.data.stop_key ? ` (they finish with ${item.data.stop_key})` : ''}.`,
            noParams,
            () => this.collectKeypad(item.data.timeout, item.data.stop_key ?? null),
          );
          break;
        case 'calendar_integration': {
          const target = (): CalcomTarget => ({
            endpoint: item.data.calcom_endpoint,
            customEndpoint: item.data.calcom_custom_endpoint,
            apiKey: this.ctx.unseal(item.data.calcom_api_key_sealed),
            eventSlug: item.data.calcom_event_slug,
            teamSlug: item.data.calcom_team_slug,
            allowPrivate: this.ctx.allowPrivate,
          });
          this.add(
            'check-availability',
            'Look up free appointment slots in the calendar between two dates.',
            {
              type: 'object',
              properties: {
                start_date: { type: 'string', description: 'First day, YYYY-MM-DD' },
                end_date: { type: 'string', description: 'Last day, YYYY-MM-DD' },
                time_zone: { type: 'string', description: `IANA time zone of the caller (default ${this.timezone})` },
              },
              required: ['start_date', 'end_date'],
              additionalProperties: false,
            },
            (args) => this.checkAvailability(target, args),
          );
          const fieldProps = Object.fromEntries(item.data.calcom_booking_fields.map((f) => [f, { type: 'string', description: `Booking field ${f}` }]));
          this.add(
            'book-appointment',
            'Book an appointment at a free slot once the caller agreed to it.',
            {
              type: 'object',
              properties: {
                start: { type: 'string', description: 'Start of the slot, ISO 8601 with offset or Z' },
                name: { type: 'string', description: "The caller's name" },
                email: { type: 'string', description: "The caller's email address" },
                time_zone: { type: 'string', description: `IANA time zone of the caller (default ${this.timezone})` },
                ...fieldProps,
              },
              required: ['start', 'name', 'email', ...item.data.calcom_booking_fields],
              additionalProperties: false,
            },
            (args) => this.book(target, item.data.calcom_booking_fields, args),
          );
          break;
        }
        case 'assistant_transfer':
          this.add(
            'transfer-to-assistant',
            item.data.description || 'Hand the call over to a colleague assistant who is better placed to help the caller.',
            noParams,
            () => this.transferToAssistant(item.data),
          );
          break;
        case 'warm_call_transfer':
          this.add('warm-transfer', item.data.description, noParams, () => this.warmTransfer(item.data));
          break;
      }
    }
    return endCall;
  }

  /** The session's hooks: what a warm transfer needs (the caller's line, the transcript), when the caller has heard the assistant. */
  attach(call: CallHooks): void {
    this.call = call;
  }

  private async warmTransfer(data: WarmTransferData): Promise<BuiltinResult> {
    const { warm } = this.ctx;
    const call = this.call;
    if (!warm || !call) return { ok: false, content: json({ error: 'warm transfers are not available on this call' }) };
    return warmTransfer(data, {
      ...warm,
      ...call,
      caller: this.ctx.leg,
      setTimer: (ms, fn) => {
        const timer = this.ctx.clock.setTimer(ms, fn);
        return () => this.ctx.clock.clearTimer(timer);
      },
    });
  }

  private async transferToAssistant(data: Extract<StoredBuiltinTool, { type: 'assistant_transfer' }>['data']): Promise<BuiltinResult> {
    const target = (await this.ctx.assistantFor?.(data.assistant_id)) ?? null;
    if (!target) return { ok: false, content: json({ error: 'the assistant to transfer to is not available' }) };
    return {
      ok: true,
      content: json({ ok: true, transferred_to_assistant: target.name }),
      say: data.message_before_transfer?.trim() || undefined,
      note: handOverNote(target),
      switchTo: { target, greet: data.speak_transfer_greeting },
    };
  }

  get specs(): readonly ToolSpec[] {
    return this.functionSpecs;
  }

  has(name: string): boolean {
    return this.handlers.has(name);
  }

  /** Runs a function the LLM called; arguments that are not a JSON object are an error result. */
  async run(name: string, argumentsJson: string): Promise<BuiltinResult> {
    const handler = this.handlers.get(name);
    if (!handler) return { ok: false, content: json({ error: `unknown tool ${name}` }) };
    let args: unknown;
    try {
      args = argumentsJson.trim() === '' ? {} : JSON.parse(argumentsJson);
    } catch {
      return { ok: false, content: json({ error: 'invalid arguments: not JSON' }) };
    }
    if (!args || typeof args !== 'object' || Array.isArray(args)) return { ok: false, content: json({ error: 'invalid arguments: not an object' }) };
    try {
      return await handler(args as Record<string, unknown>);
    } catch (err) {
      this.ctx.log.warn({ err: { message: (err as Error).message }, tool: name }, 'built-in tool failed');
      return { ok: false, content: json({ error: (err as Error).message }) };
    }
  }

  /** A collect-keypad call is waiting for the caller's keys (keys pressed before are not collected). */
  get collectingKeys(): boolean {
    return this.digitListener !== null;
  }

  /** A key the caller pressed (leg `dtmf` event). */
  onDigit(digit: string): void {
    this.digitListener?.(digit);
  }

  private add(base: string, description: string, parameters: ToolSpec['parameters'], handler: Handler): void {
    const n = (this.used.get(base) ?? 0) + 1;
    this.used.set(base, n);
    const name = n === 1 ? base : `${base}-${n}`;
    this.handlers.set(name, handler);
    this.functionSpecs.push({ name, description, parameters });
  }

  private async transfer(data: Extract<StoredBuiltinTool, { type: 'call_transfer' }>['data']): Promise<BuiltinResult> {
    const to = data.phone_number;
    const say = data.warm_transfer ? data.warm_transfer_message?.trim() || undefined : undefined;
    const leg = this.ctx.leg;
    if (leg.transfer) {
      return {
        ok: true,
        content: json({ ok: true, transferred_to: to }),
        say,
        note: `Transfer: the call was transferred to ${to}.`,
        end: { reason: `transferred to ${to}`, handOver: () => leg.transfer!(to) },
      };
    }
    return {
      ok: true,
      content: json({ ok: true, transferred_to: to, simulated: true }),
      say,
      note: `Transfer: the call was transferred to ${to} (simulated: this line cannot transfer).`,
      end: { reason: `transferred to ${to} (simulated)` },
    };
  }

  private async pressDigits(args: Record<string, unknown>): Promise<BuiltinResult> {
    const digits = typeof args.digits === 'string' ? args.digits : '';
    if (!DTMF.test(digits)) return { ok: false, content: json({ error: 'digits must be 1-64 of 0-9, *, #, w' }) };
    const send = this.ctx.leg.media?.sendDigits?.bind(this.ctx.leg.media) ?? this.ctx.leg.sendDigits?.bind(this.ctx.leg);
    if (!send) return { ok: false, content: json({ error: 'this line cannot send key presses' }) };
    await send(digits);
    return { ok: true, content: json({ ok: true, pressed: digits }), note: `DTMF: the assistant pressed ${digits}.` };
  }

  /**
   * The model usually asks for the keys and calls this in the same answer, so the request is
   * still being synthesised and played when this runs: the timeout counts from when it has been
   * heard (or from the last key, whichever is later), while keys are taken from the call on — a
   * caller who types during the request loses nothing.
   */
  private collectKeypad(timeoutSec: number, stopKey: string | null): Promise<BuiltinResult> {
    const clock = this.ctx.clock;
    return new Promise((resolve) => {
      let digits = '';
      let timer: TimerHandle | null = null;
      let heard = false;
      let over = false;
      const done = (reason: 'stop_key' | 'timeout') => {
        over = true;
        clock.clearTimer(timer);
        this.digitListener = null;
        resolve({ ok: true, content: json({ digits, ended_by: reason }) });
      };
      const arm = () => {
        if (!heard || over) return;
        clock.clearTimer(timer);
        timer = clock.setTimer(timeoutSec * 1000, () => done('timeout'));
      };
      this.digitListener = (digit) => {
        if (stopKey && digit === stopKey) return done('stop_key');
        digits += digit;
        arm();
      };
      const spoken = this.call?.spokenSoFar() ?? Promise.resolve();
      void spoken.then(() => {
        heard = true;
        arm();
      });
    });
  }

  private async checkAvailability(target: () => CalcomTarget, args: Record<string, unknown>): Promise<BuiltinResult> {
    const start = String(args.start_date ?? '');
    const end = String(args.end_date ?? '');
    if (!/^\d{4}-\d{2}-\d{2}/.test(start) || !/^\d{4}-\d{2}-\d{2}/.test(end)) {
      return { ok: false, content: json({ error: 'start_date and end_date must be dates (YYYY-MM-DD)' }) };
    }
    const answer = await availableSlots(target(), { start, end, timeZone: String(args.time_zone || this.timezone) });
    return { ok: answer.status >= 200 && answer.status < 300, content: json(answer) };
  }

  private async book(target: () => CalcomTarget, fieldNames: readonly string[], args: Record<string, unknown>): Promise<BuiltinResult> {
    const missing = ['start', 'name', 'email', ...fieldNames].filter((k) => typeof args[k] !== 'string' || (args[k] as string).trim() === '');
    if (missing.length) return { ok: false, content: json({ error: `missing ${missing.join(', ')}` }) };
    const fields = Object.fromEntries(fieldNames.map((f) => [f, args[f]]));
    const answer = await createBooking(target(), {
      start: String(args.start),
      name: String(args.name),
      email: String(args.email),
      timeZone: String(args.time_zone || this.timezone),
      fields,
    });
    return { ok: answer.status >= 200 && answer.status < 300, content: json(answer) };
  }
}
