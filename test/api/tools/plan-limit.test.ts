import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { users } from '../../../src/db/schema.js';
import { startTestService, type TestService } from '../../support/service.js';
import { validTool } from './helpers.js';

let t: TestService;
beforeAll(async () => {
  t = await startTestService();
});
afterAll(() => t.close());

const limitMessage = (n: number) => `You have reached the maximum number of tools (${n}) allowed by your plan.`;

describe('plan limit of mid-call tools (max_tools)', () => {
  it('lets a default user create five and refuses the sixth with only {message}', async () => {
    const user = await t.createUser();
    for (let i = 0; i < 5; i++) {
      expect((await user.post('/api/user/tools', validTool({ name: `tool_${'abcde'[i]}` }))).status).toBe(201);
    }
    const res = await user.post('/api/user/tools', validTool({ name: 'tool_f' }));
    expect(res.status).toBe(422);
    expect(res.body).toEqual({ message: limitMessage(5) });
    expect((await user.get('/api/user/tools')).body).toHaveLength(5);
  });

  it('lets a user with max_tools 7 create seven, not eight', async () => {
    const user = await t.createUser({ max_tools: 7 });
    for (let i = 0; i < 7; i++) expect((await user.post('/api/user/tools', validTool())).status).toBe(201);
    expect(await user.post('/api/user/tools', validTool())).toMatchObject({ status: 422, body: { message: limitMessage(7) } });
    expect((await user.get('/api/user/tools')).body).toHaveLength(7);
  });

  it("counts only the user's own tools", async () => {
    const a = await t.createUser({ max_tools: 1 });
    const b = await t.createUser({ max_tools: 1 });
    expect((await a.post('/api/user/tools', validTool())).status).toBe(201);
    expect((await b.post('/api/user/tools', validTool())).status).toBe(201);
  });

  it('frees a slot when a tool is deleted', async () => {
    const user = await t.createUser({ max_tools: 1 });
    const first = await user.post('/api/user/tools', validTool());
    expect((await user.post('/api/user/tools', validTool())).status).toBe(422);
    expect((await user.delete(`/api/user/tools/${first.body.data.id}`)).status).toBe(200);
    expect((await user.post('/api/user/tools', validTool())).status).toBe(201);
  });

  it('refuses every tool under max_tools 0', async () => {
    const user = await t.createUser({ max_tools: 0 });
    expect(await user.post('/api/user/tools', validTool())).toMatchObject({ status: 422, body: { message: limitMessage(0) } });
  });

  it('applies a changed plan at once (the limit is read from the database, not the token cache)', async () => {
    const user = await t.createUser({ max_tools: 1 });
    expect((await user.post('/api/user/tools', validTool())).status).toBe(201);
    await t.service.ctx.database.db.update(users).set({ maxTools: 2 }).where(eq(users.id, user.id));
    expect((await user.post('/api/user/tools', validTool())).status).toBe(201);
    expect(await user.post('/api/user/tools', validTool())).toMatchObject({ status: 422, body: { message: limitMessage(2) } });
  });

  it('holds under concurrent creations: 12 at once for a limit of 5 give exactly 5 tools', async () => {
    const user = await t.createUser();
    const results = await Promise.all(Array.from({ length: 12 }, () => user.post('/api/user/tools', validTool())));
    const statuses = results.map((r) => r.status).sort();
    expect(statuses.filter((s) => s === 201)).toHaveLength(5);
    expect(statuses.filter((s) => s === 422)).toHaveLength(7);
    for (const r of results.filter((x) => x.status === 422)) expect(r.body).toEqual({ message: limitMessage(5) });
    expect((await user.get('/api/user/tools')).body).toHaveLength(5);
  });

  it('reports invalid fields before the limit', async () => {
    const user = await t.createUser({ max_tools: 0 });
    const res = await user.post('/api/user/tools', validTool({ timeout: 0 }));
    expect(res.body).toEqual({
      message: 'The timeout field must be between 1 and 30.',
      errors: { timeout: ['The timeout field must be between 1 and 30.'] },
    });
  });
});
