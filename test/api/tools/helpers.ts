/** Shared bits of the mid-call tool tests. */
export const ISO_MICRO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;

export function validTool(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    name: 'get_weather',
    description: 'Look up the weather for a city when the customer asks about it.',
    endpoint: 'https://api.example.test/weather',
    method: 'POST',
    ...overrides,
  };
}
