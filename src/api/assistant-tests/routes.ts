/**
 * Assistant tests (an extension beside the spec's resources): stored scenarios per assistant,
 * test runs (executed in the background, src/assistant-tests/run-queue.ts), and a finished call
 * turned into a scenario. Every path id that is not the caller's is a 404.
 */
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { credentialSealer } from '../../lib/secrets.js';
import { HttpError, notFound, ValidationError } from '../toolkit/errors.js';
import { paginate } from '../toolkit/pagination.js';
import { messageSchema, pathId, typed, validationSchema } from '../toolkit/route.js';
import { findAssistant, NOT_FOUND as ASSISTANT_NOT_FOUND, toolsOf } from '../assistants/service.js';
import { findCall } from '../calls/service.js';
import {
  deleteScenario,
  findRun,
  findScenario,
  findScenarios,
  insertRun,
  insertScenario,
  listRuns,
  listScenarios,
  resultsOf,
  updateScenario,
  type RunScenarioEntry,
} from '../../assistant-tests/store.js';
import { audioRefusal } from '../../assistant-tests/audio.js';
import { processAudio } from '../../assistant-tests/run-queue.js';
import { checkDocument, lineText, scenarioRefusal, shapeOf, sourceOfObject, storedShapeOf } from './check.js';
import { callIsFinished, scenarioFromCall } from './from-call.js';
import {
  createRunBody,
  fromCallBody,
  listRunsQuery,
  runSchema,
  runSummarySchema,
  scenarioBody,
  scenarioErrorSchema,
  scenarioSchema,
  validateBody,
} from './schemas.js';
import { serializeRun, serializeRunSummary, serializeScenario } from './serializer.js';
import { testTargetChanges } from '../assistants/test-target.js';
import { loadTestAssistant } from '../../assistant-tests/assistant.js';

export const RUN_VALIDATION_FAILED = 'The test run is invalid.';
import { pageSchema } from '../toolkit/pagination.js';

const tags = ['assistant tests'];
export const SCENARIO_NOT_FOUND = 'Test scenario not found';
export const RUN_NOT_FOUND = 'Test run not found';
const CALL_NOT_FOUND = 'Call not found';
/** Scenarios (after documents are split) and repeats one run may hold. */
const MAX_RUN_SCENARIOS = 100;
const MAX_RUN_REPEATS = 1000;

const assistantParams = z.object({ id: pathId() });
const scenarioParams = z.object({ id: pathId(), scenarioId: pathId() });
const invalidScenario = validationSchema.extend({ scenario_errors: z.array(scenarioErrorSchema.extend({ scenario: z.number().int().optional() })).optional() });
const scenarioWritten = z.object({ message: z.string(), data: scenarioSchema });

