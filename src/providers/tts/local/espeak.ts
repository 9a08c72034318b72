/**
 * eSpeak NG compiled to WebAssembly (the optional npm package `espeak-ng`, GPL-3.0-or-later),
 * loaded ONLY inside the local voice's child process (espeak-worker.ts): the GPL code never
 * runs in the service's own process.
 *
 * The package is the espeak-ng command line program built with Emscripten: every start copies
 * its 18 MB of embedded voice data into the in-memory file system (about 0.6 s), which is far
 * too slow per sentence. So one instance is started once and its `main` is called again for
 * every sentence (≈ 60 ms for a 3 s sentence). That needs one reset between runs: the C
 * library's `optind` (getopt's cursor) is a global left at the end of the previous argument
 * list. Its address is not exported, so it is found at start-up by watching which word of
 * memory follows the argument counts of two probe runs (1 → 5 → 7), and checked; when that does
 * not single out one word, the runner falls back to a fresh instance per sentence (slow, still
 * correct).
 */
import { createRequire } from 'node:module';
import fs from 'node:fs';
import { readWav, monoOf } from '../../../audio/wav.js';

/** The npm package (optional dependency). */
export const ESPEAK_PACKAGE = 'espeak-ng';

/** Where the package's JS glue is, or null when the optional dependency is not installed. */
export function espeakModulePath(name = ESPEAK_PACKAGE): string | null {
  try {
    return createRequire(import.meta.url).resolve(name);
  } catch {
    return null;
  }
}

export interface SynthesisRequest {
  text: string;
  /** An eSpeak voice name, e.g. `en-us`, `en-gb`, `en-us+f3` (checked by the caller). */
  voice: string;
  /** Words per minute (eSpeak's default is 175). */
  wordsPerMinute: number;
  /** 0–99, eSpeak's default 50. */
  pitch?: number;
}

export interface Synthesis {
  samples: Int16Array;
  sampleRate: number;
}

interface EmscriptenModule {
  FS: {
    writeFile(path: string, data: string | Uint8Array): void;
    readFile(path: string): Uint8Array;
    unlink(path: string): void;
    analyzePath(path: string): { exists: boolean };
  };
  HEAPU8: Uint8Array;
  HEAP32: Int32Array;
  HEAPU32: Uint32Array;
}

interface Exports {
  malloc(size: number): number;
  free(ptr: number): void;
  __main_argc_argv(argc: number, argv: number): number;
}

type Factory = (moduleArg: Record<string, unknown>) => Promise<EmscriptenModule>;

const IN = '/switchboard-in.txt';
const OUT = '/switchboard-out.wav';

class Instance {
  private constructor(
    readonly module: EmscriptenModule,
    private readonly exports: Exports,
  ) {}

  static async start(factory: Factory, compiled: WebAssembly.Module, onError: (line: string) => void): Promise<Instance> {
    let instance: WebAssembly.Instance | undefined;
    const module = await factory({
      noInitialRun: true,
      print: () => undefined,
      printErr: onError,
      instantiateWasm(imports: WebAssembly.Imports, receive: (i: WebAssembly.Instance, m: WebAssembly.Module) => void) {
        void WebAssembly.instantiate(compiled, imports).then((i) => {
          instance = i;
          receive(i, compiled);
        });
        return {};
      },
    });
    return new Instance(module, instance!.exports as unknown as Exports);
  }

  /** Runs the program's main with these arguments; returns its exit status. */
  main(args: string[]): number {
    const encoder = new TextEncoder();
    const all = ['espeak-ng', ...args];
    const pointers = all.map((arg) => {
      const bytes = encoder.encode(`${arg}\0`);
      const at = this.exports.malloc(bytes.length);
      this.module.HEAPU8.set(bytes, at);
      return at;
    });
    const argv = this.exports.malloc(4 * (pointers.length + 1));
    pointers.forEach((p, i) => (this.module.HEAPU32[(argv >> 2) + i] = p));
    this.module.HEAPU32[(argv >> 2) + pointers.length] = 0;
    try {
      return this.exports.__main_argc_argv(pointers.length, argv);
    } catch (err) {
      // Emscripten's exit() unwinds with an ExitStatus carrying the status.
      const status = (err as { status?: unknown }).status;
      if (typeof status === 'number') return status;
      throw err;
    } finally {
      for (const p of pointers) this.exports.free(p);
      this.exports.free(argv);
    }
  }

