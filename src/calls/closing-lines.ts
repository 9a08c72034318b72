/**
 * The lines the call says on its own when the caller goes quiet, in the assistant's language:
 * the re-engagement prompt, and the closing line before the call is hung up for silence (the
 * assistant's `silence_goodbye_message` replaces it; '' says none). A language without lines
 * here speaks English.
 */
interface Lines {
  reengagement: string;
  goodbye: string;
}

const LINES: Record<string, Lines> = {
  en: { reengagement: 'Are you still there?', goodbye: 'It seems you are no longer there. Goodbye!' },
  de: { reengagement: 'Sind Sie noch da?', goodbye: 'Sie scheinen nicht mehr da zu sein. Auf Wiederhören!' },
  fr: { reengagement: 'Êtes-vous toujours là ?', goodbye: 'Vous ne semblez plus être là. Au revoir !' },
  es: { reengagement: '¿Sigue ahí?', goodbye: 'Parece que ya no está ahí. ¡Adiós!' },
  it: { reengagement: 'È ancora lì?', goodbye: 'Sembra che non sia più in linea. Arrivederci!' },
  nl: { reengagement: 'Bent u er nog?', goodbye: 'U lijkt er niet meer te zijn. Tot ziens!' },
  pt: { reengagement: 'Ainda está aí?', goodbye: 'Parece que já não está aí. Adeus!' },
};

function linesOf(language: string | undefined): Lines {
  return LINES[(language ?? 'en').toLowerCase().slice(0, 2)] ?? LINES.en!;
}

/** The re-engagement prompt in `language`. */
export function reengagementLine(language: string | undefined): string {
  return linesOf(language).reengagement;
}

/** What is said before a silence hang-up: the assistant's own line (null: the default in `language`); '' for none. */
export function silenceGoodbyeLine(own: string | null | undefined, language: string | undefined): string {
  if (own !== null && own !== undefined) return own.trim();
  return linesOf(language).goodbye;
}
