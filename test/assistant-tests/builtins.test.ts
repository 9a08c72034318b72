import { describe, expect, it } from 'vitest';
import pino from 'pino';
import { BuiltinToolbox } from '../../src/calls/builtin-tools/index.js';
import { systemClock } from '../../src/telephony/clock.js';
import type { StoredBuiltinTool } from '../../src/db/schema.js';
import { BUILTIN_FUNCTIONS, BUILTIN_TYPES, builtinTypeOf } from '../../src/assistant-tests/builtins.js';

const ITEMS: StoredBuiltinTool[] = [
  { type: 'end_call', data: { description: 'bye' } },
  { type: 'call_transfer', data: { phone_number: '+4930123456', warm_transfer: false } },
  { type: 'warm_call_transfer', data: { supervisor_phone: '+4930123457', outbound_phone_id: 1, description: 'warm', caller_id_mode: 'outbound_number', hold_music: 'none', hold_music_volume: 0.5 } },
  { type: 'dtmf_input', data: {} },
  { type: 'collect_keypad', data: { timeout: 5, stop_key: '#' } },
  { type: 'calendar_integration', data: { calcom_endpoint: 'https://api.cal.com', calcom_api_key_sealed: 'x', calcom_event_slug: 'e', calcom_booking_fields: [] } as never },
  { type: 'assistant_transfer', data: { assistant_id: 2, speak_transfer_greeting: true } as never },
];

describe('the built-in function names a test refers to', () => {
  it('are the names a real toolbox gives the model, for every type', () => {
    const box = new BuiltinToolbox(ITEMS, { leg: { onEvent() {}, start() {}, hangUp() {} }, clock: systemClock, log: pino({ level: 'silent' }), allowPrivate: false, unseal: (s) => s, timezone: 'UTC' });
    const fromTable = BUILTIN_TYPES.filter((t) => t !== 'end_call').flatMap((t) => BUILTIN_FUNCTIONS[t]);
    expect(box.specs.map((s) => s.name).sort()).toEqual([...fromTable].sort());
    expect(ITEMS.map((i) => i.type).sort()).toEqual([...BUILTIN_TYPES].sort());
  });

  it('map a called function back to its type, numbered ones too', () => {
    expect(builtinTypeOf('transfer-call')).toBe('call_transfer');
    expect(builtinTypeOf('transfer-call-2')).toBe('call_transfer');
    expect(builtinTypeOf('book-appointment')).toBe('calendar_integration');
    expect(builtinTypeOf('end-call')).toBe('end_call');
    expect(builtinTypeOf('check_calendar')).toBeNull();
  });
});