export async function assistantTestRoutes(app: FastifyInstance): Promise<void> {
  const r = typed(app);
  const { db } = app.ctx.database;
  const sealer = credentialSealer(app.ctx.config);

  const ownAssistant = async (userId: number, id: number) => {
    const row = await findAssistant(db, userId, id);
    if (!row) throw notFound(ASSISTANT_NOT_FOUND);
    return row;
  };

  /** A stored document: parsed and checked against the assistant; its name (the scenarios' names). */
  const checkedStored = async (assistant: Awaited<ReturnType<typeof ownAssistant>>, source: string) => {
    const shape = await storedShapeOf(db, assistant.userId, assistant.id);
    if (!shape) throw notFound(ASSISTANT_NOT_FOUND);
    const checked = checkDocument(source, 'scenario', shape);
    if (!checked.ok) throw scenarioRefusal('source', checked.errors);
    return { name: checked.scenarios.map((s) => s.name).join(' · ').slice(0, 200), scenarios: checked.scenarios };
  };

  // ---------------------------------------------------------------- stored scenarios

  r.get('/api/user/assistants/:id/test-scenarios', {
    schema: { tags, summary: "An assistant's stored test scenarios, oldest first", params: assistantParams, response: { 200: z.object({ data: z.array(scenarioSchema) }), 404: messageSchema } },
    config: { notFoundMessage: ASSISTANT_NOT_FOUND },
  }, async (req) => {
    const assistant = await ownAssistant(req.user.id, req.params.id);
    return { data: (await listScenarios(db, req.user.id, assistant.id)).map(serializeScenario) };
  });

  r.post('/api/user/assistants/:id/test-scenarios', {
    schema: {
      tags,
      summary: 'Store a test scenario (YAML or JSON); refused with the line and reason of each problem',
      params: assistantParams,
      body: scenarioBody,
      response: { 201: scenarioWritten, 404: messageSchema, 422: invalidScenario },
    },
    config: { notFoundMessage: ASSISTANT_NOT_FOUND, validationMessage: 'The scenario is invalid.' },
  }, async (req, reply) => {
    const assistant = await ownAssistant(req.user.id, req.params.id);
    const { name } = await checkedStored(assistant, req.body.source);
    const row = await insertScenario(db, { userId: req.user.id, assistantId: assistant.id, name, source: req.body.source });
    return reply.code(201).send({ message: 'Test scenario created', data: serializeScenario(row) });
  });

  r.post('/api/user/assistants/:id/test-scenarios/validate', {
    schema: {
      tags,
      summary: 'Check a scenario document against the assistant without storing it (the editor checks as you type)',
      params: assistantParams,
      body: validateBody,
      response: {
        200: z.object({
          data: z.object({
            valid: z.boolean(),
            errors: z.array(scenarioErrorSchema),
            scenarios: z.array(z.object({ name: z.string(), mode: z.string(), repeat: z.number().int(), expectations: z.number().int() })),
          }),
        }),
        404: messageSchema,
        422: validationSchema,
      },
    },
    config: { notFoundMessage: ASSISTANT_NOT_FOUND },
  }, async (req) => {
    const assistant = await ownAssistant(req.user.id, req.params.id);
    const shape = await storedShapeOf(db, req.user.id, assistant.id);
    if (!shape) throw notFound(ASSISTANT_NOT_FOUND);
    const checked = checkDocument(req.body.source, 'scenario', shape);
    return {
      data: checked.ok
        ? { valid: true, errors: [], scenarios: checked.scenarios.map((s) => ({ name: s.name, mode: s.mode, repeat: s.repeat, expectations: s.expect.length })) }
        : { valid: false, errors: checked.errors, scenarios: [] },
    };
  });

  r.get('/api/user/assistants/:id/test-scenarios/:scenarioId', {
    schema: { tags, summary: 'One stored test scenario', params: scenarioParams, response: { 200: z.object({ data: scenarioSchema }), 404: messageSchema } },
    config: { notFoundMessage: SCENARIO_NOT_FOUND },
  }, async (req) => {
    const assistant = await ownAssistant(req.user.id, req.params.id);
    const row = await findScenario(db, req.user.id, assistant.id, req.params.scenarioId);
    if (!row) throw notFound(SCENARIO_NOT_FOUND);
    return { data: serializeScenario(row) };
  });

  r.put('/api/user/assistants/:id/test-scenarios/:scenarioId', {
    schema: {
      tags,
      summary: "Replace a stored test scenario's document",
      params: scenarioParams,
      body: scenarioBody,
      response: { 200: scenarioWritten, 404: messageSchema, 422: invalidScenario },
    },
    config: { notFoundMessage: SCENARIO_NOT_FOUND, validationMessage: 'The scenario is invalid.' },
  }, async (req) => {
    const assistant = await ownAssistant(req.user.id, req.params.id);
    if (!(await findScenario(db, req.user.id, assistant.id, req.params.scenarioId))) throw notFound(SCENARIO_NOT_FOUND);
    const { name } = await checkedStored(assistant, req.body.source);
    const row = await updateScenario(db, req.user.id, assistant.id, req.params.scenarioId, { name, source: req.body.source });
    if (!row) throw notFound(SCENARIO_NOT_FOUND);
    return { message: 'Test scenario updated', data: serializeScenario(row) };
  });

  r.delete('/api/user/assistants/:id/test-scenarios/:scenarioId', {
    schema: { tags, summary: 'Delete a stored test scenario (runs that ran it keep their copy)', params: scenarioParams, response: { 200: messageSchema, 404: messageSchema } },
    config: { notFoundMessage: SCENARIO_NOT_FOUND },
  }, async (req) => {
    const assistant = await ownAssistant(req.user.id, req.params.id);
    if (!(await deleteScenario(db, req.user.id, assistant.id, req.params.scenarioId))) throw notFound(SCENARIO_NOT_FOUND);
    return { message: 'Test scenario deleted' };
  });

  // ---------------------------------------------------------------- runs

  r.post('/api/user/assistants/:id/test-runs', {
    schema: {
      tags,
      summary: 'Run test scenarios against the assistant (current version, an earlier one, or unsaved changes); answered at once, the run goes on in the background',
      description:
        '`scenarios`: documents (YAML/JSON text) or scenario objects; `scenario_ids`: stored scenarios; neither: every stored scenario. ' +
        '`version`: a number from the versions list. `assistant_overrides`: fields of the update request, for this run only (the stored assistant does not change). ' +
        'Poll `GET /api/user/test-runs/{id}` for progress. Runs are not calls: they are not listed, billed or sent to webhooks.',
      params: assistantParams,
      body: createRunBody,
      response: {
        202: z.object({ data: z.object({ id: z.number().int(), status: z.enum(['queued', 'running']) }) }),
        404: messageSchema,
        422: invalidScenario,
        503: messageSchema,
      },
    },
    config: { notFoundMessage: ASSISTANT_NOT_FOUND, validationMessage: RUN_VALIDATION_FAILED },
  }, async (req, reply) => {
    const queue = app.ctx.services.testRuns;
    const assistant = await ownAssistant(req.user.id, req.params.id);
    if (!queue) throw new HttpError(503, 'Test runs are not available in this process.');
    const changes = await testTargetChanges(db, req.user.id, assistant.id, { version: req.body.version, overrides: req.body.assistant_overrides }, sealer);
    const target = changes && (await loadTestAssistant(db, req.user.id, assistant.id, changes));
    if (!target) throw notFound(ASSISTANT_NOT_FOUND);
    // Audio mode runs here only with a speech-to-text provider (and the sandbox's line): refused up front otherwise.
    const shape = { ...shapeOf(target), audioRefusal: audioRefusal(processAudio(app.ctx)) };

    const documents: { source: string; scenarioId: number | null; field: string }[] = [];
    if (req.body.scenarios) {
      req.body.scenarios.forEach((s, i) => documents.push({ source: typeof s === 'string' ? s : sourceOfObject(s), scenarioId: null, field: `scenarios.${i}` }));
    }
    if (req.body.scenario_ids || !req.body.scenarios) {
      const ids = req.body.scenario_ids;
      const stored = ids ? await findScenarios(db, req.user.id, assistant.id, ids) : await listScenarios(db, req.user.id, assistant.id);
      if (ids) {
        const byId = new Map(stored.map((s) => [s.id, s]));
        const missing = ids.map((id, i) => (byId.has(id) ? null : `scenario_ids.${i}`)).filter((k): k is string => k !== null);
        if (missing.length > 0) throw new ValidationError(Object.fromEntries(missing.map((k) => [k, [`The selected ${k} is invalid.`]])), RUN_VALIDATION_FAILED);
        ids.forEach((id, i) => documents.push({ source: byId.get(id)!.source, scenarioId: id, field: `scenario_ids.${i}` }));
      } else {
        if (stored.length === 0) throw new ValidationError({ scenarios: ['The assistant has no stored scenarios: send scenarios or scenario_ids.'] }, RUN_VALIDATION_FAILED);
        stored.forEach((s) => documents.push({ source: s.source, scenarioId: s.id, field: `scenario_ids.${s.id}` }));
      }
    }

    const entries: RunScenarioEntry[] = [];
    const errors: Record<string, string[]> = {};
    const lines: { scenario: number; line: number; message: string }[] = [];
    let repeats = 0;
    documents.forEach((d, i) => {
      const checked = checkDocument(d.source, d.field, shape);
      if (!checked.ok) {
        errors[d.field] = checked.errors.map(lineText);
        lines.push(...checked.errors.map((e) => ({ scenario: i, ...e })));
        return;
      }
      checked.scenarios.forEach((s, index) => {
        entries.push({ name: s.name, source: d.source, scenario_id: d.scenarioId, index });
        repeats += s.repeat;
      });
    });
    if (Object.keys(errors).length > 0) throw new ValidationError(errors, RUN_VALIDATION_FAILED, { scenario_errors: lines });
    if (entries.length > MAX_RUN_SCENARIOS) throw new ValidationError({ scenarios: [`A run holds at most ${MAX_RUN_SCENARIOS} scenarios (this one ${entries.length}).`] }, RUN_VALIDATION_FAILED);
    if (repeats > MAX_RUN_REPEATS) throw new ValidationError({ scenarios: [`A run holds at most ${MAX_RUN_REPEATS} repeats in all (this one ${repeats}).`] }, RUN_VALIDATION_FAILED);

    const overrides = req.body.assistant_overrides && Object.keys(req.body.assistant_overrides).length > 0 ? req.body.assistant_overrides : null;
    const run = await insertRun(db, {
      userId: req.user.id,
      assistantId: assistant.id,
      assistantVersion: target.version ?? req.body.version ?? assistant.version,
      overrides,
      scenarios: entries,
      total: entries.length,
      ownerInstance: app.ctx.instanceId,
    });
    queue.submit(run, target, req.user.maxCallsInParallel);
    return reply.code(202).send({ data: { id: run.id, status: 'queued' as const } });
  });

  r.get('/api/user/assistants/:id/test-runs', {
    schema: {
      tags,
      summary: "An assistant's test runs, newest first, paginated (per_page 1-100, default 15)",
      params: assistantParams,
      querystring: listRunsQuery,
      response: { 200: pageSchema(runSummarySchema), 404: messageSchema, 422: validationSchema },
    },
    config: { notFoundMessage: ASSISTANT_NOT_FOUND },
  }, async (req) => {
    const assistant = await ownAssistant(req.user.id, req.params.id);
    const { page, per_page: perPage } = req.query;
    const { total, rows } = await listRuns(db, req.user.id, assistant.id, page, perPage);
    return paginate({
      path: `${app.ctx.config.publicAppUrl}/api/user/assistants/${assistant.id}/test-runs`,
      query: req.query as Record<string, unknown>,
      page,
      perPage,
      total,
      items: rows.map(serializeRunSummary),
    });
  });

  r.get('/api/user/test-runs/:id', {
    schema: {
      tags,
      summary: 'A test run with every scenario and repeat so far: transcript, tool requests, turn timings, each assertion with expected and actual',
      params: z.object({ id: pathId() }),
      response: { 200: z.object({ data: runSchema }), 404: messageSchema },
    },
    config: { notFoundMessage: RUN_NOT_FOUND },
  }, async (req) => {
    const run = await findRun(db, req.user.id, req.params.id);
    if (!run) throw notFound(RUN_NOT_FOUND);
    return { data: serializeRun(run, await resultsOf(db, run.id)) };
  });

  // ---------------------------------------------------------------- from a call

  r.post('/api/user/calls/:id/test-scenario', {
    schema: {
      tags,
      summary: "Turn a finished call into a scripted test scenario: its caller's lines, its tool calls as expectations, its status",
      params: z.object({ id: pathId() }),
      body: fromCallBody.optional(),
      response: {
        200: z.object({ data: z.object({ assistant_id: z.number().int(), name: z.string(), source: z.string(), scenario: scenarioSchema.nullable() }) }),
        201: z.object({ data: z.object({ assistant_id: z.number().int(), name: z.string(), source: z.string(), scenario: scenarioSchema.nullable() }) }),
        404: messageSchema,
        422: validationSchema,
      },
    },
    config: { notFoundMessage: CALL_NOT_FOUND },
  }, async (req, reply) => {
    const call = await findCall(db, req.user.id, req.params.id);
    if (!call) throw notFound(CALL_NOT_FOUND);
    if (!callIsFinished(call.status)) throw new ValidationError({ call: ['The call has not finished yet.'] });
    const assistant = call.assistantId === null ? null : await findAssistant(db, req.user.id, call.assistantId);
    if (!assistant) throw new ValidationError({ call: ["The call's assistant is gone."] });
    const tools = new Set(((await toolsOf(db, [assistant.id])).get(assistant.id) ?? []).map((t) => t.name));
    const name = req.body?.name?.trim() || `Call ${call.id} replayed`;
    const source = scenarioFromCall({ id: call.id, status: call.status, transcript: call.transcript, toolCalls: call.toolCalls }, name, tools);
    if (!req.body?.save) return { data: { assistant_id: assistant.id, name, source, scenario: null } };
    const { name: stored } = await checkedStored(assistant, source);
    const row = await insertScenario(db, { userId: req.user.id, assistantId: assistant.id, name: stored, source });
    return reply.code(201).send({ data: { assistant_id: assistant.id, name, source, scenario: serializeScenario(row) } });
  });
}
