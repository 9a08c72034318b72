/** Browser calls over the media WebSocket, as a typed conversation (no speech-to-text configured). */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callEnginePart } from '../../../src/calls/index.js';
import { insertAssistant } from '../../support/fixtures.js';
import { startTestService, type TestService } from '../../support/service.js';
import { openBrowserPage } from '../../support/web-call-page.js';

let t: TestService;
beforeAll(async () => {
  t = await startTestService({ parts: [callEnginePart], listen: true });
});
afterAll(() => t.close());

const openPage = (path: string) => openBrowserPage(t, path);

describe('POST /api/user/web-calls and the media socket', () => {
  it('runs a typed conversation as a call of type web, with its record', async () => {
    const user = await t.createUser();
    const assistant = await insertAssistant(t, user.id, { initialMessage: 'Hello, how can I help?' });
    const caps = await user.get('/api/user/web-calls/capabilities');
    expect(caps).toMatchObject({ status: 200, body: { speech: false } });

    const res = await user.post('/api/user/web-calls', { assistant_id: assistant.id });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ call_id: expect.any(Number), mode: 'text', expires_in: 60 });
    expect(res.body.media_path).toMatch(new RegExp(`^/web-calls/${res.body.call_id}/media\\?token=[\\w-]{20,}$`));
    const callId = res.body.call_id as number;
    expect((await user.get(`/api/user/calls/${callId}`)).body).toMatchObject({ type: 'web', status: 'initiated' });

    const page = openPage(res.body.media_path);
    expect(await page.next('ready')).toEqual({ type: 'ready', mode: 'text', sampleRate: 16000, callId });
    expect(await page.next('assistant')).toEqual({ type: 'assistant', text: 'Hello, how can I help?' });
    page.ws.send(JSON.stringify({ type: 'text', text: 'I would like to book a table.' }));
    const reply = await page.next('assistant');
    expect(typeof reply.text).toBe('string');
    page.ws.send(JSON.stringify({ type: 'hangup' }));
    await page.closed;
    await t.service.ctx.services.callEngine!.whenFinished(callId);

    const record = (await user.get(`/api/user/calls/${callId}`)).body;
    expect(record).toMatchObject({ type: 'web', status: 'completed', client_phone_number: '' });
    expect(record.transcript).toContain('AI: Hello, how can I help?');
    expect(record.transcript).toContain('Customer: I would like to book a table.');
    expect(record.transcript).toContain(`AI: ${reply.text}`);
  });

  it('closes a socket with a wrong, a reused or another call’s token, and runs the call only once', async () => {
    const user = await t.createUser();
    const assistant = await insertAssistant(t, user.id);
    const first = (await user.post('/api/user/web-calls', { assistant_id: assistant.id })).body;
    const second = (await user.post('/api/user/web-calls', { assistant_id: assistant.id })).body;

    const wrong = openPage(`/web-calls/${first.call_id}/media?token=not-the-token`);
    expect((await wrong.closed).code).toBe(4401);
    const noToken = openPage(`/web-calls/${first.call_id}/media`);
    expect((await noToken.closed).code).toBe(4401);
    // The second call's token does not open the first call.
    const crossed = openPage(`/web-calls/${first.call_id}/media?token=${new URL(second.media_path, 'http://x').searchParams.get('token')}`);
    expect((await crossed.closed).code).toBe(4401);

    const page = openPage(first.media_path);
    await page.next('ready');
    const reused = openPage(first.media_path);
    expect((await reused.closed).code).toBe(4401);
    page.ws.close();
    await page.closed;
    await t.service.ctx.services.callEngine!.whenFinished(first.call_id);
    // The page left before saying anything: the customer ended it.
    expect((await user.get(`/api/user/calls/${first.call_id}`)).body.status).toBe('ended_by_customer');
  });

  it('ends a call whose page never connects as failed, with its record', async () => {
    const user = await t.createUser();
    const assistant = await insertAssistant(t, user.id);
    const { call_id } = (await user.post('/api/user/web-calls', { assistant_id: assistant.id })).body;
    // What the expiry timer does: run the call without a socket.
    await t.service.ctx.services.calls!.startCall(call_id);
    await t.service.ctx.services.callEngine!.whenFinished(call_id);
    expect((await user.get(`/api/user/calls/${call_id}`)).body).toMatchObject({ type: 'web', status: 'failed' });
  });

  it('refuses another user’s assistant, a deleted or inactive one, and bad input', async () => {
    const owner = await t.createUser();
    const other = await t.createUser();
    const assistant = await insertAssistant(t, owner.id);
    expect(await other.post('/api/user/web-calls', { assistant_id: assistant.id })).toMatchObject({ status: 404, body: { message: 'Assistant not found' } });
    const inactive = await insertAssistant(t, owner.id, { status: 'inactive' });
    expect(await owner.post('/api/user/web-calls', { assistant_id: inactive.id })).toMatchObject({ status: 422, body: { message: 'Assistant is inactive.' } });
    const bad = await owner.post('/api/user/web-calls', { assistant_id: 'x', mode: 'video' });
    expect(bad.status).toBe(422);
    expect(Object.keys(bad.body.errors).sort()).toEqual(['assistant_id', 'mode']);
    expect((await t.anonymous.post('/api/user/web-calls', { assistant_id: assistant.id })).status).toBe(401);
  });
});
