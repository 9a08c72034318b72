/**
 * The vendors of `npm run bench voice` in a process of their own (so their synthesis and HTTP
 * work is not counted against the voice core's event loop): the chat-completions double and the
 * OpenAI-compatible speech double. Prints `{chat, speech, apiKey}` as one JSON line, runs until
 * its stdin closes.
 */
import { ChatDouble } from '../test/support/doubles/chat.js';
import { OpenAiSpeechDouble } from '../test/support/doubles/openai-speech.js';

const firstByteDelayMs = Number(process.env.SPEECH_DELAY_MS ?? 40);
const chat = await new ChatDouble().start();
chat.otherwise({ text: process.env.REPLY ?? 'Sure. Let me tell you a little more about that, it will only take a moment of your time.' });
const speech = await new OpenAiSpeechDouble(undefined, { firstByteDelayMs }).start();
process.stdout.write(`${JSON.stringify({ chat: chat.baseUrl, speech: speech.baseUrl, apiKey: speech.knobs.apiKey })}\n`);
process.stdin.resume();
process.stdin.on('end', async () => {
  await chat.close();
  await speech.close();
  process.exit(0);
});
