-- Reference data the spec's lists show (CONTRACT §2): languages, LLM models, public voices.
INSERT INTO "languages" ("name", "iso_2") VALUES
  ('English', 'en'), ('German', 'de'), ('French', 'fr'), ('Spanish', 'es'),
  ('Italian', 'it'), ('Dutch', 'nl'), ('Polish', 'pl'), ('Portuguese', 'pt'),
  ('Swedish', 'sv'), ('Danish', 'da'), ('Turkish', 'tr'), ('Czech', 'cs');
--> statement-breakpoint
INSERT INTO "llm_models" ("name") VALUES
  ('gpt-4o-mini'), ('gpt-4o'), ('gpt-4.1'), ('gpt-4.1-mini'), ('claude-sonnet-4'), ('llama-3.3-70b');
--> statement-breakpoint
INSERT INTO "voices" ("name", "mode", "user_id") VALUES
  ('Anna', 'pipeline', NULL), ('Ben', 'pipeline', NULL), ('Clara', 'pipeline', NULL), ('David', 'pipeline', NULL),
  ('alloy', 'multimodal', NULL), ('echo', 'multimodal', NULL), ('shimmer', 'multimodal', NULL);
