/**
 * Issue 9: an existing client of this API family (MCP server, Python client, n8n node,
 * automation piece), pointed at Switchboard unmodified, must just work.
 *
 * This replays such a client's request sequence against a full service (call engine, dialer,
 * webhook delivery running; sandbox carrier with SANDBOX_TIME_SCALE 0; offline LLM stand-in).
 * It sends what those clients send: record field names on the assistant, ids as strings of
 * digits, `status` instead of `action` on campaign start/stop, the lead update through
 * `PUT /api/leads/{id}`, and fields Switchboard does not implement. Every step must be 2xx.
 * It talks HTTP over a socket like those clients, with `Content-Type: application/json` on
 * every request, also on a GET or DELETE without a body. The customer's tool endpoint and webhook are a receiver on
 * 127.0.0.1.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fullProcess } from '../../src/compose.js';
import { startTestService, type Client, type TestService } from '../support/service.js';
import { callEnded, END_STATUSES, eventually, ok, fetchClient, startReceiver, UNKNOWN_CLIENT_FIELDS, type Receiver } from './support.js';

let t: TestService;
let user: Client;
let receiver: Receiver;
let userId: number;

beforeAll(async () => {
  receiver = await startReceiver();
  t = await startTestService({ parts: fullProcess, env: { ALLOW_PRIVATE_TARGETS: 'true' } });
  const account = await t.createUser({ name: 'Client replay', max_calls_in_parallel: 5 });
  // over a real socket on 127.0.0.1, like a client pointed at a deployment
  const address = await t.service.app.listen({ port: 0, host: '127.0.0.1' });
  user = fetchClient(address, account.token);
  userId = account.id;
});
afterAll(async () => {
  await t?.close();
  await receiver?.close();
});

describe('a client of this API family, replayed end to end', () => {
  it('creates, calls, reads, switches webhooks and deletes — every step 2xx', async () => {
    const numberRow = await t.addPhoneNumber(userId, '+493055501234');

    // ---- discovery, as the clients do it (query parameters they send that we do not use are ignored)
    const numbers = ok('phone numbers', await user.get('/api/user/assistants/phone-numbers?type=outbound'), 200).body;
    const phone = numbers.find((n: { id: number }) => n.id === numberRow.id);
    expect(phone).toMatchObject({ phone_number: '+493055501234', is_available: true });
    const voices = ok('voices', await user.get('/api/user/assistants/voices?mode=pipeline&language_id=2'), 200).body;
    const voice = voices[0];
    expect(voice.mode).toBe('pipeline');
    const languages = ok('languages', await user.get('/api/user/assistants/languages'), 200).body;
    const german = languages.find((l: { iso_2: string }) => l.iso_2 === 'de');
    const models = ok('models', await user.get('/api/user/assistants/models?type=llm'), 200).body;
    const model = models[1];

    // ---- 1. create the assistant with the record's field names (the example body),
    //         ids as digit strings, plus client fields Switchboard does not implement
    const created = ok('create assistant', await user.post('/api/user/assistant', {
      name: 'Sales',
      voice_id: String(voice.id),
      language_id: String(german.id),
      type: 'outbound',
      mode: 'pipeline',
      timezone: 'Europe/Berlin',
      initial_message: 'Hallo {{customer_name}}',
      system_prompt: 'Be brief.',
      llm_model_id: String(model.id),
      phone_number_id: String(phone.id),
      ...UNKNOWN_CLIENT_FIELDS,
    }), 201).body;
    expect(created.message).toBe('Assistant created successfully');
    const assistant = created.data;
    expect(assistant).toMatchObject({
      name: 'Sales',
      type: 'outbound',
      mode: 'pipeline',
      status: 'active',
      voice_id: voice.id,
      language: 'German',
      language_id: german.id,
      llm_model_id: model.id,
      phone_number_id: phone.id,
      timezone: 'Europe/Berlin',
      initial_message: 'Hallo {{customer_name}}',
      system_prompt: 'Be brief.',
    });
    for (const k of ['folder_id', 'label_ids', 'tts_emotion_enabled', 'ringing_time']) expect(assistant).not.toHaveProperty(k);
    expect(assistant.knowledgebase_mode).toBe('function_call'); // the default (issue 29)
    const aid = String(assistant.id);

    // the outbound list a client offers for campaigns and calls
    const outbound = ok('outbound assistants', await user.get('/api/user/assistants/outbound'), 200).body;
    expect(outbound.map((a: { id: number }) => a.id)).toEqual([assistant.id]);

    // ---- 2. create a mid-call tool pointing at the customer's endpoint
    const tool = ok('create tool', await user.post('/api/user/tools', {
      name: 'check_availability',
      description: 'Checks whether the customer can be booked',
      endpoint: `${receiver.url}/tool`,
      method: 'POST',
      timeout: 5,
      headers: [{ name: 'X-Api-Key', value: 'secret-1' }],
      schema: [{ name: 'customer_name', type: 'string', description: 'the name of the customer' }],
      folder_id: 3,
    }), 201).body;
    expect(tool.message).toBe('Tool erfolgreich erstellt');
    expect(tool.data).not.toHaveProperty('folder_id');
    ok('list tools', await user.get('/api/user/tools'), 200);

    // attach it and change settings by record names; tool ids as digit strings
    const updated = ok('update assistant', await user.put(`/api/user/assistant/${aid}`, {
      tool_ids: [String(tool.data.id)],
      max_duration: 300,
      reengagement_interval: 20,
      record: true,
      fillers: 1,
      wait_for_customer: false,
      enable_noise_cancellation: true,
      tts_emotion_enabled: false,
      ringing_time: 25,
    }), 200).body;
    expect(updated).toEqual({
      message: 'Assistant updated successfully',
      data: { id: assistant.id, name: 'Sales', status: 'active', type: 'outbound', mode: 'pipeline' },
    });
    const read = ok('read assistant', await user.get(`/api/user/assistant/${aid}`), 200).body.data;
    expect(read).toMatchObject({
      tool_ids: [tool.data.id],
      max_duration: 300,
      reengagement_interval: 20,
      record: true,
      fillers: 1,
      wait_for_customer: false,
      enable_noise_cancellation: true,
    });
    expect(read.tools).toContainEqual({
      type: 'mid_call_tool',
      data: { id: tool.data.id, name: 'check_availability', description: 'Checks whether the customer can be booked' },
    });
    const page = ok('list assistants', await user.get('/api/user/assistants/get?page=1&per_page=10'), 200).body;
    expect(page.data.map((a: { id: number }) => a.id)).toEqual([assistant.id]);

    // ---- 3. create a campaign for the assistant (assistant_id as a digit string)
    const campaign = ok('create campaign', await user.post('/api/user/campaigns', {
      name: 'Spring offer',
      assistant_id: aid,
      max_calls_in_parallel: 1,
      // the whole day (start = end), so the dialer's window never depends on the hour the test runs
      allowed_hours_start_time: '00:00',
      allowed_hours_end_time: '00:00',
      ...UNKNOWN_CLIENT_FIELDS,
    }), 201).body;
    expect(campaign.message).toBe('Campaign created successfully');
    expect(campaign.data).toMatchObject({ name: 'Spring offer', status: 'draft', assistant_id: assistant.id, timezone: 'Europe/Berlin' });
    const cid = String(campaign.data.id);

    // ---- 4. add a lead (campaign_id as a digit string); a number whose sandbox callee converses
    const lead = ok('create lead', await user.post('/api/user/lead', {
      phone_number: '+4915112345600',
      campaign_id: cid,
      variables: { customer_name: 'Ada' },
      allow_dupplicate: false,
      secondary_contacts: [],
      label_ids: [4],
    }), 200).body;
    expect(lead.message).toBe('Lead created successfully');
    expect(lead.data).toMatchObject({ campaign_id: campaign.data.id, phone_number: '+4915112345600', status: 'created' });
    const leadId = lead.data.id;

    // ---- 5. update the lead through the alias path the clients use
    const leadUpdate = ok('update lead', await user.put(`/api/leads/${leadId}`, {
      campaign_id: cid,
      phone_number: '+49 151 12345600',
      status: 'created',
      variables: { email: 'ada@example.test' },
    }), 200).body;
    expect(leadUpdate).toEqual({ message: 'Lead updated successfully' });
    const leads = ok('list leads', await user.get('/api/user/leads?page=1&per_page=10'), 200).body;
    expect(leads).toHaveLength(1);
    expect(leads[0]).toMatchObject({
      id: leadId,
      phone_number: '+4915112345600',
      variables: { customer_name: 'Ada', email: 'ada@example.test' },
      campaign: { id: campaign.data.id, name: 'Spring offer' },
    });

    // ---- 6. start the campaign with `status` instead of `action`
    const started = ok('start campaign', await user.post('/api/user/campaigns/update-status', { campaign_id: cid, status: 'start' }), 200).body;
    expect(started).toEqual({ message: 'Campaign started successfully.', success: true, data: { campaign_id: campaign.data.id, status: 'in-progress' } });

    // ---- 7. make a call with a string assistant_id
    const call = ok('make call', await user.post('/api/user/make_call', {
      phone_number: '+4915198765400',
      assistant_id: aid,
      variables: { customer_name: 'Bob' },
    }), 200).body;
    expect(call).toEqual({ message: 'Call initiated successfully', call_id: expect.any(Number), status: 'initiated' });

    // wait as a client does: read the call until it has ended
    const finished = await callEnded(user, call.call_id);
    expect(finished).toMatchObject({
      id: call.call_id,
      assistant_name: 'Sales',
      type: 'outbound',
      status: 'completed',
      client_phone_number: '+4915198765400',
      assistant_phone_number: '+493055501234',
      variables: expect.objectContaining({ customer_name: 'Bob' }),
    });
    expect(finished.transcript).toContain('AI: Hallo Bob');
    // the tool created through the client was really called during the conversation
    const toolCall = receiver.received.find((r) => r.path === '/tool' && JSON.parse(r.body || 'null')?.customer_name === 'Bob');
    expect(toolCall, JSON.stringify(receiver.received)).toMatchObject({ method: 'POST', headers: expect.objectContaining({ 'x-api-key': 'secret-1' }) });

    // meanwhile the dialer has called the lead of the started campaign
    const dialedLead = await eventually('the dialer to complete the lead', async () => {
      const list = ok('list leads', await user.get('/api/user/leads'), 200).body;
      return list[0]?.status === 'completed' ? list[0] : undefined;
    });
    expect(dialedLead.id).toBe(leadId);

    // ---- 8. list calls filtered by that assistant (as a string, like every query value)
    const byAssistant = ok('list calls', await user.get(`/api/user/calls?assistant_id=${aid}&page=1&per_page=15`), 200).body;
    const ids = byAssistant.data.map((c: { id: number }) => c.id);
    expect(ids).toContain(call.call_id);
    expect(byAssistant.total).toBe(2); // the make_call call and the dialer's call to the lead
    for (const c of byAssistant.data) {
      expect(c.assistant_name).toBe('Sales');
      expect(END_STATUSES).toContain(c.status);
    }
    const byCampaign = ok('list campaign calls', await user.get(`/api/user/calls?campaign_id=${cid}`), 200).body;
    expect(byCampaign.data).toHaveLength(1);
    expect(byCampaign.data[0]).toMatchObject({ campaign_name: 'Spring offer', client_phone_number: '+4915112345600', status: 'completed' });

    // ---- 9. read and delete the call
    const one = ok('read call', await user.get(`/api/user/calls/${call.call_id}`), 200).body;
    expect(one.id).toBe(call.call_id);
    ok('delete call', await user.delete(`/api/user/calls/${call.call_id}`), 200);
    expect((await user.get(`/api/user/calls/${call.call_id}`)).status).toBe(404);

    // stop the campaign with `status` too (it has already completed its only lead: a 200 no-op)
    const stopped = ok('stop campaign', await user.post('/api/user/campaigns/update-status', { campaign_id: cid, status: 'stop' }), 200).body;
    expect(stopped.success).toBe(true);
    expect(stopped.data.campaign_id).toBe(campaign.data.id);
    const campaigns = ok('list campaigns', await user.get('/api/user/campaigns'), 200).body;
    expect(campaigns.map((c: { status: string }) => c.status)).toEqual([stopped.data.status]);

    // ---- 10. the webhook switches (assistant_id as a digit string)
    ok('enable webhook by update', await user.put(`/api/user/assistant/${aid}`, { is_webhook_active: true, webhook_url: `${receiver.url}/webhook` }), 200);
    const enabled = ok('enable inbound webhook', await user.post('/api/user/assistants/enable-inbound-webhook', {
      assistant_id: aid,
      webhook_url: `${receiver.url}/inbound`,
    }), 200).body;
    expect(enabled).toEqual({ message: 'Webhook enabled successfully', data: [] });
    let state = ok('read assistant', await user.get(`/api/user/assistant/${aid}`), 200).body.data;
    expect(state).toMatchObject({ is_webhook_active: true, webhook_url: `${receiver.url}/webhook`, inbound_webhook_url: `${receiver.url}/inbound` });
    expect(ok('disable inbound webhook', await user.post('/api/user/assistants/disable-inbound-webhook', { assistant_id: aid }), 200).body)
      .toEqual({ message: 'Inbound webhook disabled successfully', data: [] });
    expect(ok('disable webhook', await user.post('/api/user/assistants/disable-webhook', { assistant_id: aid }), 200).body)
      .toEqual({ message: 'Webhook disabled successfully', data: [] });
    state = ok('read assistant', await user.get(`/api/user/assistant/${aid}`), 200).body.data;
    expect(state).toMatchObject({ is_webhook_active: false, webhook_url: null, inbound_webhook_url: null });

    // the signing secret: read, then rotated by a POST without a body (the MCP client sends none)
    const secret = ok('webhook secret', await user.get('/api/user/webhook-secret'), 200).body.secret;
    const rotated = ok('rotate webhook secret', await user.post('/api/user/webhook-secret/rotate'), 200).body.secret;
    expect(rotated).toMatch(/^whsec_/);
    expect(rotated).not.toBe(secret);

    // ---- 11. delete everything: tool, lead, campaign, assistant
    expect(ok('delete tool', await user.delete(`/api/user/tools/${tool.data.id}`), 200).body).toEqual({ message: 'Tool erfolgreich gelöscht' });
    expect(ok('delete lead', await user.delete(`/api/user/leads/${leadId}`), 200).body).toEqual({ message: 'Lead deleted successfully' });
    expect(ok('delete campaign', await user.delete(`/api/user/campaign/${cid}`), 200).body).toEqual({ message: 'Campaign deleted successfully' });
    expect(ok('delete assistant', await user.delete(`/api/user/assistant/${aid}`), 200).body).toEqual({ message: 'Assistant deleted successfully' });

    // nothing is left in the lists; the remaining call keeps its assistant's name
    expect(ok('list tools', await user.get('/api/user/tools'), 200).body).toEqual([]);
    expect(ok('list leads', await user.get('/api/user/leads'), 200).body).toEqual([]);
    expect(ok('list campaigns', await user.get('/api/user/campaigns'), 200).body).toEqual([]);
    expect(ok('list assistants', await user.get('/api/user/assistants/get'), 200).body.total).toBe(0);
    const left = ok('list calls', await user.get('/api/user/calls'), 200).body;
    expect(left.data.map((c: { assistant_name: string }) => c.assistant_name)).toEqual(['Sales']);
    // no webhook was configured while a call ran, so none was sent
    expect(receiver.received.filter((r) => r.path !== '/tool')).toEqual([]);
  });
});
