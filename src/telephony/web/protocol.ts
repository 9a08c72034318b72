/**
 * The browser-call wire protocol, on one WebSocket. Audio travels as binary frames of PCM16
 * little-endian mono at `WEB_SAMPLE_RATE`; everything else as JSON text frames.
 *
 * Browser → service:
 *   binary                          the caller's microphone (audio mode)
 *   {type:'text', text}             a typed utterance (text mode)
 *   {type:'mark', name}             playback reached this mark (audio mode)
 *   {type:'dtmf', digit}            a key pressed on the page's keypad
 *   {type:'hangup'}                 the caller ends the call
 * Service → browser:
 *   {type:'ready', mode, sampleRate, callId}   the call is connected
 *   binary                          the assistant's audio, to play in order
 *   {type:'mark', name}             echo `mark` back once everything before it has been played
 *   {type:'clear'}                  drop all queued audio at once (the caller interrupted)
 *   {type:'assistant', text}        text mode: the assistant's utterance
 *   {type:'transcript', role, text} audio mode: a line of the live transcript
 *   {type:'ended', reason}          the call is over; the socket closes next
 */
export const WEB_SAMPLE_RATE = 16_000;

export type WebCallMode = 'audio' | 'text';

export type BrowserMessage =
  | { type: 'text'; text: string }
  | { type: 'mark'; name: string }
  | { type: 'dtmf'; digit: string }
  | { type: 'hangup' };

export type ServiceMessage =
  | { type: 'ready'; mode: WebCallMode; sampleRate: number; callId: number }
  | { type: 'mark'; name: string }
  | { type: 'clear' }
  | { type: 'assistant'; text: string }
  | { type: 'transcript'; role: 'user' | 'assistant'; text: string }
  | { type: 'ended'; reason: string };

const MAX_TEXT = 2_000;
const DTMF = /^[0-9*#A-D]$/;

/** Parses one JSON text frame from the browser; null for anything malformed (ignored). */
export function parseBrowserMessage(raw: string): BrowserMessage | null {
  if (raw.length > MAX_TEXT * 2) return null;
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    return null;
  }
  if (!value || typeof value !== 'object') return null;
  const m = value as Record<string, unknown>;
  switch (m.type) {
    case 'text':
      return typeof m.text === 'string' && m.text.trim() !== '' && m.text.length <= MAX_TEXT ? { type: 'text', text: m.text.trim() } : null;
    case 'mark':
      return typeof m.name === 'string' && m.name.length <= 200 ? { type: 'mark', name: m.name } : null;
    case 'dtmf':
      return typeof m.digit === 'string' && DTMF.test(m.digit) ? { type: 'dtmf', digit: m.digit } : null;
    case 'hangup':
      return { type: 'hangup' };
    default:
      return null;
  }
}
