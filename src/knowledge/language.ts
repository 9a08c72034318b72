/**
 * Which PostgreSQL text-search configuration suits a passage: the language whose common words
 * it uses most (a few dozen stop words each), or `simple` (no stemming) when none stands out.
 * Every configuration named here ships with PostgreSQL.
 */
const STOPWORDS: Record<string, string[]> = {
  english: 'the and of to in is are for with you your we our on at by this that from or be it as can will have not an'.split(' '),
  german: 'der die das und ist sind für mit sie ihr wir unser auf bei von zu im den dem ein eine nicht oder auch wird können haben'.split(' '),
  french: 'le la les et est sont pour avec vous nous votre notre sur dans de des du un une pas ou aussi être avoir'.split(' '),
  spanish: 'el la los las y es son para con usted nosotros su nuestro en de del un una no o también ser'.split(' '),
  italian: 'il lo la gli le e è sono per con voi noi vostro nostro su in di del un una non o anche essere'.split(' '),
  dutch: 'de het en is zijn voor met u wij uw ons op in van een niet of ook worden hebben'.split(' '),
};
const SETS = Object.fromEntries(Object.entries(STOPWORDS).map(([k, v]) => [k, new Set(v)]));

export type TextSearchConfig = keyof typeof STOPWORDS | 'simple';
export const TEXT_SEARCH_CONFIGS = [...Object.keys(STOPWORDS), 'simple'] as TextSearchConfig[];

export function detectLanguage(text: string): TextSearchConfig {
  const tokens = text.toLowerCase().match(/\p{L}+/gu) ?? [];
  if (tokens.length === 0) return 'simple';
  let best: TextSearchConfig = 'simple';
  let bestHits = 0;
  for (const [config, set] of Object.entries(SETS)) {
    let hits = 0;
    for (const t of tokens) if (set.has(t)) hits++;
    if (hits > bestHits) {
      best = config as TextSearchConfig;
      bestHits = hits;
    }
  }
  // Short passages (a price line) carry few stop words: two suffice; otherwise 3 % of the words.
  return bestHits >= 2 && bestHits >= tokens.length * 0.03 ? best : 'simple';
}
