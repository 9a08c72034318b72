/** `{{variable}}` placeholders in prompts and the initial message (CONTRACT §6). */
export function fillTemplate(text: string, variables: Record<string, unknown>): string {
  return text.replace(/\{\{\s*([A-Za-z_][\w.-]*)\s*\}\}/g, (whole, name: string) => {
    if (!Object.prototype.hasOwnProperty.call(variables, name)) return whole;
    const value = variables[name];
    if (value === null || value === undefined) return whole;
    return typeof value === 'string' ? value : typeof value === 'object' ? JSON.stringify(value) : String(value);
  });
}
