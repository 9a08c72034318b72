/**
 * The carriers of one process, by name, one of them the default (calls that name no carrier).
 * The composition root fills it from the configuration; the call engine and the carrier's
 * own routes look carriers up here and know no concrete carrier.
 */
import type { Carrier } from './types.js';

export class CarrierRegistry {
  private readonly byName = new Map<string, Carrier>();
  private defaultName: string | undefined;

  /** `carriers` in order; the first is the default unless `defaultName` names another. */
  constructor(carriers: readonly Carrier[] = [], defaultName?: string) {
    for (const carrier of carriers) this.add(carrier);
    if (defaultName !== undefined) this.setDefault(defaultName);
  }

  /** Adds a carrier (a name may appear once); the first one added becomes the default. */
  add(carrier: Carrier): this {
    if (this.byName.has(carrier.name)) throw new Error(`carrier ${carrier.name} is registered twice`);
    this.byName.set(carrier.name, carrier);
    this.defaultName ??= carrier.name;
    return this;
  }

  setDefault(name: string): this {
    if (!this.byName.has(name)) throw new Error(`no carrier named ${name} to make the default`);
    this.defaultName = name;
    return this;
  }

  get(name: string): Carrier | undefined {
    return this.byName.get(name);
  }

  /** The carrier for calls that name none. */
  get default(): Carrier {
    const carrier = this.defaultName === undefined ? undefined : this.byName.get(this.defaultName);
    if (!carrier) throw new Error('no carrier is registered');
    return carrier;
  }

  get names(): string[] {
    return [...this.byName.keys()];
  }
}