  /** Speaks `request` into a WAV in the in-memory file system and reads it back. */
  speak(request: SynthesisRequest): Synthesis {
    const files = this.module.FS;
    files.writeFile(IN, request.text);
    const args = ['-v', request.voice, '-s', String(Math.round(request.wordsPerMinute))];
    if (request.pitch !== undefined) args.push('-p', String(Math.round(request.pitch)));
    args.push('-w', OUT, '-f', IN);
    const status = this.main(args);
    if (status !== 0 || !files.analyzePath(OUT).exists) throw new Error(`espeak-ng exited with status ${status} for voice ${request.voice}`);
    const wav = readWav(files.readFile(OUT));
    files.unlink(OUT);
    return { samples: monoOf(wav), sampleRate: wav.sampleRate };
  }
}

/** Probe arguments: all options (text from a file), so getopt ends with optind = argc. */
const PROBES: string[][] = [
  ['-w', OUT, '-f', IN],
  ['-v', 'en-us', '-w', OUT, '-f', IN],
];

/** Finds the word of memory holding getopt's `optind` (see the header), or null. */
function findOptind(instance: Instance): number | null {
  const before = instance.module.HEAP32.slice();
  let candidates: number[] | null = null;
  for (const probe of PROBES) {
    instance.module.FS.writeFile(IN, 'a');
    if (instance.main(probe) !== 0) return null;
    const heap = instance.module.HEAP32;
    const argc = probe.length + 1;
    candidates = candidates === null
      ? collect(before, heap, argc)
      : candidates.filter((c) => heap[c] === argc);
    for (const c of candidates) heap[c] = 1;
  }
  return candidates !== null && candidates.length === 1 ? candidates[0] : null;
}

function collect(before: Int32Array, after: Int32Array, argc: number): number[] {
  const out: number[] = [];
  const n = Math.min(before.length, after.length);
  for (let i = 0; i < n; i++) if (before[i] === 1 && after[i] === argc) out.push(i);
  return out;
}

/** One eSpeak NG for a process: reused across sentences when possible. */
export class Espeak {
  private constructor(
    private readonly factory: Factory,
    private readonly compiled: WebAssembly.Module,
    private instance: Instance | null,
    private readonly optind: number | null,
    private readonly onError: (line: string) => void,
  ) {}

  /** Loads the optional package; throws when it is not installed. */
  static async load(onError: (line: string) => void = () => undefined, name = ESPEAK_PACKAGE): Promise<Espeak> {
    const path = espeakModulePath(name);
    if (!path) throw new Error(`the optional package ${name} is not installed (npm install ${name})`);
    const factory = ((await import(new URL(`file://${path}`).href)) as { default: Factory }).default;
    const compiled = await WebAssembly.compile(fs.readFileSync(path.replace(/\.js$/, '.wasm')));
    const instance = await Instance.start(factory, compiled, onError);
    const optind = findOptind(instance);
    return new Espeak(factory, compiled, optind === null ? null : instance, optind, onError);
  }

  /** True when one instance serves every sentence (the fast path). */
  get reusesInstance(): boolean {
    return this.optind !== null;
  }

  async speak(request: SynthesisRequest): Promise<Synthesis> {
    if (this.optind === null || this.instance === null) {
      // Slow path: a fresh program per sentence (its main runs once from a clean state).
      const instance = await Instance.start(this.factory, this.compiled, this.onError);
      return instance.speak(request);
    }
    this.instance.module.HEAP32[this.optind] = 1;
    return this.instance.speak(request);
  }
}
